"""Reading the files under deploy/ for the static checks: YAML documents, the Dockerfile's
instructions, and the environment variables the service actually reads."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from manhattan.settings import Settings

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE_FILE = DEPLOY / "docker-compose.yml"


def load_yaml_documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def k8s_manifest_files() -> list[Path]:
    return sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def k8s_objects() -> list[dict[str, Any]]:
    return [doc for path in k8s_manifest_files() for doc in load_yaml_documents(path)]


def k8s_object(kind: str, name: str) -> dict[str, Any]:
    found = [o for o in k8s_objects() if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind}/{name} in deploy/k8s, found {len(found)}"
    return found[0]


class _RecordingEnvironment(Mapping[str, str]):
    """An empty environment that remembers every name looked up in it."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.names.add(name)
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:
        self.names.add(name)
        return default

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def settings_variable_names() -> frozenset[str]:
    """The environment variables ``Settings.from_env`` reads, found by asking it."""
    environment = _RecordingEnvironment()
    Settings.from_env(environment)
    return frozenset(environment.names)


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str
    stage: int

    def exec_form(self) -> list[str]:
        """The JSON array of an exec-form CMD/ENTRYPOINT/HEALTHCHECK CMD."""
        text = self.arguments
        if self.keyword == "HEALTHCHECK":
            text = text[text.index("CMD") + 3 :]
        value = json.loads(text)
        assert isinstance(value, list) and all(isinstance(v, str) for v in value)
        return value

    def flags(self) -> dict[str, str]:
        """``--name=value`` options before the instruction's arguments (HEALTHCHECK, COPY)."""
        return dict(re.findall(r"--([a-z-]+)=(\S+)", self.arguments.split(" CMD ")[0]))


def dockerfile_instructions(path: Path = DOCKERFILE) -> list[Instruction]:
    logical: list[str] = []
    pending = ""
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        logical.append(pending + stripped)
        pending = ""
    assert not pending, "the Dockerfile ends in a line continuation"
    instructions, stage = [], -1
    for text in logical:
        keyword, _, arguments = text.partition(" ")
        if keyword.upper() == "FROM":
            stage += 1
        instructions.append(Instruction(keyword.upper(), arguments.strip(), stage))
    return instructions


def final_stage(instructions: list[Instruction]) -> list[Instruction]:
    last = max(i.stage for i in instructions)
    return [i for i in instructions if i.stage == last]


def shell_words(text: str) -> list[str]:
    return shlex.split(text)

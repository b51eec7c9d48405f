"""The engine's frozen dataclasses pickle and copy the same in both builds.

Interpreted, ``dataclasses`` gives a frozen class with slots a ``__setstate__`` that restores
its fields with ``object.__setattr__``. Compiled by mypyc, the class has native attributes and
pickle restores them with ``setattr``, which a frozen class refuses (``FrozenInstanceError``):
a ``Move`` could not cross the bot pool's pipe; and a compiled class that writes its own
``__init__`` runs it from ``__new__``, so an empty instance cannot even be made. ``register``
gives each class a ``copyreg`` reducer that calls the class with its fields (those its
``__init__`` takes; the others, such as ``Rules``' lookups, it derives again), whichever build
runs, so both builds do the same.
"""

from __future__ import annotations

import copyreg
import dataclasses
from collections.abc import Iterable
from types import ModuleType
from typing import Any


def rebuild(cls: Any, values: dict[str, Any]) -> Any:
    """An instance of the frozen dataclass ``cls`` with ``values`` as its fields."""
    return cls(**values)


def reduce(obj: Any) -> tuple[Any, ...]:
    fields = dataclasses.fields(obj)
    return rebuild, (type(obj), {f.name: getattr(obj, f.name) for f in fields if f.init})


def frozen_dataclasses(modules: Iterable[ModuleType]) -> list[type[Any]]:
    """The frozen dataclasses defined in ``modules``."""
    out = []
    for module in modules:
        for value in vars(module).values():
            params = getattr(value, "__dataclass_params__", None)
            mine = isinstance(value, type) and value.__module__ == module.__name__
            if mine and params is not None and params.frozen:
                out.append(value)
    return out


def register(modules: Iterable[ModuleType]) -> None:
    for cls in frozen_dataclasses(modules):
        copyreg.pickle(cls, reduce)

"""deploy/k8s, checked without a cluster: every object against the Kubernetes OpenAPI schemas
(strict: unknown fields fail), then the references between objects and to the service."""

from __future__ import annotations

import base64
import os
from typing import Any

import pytest

from manhattan.sealing import SealingKey, SealingKeyError
from manhattan.settings import Settings
from tests.deploy.deploy_files import (
    K8S,
    k8s_manifest_files,
    k8s_object,
    k8s_objects,
    load_yaml_documents,
    settings_variable_names,
)

kubernetes_validate = pytest.importorskip("kubernetes_validate")

#: The oldest Kubernetes minor version the manifests support, and the newest the schemas know.
KUBERNETES_VERSIONS = ("1.29", kubernetes_validate.latest_version())
SELECTOR_LABEL = {"app.kubernetes.io/name": "manhattan"}


def object_name(obj: dict[str, Any]) -> str:
    return f"{obj['kind']}/{obj['metadata']['name']}"


def pod_spec() -> dict[str, Any]:
    spec: dict[str, Any] = k8s_object("Deployment", "manhattan")["spec"]["template"]["spec"]
    return spec


def service_container() -> dict[str, Any]:
    [container] = pod_spec()["containers"]
    return container


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("obj", k8s_objects(), ids=object_name)
def test_object_matches_the_kubernetes_schema(obj: dict[str, Any], version: str) -> None:
    try:
        kubernetes_validate.validate(obj, version, strict=True)
    except kubernetes_validate.ValidationError as error:
        where = "/".join(str(p) for p in error.absolute_path)
        pytest.fail(f"{object_name(obj)} at {where}: {error.message}")


def test_every_object_is_named_and_labelled() -> None:
    for obj in k8s_objects():
        labels = obj["metadata"].get("labels", {})
        assert labels.get("app.kubernetes.io/part-of") == "manhattan", object_name(obj)


def test_kustomization_lists_every_manifest_but_the_placeholder_secret() -> None:
    [kustomization] = load_yaml_documents(K8S / "kustomization.yaml")
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in k8s_manifest_files()}
    assert listed <= on_disk, f"listed but missing: {listed - on_disk}"
    # Applying the placeholder would overwrite the real key created with kubectl.
    assert on_disk - listed == {"secret.yaml"}
    image = service_container()["image"].split(":")[0]
    assert [i["name"] for i in kustomization["images"]] == [image]


def test_probes_use_the_operations_endpoints_on_the_named_port() -> None:
    container = service_container()
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["httpGet"]["port"] in ports
    # Liveness must tolerate a slow moment more than readiness does: a restart costs more.
    liveness, readiness = container["livenessProbe"], container["readinessProbe"]
    assert (
        liveness["periodSeconds"] * liveness["failureThreshold"]
        > readiness["periodSeconds"] * readiness["failureThreshold"]
    )
    assert ports["http"] == Settings.from_env({"MANHATTAN_PORT": "8000"}).port


def test_selectors_match_the_pods() -> None:
    deployment = k8s_object("Deployment", "manhattan")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"] == SELECTOR_LABEL
    assert SELECTOR_LABEL.items() <= pod_labels.items()
    service = k8s_object("Service", "manhattan")
    assert service["spec"]["selector"] == SELECTOR_LABEL
    port_names = {p["name"] for p in service_container()["ports"]}
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= port_names
    assert k8s_object("PodDisruptionBudget", "manhattan")["spec"]["selector"]["matchLabels"] == (
        SELECTOR_LABEL
    )
    redis = k8s_object("Deployment", "manhattan-redis")
    redis_labels = redis["spec"]["template"]["metadata"]["labels"]
    redis_service = k8s_object("Service", "manhattan-redis")
    assert redis_service["spec"]["selector"].items() <= redis_labels.items()
    policy = k8s_object("NetworkPolicy", "manhattan-redis")
    [rule] = policy["spec"]["ingress"]
    assert rule["from"][0]["podSelector"]["matchLabels"] == SELECTOR_LABEL


def test_autoscaler_and_disruption_budget_keep_a_replica_serving() -> None:
    hpa = k8s_object("HorizontalPodAutoscaler", "manhattan")
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "manhattan",
    }
    assert 2 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    # Utilization is a share of the request, so the container must request CPU.
    assert "cpu" in service_container()["resources"]["requests"]
    pdb = k8s_object("PodDisruptionBudget", "manhattan")
    assert pdb["spec"]["maxUnavailable"] < hpa["spec"]["minReplicas"]
    strategy = k8s_object("Deployment", "manhattan")["spec"]["strategy"]["rollingUpdate"]
    assert strategy["maxUnavailable"] == 0


def test_pods_run_as_non_root_with_a_read_only_root() -> None:
    for name in ("manhattan", "manhattan-redis"):
        spec = k8s_object("Deployment", name)["spec"]["template"]["spec"]
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert spec["automountServiceAccountToken"] is False
        for container in spec["containers"]:
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False
            assert context["readOnlyRootFilesystem"] is True
            assert context["capabilities"]["drop"] == ["ALL"]
            assert "memory" in container["resources"]["limits"]


def test_every_variable_the_manifests_set_is_a_setting() -> None:
    known = settings_variable_names()
    configmap = k8s_object("ConfigMap", "manhattan-settings")
    container = service_container()
    assert container["envFrom"] == [{"configMapRef": {"name": "manhattan-settings"}}]
    set_by_manifests = set(configmap["data"]) | {e["name"] for e in container["env"]}
    assert set_by_manifests - known == set(), "set in deploy/k8s but not read by settings.py"
    secret = k8s_object("Secret", "manhattan-token-key")
    for entry in container["env"]:
        reference = entry["valueFrom"]["secretKeyRef"]
        assert reference["name"] == "manhattan-token-key"
        assert reference["key"] in secret["stringData"]


def test_configmap_values_parse_as_settings() -> None:
    data = k8s_object("ConfigMap", "manhattan-settings")["data"]
    settings = Settings.from_env(data)
    assert settings.redis_url.startswith("redis://manhattan-redis:6379")
    redis_service = k8s_object("Service", "manhattan-redis")
    assert redis_service["spec"]["ports"][0]["port"] == 6379


def test_secret_placeholder_is_refused_and_the_documented_recipe_is_accepted() -> None:
    placeholder = k8s_object("Secret", "manhattan-token-key")["stringData"]["MANHATTAN_TOKEN_KEY"]
    with pytest.raises(SealingKeyError):
        SealingKey.parse(placeholder)
    # secret.yaml's recipe: 32 random bytes, base64 with the URL alphabet and no padding.
    recipe = base64.b64encode(os.urandom(32)).decode().translate(str.maketrans("+/", "-_"))
    key = SealingKey.parse("k1:" + recipe.rstrip("="))
    assert len(key.key) == 32


def test_ingress_routes_to_the_service_and_limits_each_client() -> None:
    """The rate-limiting example (the README leaves per-client limits to the ingress): it must
    reach the Service's named port, limit by client, and cap bodies like the service does."""
    ingress = k8s_object("Ingress", "manhattan")
    service = k8s_object("Service", "manhattan")
    service_ports = {p["name"] for p in service["spec"]["ports"]}
    backends = [
        path["backend"]["service"]
        for rule in ingress["spec"]["rules"]
        for path in rule["http"]["paths"]
    ]
    assert backends
    for backend in backends:
        assert backend["name"] == "manhattan"
        assert backend["port"]["name"] in service_ports
    annotations = ingress["metadata"]["annotations"]
    prefix = "nginx.ingress.kubernetes.io/"
    assert float(annotations[prefix + "limit-rps"]) > 0
    assert int(annotations[prefix + "limit-burst-multiplier"]) >= 1
    assert int(annotations[prefix + "limit-connections"]) > 0
    body_size = annotations[prefix + "proxy-body-size"]
    units = {"k": 1024, "m": 1024 * 1024}
    limit = int(body_size[:-1]) * units[body_size[-1].lower()]
    configmap = k8s_object("ConfigMap", "manhattan-settings")["data"]
    assert limit == Settings.from_env(configmap).max_body_bytes

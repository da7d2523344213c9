"""deploy/docker-compose.yml (no Docker engine here): it parses, and names only files,
build args, roles and variables that exist, with the GPU, volume and health wiring."""

from __future__ import annotations

import re
from dataclasses import fields
from functools import cache
from pathlib import Path

import ray
import yaml
from deploy_files import DEPLOY, ROOT, dockerfile_assignments, interpolated_names, resolve_defaults

from deltamatch.service.config import ServiceConfig

GPU_IDS = {"0", "1", "2", "3"}


def _env(service: dict) -> dict[str, str]:
    return {k: resolve_defaults(str(v)) for k, v in (service.get("environment") or {}).items()}


@cache
def _read_by_ray(name: str) -> bool:
    ray_dir = Path(ray.__file__).parent
    pattern = re.compile(rf"\b{name}\b")
    return any(pattern.search(p.read_text(errors="ignore")) for p in ray_dir.rglob("*.py"))


def _read_by_entrypoint(name: str) -> bool:
    return re.search(rf"\$\{{?{name}\b", (DEPLOY / "entrypoint.sh").read_text()) is not None


SERVICE_VARIABLES = {f"DELTAMATCH_{f.name.upper()}" for f in fields(ServiceConfig)}


def _gib(size: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmg]?)b?", size.lower())
    assert m, f"unparsable size {size!r}"
    return float(m.group(1)) * {"": 2**-30, "k": 2**-20, "m": 2**-10, "g": 1}[m.group(2)]


def test_compose_parses_into_services_and_volumes(compose: dict):
    assert {"ray-head", "gpu-0", "gpu-1", "gpu-2", "gpu-3", "prometheus"} <= set(compose["services"])
    assert {"data", "kernel-cache"} <= set(compose["volumes"])


def test_build_context_and_dockerfile_exist(compose: dict):
    build = compose["services"]["ray-head"]["build"]
    context = (DEPLOY / build["context"]).resolve()
    assert context == ROOT
    assert (context / build["dockerfile"]).is_file()


def test_build_args_are_declared_in_the_dockerfile(compose: dict):
    args = compose["services"]["ray-head"]["build"].get("args", {})
    declared = dockerfile_assignments("ARG")
    assert set(args) <= set(declared)
    for name, value in args.items():
        assert resolve_defaults(value) == declared[name], name


def test_bind_mounts_name_files_that_exist(compose: dict):
    sources = [v.split(":")[0] for s in compose["services"].values() for v in s.get("volumes", [])
               if isinstance(v, str) and v.startswith((".", "/"))]
    assert sources, "expected the Prometheus config bind mount"
    for source in sources:
        assert (DEPLOY / source).exists(), source


def test_named_volumes_are_declared(compose: dict):
    for name, service in compose["services"].items():
        for v in service.get("volumes", []):
            source = v.split(":")[0]
            if not source.startswith((".", "/")):
                assert source in compose["volumes"], (name, source)


def test_every_interpolated_variable_is_documented(compose_text: str, env_table: dict):
    assert interpolated_names(compose_text) - set(env_table) == set()


def test_every_container_variable_is_documented_and_read(image_services: dict, env_table: dict):
    for name, service in image_services.items():
        for var in _env(service):
            assert var in env_table, f"{name}: {var} is not in the README table"
            read = var in SERVICE_VARIABLES or _read_by_entrypoint(var) or _read_by_ray(var)
            assert read, f"{name}: nothing reads {var}"


def test_every_documented_variable_is_used(compose_text: str, env_table: dict):
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    for var in env_table:
        used = (var in compose_text or var in dockerfile or var in SERVICE_VARIABLES
                or _read_by_entrypoint(var))
        assert used, f"the README documents {var}, which nothing uses"


def test_dockerfile_service_variables_are_service_settings():
    for var in dockerfile_assignments("ENV"):
        if var.startswith("DELTAMATCH_"):
            assert var in SERVICE_VARIABLES, var


def test_gpu_workers_reserve_one_gpu_each_by_device_id(compose: dict):
    ids = []
    for name, service in compose["services"].items():
        devices = service.get("deploy", {}).get("resources", {}).get("reservations", {}).get("devices")
        if devices is None:
            continue
        assert len(devices) == 1, name
        device = devices[0]
        assert "gpu" in device["capabilities"], name
        assert "count" not in device, f"{name}: device_ids and count exclude each other"
        assert len(device["device_ids"]) == 1, name
        ids.append(str(device["device_ids"][0]))
        assert service["command"] == ["worker"], name
        assert _env(service)["RAY_NUM_GPUS"] == "1", name
    assert sorted(ids) == sorted(GPU_IDS)


def test_head_offers_no_gpu_so_workers_land_on_gpu_nodes(compose: dict):
    head = compose["services"]["ray-head"]
    assert head["command"] == ["head"]
    env = _env(head)
    assert env["RAY_NUM_GPUS"] == "0"
    assert int(env["DELTAMATCH_WORKERS"]) == len(GPU_IDS)
    assert float(env["DELTAMATCH_NUM_GPUS_PER_WORKER"]) == 1.0


def test_workers_join_the_heads_port(compose: dict):
    head_port = _env(compose["services"]["ray-head"])["RAY_PORT"]
    for name in (f"gpu-{i}" for i in sorted(GPU_IDS)):
        assert _env(compose["services"][name])["RAY_ADDRESS"].rsplit(":", 1)[1] == head_port


def test_nodes_sharing_the_host_network_use_distinct_agent_ports(image_services: dict):
    ports = [_env(s).get("RAY_DASHBOARD_AGENT_LISTEN_PORT", "52365") for s in image_services.values()]
    assert len(set(ports)) == len(ports)
    assert all(s["network_mode"] == "host" for s in image_services.values())


def test_every_node_uses_the_same_ray_auth_setting(image_services: dict, compose: dict):
    raw = [(compose["services"][n].get("environment") or {}) for n in image_services]
    assert {e["RAY_AUTH_MODE"] for e in raw} == {"${RAY_AUTH_MODE:-token}"}
    assert {e["RAY_AUTH_TOKEN"] for e in raw} == {"${RAY_AUTH_TOKEN:-}"}


def test_ray_containers_get_a_large_shm(image_services: dict):
    for name, service in image_services.items():
        assert _gib(resolve_defaults(service["shm_size"])) >= 8, name


def test_data_and_kernel_cache_sit_on_named_volumes(compose: dict, image_services: dict):
    env = dockerfile_assignments("ENV")
    mounts = {n: {v.split(":")[1]: v.split(":")[0] for v in s["volumes"]} for n, s in image_services.items()}
    assert mounts["ray-head"][env["DELTAMATCH_DATA_DIR"]] == "data"
    for name, by_path in mounts.items():
        cache_mount = next(p for p in by_path if env["CUPY_CACHE_DIR"].startswith(p + "/"))
        assert by_path[cache_mount] == "kernel-cache", name
        assert env["NUMBA_CACHE_DIR"].startswith(cache_mount + "/"), name


def test_image_services_check_health_through_readyz(image_services: dict):
    for name, service in image_services.items():
        assert service["healthcheck"]["test"] == ["CMD", "deltamatch-entrypoint", "healthcheck"], name
        url = _env(service).get("DELTAMATCH_HEALTH_URL", "http://127.0.0.1:8000/readyz")
        assert url == "http://127.0.0.1:8000/readyz", name


def test_every_service_has_a_restart_policy(compose: dict):
    for name, service in compose["services"].items():
        assert service.get("restart") in ("always", "unless-stopped", "on-failure"), name


def test_services_run_entrypoint_roles(image_services: dict, entrypoint_roles: set):
    for name, service in image_services.items():
        assert service["command"][0] in entrypoint_roles, name


def test_published_addresses_default_to_loopback(compose: dict):
    head = _env(compose["services"]["ray-head"])
    assert head["DELTAMATCH_HOST"] == "127.0.0.1"
    command = compose["services"]["prometheus"]["command"]
    listen = next(a.split("=", 1)[1] for a in command if a.startswith("--web.listen-address="))
    assert resolve_defaults(listen).startswith("127.0.0.1:")


def test_prometheus_scrapes_the_service_metrics(compose: dict):
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    port = _env(compose["services"]["ray-head"])["DELTAMATCH_PORT"]
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    job = jobs["deltamatch"]
    assert job.get("metrics_path", "/metrics") == "/metrics"
    assert job["static_configs"][0]["targets"] == [f"127.0.0.1:{port}"]
    command = compose["services"]["prometheus"]["command"]
    mounted = {v.split(":")[1] for v in compose["services"]["prometheus"]["volumes"]}
    assert "--config.file=/etc/prometheus/prometheus.yml" in command
    assert "/etc/prometheus/prometheus.yml" in mounted


def test_workers_wait_for_the_head_to_start_not_to_be_healthy(compose: dict):
    # The head turns healthy only once every GPU worker has joined: waiting for that would deadlock.
    for name in (f"gpu-{i}" for i in sorted(GPU_IDS)):
        assert compose["services"][name]["depends_on"]["ray-head"]["condition"] == "service_started"

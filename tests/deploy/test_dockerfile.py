"""deploy/Dockerfile (not built here: no Docker engine): base, install, user, volumes,
health check, copied files, and agreement with the commands the README documents."""

from __future__ import annotations

import fnmatch
import re
import shlex
from importlib.metadata import requires

import yaml
from deploy_files import DEPLOY, ROOT, dockerfile_assignments, dockerfile_instructions, resolve_defaults


def _instructions(word: str) -> list[str]:
    return [rest for w, rest in dockerfile_instructions() if w == word]


def _docker_commands(readme_commands: list[str], *prefix: str) -> list[list[str]]:
    out = []
    for line in readme_commands:
        words = shlex.split(line)
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            words = words[1:]
        if words[:len(prefix)] == list(prefix):
            out.append(words)
    return out


def test_base_image_is_a_cuda_12_runtime():
    assert _instructions("FROM") == ["${CUDA_IMAGE}"]
    base = dockerfile_assignments("ARG")["CUDA_IMAGE"]
    assert re.fullmatch(r"nvidia/cuda:12\.[0-9.]+-runtime-ubuntu[0-9.]+", base)


def test_installs_the_project_with_its_service_and_gpu_extras():
    assert dockerfile_assignments("ARG")["DELTAMATCH_EXTRAS"] == "service,gpu"
    assert any('pip install ".[${DELTAMATCH_EXTRAS}]"' in r for r in _instructions("RUN"))
    gpu = [r for r in requires("deltamatch") if r.startswith("cupy-cuda12x") and 'extra == "gpu"' in r]
    assert gpu, "the gpu extra must pull cupy-cuda12x"


def test_runs_as_a_non_root_user_it_creates():
    words = [w for w, _ in dockerfile_instructions()]
    user = _instructions("USER")[-1]
    assert user not in ("root", "0")
    assert any(f"useradd --uid \"${{DELTAMATCH_UID}}\" --create-home --shell /usr/sbin/nologin {user}" in r
               for r in _instructions("RUN"))
    assert max(i for i, w in enumerate(words) if w == "USER") < words.index("ENTRYPOINT")


def test_data_and_kernel_caches_are_volumes():
    env = dockerfile_assignments("ENV")
    volumes = yaml.safe_load(_instructions("VOLUME")[0])
    for var in ("DELTAMATCH_DATA_DIR", "CUPY_CACHE_DIR", "NUMBA_CACHE_DIR"):
        assert any(env[var] == v or env[var].startswith(v + "/") for v in volumes), var


def test_healthcheck_runs_the_entrypoint_healthcheck_role(entrypoint_roles: set):
    check = _instructions("HEALTHCHECK")[0]
    assert check.endswith('CMD ["deltamatch-entrypoint", "healthcheck"]')
    assert "healthcheck" in entrypoint_roles
    assert "/readyz" in (DEPLOY / "entrypoint.sh").read_text()


def test_entrypoint_and_default_role(entrypoint_roles: set):
    assert yaml.safe_load(_instructions("ENTRYPOINT")[0]) == ["deltamatch-entrypoint"]
    assert yaml.safe_load(_instructions("CMD")[0])[0] in entrypoint_roles
    assert "deploy/entrypoint.sh /usr/local/bin/deltamatch-entrypoint" in _instructions("COPY")


def _ignored(path: str, patterns: list[str]) -> bool:
    ignored = False
    for p in patterns:
        negate = p.startswith("!")
        p = p.lstrip("!")
        if fnmatch.fnmatch(path, p) or fnmatch.fnmatch(path, p.removesuffix("/**") + "/*") or path == p:
            ignored = not negate
    return ignored


def test_copied_files_exist_and_reach_the_build_context():
    patterns = [line.strip() for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    sources = [s for c in _instructions("COPY") for s in shlex.split(c)[:-1]]
    assert sources
    for source in sources:
        assert (ROOT / source).exists(), source
        inside = source if (ROOT / source).is_file() else f"{source}/__init__.py"
        assert not _ignored(inside, patterns), f"{source} is excluded from the build context"
    assert _ignored(".venv/bin/python", patterns)


def test_readme_build_command_matches_the_dockerfile_and_compose(readme_commands: list[str], compose: dict):
    header = (DEPLOY / "Dockerfile").read_text().splitlines()[1]
    in_dockerfile = shlex.split(header.split(":", 1)[1])
    documented = _docker_commands(readme_commands, "docker", "build")
    assert documented
    image = resolve_defaults(compose["services"]["ray-head"]["image"])
    for words in [*documented, in_dockerfile]:
        assert words[words.index("-f") + 1] == "deploy/Dockerfile"
        assert words[words.index("-t") + 1] == image
        assert words[-1] == "."


def test_readme_compose_commands_name_existing_files_and_services(readme_commands: list[str], compose: dict):
    commands = _docker_commands(readme_commands, "docker", "compose")
    assert commands
    for words in commands:
        assert (ROOT / words[words.index("-f") + 1]).is_file()
        verb = next(w for w in words[words.index("-f") + 2:] if not w.startswith("-"))
        rest = words[words.index(verb) + 1:]
        named = [w for w in rest if not w.startswith("-")]
        if verb in ("up", "build", "logs"):
            assert set(named) <= set(compose["services"]), words
        elif verb == "exec":
            assert named[0] in compose["services"], words


def test_readme_container_roles_are_entrypoint_roles(readme_commands: list[str], readme_section: str,
                                                     entrypoint_roles: set):
    image = "deltamatch:latest"
    for words in _docker_commands(readme_commands, "docker", "run"):
        assert words[words.index(image) + 1] in entrypoint_roles, words
    for role in re.findall(r"deploy/entrypoint\.sh (\w+)", readme_section):
        assert role in entrypoint_roles, role
    for role in re.findall(r"role: `(\w+)`|, `(\w+)` \(", readme_section):
        assert {r for r in role if r} <= entrypoint_roles


def test_readme_has_a_cpu_only_container_for_a_laptop(readme_commands: list[str]):
    builds = [w for w in _docker_commands(readme_commands, "docker", "build") if "--build-arg" in w]
    assert any(w[w.index("--build-arg") + 1] == "DELTAMATCH_EXTRAS=service" for w in builds)
    assert not any('extra == "service"' in r and r.startswith("cupy") for r in requires("deltamatch"))
    runs = [" ".join(w) for w in _docker_commands(readme_commands, "docker", "run")]
    cpu = [r for r in runs if "DELTAMATCH_BACKEND=cpu" in r]
    assert cpu and all("--gpus" not in r and r.endswith("deltamatch:latest head") for r in cpu)

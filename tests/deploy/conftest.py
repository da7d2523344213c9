"""Fixtures for the deployment tests: the deploy files, parsed, and the README section."""

from __future__ import annotations

import re

import pytest
import yaml
from deploy_files import DEPLOY, ROOT


@pytest.fixture(scope="session")
def compose_text() -> str:
    return (DEPLOY / "docker-compose.yml").read_text()


@pytest.fixture(scope="session")
def compose(compose_text: str) -> dict:
    return yaml.safe_load(compose_text)


@pytest.fixture(scope="session")
def readme_section() -> str:
    """The README text between `<!-- section: deploy -->` and the next heading."""
    text = (ROOT / "README.md").read_text()
    start = text.index("<!-- section: deploy -->")
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


@pytest.fixture(scope="session")
def env_table(readme_section: str) -> dict[str, list[str]]:
    """The deployment env-var table: variable -> its other cells."""
    rows = {}
    for line in readme_section.splitlines():
        m = re.match(r"\|\s*`([A-Z][A-Z0-9_]*)`\s*\|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


@pytest.fixture(scope="session")
def readme_commands(readme_section: str) -> list[str]:
    """Every command line of the section's ```sh blocks (continuations joined, comments cut)."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", readme_section, flags=re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = line.split("  #", 1)[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


@pytest.fixture(scope="session")
def entrypoint_roles() -> set[str]:
    """The roles the entrypoint's `case "$role"` accepts by name."""
    text = (DEPLOY / "entrypoint.sh").read_text()
    return set(re.findall(r"^    ([a-z]+)\)", text[text.index('case "$role" in'):], flags=re.M))


@pytest.fixture(scope="session")
def image_services(compose: dict) -> dict[str, dict]:
    """The compose services that run the deltamatch image."""
    image = compose["services"]["ray-head"]["image"]
    return {name: s for name, s in compose["services"].items() if s.get("image") == image}

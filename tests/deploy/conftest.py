"""Shared fixtures for the deployment tests: the deploy files, parsed, and the README section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
ENTRYPOINT = DEPLOY / "entrypoint.sh"


def readme_deploy_section() -> str:
    """The README text between `<!-- section: deploy -->` and the next heading."""
    text = (ROOT / "README.md").read_text()
    start = text.index("<!-- section: deploy -->")
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


def readme_env_table() -> dict[str, str]:
    """The deployment env-var table: variable name -> the rest of its row."""
    rows = {}
    for line in readme_deploy_section().splitlines():
        m = re.match(r"\|\s*`([A-Z][A-Z0-9_]*)`\s*\|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def readme_shell_commands() -> list[str]:
    """Every command line in the section's ```sh blocks (continuations joined, comments cut)."""
    blocks = re.findall(r"```sh\n(.*?)```", readme_deploy_section(), flags=re.S)
    commands = []
    for block in blocks:
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def entrypoint_roles() -> set[str]:
    """The roles the entrypoint's `case "$role"` accepts."""
    text = ENTRYPOINT.read_text()
    block = text[text.index('case "$role" in'):]
    return set(re.findall(r"^    ([a-z]+)\)", block, flags=re.M))


@pytest.fixture(scope="session")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())

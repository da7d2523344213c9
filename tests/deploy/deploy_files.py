"""Helpers for the deployment tests: paths, compose interpolation, the Dockerfile's instructions."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
_INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?]([^${}]*))?\}")


def resolve_defaults(value: str) -> str:
    """`value` with every `${VAR:-default}` replaced by its default, as compose does with no env."""
    while True:
        new = _INTERPOLATION.sub(lambda m: m.group(2) or "", value)
        if new == value:
            return new
        value = new


def interpolated_names(text: str) -> set[str]:
    """Every variable a compose text interpolates, nested defaults included."""
    return set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text))


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", (DEPLOY / "Dockerfile").read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def dockerfile_assignments(instruction: str) -> dict[str, str]:
    """NAME=value pairs of every ARG or ENV instruction."""
    values = {}
    for word, rest in dockerfile_instructions():
        if word == instruction:
            for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)(?:=(\S*))?", rest):
                values[m.group(1)] = m.group(2) or ""
    return values

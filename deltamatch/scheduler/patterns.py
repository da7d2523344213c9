"""Patterns: parsing, built-ins, automorphisms and isomorphic edge classes.

A pattern is a connected simple undirected graph on vertices 0..k-1 (2 <= k <= 8).
Everything here is computed once per registration, so it favours clarity over speed.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

MIN_PATTERN_VERTICES = 2
MAX_PATTERN_VERTICES = 8


class PatternError(ValueError):
    """A pattern that is malformed or unsupported; the message names the problem."""


def _from_matrix(bits: str) -> list[tuple[int, int]]:
    k = int(round(len(bits) ** 0.5))
    assert k * k == len(bits)
    return [(i, j) for i in range(k) for j in range(i + 1, k) if bits[i * k + j] == "1"]


def _cycle(k: int) -> list[tuple[int, int]]:
    return [(i, (i + 1) % k) for i in range(k)]


def _clique(k: int) -> list[tuple[int, int]]:
    return list(itertools.combinations(range(k), 2))


# P1..P6: GraphPi/GraphSet's evaluation patterns, adjacency matrices row by row.
BUILTIN_PATTERNS: dict[str, list[tuple[int, int]]] = {
    "triangle": _clique(3),
    "4-path": [(0, 1), (1, 2), (2, 3)],
    "3-star": [(0, 1), (0, 2), (0, 3)],
    "4-cycle": _cycle(4),
    "tailed-triangle": [(0, 1), (1, 2), (0, 2), (2, 3)],
    "diamond": [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)],
    "4-clique": _clique(4),
    "5-cycle": _cycle(5),
    "house": [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)],
    "5-clique": _clique(5),
    "P1": _from_matrix("0111010011100011100001100"),
    "P2": _from_matrix("011011101110110101011000110000101000"),
    "P3": _from_matrix("011111101000110111101010101101101010"),
    "P4": _from_matrix("011110101101110000110000100001010010"),
    "P5": _from_matrix("0111111101111111011101110100111100011100001100000"),
    "P6": _from_matrix("0111111101111111011001110100111100011000001100000"),
}


@dataclass(frozen=True)
class Pattern:
    """A validated pattern: k vertices, sorted edge list (u < v), inducedness."""

    k: int
    edges: tuple[tuple[int, int], ...]
    induced: bool = False
    name: str | None = None

    @cached_property
    def adjacency(self) -> np.ndarray:
        """k x k boolean adjacency matrix."""
        a = np.zeros((self.k, self.k), dtype=bool)
        for u, v in self.edges:
            a[u, v] = a[v, u] = True
        return a

    @cached_property
    def automorphisms(self) -> np.ndarray:
        """All automorphisms as an (|Aut|, k) array: row s maps vertex x to s[x]."""
        perms = np.array(list(itertools.permutations(range(self.k))), dtype=np.int8)
        a = self.adjacency
        keep = (a[perms[:, :, None], perms[:, None, :]] == a).all(axis=(1, 2))
        return perms[keep]

    @cached_property
    def oriented_pairs(self) -> list[tuple[int, int]]:
        """The oriented pairs that can seed a match: edges, plus non-edges when induced."""
        return [
            (x, y)
            for x in range(self.k)
            for y in range(self.k)
            if x != y and (self.induced or self.adjacency[x, y])
        ]

    @cached_property
    def edge_classes(self) -> list[list[tuple[int, int]]]:
        """Orbits of oriented seed pairs under Aut (PGMiner's isomorphic edge classes)."""
        seen: set[tuple[int, int]] = set()
        classes = []
        for x, y in self.oriented_pairs:
            if (x, y) in seen:
                continue
            orbit = sorted({(int(s[x]), int(s[y])) for s in self.automorphisms})
            seen.update(orbit)
            classes.append(orbit)
        return classes

    def to_dict(self) -> dict:
        return {"k": self.k, "edges": [list(e) for e in self.edges], "induced": self.induced}


def parse_pattern(spec, induced: bool = False, name: str | None = None) -> Pattern:
    """Build a Pattern from a built-in name, an edge-list string ``0-1,1-2`` or pairs.

    Raises PatternError naming the problem: unknown name, self-loop, duplicate edge,
    gaps in the vertex numbering, too few or too many vertices, disconnected.
    """
    if isinstance(spec, str):
        if spec in BUILTIN_PATTERNS:
            return _validated(BUILTIN_PATTERNS[spec], induced, name or spec)
        if "-" not in spec:
            known = ", ".join(BUILTIN_PATTERNS)
            raise PatternError(f"unknown pattern name {spec!r}; built-ins are: {known}")
        spec = [_parse_pair(item) for item in spec.split(",") if item.strip()]
    try:
        pairs = [(int(u), int(v)) for u, v in spec]
    except (TypeError, ValueError) as exc:
        raise PatternError("pattern edges must be pairs of integers") from exc
    return _validated(pairs, induced, name)


def _parse_pair(item: str) -> tuple[int, int]:
    parts = item.strip().split("-")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise PatternError(f"pattern edge {item.strip()!r} is not of the form u-v")
    return int(parts[0]), int(parts[1])


def _validated(pairs: list[tuple[int, int]], induced: bool, name: str | None) -> Pattern:
    if not pairs:
        raise PatternError("pattern has no edges")
    seen = set()
    for u, v in pairs:
        if u < 0 or v < 0:
            raise PatternError(f"pattern edge [{u}, {v}] has a negative vertex")
        if u == v:
            raise PatternError(f"pattern edge [{u}, {v}] is a self-loop")
        key = (min(u, v), max(u, v))
        if key in seen:
            raise PatternError(f"pattern edge [{u}, {v}] is a duplicate")
        seen.add(key)
    k = max(max(e) for e in seen) + 1
    if k > MAX_PATTERN_VERTICES:
        raise PatternError(f"pattern has {k} vertices; at most {MAX_PATTERN_VERTICES} are supported")
    used = {x for e in seen for x in e}
    if len(used) != k:
        missing = sorted(set(range(k)) - used)
        raise PatternError(f"pattern vertices must be 0..{k - 1}; vertex {missing[0]} has no edge")
    if not _connected(k, seen):
        raise PatternError("pattern is disconnected")
    return Pattern(k=k, edges=tuple(sorted(seen)), induced=bool(induced), name=name)


def _connected(k: int, edges: set[tuple[int, int]]) -> bool:
    reach = {0}
    frontier = [0]
    while frontier:
        x = frontier.pop()
        for u, v in edges:
            for a, b in ((u, v), (v, u)):
                if a == x and b not in reach:
                    reach.add(b)
                    frontier.append(b)
    return len(reach) == k

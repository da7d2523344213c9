"""The brute-force oracle: every injective map of pattern vertices onto data vertices.

Deliberately naive and independent of the plan code; for tests on tiny graphs only.
"""

from __future__ import annotations

from collections.abc import Iterable


def reference_matches(
    edges: Iterable[tuple[int, int]],
    pattern_edges: Iterable[tuple[int, int]],
    k: int,
    induced: bool = False,
) -> set[tuple[int, ...]]:
    """The set of matches of the pattern in the graph, each in its listed form
    (the lexicographically smallest tuple among those describing the same match)."""
    adj: dict[int, set[int]] = {}
    for u, v in edges:
        adj.setdefault(u, set()).add(v)
        adj.setdefault(v, set()).add(u)
    p_edges = {frozenset(e) for e in pattern_edges}
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    vertices = sorted(adj)
    best: dict[frozenset, tuple[int, ...]] = {}

    def consistent(f: list[int]) -> bool:
        x = len(f) - 1
        for y in range(x):
            is_edge = f[y] in adj[f[x]]
            if frozenset((x, y)) in p_edges:
                if not is_edge:
                    return False
            elif induced and is_edge:
                return False
        return True

    def extend(f: list[int]) -> None:
        if len(f) == k:
            if induced:
                key = frozenset(f)
            else:
                key = frozenset(frozenset((f[a], f[b])) for a, b in pairs if frozenset((a, b)) in p_edges)
            t = tuple(f)
            if key not in best or t < best[key]:
                best[key] = t
            return
        for w in vertices:
            if w in f:
                continue
            f.append(w)
            if consistent(f):
                extend(f)
            f.pop()

    extend([])
    return set(best.values())

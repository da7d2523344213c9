"""Vertex names: the ids users give, and the integer ids the engine works on.

SPEC §1: a vertex is named by an integer in 0..2^31-1 or by a string of at most
`MAX_NAME_LENGTH` characters; one graph holds one kind of name; booleans and floats are
never names.  `parse_vertex_pairs` is the one place user ids are checked.  `VertexNames`
passes integer names to the engine unchanged and gives string names dense integer codes
in first-seen order, so workers and kernels only ever see integers; listed matches are
mapped back and put in listed form under the order of the names themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from deltamatch.kernels.cpu_engine import canonical_rows
from deltamatch.workers.graph import MAX_VERTEX_ID, GraphInputError, first_bad_pairs

MAX_NAME_LENGTH = 256
INT, STR = "int", "str"


class VertexIdError(GraphInputError):
    """Vertex ids that cannot be used; the message names the offending item."""


def _is_int(t: type) -> bool:
    return issubclass(t, (int, np.integer)) and not issubclass(t, (bool, np.bool_))


def _is_str(t: type) -> bool:
    return issubclass(t, str)


def _first_bad(arr: np.ndarray, what: str, ok: Callable[[type], bool]) -> VertexIdError:
    for i, row in enumerate(arr):
        for x in row:
            if not ok(type(x)):
                return VertexIdError(f"{what}[{i}]: vertex ids are integers or strings (one kind per "
                                     f"graph), got {x!r} in {list(row)!r}")
    return VertexIdError(f"{what}: vertex ids are integers or strings")


def _pairs_array(items, what: str) -> np.ndarray:
    """`items` as an (n, 2) array, object dtype unless it already was a typed array."""
    if isinstance(items, np.ndarray) and items.dtype.kind in "iuU":
        arr = items
    else:
        try:
            arr = np.array(list(items), dtype=object)
        except TypeError as exc:
            raise VertexIdError(f"{what}: must be a list of [u, v] pairs") from exc
        if arr.size and arr.ndim == 1:  # ragged: numpy kept the items as objects
            arr = arr.reshape(-1, 1)
    if arr.shape[0] == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        for i, item in enumerate(items):
            if not isinstance(item, (list, tuple, np.ndarray)) or len(item) != 2:
                raise VertexIdError(f"{what}[{i}]: every edge must be a pair [u, v], got {item!r}")
        raise VertexIdError(f"{what}: every edge must be a pair [u, v]")
    return arr


def parse_vertex_pairs(items, what: str = "edges") -> np.ndarray:
    """User edges as an (n, 2) array: int64 when every id is an integer, str when every id
    is a string.  Raises `VertexIdError` naming the first offending item: not a pair, a
    boolean, a float or other non-name, a mix of kinds, an integer outside 0..2^31-1, an
    empty or over-long string, a self-loop.

    >>> parse_vertex_pairs([["alice", "bob"]]).tolist()
    [['alice', 'bob']]
    >>> try:
    ...     parse_vertex_pairs([[1, True]], "insert")
    ... except VertexIdError as exc:
    ...     print(exc)
    insert[0]: vertex ids are integers or strings (one kind per graph), got True in [1, True]
    """
    if items is None:
        return np.zeros((0, 2), dtype=np.int64)
    arr = _pairs_array(items, what)
    if arr.dtype == object:
        kinds = set(map(type, arr.ravel()))
        if all(_is_int(t) for t in kinds):
            try:
                arr = arr.astype(np.int64)
            except OverflowError:
                arr = _out_of_range(arr, what)
        elif all(_is_str(t) for t in kinds):
            arr = arr.astype(str)
        else:
            first = type(arr[0, 0])
            same = _is_int if _is_int(first) else _is_str if _is_str(first) else (lambda t: False)
            raise _first_bad(arr, what, same)
    if arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
        bad, loop = first_bad_pairs(arr, MAX_VERTEX_ID)
        if bad >= 0:
            raise VertexIdError(f"{what}[{bad}]: integer vertex ids must be in 0..{MAX_VERTEX_ID}, "
                                f"got {arr[bad].tolist()}")
    else:
        lengths = np.char.str_len(arr)
        bad = np.flatnonzero(((lengths == 0) | (lengths > MAX_NAME_LENGTH)).any(axis=1))
        if bad.size:
            raise VertexIdError(f"{what}[{bad[0]}]: vertex names must have 1..{MAX_NAME_LENGTH} "
                                f"characters, got {arr[bad[0]].tolist()!r}")
        loops = np.flatnonzero(arr[:, 0] == arr[:, 1])
        loop = int(loops[0]) if loops.size else -1
    if loop >= 0:
        raise VertexIdError(f"{what}[{loop}]: self-loop {arr[loop].tolist()!r}")
    return arr


def _out_of_range(arr: np.ndarray, what: str) -> np.ndarray:
    for i, (u, v) in enumerate(arr):
        if not (0 <= u <= MAX_VERTEX_ID and 0 <= v <= MAX_VERTEX_ID):
            raise VertexIdError(f"{what}[{i}]: integer vertex ids must be in 0..{MAX_VERTEX_ID}, "
                                f"got {[u, v]}")
    raise AssertionError("an int64 overflow without an out-of-range id")


def id_kind(pairs: np.ndarray) -> str | None:
    """The kind of names in parsed pairs, None when there are none."""
    if pairs.size == 0:
        return None
    return STR if pairs.dtype.kind == "U" else INT


@dataclass
class Encoded:
    """Engine ids of one batch, and what the name table gains once the batch is applied."""

    pairs: list[np.ndarray]
    kind: str | None
    new_names: list[str] = field(default_factory=list)


class VertexNames:
    """The graph's name kind and, for string names, the code <-> name table (module docstring)."""

    def __init__(self, kind: str | None = None, names: list[str] | None = None):
        self.kind = kind
        self._names: list[str] = list(names or [])
        self._code = {name: i for i, name in enumerate(self._names)}
        self._array: np.ndarray | None = None

    @property
    def names(self) -> list[str]:
        """Every string name in code order (empty for integer graphs)."""
        return list(self._names)

    def encode(self, *batches: tuple[np.ndarray, str]) -> Encoded:
        """Engine ids of parsed (pairs, what) lists; new names get the next codes in order of
        first appearance.  Nothing changes until `commit`."""
        kinds = {id_kind(p) for p, _ in batches} - {None}
        kind = self.kind
        for pairs, what in batches:
            got = id_kind(pairs)
            if got is not None and kind is not None and got != kind:
                raise VertexIdError(f"{what}: this graph's vertices are named by "
                                    f"{'strings' if kind == STR else 'integers'}, got "
                                    f"{pairs[0].tolist()!r}; one graph holds one kind of name")
            kind = kind or got
        if kinds != {STR}:
            return Encoded([p.astype(np.int64).reshape(-1, 2) if p.size else np.zeros((0, 2), np.int64)
                            for p, _ in batches], kind)
        flat = np.concatenate([p.ravel() for p, _ in batches if p.size])
        unique, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        codes = np.array([self._code.get(name, -1) for name in unique.tolist()], dtype=np.int64)
        fresh = np.flatnonzero(codes < 0)
        fresh = fresh[np.argsort(first[fresh], kind="stable")]
        codes[fresh] = len(self._names) + np.arange(fresh.size)
        ids = codes[inverse.ravel()]
        out, at = [], 0
        for pairs, _ in batches:
            out.append(ids[at: at + pairs.size].reshape(-1, 2))
            at += pairs.size
        return Encoded(out, kind, unique[fresh].tolist())

    def commit(self, encoded: Encoded) -> None:
        """Keep the kind and the new names of an applied batch."""
        self.kind = encoded.kind
        for name in encoded.new_names:
            self._code[name] = len(self._names)
            self._names.append(name)
        if encoded.new_names:
            self._array = None

    def __len__(self) -> int:
        return len(self._names)

    def truncate(self, kind: str | None, count: int) -> None:
        """Forget the names past the first `count` and set `kind` back (a batch undone)."""
        for name in self._names[count:]:
            del self._code[name]
        del self._names[count:]
        self.kind = kind
        self._array = None

    def reset(self) -> None:
        """Forget every name and the kind (the graph was cleared)."""
        self.kind, self._names, self._code, self._array = None, [], {}, None

    def decode(self, ids: np.ndarray) -> np.ndarray:
        """User names of engine ids (any shape)."""
        if self.kind != STR:
            return ids
        if self._array is None:
            self._array = np.asarray(self._names, dtype=str)
        return self._array[ids]

    def listed(self, rows: np.ndarray, automorphisms: np.ndarray) -> np.ndarray:
        """Match rows of engine ids as sorted listed forms in user names (SPEC §1): for string
        names the smallest relabelling is taken in the names' order, not the codes'."""
        if self.kind != STR or rows.shape[0] == 0:
            return self.decode(rows)
        used, inverse = np.unique(rows, return_inverse=True)
        names = self.decode(used)
        order = np.argsort(names, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        canon = canonical_rows(rank[inverse.reshape(rows.shape)], automorphisms)
        return names[order][canon]

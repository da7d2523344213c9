"""Edge-file readers: SNAP text, CSV/TSV, Matrix Market, `.npy` pairs; gzip taken directly.

Every reader returns the simple undirected graph the file describes, as (u, v) pairs with
u < v in order of first appearance (file order, which is time order for timestamped
streams): directions are dropped, self-loops dropped, repeated pairs merged.  Extra
columns (timestamps, ratings, weights) are ignored.  Malformed input raises
`EdgeFileError` naming the file and, for text, the line.

Text ids are integers (int64 pairs) or, when the first edge's ids are not integers,
names (str pairs; every id is then a name, "42" included).  `columns` picks the two id
columns by position, or by header name, in which case the first row is the header.
CSV (`,`) and TSV (`.tsv`, or tab-separated rows of names) fields may be quoted.  A CSV
or TSV whose first row is not integers while the second is has that row as a header.

Size limits hold before the work is done: gzip is inflated in chunks and stopped at
`max_bytes`, and the sizes that `.npy` and Matrix Market headers declare are checked
against `max_edges` (and against the bytes actually present) before anything is
allocated; exceeding a limit raises `EdgeFileTooLarge`.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAX_VERTEX_ID = 2**31 - 1
_GZIP_MAGIC = b"\x1f\x8b"
_NPY_MAGIC = b"\x93NUMPY"
_MM_MAGIC = b"%%MatrixMarket"
_COMMENTS = ("#", "%")


class EdgeFileError(ValueError):
    """An edge file that cannot be read; the message names the file (and line)."""


class EdgeFileTooLarge(EdgeFileError):
    """An edge file over a size limit (inflated bytes, or the edges a header declares)."""


@dataclass(frozen=True)
class EdgeFile:
    """A file's simple undirected graph plus what was dropped on the way."""

    pairs: np.ndarray  # int64[m, 2] or str[m, 2], u < v, unique, first-appearance order
    records: int  # edge records read (lines, entries or rows)
    self_loops: int
    duplicates: int  # records that repeated an earlier pair (either direction)
    format: str  # "snap", "csv", "tsv", "mtx" or "npy"


Columns = tuple[int | str, int | str]


def read_edges(path: str | Path, columns: Columns = (0, 1)) -> np.ndarray:
    """The (m, 2) edge pairs of a file, int64 or str (see module docstring)."""
    return read_edge_file(path, columns).pairs


def read_edge_file(path: str | Path, columns: Columns = (0, 1), *, max_bytes: int | None = None,
                   max_edges: int | None = None) -> EdgeFile:
    """Read an edge file of any supported format, sniffing gzip and the format from content;
    limits as in `parse_edges` (`max_bytes` also bounds the file itself)."""
    path = Path(path)
    try:
        if max_bytes is not None and path.stat().st_size > max_bytes:
            raise EdgeFileTooLarge(f"{path}: {path.stat().st_size} bytes exceed the limit of {max_bytes}")
        data = path.read_bytes()
    except OSError as exc:
        raise EdgeFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return parse_edges(data, str(path), columns, max_bytes=max_bytes, max_edges=max_edges)


def parse_edges(data: bytes, name: str = "<input>", columns: Columns = (0, 1), *,
                max_bytes: int | None = None, max_edges: int | None = None) -> EdgeFile:
    """Parse edge-file content (possibly gzip-compressed); `name` labels error messages,
    `columns` picks the id columns of text files (module docstring).

    `max_bytes` bounds the inflated size of gzip data, `max_edges` the edge records a
    `.npy` or Matrix Market header may declare (`EdgeFileTooLarge`).
    """
    if data.startswith(_GZIP_MAGIC):
        data = _gunzip(data, name, max_bytes)
    if data.startswith(_NPY_MAGIC):
        raw, fmt = _parse_npy(data, name, max_edges), "npy"
    elif data.lstrip().startswith(_MM_MAGIC):
        raw, fmt = _parse_mtx(data, name, max_edges), "mtx"
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EdgeFileError(f"{name}: not a text edge list, .npy or Matrix Market file") from exc
        fmt = _text_format(text, name)
        raw = _parse_text(text, name, {"csv": ",", "tsv": "\t", "snap": None}[fmt], columns)
    return _simple(raw, fmt)


def _gunzip(data: bytes, name: str, max_bytes: int | None) -> bytes:
    """Inflate gzip data (concatenated members too) chunk by chunk, stopping past `max_bytes`."""
    out, size, chunk = [], 0, 1 << 20
    while data:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            while data:
                piece = inflater.decompress(data, chunk)
                data = inflater.unconsumed_tail
                size += len(piece)
                if max_bytes is not None and size > max_bytes:
                    raise EdgeFileTooLarge(f"{name}: inflates to more than the limit of {max_bytes} bytes")
                out.append(piece)
                if inflater.eof:
                    break
            if not inflater.eof:
                raise EdgeFileError(f"{name}: corrupt gzip data: truncated stream")
        except zlib.error as exc:
            raise EdgeFileError(f"{name}: corrupt gzip data: {exc}") from exc
        data = inflater.unused_data
    return b"".join(out)


def _too_many(name: str, declared: int, max_edges: int | None, what: str) -> None:
    if max_edges is not None and declared > max_edges:
        raise EdgeFileTooLarge(f"{name}: {what} declares {declared} edges; the limit is {max_edges}")


def _simple(raw: np.ndarray, fmt: str) -> EdgeFile:
    loops = raw[:, 0] == raw[:, 1]
    kept = raw[~loops]
    lo = np.where(kept[:, 0] < kept[:, 1], kept[:, 0], kept[:, 1])
    hi = np.where(kept[:, 0] < kept[:, 1], kept[:, 1], kept[:, 0])
    keys = (lo << 32) | hi if raw.dtype.kind in "iu" else _pair_keys(lo, hi)
    _, first = np.unique(keys, return_index=True)
    first.sort()
    pairs = np.stack([lo[first], hi[first]], axis=1) if first.size else np.zeros((0, 2), raw.dtype)
    return EdgeFile(pairs, int(raw.shape[0]), int(loops.sum()), int(kept.shape[0] - first.size), fmt)


def _pair_keys(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """One int64 per pair of names: the names' ranks packed like integer ids."""
    _, ranks = np.unique(np.concatenate([lo, hi]), return_inverse=True)
    ranks = ranks.reshape(-1).astype(np.int64)
    return (ranks[: lo.shape[0]] << 32) | ranks[lo.shape[0]:]


def _first_data_line(text: str) -> str:
    for line in text.splitlines()[:50]:
        s = line.strip()
        if s and not s.startswith(_COMMENTS):
            return s
    return ""


def _text_format(text: str, name: str) -> str:
    """"csv", "tsv" or "snap" (whitespace-separated), from the name or the first data line."""
    plain = name.removesuffix(".gz")
    if plain.endswith(".csv"):
        return "csv"
    if plain.endswith(".tsv"):
        return "tsv"
    line = _first_data_line(text)
    if "," in line:
        return "csv"
    return "tsv" if "\t" in line and '"' in line else "snap"


def _parse_text(text: str, name: str, delimiter: str | None, columns: Columns) -> np.ndarray:
    """Fast path through numpy for integer ids; otherwise a row-by-row scan that reads
    names and quoted fields and names the first bad line."""
    raw = None
    if all(isinstance(c, int) for c in columns):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "input contained no data": handled below
                raw = np.loadtxt(io.StringIO(text), dtype=np.int64, comments=_COMMENTS, delimiter=delimiter,
                                 usecols=columns, ndmin=2)
        except ValueError:
            raw = None
    if raw is None or raw.shape[0] == 0 or (raw < 0).any() or (raw > MAX_VERTEX_ID).any():
        return _scan_text(text, name, delimiter, columns)
    return raw


def _text_rows(text: str, delimiter: str | None) -> list[tuple[int, list[str]]]:
    """(line number, fields) of every non-blank, non-comment line."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, s) for n, s in lines if s and not s.startswith(_COMMENTS)]
    if delimiter is None:
        return [(n, s.split()) for n, s in lines]
    reader = csv.reader((s for _, s in lines), delimiter=delimiter, skipinitialspace=True)
    return [(n, [f.strip() for f in fields]) for (n, _), fields in zip(lines, reader, strict=True)]


def _as_int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


def _scan_text(text: str, name: str, delimiter: str | None, columns: Columns) -> np.ndarray:
    rows = _text_rows(text, delimiter)
    if not rows:
        raise EdgeFileError(f"{name}: no edges found")
    if all(isinstance(c, int) for c in columns):
        picks = columns
    else:
        lineno, header = rows.pop(0)
        missing = [c for c in columns if isinstance(c, str) and c not in header]
        if missing:
            raise EdgeFileError(f"{name}:{lineno}: no column {missing[0]!r} in the header {header!r}")
        picks = tuple(c if isinstance(c, int) else header.index(c) for c in columns)
    width = max(picks) + 1
    words = "two" if width == 2 else str(width)

    def ids(lineno: int, fields: list[str]) -> tuple[str, str]:
        if len(fields) < width:
            raise EdgeFileError(f"{name}:{lineno}: expected at least {words} columns, got {fields!r}")
        return fields[picks[0]], fields[picks[1]]

    def integers(row) -> bool:
        return all(_as_int(x) is not None for x in ids(*row))

    if (delimiter is not None and picks == columns and len(rows) > 1
            and not integers(rows[0]) and integers(rows[1])):
        rows = rows[1:]  # a header row above integer ids
    if not rows:
        raise EdgeFileError(f"{name}: no edges found")
    if not integers(rows[0]):
        return np.array([ids(*row) for row in rows], dtype=str)
    out = np.empty((len(rows), 2), dtype=np.int64)
    for i, (lineno, fields) in enumerate(rows):
        for j, x in enumerate(ids(lineno, fields)):
            value = _as_int(x)
            if value is None:
                raise EdgeFileError(f"{name}:{lineno}: vertex ids must be integers (as in the first edge), "
                                    f"got {x!r}")
            if value < 0 or value > MAX_VERTEX_ID:
                raise EdgeFileError(f"{name}:{lineno}: vertex id {value} is outside 0..{MAX_VERTEX_ID}")
            out[i, j] = value
    return out


def _parse_npy(data: bytes, name: str, max_edges: int | None) -> np.ndarray:
    f = io.BytesIO(data)
    try:
        major, _ = np.lib.format.read_magic(f)
        fmt = np.lib.format
        shape, _, dtype = (fmt.read_array_header_1_0 if major == 1 else fmt.read_array_header_2_0)(f)
    except (ValueError, OSError) as exc:
        raise EdgeFileError(f"{name}: unreadable .npy file: {exc}") from exc
    if len(shape) != 2 or shape[1] != 2:
        raise EdgeFileError(f"{name}: .npy edge arrays must have shape (n, 2), got {shape}")
    _too_many(name, shape[0], max_edges, "the .npy header")
    if dtype.hasobject or shape[0] * 2 * dtype.itemsize > len(data) - f.tell():
        raise EdgeFileError(f"{name}: .npy header declares shape {shape} of {dtype}, "
                            "more than the file holds")
    try:
        arr = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise EdgeFileError(f"{name}: unreadable .npy file: {exc}") from exc
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise EdgeFileError(f"{name}: .npy edge arrays must have shape (n, 2), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise EdgeFileError(f"{name}: .npy edge arrays must hold integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    bad = np.flatnonzero((arr < 0).any(axis=1) | (arr > MAX_VERTEX_ID).any(axis=1))
    if bad.size:
        raise EdgeFileError(
            f"{name}: row {bad[0]} {arr[bad[0]].tolist()} has a vertex id outside 0..{MAX_VERTEX_ID}"
        )
    return arr


_MTX_SIZE = re.compile(rb"^[ \t]*(\d+)[ \t]+(\d+)(?:[ \t]+(\d+))?[ \t]*$")


def _parse_mtx(data: bytes, name: str, max_edges: int | None) -> np.ndarray:
    try:
        import scipy.io
    except ImportError as exc:
        raise EdgeFileError(f"{name}: reading Matrix Market files needs scipy (pip install scipy)") from exc

    lines = iter(data.lstrip().splitlines())
    banner = next(lines).lower().split()
    if b"coordinate" not in banner:
        raise EdgeFileError(f"{name}: Matrix Market file is dense ('array'); edge lists need 'coordinate'")
    size = next((line for line in lines if line.strip() and not line.lstrip().startswith(b"%")), b"")
    match = _MTX_SIZE.match(size)
    if match is None or match.group(3) is None:
        raise EdgeFileError(f"{name}: malformed Matrix Market size line {size[:80]!r}; "
                            "expected 'rows cols entries'")
    entries = int(match.group(3))
    _too_many(name, entries, max_edges, "the Matrix Market header")
    if entries > len(data) // 4:  # an entry takes at least "u v\n" plus a separator
        raise EdgeFileError(f"{name}: Matrix Market header declares {entries} entries, "
                            "more than the file holds")
    try:
        matrix = scipy.io.mmread(io.BytesIO(data))
    except (ValueError, IndexError, TypeError, OSError) as exc:
        raise EdgeFileError(f"{name}: malformed Matrix Market file: {exc}") from exc
    coo = matrix.tocoo()
    if coo.shape[0] - 1 > MAX_VERTEX_ID or coo.shape[1] - 1 > MAX_VERTEX_ID:
        raise EdgeFileError(f"{name}: matrix shape {coo.shape} exceeds vertex ids 0..{MAX_VERTEX_ID}")
    return np.stack([coo.row.astype(np.int64), coo.col.astype(np.int64)], axis=1).reshape(-1, 2)

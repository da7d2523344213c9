"""The REST shapes (SPEC §2.1) as pydantic models: request bodies, answers, errors.

Request models are strict: a data vertex is a JSON integer or a string name (never a boolean
or float; one kind per graph, SPEC §1), a pattern vertex a JSON integer, and `induced` a JSON
boolean.  Batches are parsed with numpy
(`app._edge_array`), not through these models, which then only describe them in the
OpenAPI document.  Answer models describe what the routes send; routes return plain
dicts (no second validation of large answers), and the schemathesis test keeps the
two in step.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from deltamatch.scheduler.names import MAX_NAME_LENGTH

Pair = Annotated[list[StrictInt], Field(min_length=2, max_length=2)]
VertexName = StrictInt | Annotated[str, Field(min_length=1, max_length=MAX_NAME_LENGTH)]
VertexPair = Annotated[list[VertexName], Field(min_length=2, max_length=2)]


class PatternRequest(BaseModel):
    """`{"name": "diamond"}` (a built-in) or `{"edges": [[0,1],…], "induced": false, "name": "label"}`."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(None, max_length=200)
    edges: list[Pair] | None = None
    induced: StrictBool = False


class UpdateRequest(BaseModel):
    """One batch: pairs to insert and delete, and an optional id that makes retries safe."""

    model_config = ConfigDict(extra="forbid")
    batch_id: str | None = Field(None, min_length=1, max_length=256)
    insert: list[VertexPair] | None = None
    delete: list[VertexPair] | None = None


class LoadRequest(BaseModel):
    """`{"edges": [[u, v], …]}` or `{"path": "<file under DELTAMATCH_LOAD_DIR>"}`; or send the
    file itself (SNAP text, CSV/TSV, Matrix Market, .npy, optionally gzipped) as the raw body."""

    model_config = ConfigDict(extra="forbid")
    edges: list[VertexPair] | None = None
    path: str | None = None
    batch_id: str | None = Field(None, min_length=1, max_length=256)


class ErrorDetail(BaseModel):
    """Every error: what is wrong, naming the offending field or item."""

    detail: str


class Health(BaseModel):
    status: str


class Ready(BaseModel):
    """200: the scheduler and every worker answer and the log is writable."""

    ready: bool
    workers: int


class NotReady(BaseModel):
    """503: why the service is not ready (starting, a worker down, the data directory full)."""

    ready: bool
    detail: str


class PatternInfo(BaseModel):
    id: int
    name: str | None
    k: int
    edges: list[list[int]]
    induced: bool
    automorphisms: int
    edge_classes: list[list[list[int]]]
    plans: int
    version: int
    total: int


class PatternDeleted(BaseModel):
    id: int
    deleted: bool


class Matches(BaseModel):
    version: int
    total: int
    offset: int
    matches: list[list[int | str]]


class PatternCounts(BaseModel):
    added: int
    removed: int
    total: int


class BatchAnswer(BaseModel):
    """A batch's answer; a repeated batch_id gets the original answer with `duplicate: true`."""

    version: int
    batch_id: str | None
    inserted: int
    deleted: int
    ignored: int
    deltas: dict[str, PatternCounts]
    elapsed_ms: float
    duplicate: bool = False


class WorkerInfo(BaseModel):
    worker: int
    device: str | None
    backend: str | None
    gpu_name: str | None
    memory_bytes: int | None
    node: str | None
    gpu_ids: list[str] = []  # the node's GPUs Ray gave the worker (its device is their cuda:0)
    pid: int | None
    share_scheme: str | None = None  # how its backend cuts a whole-graph count into shares
    tasks_run: int
    busy_seconds: float
    rebuilds: int


class GraphStats(BaseModel):
    vertices: int
    edges: int
    max_degree: int
    version: int


class Cluster(BaseModel):
    workers: list[WorkerInfo]
    graph: GraphStats
    patterns: int
    in_flight_version: int | None
    recovered: dict
    ready: bool
    scheduler_pid: int
    subscribers: int


def errors(*statuses: int) -> dict:
    """OpenAPI `responses` entries declaring `ErrorDetail` for each status."""
    return {status: {"model": ErrorDetail} for status in statuses}

"""The HTTP service: FastAPI in front of the scheduler actor (SPEC §2, §3).

One uvicorn worker per service: this process is the only Ray driver and holds the
delta streams.  Batches are parsed with numpy in one pass (no per-edge models); the
pydantic models below exist for the small requests and for the OpenAPI document.
Every mutating call takes the service's single async lock, so versions are answered
and published in order.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import time
from contextlib import asynccontextmanager
from pathlib import Path

import numpy as np
import ray
from fastapi import Depends, FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from pydantic import BaseModel, Field

from deltamatch import __version__
from deltamatch.io.readers import EdgeFileError, parse_edges, read_edge_file
from deltamatch.scheduler.actor import make_scheduler_actor
from deltamatch.scheduler.batch_log import lock_directory
from deltamatch.scheduler.names import VertexIdError, parse_vertex_pairs
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, PatternError, parse_pattern
from deltamatch.scheduler.routing import Routing
from deltamatch.service.config import ServiceConfig
from deltamatch.service.streams import DeltaEvent, DeltaStream

log = logging.getLogger("deltamatch.service")
STATIC_DIR = Path(__file__).parent / "static"
MAX_BATCH_ID = 256


class PatternRequest(BaseModel):
    """`{"name": "diamond"}` (a built-in) or `{"edges": [[0,1],…], "induced": false, "name": "label"}`."""

    model_config = {"extra": "forbid"}
    name: str | None = Field(None, max_length=200)
    edges: list[list[int]] | None = None
    induced: bool = False


class UpdateRequest(BaseModel):
    """One batch: pairs to insert and delete, and an optional id that makes retries safe."""

    batch_id: str | None = None
    insert: list[list[int | str]] | None = None
    delete: list[list[int | str]] | None = None


class LoadRequest(BaseModel):
    """`{"edges": [[u, v], …]}` or `{"path": "<file under DELTAMATCH_LOAD_DIR>"}`; or send the
    file itself (SNAP text, CSV/TSV, Matrix Market, .npy, optionally gzipped) as the raw body."""

    edges: list[list[int | str]] | None = None
    path: str | None = None
    batch_id: str | None = None


class Metrics:
    """The service's Prometheus metrics, in a registry of its own."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self.batches = Counter("deltamatch_batches", "Batches applied", ["kind"], registry=r)
        self.updates = Counter("deltamatch_updates", "Edge updates by result", ["result"], registry=r)
        self.matches = Counter("deltamatch_matches", "Matches created and destroyed", ["change"], registry=r)
        buckets = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
        self.latency = Histogram("deltamatch_batch_latency_seconds", "End-to-end batch latency in the API",
                                 ["kind"], buckets=buckets, registry=r)
        self.engine = Histogram("deltamatch_engine_seconds", "Scheduler time per batch", ["kind"],
                                buckets=buckets, registry=r)
        self.stages = Histogram(
            "deltamatch_batch_stage_seconds",
            "Where a batch's time goes: request (HTTP body, JSON, validation), scheduler_call (the Ray "
            "round trip to the scheduler), intake, allocation, transport (plans to and results from "
            "the workers), graph_update, matching, commit, merge, log (append, fsync, snapshot)",
            ["stage"], buckets=(0.0001, 0.00025, 0.0005,) + buckets, registry=r)
        self.busy = Counter("deltamatch_worker_busy_seconds", "Worker busy time", ["worker"], registry=r)
        self.imbalance = Gauge("deltamatch_worker_imbalance", "max/min worker busy time of the last batch",
                               registry=r)
        self.version = Gauge("deltamatch_version", "Current graph version", registry=r)
        self.patterns = Gauge("deltamatch_patterns", "Registered patterns", registry=r)
        self.subscribers = Gauge("deltamatch_subscribers", "Open delta streams", registry=r)
        self.rejected = Counter("deltamatch_rejected_requests", "Requests refused", ["status"], registry=r)
        self.resets = Gauge("deltamatch_stream_resets", "Reset events sent to subscribers", registry=r)

    def batch(self, kind: str, answer: dict, info: dict, seconds: float, request: float,
              call: float) -> None:
        """Count one applied batch: `seconds` end to end in the API, `request` of it reading
        and checking the body, `call` the scheduler call (its own time is in `info`)."""
        self.batches.labels(kind).inc()
        for result in ("inserted", "deleted", "ignored"):
            self.updates.labels(result).inc(answer[result])
        for d in answer["deltas"].values():
            self.matches.labels("added").inc(d["added"])
            self.matches.labels("removed").inc(d["removed"])
        self.latency.labels(kind).observe(seconds)
        self.engine.labels(kind).observe(info["elapsed_ms"] / 1e3)
        self.stages.labels("request").observe(request)
        self.stages.labels("scheduler_call").observe(max(call - info["scheduler_seconds"], 0.0))
        for stage, stage_seconds in info["stages"].items():
            self.stages.labels(stage).observe(stage_seconds)
        busy = info.get("busy_seconds") or []
        for w, b in enumerate(busy):
            self.busy.labels(str(w)).inc(b)
        if busy and min(busy) > 0:
            self.imbalance.set(max(busy) / min(busy))
        self.version.set(answer["version"])


class Service:
    """The app's state: config, scheduler handle, streams, metrics."""

    def __init__(self, config: ServiceConfig):
        self.config = config
        self.stream = DeltaStream(config.retention, config.subscriber_buffer)
        self.metrics = Metrics()
        self.lock = asyncio.Lock()
        self.scheduler = None
        self.ready = False
        self.error: str | None = None
        self.started_ray = False
        self.num_workers = 0
        self.dir_lock = None

    async def start(self) -> None:
        """Join or start Ray, start the scheduler and workers, replay the data directory."""
        try:
            cfg = self.config
            if not ray.is_initialized():
                await asyncio.to_thread(self._init_ray)
            workers, num_gpus, backend = self._worker_plan()
            self.num_workers = workers
            data_dir = Path(cfg.data_dir).resolve()
            # this process holds the data directory: a kill -9 releases it at once, while an
            # orphaned scheduler actor may take a while to be reaped
            self.dir_lock = await asyncio.to_thread(lock_directory, data_dir, 5.0)
            self.scheduler = make_scheduler_actor(
                str(data_dir), num_workers=workers, backend=backend, num_gpus_per_worker=num_gpus,
                list_limit=cfg.max_listed, snapshot_every=cfg.snapshot_every, lock_data_dir=False,
                policy=cfg.policy, routing=Routing(cfg.route, cfg.route_crossover))
            recovered = await self.scheduler.start.remote()
            for p in await self.scheduler.patterns.remote():
                self.stream.add_pattern(p["id"], p["version"], p["total"])
            self.metrics.version.set(recovered["version"])
            self.metrics.patterns.set(recovered["patterns"])
            self.ready = True
            log.info("deltamatch ready: %d workers, recovered %s", workers, recovered)
        except Exception as exc:  # surfaced by /readyz
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("deltamatch failed to start")

    def _init_ray(self) -> None:
        if os.environ.get("RAY_ADDRESS"):
            ray.init(address=os.environ["RAY_ADDRESS"], log_to_driver=False)
        else:
            ray.init(num_cpus=self.config.ray_num_cpus or max(2, os.cpu_count() or 2),
                     include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
            self.started_ray = True

    def _worker_plan(self) -> tuple[int, float, str]:
        cfg = self.config
        gpus = float(ray.cluster_resources().get("GPU", 0))
        use_gpu = cfg.backend == "cuda" or (cfg.backend == "auto" and gpus > 0)
        per = cfg.num_gpus_per_worker if cfg.num_gpus_per_worker is not None else (1.0 if use_gpu else 0.0)
        if cfg.workers is not None:
            workers = cfg.workers
        elif use_gpu and per > 0:
            workers = max(1, int(gpus / per))
        else:
            workers = 2
        return workers, per, ("cpu" if not use_gpu else cfg.backend)

    async def stop(self) -> None:
        if self.scheduler is not None:
            ray.kill(self.scheduler)
        if self.dir_lock is not None:
            self.dir_lock.close()
        if self.started_ray:
            ray.shutdown()

    def need_ready(self) -> None:
        if not self.ready:
            raise HTTPException(503, self.error or "service is starting")


# request parsing ------------------------------------------------------------------------

def _edge_array(value, name: str) -> np.ndarray:
    """A JSON edge list (or an edge file's pairs) as an (n, 2) array of vertex names, int64 or
    str (SPEC §1), checked by `parse_vertex_pairs`; a 422 names the offending item."""
    if value is not None and not isinstance(value, (list, np.ndarray)):
        raise HTTPException(422, f"{name}: must be a list of [u, v] pairs")
    try:
        return parse_vertex_pairs(value, name)
    except VertexIdError as exc:
        raise HTTPException(422, str(exc)) from exc


def _batch_id(value) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_BATCH_ID:
        raise HTTPException(422, f"batch_id: must be a non-empty string of at most {MAX_BATCH_ID} characters")
    return value


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HTTPException(413, f"request body of {declared} bytes exceeds the limit of {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"request body exceeds the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _json_object(body: bytes, allowed: tuple[str, ...]) -> dict:
    try:
        obj = json.loads(body) if body.strip() else {}
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"malformed JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise HTTPException(422, "body: must be a JSON object")
    unknown = sorted(set(obj) - set(allowed))
    if unknown:
        raise HTTPException(422, f"{unknown[0]}: unknown field; expected {', '.join(allowed)}")
    return obj


def _events(info: dict) -> list[DeltaEvent]:
    return [DeltaEvent(info["version"], info["batch_id"], int(pid), e["added_count"], e["removed_count"],
                       e["total"], e["added"], e["removed"], e["truncated"])
            for pid, e in info["patterns"].items()]


def _sse(kind: str, version: int, data: str) -> bytes:
    return f"id: {version}\nevent: {kind}\ndata: {data}\n\n".encode()


def _cursor(since: int | None, last_event_id: str | None) -> int | None:
    if last_event_id is not None and last_event_id.strip():
        try:
            return int(last_event_id)
        except ValueError as exc:
            raise HTTPException(422, f"Last-Event-ID: must be a version, got {last_event_id!r}") from exc
    return since


# the app ------------------------------------------------------------------------------

def create_app(config: ServiceConfig | None = None) -> FastAPI:
    """The FastAPI application for `config` (defaults: environment variables)."""
    svc = Service(config or ServiceConfig.from_env())

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        task = asyncio.create_task(svc.start())
        try:
            yield
        finally:
            task.cancel()
            await svc.stop()

    # /docs and /redoc load Swagger UI and ReDoc from the installed package, not a CDN
    app = FastAPIOffline(title="deltamatch", version=__version__, lifespan=lifespan,
                         description="Incremental subgraph matching as a service (SPEC §2).")
    app.state.service = svc
    m = svc.metrics

    def require_token(request: Request) -> None:
        token = svc.config.token
        if not token:
            return
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise HTTPException(401, "Authorization: a valid bearer token is required for this call",
                                headers={"WWW-Authenticate": "Bearer"})

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException):
        if exc.status_code >= 400:
            m.rejected.labels(str(exc.status_code)).inc()
        return JSONResponse({"detail": exc.detail}, exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError):
        m.rejected.labels("422").inc()
        parts = []
        for err in exc.errors():
            loc = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query", "path"))
            parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
        return JSONResponse({"detail": "; ".join(parts)}, 422)

    # health -----------------------------------------------------------------------
    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict:
        """Liveness: the process answers."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    async def readyz():
        """200 once the scheduler and every worker are up and the data directory is replayed."""
        if not svc.ready:
            return JSONResponse({"ready": False, "detail": svc.error or "starting"}, 503)
        return {"ready": True, "workers": svc.num_workers}

    @app.get("/v1/cluster", tags=["cluster"])
    async def cluster() -> dict:
        """Workers (device, backend, counters) and graph stats."""
        svc.need_ready()
        info = await svc.scheduler.cluster.remote()
        info["subscribers"] = svc.stream.subscribers
        return info

    @app.get("/metrics", tags=["health"])
    async def metrics():
        """Prometheus text exposition."""
        m.subscribers.set(svc.stream.subscribers)
        m.resets.set(svc.stream.resets_sent)
        return PlainTextResponse(generate_latest(m.registry), media_type=CONTENT_TYPE_LATEST)

    # patterns -----------------------------------------------------------------------
    @app.post("/v1/patterns", status_code=201, tags=["patterns"], dependencies=[Depends(require_token)])
    async def register(req: PatternRequest) -> dict:
        """Register a pattern; answers its analysis and current total."""
        svc.need_ready()
        if req.edges is None and req.name is None:
            raise HTTPException(422, "edges: give an edge list or the name of a built-in pattern")
        if req.edges is None and req.name not in BUILTIN_PATTERNS:
            raise HTTPException(422, f"name: unknown pattern {req.name!r}; built-ins are: "
                                     f"{', '.join(BUILTIN_PATTERNS)}")
        spec = req.edges if req.edges is not None else req.name
        if req.edges is not None and len(req.edges) > 28:
            raise HTTPException(413, f"edges: {len(req.edges)} pattern edges; at most 28 (8 vertices)")
        try:
            pattern = parse_pattern(spec, req.induced, req.name)
        except PatternError as exc:
            raise HTTPException(422, f"edges: {exc}") from exc
        if pattern.k > svc.config.max_pattern_vertices:
            raise HTTPException(413, f"edges: pattern has {pattern.k} vertices; this service allows at most "
                                     f"{svc.config.max_pattern_vertices}")
        async with svc.lock:
            if len(svc.stream._hist) >= svc.config.max_patterns:
                raise HTTPException(409, f"patterns: at most {svc.config.max_patterns} may be registered")
            desc = await svc.scheduler.register.remote([list(e) for e in pattern.edges], pattern.induced,
                                                       pattern.name)
            svc.stream.add_pattern(desc["id"], desc["version"], desc["total"])
            m.patterns.inc()
        return desc

    @app.get("/v1/patterns", tags=["patterns"])
    async def list_patterns() -> list[dict]:
        """Every registered pattern with its current version and total."""
        svc.need_ready()
        return await svc.scheduler.patterns.remote()

    async def _pattern_or_404(pid: int) -> dict:
        desc = await svc.scheduler.pattern.remote(pid)
        if desc is None:
            raise HTTPException(404, f"pattern {pid}: not registered")
        return desc

    @app.get("/v1/patterns/{pid}", tags=["patterns"])
    async def get_pattern(pid: int) -> dict:
        """One pattern: its analysis, current version and total."""
        svc.need_ready()
        return await _pattern_or_404(pid)

    @app.delete("/v1/patterns/{pid}", tags=["patterns"], dependencies=[Depends(require_token)])
    async def delete_pattern(pid: int) -> dict:
        """Remove a pattern; its streams end."""
        svc.need_ready()
        async with svc.lock:
            if not await svc.scheduler.unregister.remote(pid):
                raise HTTPException(404, f"pattern {pid}: not registered")
            svc.stream.remove_pattern(pid)
            m.patterns.dec()
        return {"id": pid, "deleted": True}

    @app.get("/v1/patterns/{pid}/matches", tags=["patterns"])
    async def matches(pid: int, limit: int = Query(1000, ge=0, le=100_000),
                      offset: int = Query(0, ge=0)) -> dict:
        """The current matches in listed form, sorted; a page of `limit` from `offset`."""
        svc.need_ready()
        got = await svc.scheduler.matches.remote(pid, offset, limit)
        if got is None:
            raise HTTPException(404, f"pattern {pid}: not registered")
        version, total, rows = got
        return {"version": version, "total": total, "offset": offset, "matches": rows.tolist()}

    # batches --------------------------------------------------------------------------
    async def _apply(kind: str, insert: np.ndarray | None, delete: np.ndarray | None,
                     batch_id: str | None, received: float) -> dict:
        start = time.perf_counter()
        async with svc.lock:
            called = time.perf_counter()
            try:
                if kind == "batch":
                    answer, info = await svc.scheduler.apply.remote(insert, delete, batch_id)
                elif kind == "load":
                    answer, info = await svc.scheduler.load.remote(insert, batch_id)
                else:
                    answer, info = await svc.scheduler.clear.remote()
            except ray.exceptions.RayTaskError as exc:  # ids of the other kind than the graph's
                if isinstance(exc.cause, VertexIdError):
                    raise HTTPException(422, str(exc.cause)) from None
                raise
            returned = time.perf_counter()
            if info:
                svc.stream.publish(_events(info))
        if info:
            m.batch(kind, answer, info, time.perf_counter() - start, start - received, returned - called)
        return answer

    @app.post("/v1/updates", tags=["graph"], dependencies=[Depends(require_token)],
              openapi_extra={"requestBody": {"required": False, "content": {
                  "application/json": {"schema": UpdateRequest.model_json_schema()}}}})
    async def updates(request: Request) -> dict:
        """Apply one batch atomically as the next version; answers the per-pattern deltas."""
        received = time.perf_counter()
        svc.need_ready()
        body = await _read_body(request, svc.config.max_request_bytes)
        obj = _json_object(body, ("batch_id", "insert", "delete"))
        sizes = sum(len(obj[k]) for k in ("insert", "delete") if isinstance(obj.get(k), list))
        if sizes > svc.config.max_batch:
            raise HTTPException(413, f"insert+delete: {sizes} pairs exceed the batch limit of "
                                     f"{svc.config.max_batch}")
        batch_id = _batch_id(obj.get("batch_id"))
        insert = _edge_array(obj.get("insert"), "insert")
        delete = _edge_array(obj.get("delete"), "delete")
        return await _apply("batch", insert, delete, batch_id, received)

    @app.post("/v1/graph/load", tags=["graph"], dependencies=[Depends(require_token)],
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": LoadRequest.model_json_schema()},
                  "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}})
    async def load(request: Request, batch_id: str | None = Query(None, max_length=MAX_BATCH_ID)) -> dict:
        """Bulk-load edges as one version (counts exact, no listings)."""
        received = time.perf_counter()
        svc.need_ready()
        body = await _read_body(request, svc.config.max_request_bytes)
        if request.headers.get("content-type", "").split(";")[0].strip() == "application/json":
            obj = _json_object(body, ("edges", "path", "batch_id"))
            batch_id = _batch_id(obj.get("batch_id", batch_id))
            if obj.get("path") is not None:
                edges = _edge_array(await asyncio.to_thread(_load_path, svc.config, obj["path"]), "path")
            else:
                if isinstance(obj.get("edges"), list) and len(obj["edges"]) > svc.config.max_load_edges:
                    raise HTTPException(413, f"edges: more than {svc.config.max_load_edges} pairs")
                edges = _edge_array(obj.get("edges"), "edges")
        else:
            try:
                edges = _edge_array((await asyncio.to_thread(parse_edges, body, "body")).pairs, "body")
            except EdgeFileError as exc:
                raise HTTPException(422, str(exc)) from exc
        if edges.shape[0] > svc.config.max_load_edges:
            raise HTTPException(413, f"edges: {edges.shape[0]} pairs exceed the load limit of "
                                     f"{svc.config.max_load_edges}")
        return await _apply("load", edges, None, batch_id, received)

    @app.delete("/v1/graph", tags=["graph"], dependencies=[Depends(require_token)])
    async def clear_graph() -> dict:
        """Remove every edge as the next version: every pattern's total drops to 0 (its
        stream gets a delta counting the removed matches, not listing them); patterns stay
        registered, and the next batch may name vertices by the other kind of id."""
        received = time.perf_counter()
        svc.need_ready()
        return await _apply("clear", None, None, None, received)

    # streams --------------------------------------------------------------------------
    def _stream_args(pid: int, since: int | None, last_event_id: str | None) -> int | None:
        svc.need_ready()
        if not svc.stream.has(pid):
            raise HTTPException(404, f"pattern {pid}: not registered")
        return _cursor(since, last_event_id)

    @app.get("/v1/patterns/{pid}/deltas", tags=["streams"])
    async def deltas(pid: int, request: Request, since: int | None = Query(None, ge=0),
                     matches: bool = True, max_matches: int | None = Query(None, ge=0)):
        """Server-Sent Events, one `delta` event per version (`id:` = version); resume with
        Last-Event-ID or `?since=`; a cursor older than the retained history gets `reset`."""
        cursor = _stream_args(pid, since, request.headers.get("last-event-id"))
        keepalive = svc.config.keepalive

        async def body():
            yield b"retry: 1000\n: connected\n\n"
            async for item in svc.stream.subscribe(pid, cursor, keepalive):
                if item is None:
                    yield b": keep-alive\n\n"
                else:
                    yield _sse(item.kind, item.version, item.data(matches, max_matches))

        return StreamingResponse(body(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.websocket("/v1/patterns/{pid}/ws")
    async def deltas_ws(websocket: WebSocket, pid: int, since: int | None = None, matches: bool = True,
                        max_matches: int | None = None):
        """The delta stream over a WebSocket: messages `{"event", "id", "data"}`."""
        if not svc.ready or not svc.stream.has(pid):
            await websocket.close(code=4404, reason=f"pattern {pid}: not registered")
            return
        await websocket.accept()
        try:
            async for item in svc.stream.subscribe(pid, since, svc.config.keepalive):
                if item is None:
                    await websocket.send_text('{"event":"keep-alive"}')
                else:
                    data = item.data(matches, max_matches)
                    await websocket.send_text(f'{{"event":"{item.kind}","id":{item.version},"data":{data}}}')
            await websocket.close()
        except WebSocketDisconnect:
            return

    # the live page ---------------------------------------------------------------------
    if STATIC_DIR.is_dir():
        app.mount("/ui", StaticFiles(directory=STATIC_DIR, html=True), name="ui")

    @app.get("/", include_in_schema=False)
    async def root():
        return RedirectResponse("/ui/")

    return app


def _load_path(config: ServiceConfig, path: str) -> np.ndarray:
    if not config.load_dir:
        raise HTTPException(403, "path: server-side files are disabled (set DELTAMATCH_LOAD_DIR)")
    root = Path(config.load_dir).resolve()
    target = (root / path).resolve()
    if root != target and root not in target.parents:
        raise HTTPException(403, f"path: {path!r} is outside DELTAMATCH_LOAD_DIR")
    try:
        return read_edge_file(target).pairs
    except EdgeFileError as exc:
        raise HTTPException(422, f"path: {exc}") from exc

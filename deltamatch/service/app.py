"""The HTTP service: FastAPI in front of the scheduler actor (SPEC §2, §3).

One uvicorn worker per service: this process is the only Ray driver and holds the
delta streams.  Batches are parsed with numpy in one pass (no per-edge models); the
pydantic models of `schemas` check the small requests and describe every route in the
OpenAPI document.  Every mutating call takes the service's single async lock, so
versions are answered and published in order.

Every answer is JSON (`{"detail": ...}` for errors), failures included: a body is read
only after the token is checked and only up to the byte limit; a failed log write
answers 503 (nothing applied, /readyz not ready until the disk takes writes again);
a scheduler that died is restarted from the log while calls answer 503; anything
unexpected is a logged 500 with a request id.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import os
import time
import uuid
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
from pydantic import ValidationError
from ray.exceptions import RayActorError, RayTaskError

from deltamatch import __version__
from deltamatch.io.readers import EdgeFileError, EdgeFileTooLarge, parse_edges, read_edge_file
from deltamatch.scheduler.actor import CHANNEL_METHODS, make_scheduler_actor
from deltamatch.scheduler.batch_log import LogWriteError, lock_directory
from deltamatch.scheduler.channel import ChannelCallError, ChannelClient, ChannelClosed
from deltamatch.scheduler.names import parse_vertex_pairs
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, PatternError, parse_pattern
from deltamatch.service.config import ServiceConfig, worker_plan
from deltamatch.service.schemas import (
    BatchAnswer,
    Cluster,
    Health,
    LoadRequest,
    Matches,
    NotReady,
    PatternDeleted,
    PatternInfo,
    PatternRequest,
    Ready,
    UpdateRequest,
    errors,
)
from deltamatch.service.streams import DeltaEvent, DeltaStream
from deltamatch.workers.actor import usable_cores
from deltamatch.workers.graph import GraphInputError
from deltamatch.workers.lifeline import OwnerProcess

log = logging.getLogger("deltamatch.service")
STATIC_DIR = Path(__file__).parent / "static"
MAX_BATCH_ID = 256
HEALTH_TIMEOUT_S = 2.0
# bytes a server-side file may inflate to, per edge the load limit allows (text with extra columns)
LOAD_FILE_BYTES_PER_EDGE = 64


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
            "Where a batch's time goes: request (HTTP body, JSON, validation), scheduler_call (the "
            "round trip to the scheduler, over its direct channel or Ray), intake, allocation, transport "
            "(plans to and results from the workers), graph_update, matching, commit, merge, log (append, "
            "fsync, snapshot)",
            ["stage"], buckets=(0.0001, 0.00025, 0.0005,) + buckets, registry=r)
        self.scheduler_calls = Counter("deltamatch_scheduler_calls",
                                       "Calls to the scheduler by path: channel (its direct socket) or ray",
                                       ["path"], registry=r)
        self.recounts = Counter("deltamatch_recounts",
                                "Sides of count-only batches (old, new) a formula pattern counted by a "
                                "whole-graph recount (DELTAMATCH_RECOUNT)", ["side"], registry=r)
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
        for side in info["recounted"]:
            self.recounts.labels(side).inc()
        busy = [] if info.get("local") else info.get("busy_seconds") or []  # local: the scheduler's
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
        self.channel: ChannelClient | None = None
        self.ready = False
        self.error: str | None = None
        self.started_ray = False
        self.num_workers = 0
        self.worker_options: dict = {}
        self.dir_lock = None
        self.restarting: asyncio.Task | None = None

    async def start(self) -> None:
        """Join or start Ray, start the scheduler and workers, replay the data directory."""
        try:
            cfg = self.config
            if not ray.is_initialized():
                await asyncio.to_thread(self._init_ray)
            workers, num_gpus, backend = worker_plan(cfg, float(ray.cluster_resources().get("GPU", 0)))
            self.num_workers = workers
            self.worker_options = {"num_workers": workers, "backend": backend,
                                   "num_gpus_per_worker": num_gpus}
            # two services never share a data directory: this process holds LOCK, the scheduler
            # (the log's writer) WRITER.LOCK, so a restart also waits for an old writer to end
            self.dir_lock = await asyncio.to_thread(lock_directory, Path(cfg.data_dir).resolve(), 5.0)
            await self._start_scheduler()
        except Exception as exc:  # surfaced by /readyz
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("deltamatch failed to start")

    async def _start_scheduler(self) -> None:
        cfg = self.config
        self.scheduler = make_scheduler_actor(
            str(Path(cfg.data_dir).resolve()), list_limit=cfg.max_listed, snapshot_every=cfg.snapshot_every,
            policy=cfg.policy, owner=OwnerProcess.current(), repair=cfg.repair,
            routing=cfg.routing(), **self.worker_options)
        recovered = await self.scheduler.start.remote()
        if cfg.direct_channel:
            try:
                self.channel = await ChannelClient.connect(await self.scheduler.channel.remote())
            except OSError as exc:  # e.g. the scheduler in another network namespace: Ray still works
                log.warning("no direct channel to the scheduler (%s): batches go through Ray", exc)
        patterns = await self.scheduler.patterns.remote()
        self.stream.sync([(p["id"], p["version"], p["total"]) for p in patterns])
        self.metrics.version.set(recovered["version"])
        self.metrics.patterns.set(recovered["patterns"])
        self.ready, self.error = True, None
        log.info("deltamatch ready: %d workers, recovered %s", self.num_workers, recovered)

    def scheduler_died(self, exc: BaseException) -> None:
        """Start replacing a dead scheduler (once); calls answer 503 meanwhile."""
        self.ready = False
        self.error = f"the scheduler is restarting after: {exc}"
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.restarting is None or self.restarting.done():
            log.error("scheduler died (%s): restarting it from the data directory", exc)
            self.restarting = asyncio.create_task(self._restart())

    async def _restart(self) -> None:
        delay = 0.5
        while True:
            with contextlib.suppress(Exception):
                ray.kill(self.scheduler, no_restart=True)
            try:
                await self._start_scheduler()
                return
            except Exception as exc:
                self.error = f"the scheduler failed to restart: {type(exc).__name__}: {exc}"
                log.exception("scheduler restart failed; retrying in %.1f s", delay)
                await asyncio.sleep(delay)
                delay = min(2 * delay, 10.0)

    async def call(self, method: str, *args):
        """Call the scheduler (`CHANNEL_METHODS` over the direct channel when it is open, the rest
        through Ray); its failures become JSON errors: a failed log write 503 (nothing applied), a
        worker failure 503 (the batch is rolled back or completed on retry), a dead scheduler (or a
        broken channel, which restarts it too) 503 while it restarts."""
        try:
            if self.channel is not None and method in CHANNEL_METHODS:
                self.metrics.scheduler_calls.labels("channel").inc()
                return await self.channel.call(method, *args)
            self.metrics.scheduler_calls.labels("ray").inc()
            return await getattr(self.scheduler, method).remote(*args)
        except (RayTaskError, ChannelCallError) as exc:
            cause = exc.cause
            if isinstance(cause, LogWriteError):
                why = os.strerror(cause.errno) if cause.errno else cause.strerror
                raise HTTPException(503, f"data directory: {why}; nothing was applied, "
                                         "retry once the disk takes writes again") from exc
            if isinstance(cause, ValueError):
                raise HTTPException(422, str(cause)) from exc
            log.error("scheduler call %s failed: %r", method, cause)
            raise HTTPException(503, f"the workers failed ({type(cause).__name__}: {cause}); nothing was "
                                     "acknowledged, retry") from exc
        except (RayActorError, ChannelClosed) as exc:
            self.scheduler_died(exc)
            raise HTTPException(503, "the scheduler died and is restarting from the data directory; "
                                     "retry") from exc

    async def health(self) -> str | None:
        """None when ready, else why not (the scheduler, every worker, the log: see `Scheduler.health`)."""
        if not self.ready:
            return self.error or "starting"
        try:
            got = await asyncio.wait_for(self.scheduler.health.remote(HEALTH_TIMEOUT_S),
                                         2 * HEALTH_TIMEOUT_S + 1)
        except asyncio.TimeoutError:
            return "the scheduler did not answer in time"
        except RayTaskError as exc:
            return f"the scheduler's health check failed: {exc.cause}"
        except RayActorError as exc:
            self.scheduler_died(exc)
            return self.error
        return None if got["ready"] else got["detail"]

    def _init_ray(self) -> None:
        if os.environ.get("RAY_ADDRESS"):
            ray.init(address=os.environ["RAY_ADDRESS"], log_to_driver=False)
        else:
            ray.init(num_cpus=self.config.ray_num_cpus or max(2, usable_cores()),
                     include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
            self.started_ray = True

    async def stop(self) -> None:
        if self.restarting is not None:
            self.restarting.cancel()
        if self.channel is not None:
            self.channel.close()
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
    except GraphInputError as exc:
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

    async def require_token(request: Request) -> None:
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
        return JSONResponse({"detail": str(exc.detail)}, exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError):
        m.rejected.labels("422").inc()
        return JSONResponse({"detail": _validation_detail(exc.errors())}, 422)

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, exc: Exception):
        request_id = uuid.uuid4().hex[:16]
        log.error("request %s %s %s failed", request_id, request.method, request.url.path,
                  exc_info=(type(exc), exc, exc.__traceback__))
        m.rejected.labels("500").inc()
        return JSONResponse({"detail": f"internal error (request id {request_id})"}, 500,
                            headers={"X-Request-ID": request_id})

    read_errors = errors(500, 503)
    write_errors = errors(400, 401, 413, 422, 500, 503)

    # health -----------------------------------------------------------------------
    @app.get("/healthz", tags=["health"], response_model=Health)
    async def healthz() -> dict:
        """Liveness: the process answers."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"], response_model=None,
             responses={200: {"model": Ready}, 503: {"model": NotReady}})
    async def readyz():
        """200 once the scheduler and every worker answer, the data directory is replayed and the
        log takes writes (after a failed write: until a probe write succeeds); else 503 with why."""
        problem = await svc.health()
        if problem is not None:
            return JSONResponse({"ready": False, "detail": problem}, 503)
        return {"ready": True, "workers": svc.num_workers}

    @app.get("/v1/cluster", tags=["cluster"], response_model=None,
             responses={200: {"model": Cluster}, **read_errors})
    async def cluster() -> dict:
        """Workers (device, backend, counters) and graph stats."""
        svc.need_ready()
        info = await svc.call("cluster")
        info["subscribers"] = svc.stream.subscribers
        return info

    @app.get("/metrics", tags=["health"], response_class=PlainTextResponse,
             responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                              "description": "Prometheus text exposition"}})
    async def metrics():
        """Prometheus text exposition."""
        m.subscribers.set(svc.stream.subscribers)
        m.resets.set(svc.stream.resets_sent)
        return PlainTextResponse(generate_latest(m.registry), media_type=CONTENT_TYPE_LATEST)

    # patterns -----------------------------------------------------------------------
    @app.post("/v1/patterns", status_code=201, tags=["patterns"], dependencies=[Depends(require_token)],
              response_model=None, responses={201: {"model": PatternInfo}, **write_errors, **errors(409)},
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": PatternRequest.model_json_schema()}}}})
    async def register(request: Request):
        """Register a pattern; answers its analysis and current total."""
        svc.need_ready()
        body = await _read_body(request, svc.config.max_request_bytes)
        try:
            req = PatternRequest.model_validate(_json_object(body, tuple(PatternRequest.model_fields)))
        except ValidationError as exc:
            raise HTTPException(422, _validation_detail(exc.errors())) from exc
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
            desc = await svc.call("register", [list(e) for e in pattern.edges], pattern.induced, pattern.name)
            svc.stream.add_pattern(desc["id"], desc["version"], desc["total"])
            m.patterns.inc()
        return JSONResponse(desc, 201)

    @app.get("/v1/patterns", tags=["patterns"], response_model=None,
             responses={200: {"model": list[PatternInfo]}, **read_errors})
    async def list_patterns() -> list[dict]:
        """Every registered pattern with its current version and total."""
        svc.need_ready()
        return await svc.call("patterns")

    async def _pattern_or_404(pid: int) -> dict:
        desc = await svc.call("pattern", pid)
        if desc is None:
            raise HTTPException(404, f"pattern {pid}: not registered")
        return desc

    @app.get("/v1/patterns/{pid}", tags=["patterns"], response_model=None,
             responses={200: {"model": PatternInfo}, **errors(404, 422, 500, 503)})
    async def get_pattern(pid: int) -> dict:
        """One pattern: its analysis, current version and total."""
        svc.need_ready()
        return await _pattern_or_404(pid)

    @app.delete("/v1/patterns/{pid}", tags=["patterns"], dependencies=[Depends(require_token)],
                response_model=None,
                responses={200: {"model": PatternDeleted}, **errors(401, 404, 422, 500, 503)})
    async def delete_pattern(pid: int) -> dict:
        """Remove a pattern; its streams end."""
        svc.need_ready()
        async with svc.lock:
            if not await svc.call("unregister", pid):
                raise HTTPException(404, f"pattern {pid}: not registered")
            svc.stream.remove_pattern(pid)
            m.patterns.dec()
        return {"id": pid, "deleted": True}

    @app.get("/v1/patterns/{pid}/matches", tags=["patterns"], response_model=None,
             responses={200: {"model": Matches}, **errors(404, 409, 422, 500, 503)})
    async def matches(pid: int, limit: int = Query(1000, ge=0, le=100_000),
                      offset: int = Query(0, ge=0)) -> dict:
        """The current matches in listed form, sorted; a page of `limit` from `offset`.  A
        pattern with more than `DELTAMATCH_MAX_MATCH_LISTING` current matches answers 409."""
        svc.need_ready()
        most = svc.config.max_match_listing
        got = await svc.call("matches", pid, offset, limit, most)
        if got is None:
            raise HTTPException(404, f"pattern {pid}: not registered")
        version, total, rows = got
        if rows is None:
            raise HTTPException(409, f"pattern {pid}: {total} current matches, more than the "
                                     f"{most} DELTAMATCH_MAX_MATCH_LISTING lets a page list and sort; "
                                     f"follow its deltas (/v1/patterns/{pid}/deltas) instead")
        return {"version": version, "total": total, "offset": offset, "matches": rows.tolist()}

    # batches --------------------------------------------------------------------------
    async def _apply(kind: str, insert: np.ndarray | None, delete: np.ndarray | None,
                     batch_id: str | None, received: float) -> dict:
        start = time.perf_counter()
        async with svc.lock:
            called = time.perf_counter()
            if kind == "batch":
                answer, info = await svc.call("apply", insert, delete, batch_id)
            elif kind == "load":
                answer, info = await svc.call("load", insert, batch_id)
            else:
                answer, info = await svc.call("clear")
            returned = time.perf_counter()
            if info:
                svc.stream.publish(_events(info))
        if info:
            m.batch(kind, answer, info, time.perf_counter() - start, start - received, returned - called)
        return answer

    @app.post("/v1/updates", tags=["graph"], dependencies=[Depends(require_token)], response_model=None,
              responses={200: {"model": BatchAnswer}, **write_errors},
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

    @app.post("/v1/graph/load", tags=["graph"], dependencies=[Depends(require_token)], response_model=None,
              responses={200: {"model": BatchAnswer}, **errors(400, 401, 403, 413, 422, 500, 503)},
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": LoadRequest.model_json_schema()},
                  "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}})
    async def load(request: Request, batch_id: str | None = Query(None, min_length=1,
                                                                  max_length=MAX_BATCH_ID)) -> dict:
        """Bulk-load edges as one version (counts exact, no listings)."""
        received = time.perf_counter()
        svc.need_ready()
        cfg = svc.config
        body = await _read_body(request, cfg.max_request_bytes)
        if request.headers.get("content-type", "").split(";")[0].strip() == "application/json":
            obj = _json_object(body, ("edges", "path", "batch_id"))
            batch_id = _batch_id(obj.get("batch_id", batch_id))
            if obj.get("path") is not None:
                edges = _edge_array(await asyncio.to_thread(_load_path, cfg, obj["path"]), "path")
            else:
                if isinstance(obj.get("edges"), list) and len(obj["edges"]) > cfg.max_load_edges:
                    raise HTTPException(413, f"edges: more than {cfg.max_load_edges} pairs")
                edges = _edge_array(obj.get("edges"), "edges")
        else:
            edges = _edge_array(await asyncio.to_thread(_parse_file, body, "body", cfg.max_request_bytes,
                                                        cfg.max_load_edges), "body")
        if edges.shape[0] > cfg.max_load_edges:
            raise HTTPException(413, f"edges: {edges.shape[0]} pairs exceed the load limit of "
                                     f"{cfg.max_load_edges}")
        return await _apply("load", edges, None, batch_id, received)

    @app.delete("/v1/graph", tags=["graph"], dependencies=[Depends(require_token)], response_model=None,
                responses={200: {"model": BatchAnswer}, **errors(401, 403, 500, 503)})
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

    @app.get("/v1/patterns/{pid}/deltas", tags=["streams"], response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
                              "description": "Server-Sent Events: `delta` and `reset` events"},
                        **errors(404, 422, 500, 503)})
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


def _validation_detail(errs) -> str:
    """pydantic errors as one line naming each offending field: `edges.0.1: Input should be ...`."""
    parts = []
    for err in errs:
        loc = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query", "path"))
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return "; ".join(parts)


def _parse_file(data: bytes, name: str, max_bytes: int, max_edges: int) -> np.ndarray:
    """An uploaded or server-side edge file's pairs; size limits 413, bad content 422."""
    try:
        return parse_edges(data, name, max_bytes=max_bytes, max_edges=max_edges).pairs
    except EdgeFileTooLarge as exc:
        raise HTTPException(413, f"{exc}") from exc
    except EdgeFileError as exc:
        raise HTTPException(422, str(exc)) from exc


def _load_path(config: ServiceConfig, path) -> np.ndarray:
    if not config.load_dir:
        raise HTTPException(403, "path: server-side files are disabled (set DELTAMATCH_LOAD_DIR)")
    if not isinstance(path, str) or not path or "\0" in path:
        raise HTTPException(422, "path: must be a non-empty file name (a string without NUL bytes) "
                                 "under DELTAMATCH_LOAD_DIR")
    root = Path(config.load_dir).resolve()
    target = (root / path).resolve()
    if root != target and root not in target.parents:
        raise HTTPException(403, f"path: {path!r} is outside DELTAMATCH_LOAD_DIR")
    max_bytes = config.max_load_edges * LOAD_FILE_BYTES_PER_EDGE
    try:
        return read_edge_file(target, max_bytes=max_bytes, max_edges=config.max_load_edges).pairs
    except EdgeFileTooLarge as exc:
        raise HTTPException(413, f"path: {exc}") from exc
    except EdgeFileError as exc:
        raise HTTPException(422, f"path: {exc}") from exc

"""Service configuration: environment variables, overridden by `deltamatch serve` flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields

from deltamatch.scheduler.allocation import POLICIES
from deltamatch.scheduler.routing import Routing


@dataclass
class ServiceConfig:
    """Every knob of the service; `from_env` reads `DELTAMATCH_<FIELD>` (upper case)."""

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int | None = None  # None: one per GPU, or 2 CPU workers without a GPU
    data_dir: str = "deltamatch-data"
    backend: str = "auto"
    num_gpus_per_worker: float | None = None  # None: 1 with a GPU, 0 without
    token: str | None = None
    max_request_bytes: int = 256 << 20
    max_batch: int = 1_000_000
    max_load_edges: int = 200_000_000
    max_pattern_vertices: int = 8
    max_patterns: int = 64
    retention: int = 1024
    subscriber_buffer: int = 256
    max_listed: int = 1000
    max_match_listing: int = 10_000_000  # current matches GET .../matches lists and sorts, at most
    keepalive: float = 15.0
    snapshot_every: int = 1000
    load_dir: str | None = None
    ray_num_cpus: int | None = None
    policy: str = "calibrated"
    repair: bool = False  # cut a damaged log at the damage (a copy is kept) instead of refusing to start
    route: str = "auto"  # where matching runs: auto, cpu, gpu, local (`scheduler/routing.py`)
    route_crossover: float = 0.0  # predicted cost below which auto picks the CPU engine
    route_local: float = 0.0  # predicted batch cost below which auto matches in the scheduler
    recount: str = "auto"  # count-only batches by whole-graph recounts: auto, always, never (routing)
    direct_channel: bool = True  # batches reach the scheduler over its Unix socket, not a Ray call

    def routing(self) -> Routing:
        """The scheduler's route settings (`scheduler/routing.py`)."""
        return Routing(self.route, self.route_crossover, self.route_local, self.recount)

    @classmethod
    def from_env(cls, env: dict | None = None, **overrides) -> ServiceConfig:
        """Defaults, then `DELTAMATCH_*` variables, then non-None `overrides`."""
        env = os.environ if env is None else env
        values = {}
        for f in fields(cls):
            raw = env.get(f"DELTAMATCH_{f.name.upper()}")
            if raw is None or raw == "":
                continue
            values[f.name] = _convert(f.name, raw, f.type)
        values.update({k: v for k, v in overrides.items() if v is not None})
        cfg = cls(**values)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        if self.backend not in ("auto", "cpu", "cuda"):
            raise ValueError(f"backend must be auto, cpu or cuda, got {self.backend!r}")
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        self.routing()  # raises naming the variable
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if self.num_gpus_per_worker is not None and self.num_gpus_per_worker < 0:
            raise ValueError(f"num_gpus_per_worker must be >= 0, got {self.num_gpus_per_worker}")
        if self.backend == "cuda" and self.num_gpus_per_worker == 0:
            raise ValueError("backend cuda needs num_gpus_per_worker > 0: Ray gives each worker its GPU "
                             "(CUDA_VISIBLE_DEVICES); with 0 every worker would run on the first card")
        if not 2 <= self.max_pattern_vertices <= 8:
            raise ValueError("max_pattern_vertices must be in 2..8")
        for name in ("max_request_bytes", "max_batch", "max_load_edges", "max_patterns", "retention",
                     "subscriber_buffer", "snapshot_every", "max_match_listing"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive")


def worker_plan(config: ServiceConfig, cluster_gpus: float) -> tuple[int, float, str]:
    """(workers, GPUs each asks Ray for, backend) for a Ray cluster of `cluster_gpus` GPUs: by default
    one worker per GPU, each with one (Ray sets its CUDA_VISIBLE_DEVICES), else 2 CPU workers.  A
    worker given no GPU runs the CPU engine: it would otherwise see every card and use the first."""
    per = config.num_gpus_per_worker
    use_gpu = config.backend == "cuda" or (config.backend == "auto" and cluster_gpus > 0 and per != 0)
    if per is None:
        per = 1.0 if use_gpu else 0.0
    if config.workers is not None:
        workers = config.workers
    elif use_gpu:
        workers = max(1, int(cluster_gpus / per))
    else:
        workers = 2
    return workers, per, config.backend if use_gpu else "cpu"


def _convert(name: str, raw: str, annotation: str):
    kind = str(annotation)
    if kind == "bool":
        if raw.lower() not in ("1", "true", "yes", "0", "false", "no"):
            raise ValueError(f"DELTAMATCH_{name.upper()}={raw!r} is not a boolean (1/0, true/false)")
        return raw.lower() in ("1", "true", "yes")
    try:
        if kind.startswith("int"):
            return int(raw)
        if kind.startswith("float"):
            return float(raw)
    except ValueError as exc:
        raise ValueError(f"DELTAMATCH_{name.upper()}={raw!r} is not a number") from exc
    return raw

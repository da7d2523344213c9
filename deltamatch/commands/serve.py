"""Run the service: FastAPI on uvicorn (one worker) in front of the Ray scheduler and workers.

Flags override the DELTAMATCH_* environment variables (README, "Service").
"""

from __future__ import annotations

import argparse
import os
import socket
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="bind address (default 127.0.0.1; env DELTAMATCH_HOST)")
    parser.add_argument("--port", type=int, help="port (default 8000; env DELTAMATCH_PORT)")
    parser.add_argument("--workers", type=int, help="worker actors (default: one per GPU, else 2)")
    parser.add_argument("--data-dir", help="batch log and snapshots (default ./deltamatch-data)")
    parser.add_argument("--backend", choices=("auto", "cpu", "cuda"), help="engine (default auto)")
    parser.add_argument("--num-gpus-per-worker", type=float,
                        help="GPUs each worker asks Ray for; fractions share a card (default 1 with a GPU)")
    parser.add_argument("--policy", help="task allocation policy (default calibrated; env DELTAMATCH_POLICY)")
    parser.add_argument("--repair", action="store_true", default=None,
                        help="when the batch log holds a damaged record followed by intact ones, keep a "
                             "copy of the segment and cut it at the damage (default: refuse to start)")
    parser.add_argument("--log-level", default="info", help="uvicorn log level (default info)")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import uvicorn

    from deltamatch.service.app import create_app
    from deltamatch.service.config import ServiceConfig

    config = ServiceConfig.from_env(host=args.host, port=args.port, workers=args.workers,
                                    data_dir=args.data_dir, backend=args.backend,
                                    num_gpus_per_worker=args.num_gpus_per_worker, policy=args.policy,
                                    repair=args.repair)
    busy = port_in_use(config.host, config.port)
    if busy:  # before Ray starts: nothing to wait for, nothing left behind
        print(f"deltamatch serve: cannot listen on {config.host}:{config.port}: {busy}", file=sys.stderr)
        return 1
    uvicorn.run(create_app(config), host=config.host, port=config.port, workers=1,
                log_level=args.log_level, timeout_graceful_shutdown=5)
    return 0


def port_in_use(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on (e.g. another process holds it), or None."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


if __name__ == "__main__":
    import sys

    _parser = argparse.ArgumentParser(prog="deltamatch serve", description=__doc__)
    add_arguments(_parser)
    sys.exit(run(_parser.parse_args()))

"""Service settings: how many workers start, the GPUs each asks Ray for, and their engine."""

from __future__ import annotations

import pytest

from deltamatch.scheduler.routing import Routing
from deltamatch.service.config import ServiceConfig, worker_plan


@pytest.mark.parametrize(("settings", "gpus", "want"), [
    ({}, 4.0, (4, 1.0, "auto")),  # one worker per GPU, one GPU each
    ({}, 0.0, (2, 0.0, "cpu")),
    ({"num_gpus_per_worker": 0.25}, 1.0, (4, 0.25, "auto")),  # four share the card
    ({"workers": 4, "backend": "cuda"}, 4.0, (4, 1.0, "cuda")),
    ({"workers": 2, "num_gpus_per_worker": 0.0}, 4.0, (2, 0.0, "cpu")),  # no GPU given: the CPU engine
    ({"backend": "cpu"}, 4.0, (2, 0.0, "cpu")),
])
def test_worker_plan(settings, gpus, want):
    assert worker_plan(ServiceConfig.from_env({}, **settings), gpus) == want


@pytest.mark.parametrize("env", [
    {"DELTAMATCH_BACKEND": "cuda", "DELTAMATCH_NUM_GPUS_PER_WORKER": "0"},
    {"DELTAMATCH_NUM_GPUS_PER_WORKER": "-1"},
])
def test_rejects_workers_that_cannot_get_a_gpu_of_their_own(env):
    with pytest.raises(ValueError, match="num_gpus_per_worker"):
        ServiceConfig.from_env(env)


def test_routing_settings_come_from_the_environment_and_are_checked():
    cfg = ServiceConfig.from_env({"DELTAMATCH_ROUTE": "local", "DELTAMATCH_ROUTE_LOCAL": "1e5",
                                  "DELTAMATCH_RECOUNT": "never"})
    assert cfg.routing() == Routing("local", 0.0, 1e5, "never")
    with pytest.raises(ValueError, match="DELTAMATCH_ROUTE_LOCAL"):
        ServiceConfig.from_env({"DELTAMATCH_ROUTE_LOCAL": "-1"})
    with pytest.raises(ValueError, match="DELTAMATCH_RECOUNT"):
        ServiceConfig.from_env({"DELTAMATCH_RECOUNT": "sometimes"})

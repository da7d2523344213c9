"""The deterministic RMAT generator: the algorithm of NOTES.md, its fingerprints."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.bench.rmat import fingerprint, rmat_edges


def _naive(scale: int, edge_factor: int, seed: int) -> set[tuple[int, int]]:
    """NOTES.md's recipe written out pair by pair."""
    m = edge_factor << scale
    rng = np.random.default_rng(seed=seed)
    a, ab, abc = np.float32(0.57), np.float32(0.57) + np.float32(0.19), np.float32(0.95)
    draws = [rng.random(m, dtype=np.float32) for _ in range(scale)]
    out = set()
    for e in range(m):
        s = d = 0
        for i in range(scale):
            r = draws[i][e]
            bit = 1 << (scale - 1 - i)
            if r >= ab:
                s |= bit
            if a <= r < ab or r >= abc:
                d |= bit
        if s != d:
            out.add((min(s, d), max(s, d)))
    return out


def test_matches_the_recipe_pair_by_pair():
    edges = rmat_edges(8, edge_factor=4, seed=3)
    assert set(map(tuple, edges.tolist())) == _naive(8, 4, 3)
    assert edges.shape[0] == len({tuple(e) for e in edges.tolist()})
    assert (edges[:, 0] < edges[:, 1]).all() and edges.dtype == np.int64


def test_is_deterministic_and_seeded():
    assert np.array_equal(rmat_edges(12), rmat_edges(12))
    assert not np.array_equal(rmat_edges(12, seed=1), rmat_edges(12, seed=2))


def test_scale_16_fingerprint():
    assert fingerprint(rmat_edges(16), 16) == (65_536, 908_860, 9_672)


@pytest.mark.parametrize("kwargs", [{"scale": 0}, {"scale": 4, "edge_factor": 0}, {"scale": 4, "a": 0.9}])
def test_rejects_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        rmat_edges(**kwargs)


@pytest.mark.gpu
def test_the_device_generates_the_same_graph():
    from deltamatch.workers.cuda_backend import cuda_available

    if not cuda_available():
        pytest.skip("needs CuPy and a CUDA device")
    assert np.array_equal(rmat_edges(12, gpu=True), rmat_edges(12))
    small = {"scale": 8, "edge_factor": 4, "seed": 3}
    assert np.array_equal(rmat_edges(**small, gpu=True), rmat_edges(**small))

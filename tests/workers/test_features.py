import numpy as np
import pytest

from deltamatch.workers import features
from deltamatch.workers.features import pair_features
from deltamatch.workers.graph import DynamicGraph


def _adjacency(edges):
    adj: dict[int, set[int]] = {}
    for u, v in edges:
        adj.setdefault(int(u), set()).add(int(v))
        adj.setdefault(int(v), set()).add(int(u))
    return adj


def _random_batch(seed):
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, 30, size=(260, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    base, ins = pairs[:200], pairs[200:]
    dele = base[rng.choice(base.shape[0], 25, replace=False)]
    return base, ins, dele


@pytest.mark.parametrize("parallel_min", [features.PARALLEL_MIN_PAIRS, 0])  # 0: the parallel kernel
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_features_match_brute_force_on_both_sides(seed, parallel_min, monkeypatch):
    monkeypatch.setattr(features, "PARALLEL_MIN_PAIRS", parallel_min)
    base, ins, dele = _random_batch(seed)
    g = DynamicGraph()
    g.apply(g.normalize(base, None))
    batch = g.normalize(ins, dele)
    feats = pair_features(g, batch, g.num_vertices)
    ext = np.concatenate([g.vertices.external, batch.new_vertices])
    old_edges = {tuple(sorted(e)) for e in g.edges().tolist()}
    changed = {tuple(sorted((int(ext[a]), int(ext[b])))) for a, b in batch.changed}
    new_edges = old_edges ^ changed
    for side, edges in (("old", old_edges), ("new", new_edges)):
        adj = _adjacency(edges)
        f = feats.side(side)
        for r, (a, b) in enumerate(batch.changed):
            x, y = int(ext[a]), int(ext[b])
            assert f.deg0[r] == len(adj.get(x, ()))
            assert f.deg1[r] == len(adj.get(y, ()))
            assert f.common[r] == len(adj.get(x, set()) & adj.get(y, set()))
        assert f.num_vertices == len(adj)
        assert f.avg_degree == pytest.approx(2 * len(edges) / len(adj))
        squares = sum(len(n) ** 2 for n in adj.values())
        assert f.square_sum == squares
        assert f.neighbour_degree == pytest.approx(squares / (2 * len(edges)))


def test_side_rejects_unknown_name():
    g = DynamicGraph()
    feats = pair_features(g, g.normalize([[1, 2]], None), 0)
    with pytest.raises(ValueError, match="side"):
        feats.side("middle")


def test_common_neighbours_can_be_skipped():
    base, ins, dele = _random_batch(4)
    g = DynamicGraph()
    g.apply(g.normalize(base, None))
    batch = g.normalize(ins, dele)
    full = pair_features(g, batch, g.num_vertices)
    lean = pair_features(g, batch, g.num_vertices, common=False)
    assert full.old.common.any() and not lean.old.common.any() and not lean.new.common.any()
    assert (lean.new.deg0 == full.new.deg0).all() and lean.new.avg_degree == full.new.avg_degree

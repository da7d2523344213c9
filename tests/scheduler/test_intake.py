"""The scheduler's intake: one normalization equal to every replica's, features with kept
totals, nothing changed until commit, restore to the workers' ids."""

from __future__ import annotations

import numpy as np

from deltamatch.scheduler.intake import Intake
from deltamatch.workers.replica import GraphReplica


def _stream(seed: int, batches: int = 4):
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, 400, size=(900 + 60 * batches, 2)) * 7 + 3  # sparse, unordered ids
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    base = pairs[:900]
    out = []
    for b in range(batches):
        ins = pairs[900 + 60 * b: 960 + 60 * b]
        dele = np.concatenate([base[rng.choice(base.shape[0], 20)], ins[:3]])  # some absent, some repeated
        out.append((np.concatenate([ins, ins[:5]]), dele))
    return base, out


def test_normalization_equals_a_replicas_own_batch_by_batch():
    base, batches = _stream(0)
    intake, replica = Intake(), GraphReplica("cpu")
    for version, (ins, dele) in enumerate([(base, None), *batches], start=1):
        mine, theirs = intake.normalize(ins, dele), replica.normalize(ins, dele)
        assert mine.changed.tolist() == theirs.changed.tolist() and mine.ignored == theirs.ignored
        assert mine.new_vertices.tolist() == theirs.new_vertices.tolist()
        intake.commit(version, mine)
        replica.apply_only(version, mine)
    assert intake.graph.vertices.external.tolist() == replica.graph.vertices.external.tolist()
    assert intake.graph.internal_edges().tolist() == replica.graph.internal_edges().tolist()
    assert intake.stats() == replica.stats()


def test_nothing_changes_before_commit():
    intake = Intake()
    intake.commit(1, intake.normalize([[1, 2], [2, 3]], None))
    batch = intake.normalize([[3, 4], [4, 5]], [[1, 2]])
    intake.features(batch, common=True)
    assert len(intake.graph.vertices) == 3 and intake.graph.num_edges == 2 and intake.version == 1
    assert intake.normalize([[3, 4]], None).new_vertices.tolist() == [4]


def test_features_keep_graph_totals_across_batches():
    base, batches = _stream(1)
    intake = Intake()
    intake.commit(1, intake.normalize(base, None))
    for version, (ins, dele) in enumerate(batches, start=2):
        batch = intake.normalize(ins, dele)
        feats = intake.features(batch, common=False)
        degree = intake.graph.degree.astype(np.int64)
        assert feats.old.num_vertices == intake.graph.num_vertices
        assert feats.old.square_sum == int(degree @ degree)
        intake.commit(version, batch)
        degree = intake.graph.degree.astype(np.int64)
        assert feats.new.num_vertices == intake.graph.num_vertices
        assert feats.new.square_sum == int(degree @ degree)


def test_restore_reproduces_internal_ids():
    base, batches = _stream(2)
    live = Intake()
    live.commit(1, live.normalize(base, None))
    external, edges = live.snapshot()
    logged = []
    for version, (ins, dele) in enumerate(batches, start=2):
        live.commit(version, live.normalize(ins, dele))
        logged.append((version, ins, dele))
    restored = Intake()
    restored.restore(external, edges, 1, logged)
    assert restored.version == live.version == 1 + len(batches)
    assert restored.graph.vertices.external.tolist() == live.graph.vertices.external.tolist()
    assert restored.graph.internal_edges().tolist() == live.graph.internal_edges().tolist()
    probe = ([[3, 10], [17, 99999]], [[3, 10]])
    assert restored.normalize(*probe).changed.tolist() == live.normalize(*probe).changed.tolist()

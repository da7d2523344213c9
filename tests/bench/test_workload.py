"""The PGMiner workload: the load, the stream's batches, deletions of present edges."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.bench.workload import make_workload


def _edges(n: int) -> np.ndarray:
    return np.array([(i, i + 1 + j) for i in range(n) for j in range(3)], dtype=np.int64)


def test_load_then_stream_in_file_order():
    edges = _edges(100)
    w = make_workload(edges, load_fraction=0.9, batch_size=7)
    assert np.array_equal(w.initial, edges[:270])
    assert np.array_equal(np.concatenate([b.insert for b in w.batches]), edges[270:])
    assert [b.size for b in w.batches] == [7] * 4 + [2]
    assert w.stream_batches == 5


def test_shuffle_is_a_seeded_permutation():
    edges = _edges(50)
    a = make_workload(edges, batch_size=5, shuffle=3)
    b = make_workload(edges, batch_size=5, shuffle=3)
    assert np.array_equal(a.initial, b.initial)
    assert not np.array_equal(a.initial, edges[: a.initial.shape[0]])
    streamed = np.concatenate([a.initial] + [x.insert for x in a.batches])
    assert sorted(map(tuple, streamed.tolist())) == sorted(map(tuple, edges.tolist()))


def test_deletions_remove_edges_present_at_that_point():
    w = make_workload(_edges(200), load_fraction=0.5, batch_size=20, delete_fraction=0.25, seed=1)
    present = {tuple(e) for e in w.initial.tolist()}
    for b in w.batches:
        dels = [tuple(e) for e in b.delete.tolist()]
        assert len(dels) == 5 and len(set(dels)) == 5
        assert set(dels) <= present
        present -= set(dels)
        present |= {tuple(e) for e in b.insert.tolist()}


def test_max_batches_truncates_but_records_the_stream_length():
    w = make_workload(_edges(100), batch_size=3, max_batches=2)
    assert len(w.batches) == 2 and w.stream_batches == 10


@pytest.mark.parametrize("kwargs, field", [({"load_fraction": 1.5}, "load_fraction"),
                                           ({"batch_size": 0}, "batch_size"),
                                           ({"delete_fraction": 1.0}, "delete_fraction")])
def test_bad_parameters_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        make_workload(_edges(10), **kwargs)

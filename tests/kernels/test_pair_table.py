"""The host-built pair table of a batch's changed pairs (kernels/pair_table.py, read by match.cu)."""

from __future__ import annotations

import numpy as np

from deltamatch.kernels.pair_table import EMPTY, MAX_LOAD, changed_pair_table, pair_home


def held(keys: np.ndarray, ranks: np.ndarray) -> dict[tuple[int, int], int]:
    """The table's pairs (a < b) and their ranks."""
    return {(int(k) >> 32, int(k) & 0xFFFF_FFFF): int(r)
            for k, r in zip(keys, ranks, strict=True) if k != EMPTY}


def test_every_pair_is_held_once_with_its_rank() -> None:
    rng = np.random.default_rng(5)
    pairs = rng.choice(1 << 20, size=(3000, 2)).astype(np.int32)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    keys, ranks, bits = changed_pair_table(pairs[:, 0], pairs[:, 1], np.arange(len(pairs)))
    want = {}
    for i, (a, b) in enumerate(pairs.tolist()):
        want.setdefault((min(a, b), max(a, b)), i)
    assert held(keys, ranks) == want
    assert keys.shape[0] == 1 << bits and len(want) <= MAX_LOAD * keys.shape[0]


def test_a_pair_given_twice_keeps_its_lower_rank() -> None:
    a, b = np.array([3, 9, 7, 3]), np.array([7, 1, 3, 4])
    keys, ranks, _ = changed_pair_table(a, b, np.array([5, 1, 2, 0]))
    assert held(keys, ranks) == {(3, 7): 2, (1, 9): 1, (3, 4): 0}


def test_a_key_sits_in_the_probe_run_from_its_home() -> None:
    """Linear probing's invariant, which the device's lookup relies on: no empty slot lies between
    a key's home (pair_table.cuh's Fibonacci hash) and the key."""
    rng = np.random.default_rng(6)
    pairs = rng.choice(5000, size=(2000, 2))
    keys, _, bits = changed_pair_table(pairs[:, 0], pairs[:, 1], np.arange(2000))
    mask = (1 << bits) - 1
    for s in np.flatnonzero(keys != EMPTY).tolist():
        home = int(pair_home(keys[s], bits))
        assert home == ((int(keys[s]) * 0x9E37_79B9_7F4A_7C15) % (1 << 64)) >> (64 - bits)
        at = home
        while at != s:
            assert keys[at] != EMPTY
            at = (at + 1) & mask


def test_no_pairs_give_an_empty_table() -> None:
    keys, ranks, bits = changed_pair_table(*(np.zeros(0, np.int32),) * 3)
    assert bits >= 1 and (keys == EMPTY).all() and (ranks == -1).all()

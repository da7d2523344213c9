"""The host-built pair table and pair filter of a batch's changed pairs (kernels/pair_table.py, read
by match.cu)."""

from __future__ import annotations

import numpy as np

from deltamatch.kernels.pair_table import (
    EMPTY,
    FILTER_BITS_PER_PAIR,
    MAX_FILTER_WORD_BITS,
    MAX_LOAD,
    changed_pair_filter,
    changed_pair_table,
    filter_slot,
    filter_word_bits,
    pair_home,
    pair_key,
)


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


def device_slot(a: int, b: int, bits: int) -> tuple[int, int]:
    """pair_table.cuh's dm_pair_maybe's word and mask, written out from the hash (not from filter_slot)."""
    h = ((int(pair_key(a, b)) * 0x9E37_79B9_7F4A_7C15) % (1 << 64)) >> 32
    below = 32 - bits
    return h >> below, (1 << ((h >> (below - 5)) & 31)) | (1 << ((h >> (below - 10)) & 31))


def passes(words: np.ndarray, a: int, b: int) -> bool:
    word, mask = device_slot(a, b, words.shape[0].bit_length() - 1)
    return int(words[word]) & mask == mask


def test_the_filter_passes_every_changed_pair_either_way_round() -> None:
    rng = np.random.default_rng(7)
    pairs = rng.choice(1 << 22, size=(5000, 2))
    words = changed_pair_filter(pairs[:, 0], pairs[:, 1])
    assert all(passes(words, a, b) and passes(words, b, a) for a, b in pairs.tolist())


def test_the_filter_passes_few_other_pairs() -> None:
    """About 2% of pairs not in the set pass (16 bits a pair, two of them per pair in one word)."""
    rng = np.random.default_rng(8)
    pairs = rng.choice(1 << 22, size=(10_000, 2))
    words = changed_pair_filter(pairs[:, 0], pairs[:, 1])
    assert words.shape[0] * 32 >= FILTER_BITS_PER_PAIR * len(pairs)
    held_pairs = {(min(a, b), max(a, b)) for a, b in pairs.tolist()}
    others = [(a, b) for a, b in rng.choice(1 << 22, size=(20_000, 2)).tolist()
              if (min(a, b), max(a, b)) not in held_pairs]
    passed = sum(passes(words, a, b) for a, b in others) / len(others)
    assert 0.002 < passed < 0.04


def test_the_filter_slot_is_the_device_hash() -> None:
    rng = np.random.default_rng(9)
    for bits in (5, 13, 22):
        for a, b in rng.choice(1 << 31, size=(200, 2)).tolist():
            word, mask = filter_slot(pair_key(a, b), bits)
            assert (int(word), int(mask)) == device_slot(a, b, bits)


def test_no_pairs_give_an_empty_filter() -> None:
    words = changed_pair_filter(np.zeros(0, np.int32), np.zeros(0, np.int32))
    assert words.shape[0] >= 32 and not words.any()


def test_the_filter_stops_growing_at_its_largest_size() -> None:
    assert filter_word_bits(1 << 30) == MAX_FILTER_WORD_BITS

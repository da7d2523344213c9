"""The host side of pair_table.cuh: open-addressed tables keyed by vertex pairs.

A batch's changed pairs go to the GPU as such a table (`changed_pair_table`) beside the
BatchView's sorted partner lists: match.cu's `batch_rank` asks whether a pair is changed for
nearly every candidate of a last level, and one probe of the table replaces a binary search
of a hub's partners (about six dependent reads at batches of 10^4).  Measured (RMAT-20, 4-cycle,
docs/GPU.md sessions 15 and 16): 13-15% slower at batches of 1,000, where short partner lists stay
in L1 and a probe is an L2 read, equal at 10^4, 1.15x faster at 10^5; so only batches of at least
cuda_engine.PAIR_TABLE_MIN_PAIRS changed pairs get one.

Every batch also gets a filter of its changed pairs (`changed_pair_filter`, a blocked Bloom
filter: two bits of one 32-bit word per pair; 32 KB at 10^4 pairs): `batch_rank` reads it
first, and only a pair it passes costs the table's probes or the partner search.  Most pairs
asked are not changed (Nsight Compute on the RMAT-20 4-cycle at 10^4: the misses' 2.7 probes and
the b_slot read before them held 26% of the kernel's stall samples, docs/GPU.md session 27).
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # pair_table.cuh: DM_PAIR_EMPTY
FIBONACCI = np.uint64(0x9E37_79B9_7F4A_7C15)  # 2^64 / phi (pair_table.cuh: dm_pair_home)
MIN_BITS = 6
MAX_LOAD = 0.5  # linear probing's expected probes per miss, (1 + 1 / (1 - load)^2) / 2 (Knuth): 2.5


# At least 16 bits a pair (the words round up to a power of two): on random pairs 1.9%, 0.9% and
# 1.3% of other pairs pass filters of 10^3, 10^4 and 10^5 pairs (docs/GPU.md, session 27).
FILTER_BITS_PER_PAIR = 16
MIN_FILTER_WORD_BITS = 5
MAX_FILTER_WORD_BITS = 22  # a word's index and its two bits within the hash's top 32 bits (16 MB)


def table_bits(n_keys: int) -> int:
    """log2 of the slots that hold `n_keys` keys at a load of at most MAX_LOAD."""
    return max(MIN_BITS, int(np.ceil(np.log2(max(n_keys, 1) / MAX_LOAD))))


@njit(cache=True)
def pair_key(a: int, b: int) -> np.uint64:
    """The key of the pair {a, b}: min << 32 | max (pair_table.cuh: dm_pair_key)."""
    lo, hi = min(a, b), max(a, b)
    return (np.uint64(lo) << np.uint64(32)) | np.uint64(hi)


@njit(cache=True)
def pair_home(key: np.uint64, bits: int) -> np.int64:
    """The key's first slot: the top `bits` bits of key * 2^64 / phi (pair_table.cuh: dm_pair_home)."""
    return np.int64((key * FIBONACCI) >> np.uint64(64 - bits))


def changed_pair_table(a: np.ndarray, b: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(keys uint64[2^bits], ranks int32[2^bits], bits): pair {a[i], b[i]} at its slot with rank[i],
    at a load of at most MAX_LOAD; a pair given twice keeps its lower rank (as BatchView's partner
    search finds)."""
    bits = table_bits(a.shape[0])
    keys, ranks = _fill(a.astype(np.int64), b.astype(np.int64), rank.astype(np.int32), bits)
    return keys, ranks, bits


@njit(cache=True)
def _fill(a: np.ndarray, b: np.ndarray, rank: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    keys = np.full(1 << bits, EMPTY, dtype=np.uint64)
    ranks = np.full(1 << bits, -1, dtype=np.int32)
    mask = (1 << bits) - 1
    for i in range(a.shape[0]):
        key = pair_key(a[i], b[i])
        s = pair_home(key, bits)
        while keys[s] != EMPTY and keys[s] != key:
            s = (s + 1) & mask
        if keys[s] == EMPTY or rank[i] < ranks[s]:
            keys[s] = key
            ranks[s] = rank[i]
    return keys, ranks


def filter_word_bits(n_keys: int) -> int:
    """log2 of the 32-bit words of a filter of `n_keys` pairs at FILTER_BITS_PER_PAIR bits each
    (denser past 2^MAX_FILTER_WORD_BITS words)."""
    words = max(n_keys, 1) * FILTER_BITS_PER_PAIR / 32
    return int(np.clip(np.ceil(np.log2(words)), MIN_FILTER_WORD_BITS, MAX_FILTER_WORD_BITS))


def changed_pair_filter(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """uint32[2^bits] (bits = `filter_word_bits`): the filter of pairs {a[i], b[i]}, which passes
    every one of them and 1-2% of other pairs (pair_table.cuh: dm_pair_maybe)."""
    return _filter(a.astype(np.int64), b.astype(np.int64), filter_word_bits(a.shape[0]))


@njit(cache=True)
def filter_slot(key: np.uint64, word_bits: int) -> tuple[np.int64, np.uint32]:
    """The key's word and the mask of its two bits, from the top 32 bits of its Fibonacci hash: the
    word's index, then 10 bits for the two (pair_table.cuh: dm_pair_maybe)."""
    h = (np.uint64(key) * FIBONACCI) >> np.uint64(32)  # an int64 key times a uint64 would be a float
    below = np.uint64(32 - word_bits)
    one = np.uint32(1)
    mask = (one << np.uint32((h >> (below - np.uint64(5))) & np.uint64(31))) | (
        one << np.uint32((h >> (below - np.uint64(10))) & np.uint64(31)))
    return np.int64(h >> below), mask


@njit(cache=True)
def _filter(a: np.ndarray, b: np.ndarray, word_bits: int) -> np.ndarray:
    words = np.zeros(1 << word_bits, dtype=np.uint32)
    for i in range(a.shape[0]):
        word, mask = filter_slot(pair_key(a[i], b[i]), word_bits)
        words[word] |= mask
    return words

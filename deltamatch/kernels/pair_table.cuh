// Open-addressed tables keyed by vertex pairs, shared by the kept-triangle table (triangle_table.cu keeps
// it; match.cu reads it to count a last level that is the common neighbourhood of an edge) and a batch's
// changed pairs (match.cu's batch_rank; built on the host by pair_table.py).  Linear probing over
// 2^bits slots; pair {a, b} keyed min << 32 | max; EMPTY and TOMB are never keys (ids < 2^31).
#pragma once
#include "dm_common.cuh"

#define DM_PAIR_EMPTY 0xffffffffffffffffull
#define DM_PAIR_TOMB 0xfffffffffffffffeull

__device__ __forceinline__ dm_u64 dm_pair_key(int a, int b) {
    return a < b ? ((dm_u64)a << 32) | (unsigned)b : ((dm_u64)b << 32) | (unsigned)a;
}

// Fibonacci hashing: the top `bits` bits of key * 2^64 / phi.
__device__ __forceinline__ dm_u64 dm_pair_home(dm_u64 key, int bits) {
    return (key * 0x9e3779b97f4a7c15ull) >> (64 - bits);
}

// The slot of `key`, or -1 when the table does not hold it.
__device__ __forceinline__ dm_i64 dm_pair_find(const dm_u64* __restrict__ keys, int bits, dm_u64 key) {
    const dm_u64 mask = (1ull << bits) - 1;
    for (dm_u64 s = dm_pair_home(key, bits);; s = (s + 1) & mask) {
        const dm_u64 k = keys[s];
        if (k == key) {
            return (dm_i64)s;
        }
        if (k == DM_PAIR_EMPTY) {
            return -1;
        }
    }
}

// A changed-pair filter (pair_table.py: changed_pair_filter): 2^word_bits words (word_bits <= 22), each
// pair's two bits in its word, taken from the 10 bits of the hash's top 32 below the word's.  False: the
// pair is not in the set.
__device__ __forceinline__ bool dm_pair_maybe(const unsigned* __restrict__ words, int word_bits, dm_u64 key) {
    const unsigned h = (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 32);
    const int below = 32 - word_bits;
    const unsigned mask = (1u << ((h >> (below - 5)) & 31)) | (1u << ((h >> (below - 10)) & 31));
    return (__ldg(words + (h >> below)) & mask) == mask;
}

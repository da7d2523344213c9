// The kept-triangle table's layout and lookup (triangle_table.cu keeps it; match.cu reads it to count a
// last level that is the common neighbourhood of an edge).  Open addressing with linear probing over
// 2^bits slots; edge {a, b} keyed min << 32 | max; EMPTY and TOMB are never keys (ids < 2^31).
#pragma once
#include "dm_common.cuh"

#define TT_EMPTY 0xffffffffffffffffull
#define TT_TOMB 0xfffffffffffffffeull

__device__ __forceinline__ dm_u64 tt_key(int a, int b) {
    return a < b ? ((dm_u64)a << 32) | (unsigned)b : ((dm_u64)b << 32) | (unsigned)a;
}

// Fibonacci hashing: the top `bits` bits of key * 2^64 / phi.
__device__ __forceinline__ dm_u64 tt_home(dm_u64 key, int bits) {
    return (key * 0x9e3779b97f4a7c15ull) >> (64 - bits);
}

// The slot of `key`, or -1 when the table does not hold it.
__device__ __forceinline__ dm_i64 tt_find(const dm_u64* __restrict__ keys, int bits, dm_u64 key) {
    const dm_u64 mask = (1ull << bits) - 1;
    for (dm_u64 s = tt_home(key, bits);; s = (s + 1) & mask) {
        const dm_u64 k = keys[s];
        if (k == key) {
            return (dm_i64)s;
        }
        if (k == TT_EMPTY) {
            return -1;
        }
    }
}

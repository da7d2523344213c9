// Triangles through every edge of the device graph, kept by its batches: the edge-induced diamond's
// batch delta read from them.  A diamond is two triangles sharing its chord, so the graph holds
// D(G) = sum over edges e of C(t_e, 2) diamonds (formulas.cu, pair_sum); a batch that deletes D and
// inserts I destroys D(G_old) - D(G_mid) and creates D(G_new) - D(G_mid), G_mid = G_old - D, and only
// the edges of the triangles through a changed pair change their t.
//
// The table (pair_table.cuh): per slot t (triangles through the edge), d (this side's pending
// change) and rank (the edge's rank among this side's changed pairs, -1 for the others).  A deleted
// edge leaves a tombstone, which an insertion may take.
//
// One side of a batch (the deletions on G_old, then the insertions on G_new): tt_mark gives the
// side's pairs their slots and ranks (tt_insert does for insertions), tt_side_triangles finds every
// triangle through a pair, a warp per piece of the shorter row (its members looked up in the longer), and
// adds it to d of its three edges once, at the lowest-ranked changed pair it holds (the rank rule of
// plan_table.py's BatchView); each slot whose d left 0 is listed.  tt_settle then sums
// +-(C(t + d, 2) - C(t, 2)) over the listed slots and applies d; on the deletion side a deleted
// edge's whole C(t, 2) is counted by tt_delete instead, which leaves its tombstone.
#include "pair_table.cuh"

__device__ __forceinline__ dm_u64 tt_pairs(dm_u64 t) {
    return t * (t - (t != 0)) / 2;
}

// Insert the edges {a[i], b[i]} (none held yet) with t = t0[i] (0 when t0 is null) and rank i (-1 when
// `ranked` is 0); slot[i] = where each went.
extern "C" __global__ void tt_insert(dm_u64* keys, int bits, const int* a, const int* b, dm_i64 n, const unsigned* t0,
                                     unsigned* t, int* rank, int ranked, dm_i64* slot) {
    const dm_u64 mask = (1ull << bits) - 1;
    for (dm_i64 i = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (dm_i64)gridDim.x * blockDim.x) {
        const dm_u64 key = dm_pair_key(a[i], b[i]);
        dm_u64 s = dm_pair_home(key, bits);
        dm_u64 k = keys[s];
        while (true) {
            if (k == DM_PAIR_EMPTY || k == DM_PAIR_TOMB) {
                const dm_u64 seen = atomicCAS((unsigned long long*)keys + s, k, key);
                if (seen == k) {
                    break;
                }
                k = seen;  // another insertion took the slot first: look at what it holds now
                continue;
            }
            s = (s + 1) & mask;
            k = keys[s];
        }
        t[s] = t0 ? t0[i] : 0u;
        rank[s] = ranked ? (int)i : -1;
        slot[i] = (dm_i64)s;
    }
}

// slot[i] = the slot of the held edge {a[i], b[i]}, given rank i.
extern "C" __global__ void tt_mark(const dm_u64* keys, int bits, const int* a, const int* b, dm_i64 n, int* rank,
                                   dm_i64* slot) {
    for (dm_i64 i = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (dm_i64)gridDim.x * blockDim.x) {
        const dm_i64 s = dm_pair_find(keys, bits, dm_pair_key(a[i], b[i]));
        rank[s] = (int)i;
        slot[i] = s;
    }
}

__device__ __forceinline__ void tt_bump(int* d, dm_i64 s, int by, dm_i64* listed, unsigned long long* n_listed) {
    if (atomicAdd(d + s, by) == 0) {
        listed[atomicAdd(n_listed, 1ull)] = s;
    }
}

// The side's triangles, each added to d of its three edges at its lowest-ranked changed pair (above).
// A warp per piece of a pair's shorter row, so that a hub pair's long intersection is shared among
// warps instead of setting the launch's length alone: pair i has pieces [first[i], first[i + 1])
// (first[n] = n_pieces), each `piece` members long but its last, which runs to the row's end.  A
// member is looked up in the longer row's hub bitmap where that row has one (hub_row, nullptr: none
// has), else by binary search.
extern "C" __global__ void tt_side_triangles(const dm_i64* offsets, const int* degree, const int* pool,
                                             const unsigned* const* hub_row, const dm_u64* keys, int bits,
                                             const int* a, const int* b, const int* first, int n_pieces,
                                             int piece, const dm_i64* slot, int n, const int* rank, int* d,
                                             dm_i64* listed, unsigned long long* n_listed) {
    const int lane = threadIdx.x & 31;
    const int warps = gridDim.x * (blockDim.x >> 5);
    for (int c = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); c < n_pieces; c += warps) {
        const int i = dm_lower_bound(first, n, (dm_i64)c + 1) - 1;  // first is increasing: every pair has a piece
        int u = a[i], v = b[i];
        if (degree[u] > degree[v]) {
            const int t = u;
            u = v;
            v = t;
        }
        const int* short_row = pool + offsets[u];
        const int* long_row = pool + offsets[v];
        const int long_len = degree[v];
        const unsigned* hub = hub_row != nullptr ? hub_row[v] : nullptr;
        const int lo = (c - first[i]) * piece;
        const int hi = c + 1 < (i + 1 < n ? first[i + 1] : n_pieces) ? min(lo + piece, degree[u]) : degree[u];
        int found = 0;
        for (int j = lo + lane; j < hi; j += 32) {
            const int w = short_row[j];
            bool common;
            if (hub != nullptr) {
                common = (hub[w >> 5] >> (w & 31)) & 1u;
            } else {
                const int at = dm_lower_bound(long_row, long_len, w);
                common = at < long_len && long_row[at] == w;
            }
            if (common) {
                const dm_i64 su = dm_pair_find(keys, bits, dm_pair_key(u, w));
                const dm_i64 sv = dm_pair_find(keys, bits, dm_pair_key(v, w));
                const unsigned ru = (unsigned)rank[su], rv = (unsigned)rank[sv];  // -1: above every i
                if (ru >= (unsigned)i && rv >= (unsigned)i) {
                    ++found;
                    tt_bump(d, su, 1, listed, n_listed);
                    tt_bump(d, sv, 1, listed, n_listed);
                }
            }
        }
        found = (int)dm_warp_sum((dm_u64)found);
        if (lane == 0 && found != 0) {
            tt_bump(d, slot[i], found, listed, n_listed);
        }
    }
}

// Apply the pending d of the listed slots (sign +1: insertions, -1: deletions) and add
// sign * (C(t_after, 2) - C(t_before, 2)) to *total; on the deletion side the side's own pairs
// (rank >= 0) are left to tt_delete.
extern "C" __global__ void tt_settle(unsigned* t, int* d, const int* rank, const dm_i64* listed,
                                     const unsigned long long* n_listed, int sign, unsigned long long* total) {
    const dm_i64 n = (dm_i64)*n_listed;
    dm_u64 sum = 0;
    for (dm_i64 i = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (dm_i64)gridDim.x * blockDim.x) {
        const dm_i64 s = listed[i];
        const unsigned change = (unsigned)d[s];
        d[s] = 0;
        if (sign < 0 && rank[s] >= 0) {
            continue;
        }
        const unsigned before = t[s];
        const unsigned after = sign > 0 ? before + change : before - change;
        t[s] = after;
        sum += sign > 0 ? tt_pairs(after) - tt_pairs(before) : tt_pairs(before) - tt_pairs(after);
    }
    sum = dm_warp_sum(sum);
    if ((threadIdx.x & 31) == 0 && sum != 0) {
        atomicAdd(total, sum);
    }
}

// Remove the deleted pairs' edges (tombstones), adding C(t, 2) of each to *total.
extern "C" __global__ void tt_delete(dm_u64* keys, unsigned* t, int* rank, const dm_i64* slot, dm_i64 n,
                                     unsigned long long* total) {
    dm_u64 sum = 0;
    for (dm_i64 i = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (dm_i64)gridDim.x * blockDim.x) {
        const dm_i64 s = slot[i];
        sum += tt_pairs(t[s]);
        keys[s] = DM_PAIR_TOMB;
        t[s] = 0;
        rank[s] = -1;
    }
    sum = dm_warp_sum(sum);
    if ((threadIdx.x & 31) == 0 && sum != 0) {
        atomicAdd(total, sum);
    }
}

// rank = -1 again at the given slots (the insertion side's pairs, once settled).
extern "C" __global__ void tt_unrank(int* rank, const dm_i64* slot, dm_i64 n) {
    for (dm_i64 i = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (dm_i64)gridDim.x * blockDim.x) {
        rank[slot[i]] = -1;
    }
}

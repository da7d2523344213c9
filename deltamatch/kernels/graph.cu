// Device-resident dynamic graph: batch apply, row copies, edge tests, the cost model's features.
//
// A batch arrives as directed updates sorted by (row, neighbour), grouped per touched row
// (upd_ptr), with a running count of insertions (ins_prefix).  merge_rows writes every touched
// row's new content to a staging area, one thread per old entry or update: an entry's new
// position is its old index minus the deletions before it plus the insertions before it, all
// found by binary search, so a hub row is merged by many threads at once.  Where each row goes
// (its old block, or a fresh one when it outgrew it) is decided on the host side by
// kernels/row_layout.py, the layout's one definition; copy_rows moves the staged rows into
// place, a thread per entry, and set_rows records their new offsets, degrees and capacities.
// has_edges and pair_common read the rows for normalization and for
// the task-cost model (workers/features.py).
#include "dm_common.cuh"

extern "C" __global__ void merge_rows(const dm_i64* offsets, const int* degree, const int* pool,
                                      const int* rows, int n_rows, const dm_i64* item_ptr,
                                      const dm_i64* upd_ptr, const int* upd_nbr, const int* ins_prefix,
                                      const dm_i64* stage_ptr, int* stage) {
    const dm_i64 n_items = item_ptr[n_rows];
    for (dm_i64 item = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; item < n_items;
         item += (dm_i64)gridDim.x * blockDim.x) {
        const int r = (int)dm_upper_bound64(item_ptr, n_rows + 1, item) - 1;
        const int v = rows[r];
        const dm_i64 i = item - item_ptr[r];
        const int d = degree[v];
        const int* row = pool + offsets[v];
        const dm_i64 u0 = upd_ptr[r];
        const int nu = (int)(upd_ptr[r + 1] - u0);
        const int* upd = upd_nbr + u0;
        const int ins0 = ins_prefix[u0];
        if (i < d) {
            const int a = row[i];
            const int j = dm_lower_bound(upd, nu, a);
            if (j < nu && upd[j] == a) {
                continue;  // deleted
            }
            const int ins = ins_prefix[u0 + j] - ins0;
            stage[stage_ptr[r] + i - (j - ins) + ins] = a;
        } else {
            const int j = (int)(i - d);
            const int ins = ins_prefix[u0 + j] - ins0;
            if (ins_prefix[u0 + j + 1] - ins0 == ins) {
                continue;  // a deletion: nothing to place
            }
            const int b = upd[j];
            const int below = dm_lower_bound(row, d, b);
            stage[stage_ptr[r] + below - (j - ins) + ins] = b;
        }
    }
}

// Row r of src (src_off[r], length item_ptr[r + 1] - item_ptr[r]) to dst at dst_off[r], a thread
// per entry: entry i of the rows laid end to end is in row r = upper_bound(item_ptr, i) - 1, as in
// merge_rows.  A warp per row copied a hub row of 60K entries 32 at a time while the other warps
// had finished: 0.33 of a 1,000-edge RMAT-20 update's 0.39 ms of device time (session 13).
extern "C" __global__ void copy_rows(int n_rows, const dm_i64* item_ptr, const dm_i64* src_off, const int* src,
                                     const dm_i64* dst_off, int* dst) {
    const dm_i64 n_items = item_ptr[n_rows];
    for (dm_i64 item = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; item < n_items;
         item += (dm_i64)gridDim.x * blockDim.x) {
        const int r = (int)dm_upper_bound64(item_ptr, n_rows + 1, item) - 1;
        const dm_i64 i = item - item_ptr[r];
        dst[dst_off[r] + i] = src[src_off[r] + i];
    }
}

// The touched rows' new metadata: offsets/degree/capacity[rows[r]] = new_off/new_deg/new_cap[r].
extern "C" __global__ void set_rows(int n_rows, const int* rows, const dm_i64* new_off, const int* new_deg,
                                    const int* new_cap, dm_i64* offsets, int* degree, int* capacity) {
    for (dm_i64 r = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; r < n_rows;
         r += (dm_i64)gridDim.x * blockDim.x) {
        const int v = rows[r];
        offsets[v] = new_off[r];
        degree[v] = new_deg[r];
        capacity[v] = new_cap[r];
    }
}

// First index i in arr[0, n) with arr[i] >= x, over 64-bit keys.
__device__ __forceinline__ dm_i64 lower_bound64(const dm_i64* __restrict__ arr, dm_i64 n, dm_i64 x) {
    dm_i64 lo = 0, hi = n;
    while (lo < hi) {
        const dm_i64 mid = (lo + hi) >> 1;
        if (arr[mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

__device__ __forceinline__ bool row_contains(const int* __restrict__ row, int n, int x) {
    const int i = dm_lower_bound(row, n, x);
    return i < n && row[i] == x;
}

// Is b in row a?  Searches the shorter row (kernels/sorted_rows.adjacent).
__device__ __forceinline__ bool adjacent(const dm_i64* offsets, const int* degree, const int* pool, int a,
                                         int b) {
    if (degree[a] > degree[b]) {
        const int c = a;
        a = b;
        b = c;
    }
    return row_contains(pool + offsets[a], degree[a], b);
}

// out[i] = whether (us[i], vs[i]) is an edge: DynamicGraph.has_edges.
extern "C" __global__ void has_edges(const dm_i64* offsets, const int* degree, const int* pool, const int* us,
                                     const int* vs, dm_i64 n, bool* out) {
    for (dm_i64 i = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (dm_i64)gridDim.x * blockDim.x) {
        out[i] = adjacent(offsets, degree, pool, us[i], vs[i]);
    }
}

// |N(x) ∩ N(y)| of each changed pair (x, y) = (a[i], b[i]) on G_old (out_old) and G_new
// (out_new), one thread per pair.  features.py's `_common` is the reference: the same probes in
// the same order and the same rounding (rint: half to even, as Python's round), so the same
// numbers.  The batch's directed pairs are grouped per touched vertex (touched, ptr, nbr sorted,
// deleted per entry); keys are the changed pairs as sorted (min << 32 | max).
extern "C" __global__ void pair_common(const dm_i64* offsets, const int* degree, const int* pool, const int* a,
                                       const int* b, int n_pairs, const dm_i64* keys, const int* touched,
                                       int n_touched, const dm_i64* ptr, const int* nbr, const bool* deleted,
                                       int sample, int* out_old, int* out_new) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_pairs; i += gridDim.x * blockDim.x) {
        const int x = a[i];
        const int y = b[i];
        const int s = degree[x] <= degree[y] ? x : y;
        const int t = degree[x] <= degree[y] ? y : x;
        const int d = degree[s];
        const int dt = degree[t];
        const int step = (sample <= 0 || d <= sample) ? 1 : d / sample;
        const int* rs = pool + offsets[s];
        const int* rt = pool + offsets[t];
        dm_i64 hits = 0, probes = 0;
        int at = 0;
        for (int j = 0; j < d; j += step) {
            const int w = rs[j];
            at += dm_lower_bound(rt + at, dt - at, w);  // the row is sorted: search onwards
            if (at < dt && rt[at] == w) {
                ++hits;
            }
            ++probes;
        }
        const dm_i64 c = step == 1 ? hits : (dm_i64)rint((double)(hits * d) / (double)probes);
        out_old[i] = (int)c;
        // Only a vertex paired with x or y in the batch can enter or leave N(x) ∩ N(y).
        const int sx = dm_lower_bound(touched, n_touched, x);
        const int sy = dm_lower_bound(touched, n_touched, y);
        const dm_i64 span = ptr[sx + 1] - ptr[sx] + ptr[sy + 1] - ptr[sy];
        const dm_i64 stride = (sample <= 0 || span <= sample) ? 1 : span / sample;
        dm_i64 delta = 0;
        for (int pass = 0; pass < 2; ++pass) {
            const int sv = pass == 0 ? sx : sy;
            const int other = pass == 0 ? y : x;
            for (dm_i64 j = ptr[sv]; j < ptr[sv + 1]; j += stride) {
                const int w = nbr[j];
                if (w == x || w == y) {
                    continue;
                }
                if (pass == 1 && row_contains(nbr + ptr[sx], (int)(ptr[sx + 1] - ptr[sx]), w)) {
                    continue;
                }
                const bool present = adjacent(offsets, degree, pool, other, w);
                if (deleted[j]) {
                    delta -= present;  // a deletion can only remove w
                } else {
                    const dm_i64 lo = other < w ? other : w;
                    const dm_i64 hi = other < w ? w : other;
                    const dm_i64 key = (lo << 32) | hi;
                    const dm_i64 k = lower_bound64(keys, n_pairs, key);
                    const bool flipped = k < n_pairs && keys[k] == key;
                    delta += present != flipped;  // an insertion can only add it
                }
            }
        }
        const dm_i64 c_new = c + delta * stride;
        out_new[i] = (int)(c_new > 0 ? c_new : 0);
    }
}

// Hub bitmaps (match.cu's Ctx::hub_row): block h sets, in the zeroed bitmap h of `words` words,
// the bit of every neighbour of vertex hubs[h], and points hub_row[hubs[h]] at it.
extern "C" __global__ void hub_bitmaps(int n_hubs, const int* hubs, const dm_i64* offsets, const int* degree,
                                       const int* pool, unsigned* bits, dm_i64 words,
                                       unsigned long long* hub_row) {
    for (int h = blockIdx.x; h < n_hubs; h += gridDim.x) {
        const int v = hubs[h];
        unsigned* bitmap = bits + (dm_i64)h * words;
        const int* row = pool + offsets[v];
        for (int i = threadIdx.x; i < degree[v]; i += blockDim.x) {
            const int x = row[i];
            atomicOr(bitmap + (x >> 5), 1u << (x & 31));
        }
        if (threadIdx.x == 0) {
            hub_row[v] = (unsigned long long)bitmap;
        }
    }
}

// Keeps the hub bitmaps exact across a batch (GpuGraph.apply), where hub_bitmaps would rebuild them
// all: a thread per touched row that has a bitmap clears the bits of its deleted neighbours and
// sets those of its inserted ones, in update order (merge_rows' grouping: upd_ptr, ins_prefix).
extern "C" __global__ void hub_bits_apply(int n_rows, const int* rows, const dm_i64* upd_ptr, const int* upd_nbr,
                                          const int* ins_prefix, const unsigned long long* hub_row) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_rows; i += gridDim.x * blockDim.x) {
        unsigned* bitmap = (unsigned*)hub_row[rows[i]];
        if (bitmap == nullptr) {
            continue;
        }
        for (dm_i64 t = upd_ptr[i]; t < upd_ptr[i + 1]; ++t) {
            const int x = upd_nbr[t];
            if (ins_prefix[t + 1] > ins_prefix[t]) {
                bitmap[x >> 5] |= 1u << (x & 31);
            } else {
                bitmap[x >> 5] &= ~(1u << (x & 31));
            }
        }
    }
}

// The matching kernel: one task = (seed pair, batch rank, plan); one warp runs one task at a time.
//
// Warps take chunks of tasks from a global queue (one atomic counter) and extend the partial
// match depth-first, position by position, exactly as kernels/cpu_engine.py does.  The
// candidates of a position are the anchor row (the smallest row among its matched pattern
// neighbours) between the symmetric-order bounds; the warp walks that row 32 entries at a time,
// each lane testing one candidate against the other matched vertices by binary search in the
// smaller of the two rows (adjacency, induced non-adjacency), injectivity and the batch ranks.
// Survivors are compacted in order into a per-level buffer of 32 in shared memory, so a hub's
// row is never walked by one lane and no level needs room for a whole row.  The last position
// is counted with a ballot (or written, in order, at the task's exact output offset), so the
// rows come out in the same order as the CPU engine's.
#include "dm_common.cuh"

#define DM_WARPS_PER_BLOCK 8
#define DM_WHOLE_ROW 0x7fffffff

namespace {

struct Ctx {
    const dm_i64* __restrict__ off;
    const int* __restrict__ deg;
    const int* __restrict__ pool;
    const int* __restrict__ b_slot;
    const dm_i64* __restrict__ b_ptr;
    const int* __restrict__ b_partner;
    const int* __restrict__ b_rank;
    const dm_i64* __restrict__ iso;
    int n_iso;
    int k;
    bool induced;
    bool check_other;
    // Plan p, position l: bit j set when position j is a pattern neighbour (conn), must hold a
    // larger value (lt: value at l < value at j) or a smaller one (gt).
    const int* conn;
    const int* lt;
    const int* gt;
    const int* order;
};

struct WarpShared {
    int m[DM_MAX_K];
    int mdeg[DM_MAX_K];
    dm_i64 moff[DM_MAX_K];
    int buf[DM_MAX_K][32];
    dm_i64 start[DM_MAX_K];
    dm_i64 upper[DM_MAX_K];
    int cur[DM_MAX_K];
    int end[DM_MAX_K];
    int anchor[DM_MAX_K];
    int bufn[DM_MAX_K];
    int bufpos[DM_MAX_K];
};

struct LaneStats {
    dm_u64 scanned;  // anchor-row entries read
    dm_u64 probes;   // binary-search steps (one row entry read each)
};

__device__ __forceinline__ bool row_contains(const int* __restrict__ row, int n, int x, LaneStats& st) {
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        st.probes++;
        if (row[mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n && row[lo] == x;
}

// Is w (degree dw) adjacent to x (degree dx, row at ox)?  Searches the smaller row.
__device__ __forceinline__ bool adjacent(const Ctx& c, int w, int dw, int x, int dx, dm_i64 ox, LaneStats& st) {
    if (dw <= dx) {
        return row_contains(c.pool + c.off[w], dw, x, st);
    }
    return row_contains(c.pool + ox, dx, w, st);
}

// Batch rank of the pair {a, b}, -1 when it is not a changed pair.
__device__ __forceinline__ int batch_rank(const Ctx& c, int a, int b) {
    const int s = c.b_slot[a];
    if (s < 0) {
        return -1;
    }
    const dm_i64 lo = c.b_ptr[s];
    const int n = (int)(c.b_ptr[s + 1] - lo);
    const int i = dm_lower_bound(c.b_partner + lo, n, b);
    return (i < n && c.b_partner[lo + i] == b) ? c.b_rank[lo + i] : -1;
}

// Induced only: is the vertex set still a match once the batch flips its changed pairs?
// Positions 0 .. k-2 hold m[], position k-1 holds `last`.
__device__ bool survives_other(const Ctx& c, const WarpShared& s, int p, int last) {
    dm_i64 mask = 0;
    for (int l = 1; l < c.k; ++l) {
        const int a = (l == c.k - 1) ? last : s.m[l];
        const int conn = c.conn[p * DM_MAX_K + l];
        for (int j = 0; j < l; ++j) {
            bool adj = (conn >> j) & 1;
            if (batch_rank(c, a, s.m[j]) >= 0) {
                adj = !adj;
            }
            if (adj) {
                mask |= (dm_i64)1 << (l * (l - 1) / 2 + j);
            }
        }
    }
    int lo = 0, hi = c.n_iso;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (c.iso[mid] < mask) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < c.n_iso && c.iso[lo] == mask;
}

// Does candidate w pass position l's checks against positions 0 .. l-1 (anchor excluded)?
__device__ bool candidate_ok(const Ctx& c, const WarpShared& s, int p, int l, int anchor, int r, int w,
                             LaneStats& st) {
    const int conn = c.conn[p * DM_MAX_K + l];
    const int dw = c.deg[w];
    for (int j = 0; j < l; ++j) {
        const int x = s.m[j];
        if (x == w) {
            return false;
        }
        if (j == anchor) {
            continue;
        }
        const bool need = (conn >> j) & 1;
        if (need || c.induced) {
            if (adjacent(c, w, dw, x, s.mdeg[j], s.moff[j], st) != need) {
                return false;
            }
        }
    }
    if (r >= 0 && c.b_slot[w] >= 0) {
        for (int j = 0; j < l; ++j) {
            if (c.induced || ((conn >> j) & 1)) {
                const int rank = batch_rank(c, w, s.m[j]);
                if (rank >= 0 && rank < r) {
                    return false;
                }
            }
        }
    }
    return true;
}

// Anchor and bounds of position l (every lane computes the same); lane 0 stores them.  Only the
// anchor-row indices in [lo, hi) are walked (a split task's share; 0, INT_MAX when whole).
__device__ void init_level(const Ctx& c, WarpShared& s, int p, int l, int lane, int lo, int hi) {
    dm_i64 lower = -1;
    dm_i64 upper = DM_NO_UPPER;
    int anchor = -1;
    const int conn = c.conn[p * DM_MAX_K + l];
    const int lt = c.lt[p * DM_MAX_K + l];
    const int gt = c.gt[p * DM_MAX_K + l];
    for (int j = 0; j < l; ++j) {
        const dm_i64 x = s.m[j];
        if (((gt >> j) & 1) && x > lower) {
            lower = x;
        } else if (((lt >> j) & 1) && x < upper) {
            upper = x;
        }
        if (((conn >> j) & 1) && (anchor < 0 || s.mdeg[j] < s.mdeg[anchor])) {
            anchor = j;
        }
    }
    const dm_i64 start = s.moff[anchor];
    const int d = s.mdeg[anchor];
    const int first = max(dm_lower_bound(c.pool + start, d, lower + 1), lo);
    __syncwarp();
    if (lane == 0) {
        s.start[l] = start;
        s.upper[l] = upper;
        s.cur[l] = first;
        s.end[l] = min(d, hi);
        s.anchor[l] = anchor;
        s.bufn[l] = 0;
        s.bufpos[l] = 0;
    }
    __syncwarp();
}

// One warp step over position l's anchor row: this lane reads entry `idx` into w and says
// whether it passes every check of position l; `stop` is set when it reached the upper bound.
__device__ bool scan_candidate(const Ctx& c, WarpShared& s, int p, int l, int anchor, int r, dm_i64 start,
                               dm_i64 upper, int idx, int end, int& w, bool& stop, LaneStats& st) {
    bool in = idx < end;
    w = 0;
    if (in) {
        w = c.pool[start + idx];
        st.scanned++;
    }
    stop = in && (dm_i64)w >= upper;
    in = in && !stop;
    return in && candidate_ok(c, s, p, l, anchor, r, w, st);
}

// Refill position l's buffer with the next survivors of its anchor row (ascending).
__device__ void fill_level(const Ctx& c, WarpShared& s, int p, int l, int r, int lane, LaneStats& st) {
    const dm_i64 start = s.start[l];
    const dm_i64 upper = s.upper[l];
    const int anchor = s.anchor[l];
    int cur = s.cur[l];
    const int end = s.end[l];
    int n = 0;
    while (n == 0 && cur < end) {
        int w;
        bool stop;
        const bool ok = scan_candidate(c, s, p, l, anchor, r, start, upper, cur + lane, end, w, stop, st);
        const unsigned ballot = __ballot_sync(DM_FULL_MASK, ok);
        if (ok) {
            s.buf[l][__popc(ballot & dm_lanemask_lt())] = w;
        }
        n = __popc(ballot);
        cur = __any_sync(DM_FULL_MASK, stop) ? end : cur + 32;
    }
    __syncwarp();
    if (lane == 0) {
        s.cur[l] = cur;
        s.bufn[l] = n;
        s.bufpos[l] = 0;
    }
    __syncwarp();
}

// Count (and, with out, write) the completions of the match at the last position l.
// Row number `base + i` of the task's i-th completion lands at out[(row - win_lo) * k + ...]
// when it falls in [win_lo, win_hi).
__device__ dm_u64 last_level(const Ctx& c, WarpShared& s, int p, int l, int r, int lane, int* out,
                             dm_i64 base, dm_i64 win_lo, dm_i64 win_hi, int lo, int hi, LaneStats& st) {
    init_level(c, s, p, l, lane, lo, hi);
    const dm_i64 start = s.start[l];
    const dm_i64 upper = s.upper[l];
    const int anchor = s.anchor[l];
    const int end = s.end[l];
    dm_u64 found = 0;
    for (int cur = s.cur[l]; cur < end; cur += 32) {
        int w;
        bool stop;
        bool ok = scan_candidate(c, s, p, l, anchor, r, start, upper, cur + lane, end, w, stop, st);
        if (ok && c.check_other && survives_other(c, s, p, w)) {
            ok = false;
        }
        const unsigned ballot = __ballot_sync(DM_FULL_MASK, ok);
        if (out != nullptr && ok) {
            const dm_i64 row = base + (dm_i64)found + __popc(ballot & dm_lanemask_lt());
            if (row >= win_lo && row < win_hi) {
                int* dst = out + (row - win_lo) * c.k;
                for (int q = 0; q < c.k; ++q) {
                    dst[c.order[p * c.k + q]] = (q == l) ? w : s.m[q];
                }
            }
        }
        found += __popc(ballot);
        if (__any_sync(DM_FULL_MASK, stop)) {
            break;
        }
    }
    return found;
}

// All matches of one task (position 2 restricted to anchor indices [lo2, hi2)); returns the
// count (same on every lane).
__device__ dm_u64 run_task(const Ctx& c, WarpShared& s, int u, int v, int r, int p, int lo2, int hi2, int lane,
                           int* out, dm_i64 base, dm_i64 win_lo, dm_i64 win_hi, dm_u64 deadline, int* flags,
                           LaneStats& st) {
    const int lt1 = c.lt[p * DM_MAX_K + 1];
    const int gt1 = c.gt[p * DM_MAX_K + 1];
    if (u == v || ((lt1 & 1) && v > u) || ((gt1 & 1) && v < u)) {
        return 0;
    }
    __syncwarp();
    if (lane == 0) {
        s.m[0] = u;
        s.m[1] = v;
        s.mdeg[0] = c.deg[u];
        s.mdeg[1] = c.deg[v];
        s.moff[0] = c.off[u];
        s.moff[1] = c.off[v];
    }
    __syncwarp();
    if (c.k == 2) {
        if (c.check_other && survives_other(c, s, p, v)) {
            return 0;
        }
        if (out != nullptr && lane == 0 && base >= win_lo && base < win_hi) {
            out[(base - win_lo) * 2 + c.order[p * 2]] = u;
            out[(base - win_lo) * 2 + c.order[p * 2 + 1]] = v;
        }
        return 1;
    }
    if (c.k == 3) {
        return last_level(c, s, p, 2, r, lane, out, base, win_lo, win_hi, lo2, hi2, st);
    }
    dm_u64 total = 0;
    init_level(c, s, p, 2, lane, lo2, hi2);
    int l = 2;
    while (true) {
        const int pos = s.bufpos[l];
        if (pos == s.bufn[l]) {
            if (s.cur[l] < s.end[l]) {
                if (deadline != 0 && dm_globaltimer() > deadline) {
                    if (lane == 0) {
                        atomicOr(flags, 2);
                    }
                    break;
                }
                fill_level(c, s, p, l, r, lane, st);
                continue;
            }
            if (l == 2) {
                break;
            }
            --l;
            continue;
        }
        const int w = s.buf[l][pos];
        __syncwarp();
        if (lane == 0) {
            s.bufpos[l] = pos + 1;
            s.m[l] = w;
            s.mdeg[l] = c.deg[w];
            s.moff[l] = c.off[w];
        }
        __syncwarp();
        if (l + 1 == c.k - 1) {
            total += last_level(c, s, p, l + 1, r, lane, out, base + (dm_i64)total, win_lo, win_hi, 0,
                                DM_WHOLE_ROW, st);
        } else {
            ++l;
            init_level(c, s, p, l, lane, 0, DM_WHOLE_ROW);
        }
    }
    return total;
}

}  // namespace

// Runs tasks [first, n_tasks) (task i is perm[i] when perm is given).  With sub_parent, t indexes
// sub-tasks: sub-task t runs task sub_parent[t] over position 2's anchor indices
// [sub_lo[t], sub_hi[t]) (a split task; its sub-tasks partition the row).  Count mode: counts[t]
// (optional) and *total get the matches.  List mode (out != nullptr): task t's rows are numbered
// from out_offsets[t]; those in [win_lo, win_hi) are written; a task whose count differs from
// expect[t] sets bit 0 of flags.  A run past `deadline` (globaltimer ns, 0 = none) sets bit 1.
// stats (optional): [anchor entries read, search probes, tasks run].
extern "C" __global__ void __launch_bounds__(DM_WARPS_PER_BLOCK * 32)
match_tasks(const dm_i64* offsets, const int* degree, const int* pool,
            const int* order, const int* conn, const int* lt, const int* gt, int k, int induced,
            const int* tu, const int* tv, const int* tr, const int* tp, const dm_i64* perm,
            const dm_i64* sub_parent, const int* sub_lo, const int* sub_hi,
            dm_i64 first, dm_i64 n_tasks,
            const int* b_slot, const dm_i64* b_ptr, const int* b_partner, const int* b_rank,
            const dm_i64* iso_masks, int n_iso, int check_other,
            dm_i64* counts, dm_u64* total,
            int* out, const dm_i64* out_offsets, const dm_i64* expect, dm_i64 win_lo, dm_i64 win_hi,
            dm_u64* queue, int chunk, dm_u64* stats, dm_u64 deadline, int* flags) {
    __shared__ WarpShared shared[DM_WARPS_PER_BLOCK];
    const int lane = threadIdx.x & 31;
    WarpShared& s = shared[threadIdx.x >> 5];
    Ctx c;
    c.off = offsets;
    c.deg = degree;
    c.pool = pool;
    c.b_slot = b_slot;
    c.b_ptr = b_ptr;
    c.b_partner = b_partner;
    c.b_rank = b_rank;
    c.iso = iso_masks;
    c.n_iso = n_iso;
    c.k = k;
    c.induced = induced != 0;
    c.check_other = check_other != 0;
    c.conn = conn;
    c.lt = lt;
    c.gt = gt;
    c.order = order;
    LaneStats st = {0, 0};
    dm_u64 mine = 0;
    dm_u64 ran = 0;
    while (true) {
        dm_u64 grab = 0;
        if (lane == 0) {
            grab = atomicAdd(queue, (dm_u64)chunk);
        }
        const dm_i64 lo = first + (dm_i64)__shfl_sync(DM_FULL_MASK, grab, 0);
        if (lo >= n_tasks) {
            break;
        }
        if (deadline != 0 && dm_globaltimer() > deadline) {
            if (lane == 0) {
                atomicOr(flags, 2);
            }
            break;
        }
        const dm_i64 hi = min(lo + (dm_i64)chunk, n_tasks);
        for (dm_i64 i = lo; i < hi; ++i) {
            const dm_i64 t = perm != nullptr ? perm[i] : i;
            const dm_i64 task = sub_parent != nullptr ? sub_parent[t] : t;
            const int r = tr != nullptr ? tr[task] : -1;
            const int p = tp != nullptr ? tp[task] : 0;
            const int lo2 = sub_parent != nullptr ? sub_lo[t] : 0;
            const int hi2 = sub_parent != nullptr ? sub_hi[t] : DM_WHOLE_ROW;
            const dm_i64 base = out != nullptr ? out_offsets[t] : 0;
            const dm_u64 found = run_task(c, s, tu[task], tv[task], r, p, lo2, hi2, lane, out, base, win_lo,
                                          win_hi, deadline, flags, st);
            if (lane == 0) {
                if (counts != nullptr) {
                    counts[t] = (dm_i64)found;
                }
                if (expect != nullptr && (dm_i64)found != expect[t]) {
                    atomicOr(flags, 1);
                }
            }
            mine += found;
            ++ran;
        }
    }
    if (lane == 0 && total != nullptr && mine != 0) {
        atomicAdd(total, mine);
    }
    if (stats != nullptr) {
        const dm_u64 scanned = dm_warp_sum(st.scanned);
        const dm_u64 probes = dm_warp_sum(st.probes);
        if (lane == 0) {
            atomicAdd(stats, scanned);
            atomicAdd(stats + 1, probes);
            atomicAdd(stats + 2, ran);
        }
    }
}

// The device's global nanosecond timer, for deadlines set relative to now.
extern "C" __global__ void read_timer(dm_u64* out) {
    *out = dm_globaltimer();
}

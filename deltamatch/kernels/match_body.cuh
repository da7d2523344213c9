// match_body.cuh: the matching kernel's device code, included by match.cu and match_memo.cu.
//
// The matching kernel, set-centric: one warp runs one task (seed pair, batch rank, plan) at a time.
//
// A task extends its partial match position by position, as kernels/cpu_engine.py does, executing
// the plan analysis of PlanTable: the candidate set of level l is built once, by the whole warp,
// into the warp's scratch slot for l, either from the smallest adjacency row among l's matched
// pattern neighbours (the other rows probed by binary search) or from an earlier level's set
// (`base`: only the positions since then are checked; a warp building a set whole walks a pattern
// neighbour's row instead when the base set is much longer, DM_DRIVE_SHORT).  A level whose set
// depends only on an earlier prefix (`dep` < l-1, hoisted) keeps its set until that prefix
// changes.  Sets are bounded by the symmetric-order constraints with two searches, then filtered
// 32 candidates per warp step and compacted in order with a ballot.
//
// Counting never walks the last level one completion at a time: the last two levels finish at
// once, for every candidate w of level k-2 (`last_two`): in closed form from |C| alone
// (|C|(|C|-1)/2), by inclusion-exclusion (|C|(|S| - clashes) - |C & S|), or, in general, as one
// flat list of (w, x) pairs that all 32 lanes share ("unrolling": a short last-level set no
// longer leaves most lanes idle; a warp step finds its 32 pairs' candidates from one read of the
// list's offsets where the previous step ended, `step_owner`), when its candidates' sets are short
// on average (fewer than `unroll` pairs each), else w by w.  With k = 3 the flat list runs
// across up to 32 tasks instead (match_flat).  Where the graph keeps its edges' triangles
// (triangle_table.cu) and the last level is the common neighbourhood of a pattern edge
// (`kept_j`), its size is read from the table instead (kept_count).  Listing walks the same sets
// in the same order as the CPU engine and writes each task's rows at its exact output offset.
// Memo plans, whose last level depends on the seed and position k-2 only, may run in a launch of
// their own (match_memo) that sizes it once per task and level-(k-2) vertex (memo_add, memo_flush);
// match_memo_shared shares those flushes as the pair lists below are shared.
//
// Load balance: tasks come from a global queue, heaviest first.  With deferral on, a counting
// task whose level-2 set costs much (deferral_cost) is not walked by its warp: the set goes to a
// global arena, the kernels at the end of this file cut the deferred sets into chunks of equal
// estimated cost, and a second launch (`phase` 1), queued behind them without the host waiting,
// spreads the chunks over all warps; each chunk adds its matches to its task's count.
//
// Work sharing (PGMiner's warp stealing, at the last two levels): a counting pair list of at least
// `share_pairs` pairs is published on a board (one record per warp) and its owner claims pieces of
// DM_CLAIM pairs with an atomic counter.  A warp that finds the task queue empty joins the open list
// with the most pairs left and claims pieces of it too, until the last working warp is done; the
// owner waits for its joiners before its scratch changes.  Joiners read the owner's sets through L2
// (__ldcg): L1 is not coherent across SMs.
#pragma once

#include "dm_common.cuh"
#include "pair_table.cuh"

// Statistics are compiled in only where a run asks for them (DM_STATS=1, cuda_engine.module).
#ifndef DM_STATS
#define DM_STATS 0
#endif
// The resident warps an SM the kernels are compiled for, as blocks of DM_WARPS_PER_BLOCK warps
// (register caps 72 by default, and 64 for the flat loop): without them ptxas may pick fewer
// registers than the cap allows and spill.  match_memo_shared, which carries both the memo's and
// the sharing's code, spilled at 80 and gets 16 warps (a cap of 128); since session 38 it fits 80
// in 71 registers (nvcc here), but the 24 warps that would allow are not measured.  The host sizes
// every launch from the kernel's own registers (cuda_engine.resident_blocks), so a kernel that
// needs fewer than its cap holds more warps.
// DM_WARPS_PER_SM (match_tasks, match_shared, match_pieces, match_memo) and DM_WARPS_PER_BLOCK are
// Balance.warps_per_sm's: 28 in blocks of 4 (72 registers: the default), where match_tasks and
// match_memo fit 64 registers, so that 32 warps an SM hold them (session 38; NVRTC on the device
// gives match_shared 66-72, 28 warps; the long launches ran 16-21% shorter than at 24, session
// 39); 24 in blocks of 8 (80); 32 in blocks of 8 (64), where match_shared and match_memo spill;
// or 36 in blocks of 4 (56), where all three spill (warps active past 50%, session 40).
// Statistics builds keep 24: their counters' registers spill at 28.
#ifndef DM_WARPS_PER_BLOCK
#define DM_WARPS_PER_BLOCK 4
#endif
#if DM_STATS
#undef DM_WARPS_PER_SM
#define DM_WARPS_PER_SM 24
#elif !defined(DM_WARPS_PER_SM)
#define DM_WARPS_PER_SM 28
#endif
#define DM_MIN_BLOCKS (DM_WARPS_PER_SM / DM_WARPS_PER_BLOCK)
#define DM_MIN_BLOCKS_FLAT (32 / DM_WARPS_PER_BLOCK)
#define DM_MIN_BLOCKS_MEMO_SHARED (16 / DM_WARPS_PER_BLOCK)
// PlanTable.last_two (kernels/plan_table.py): LAST_EACH 0 is the general case.
#define DM_LAST_COLLAPSE 1
#define DM_LAST_PAIRS 2
// The distinct keys a warp's memo holds before it is counted, per unit of scratch width (match_memo;
// Balance.memo_factor: another value is a build of its own).
#ifndef DM_MEMO_FACTOR
#define DM_MEMO_FACTOR 4
#endif

// Statistics slots (optional `stats` array).
#define DM_ST_SCANNED 0   // set-source entries read
#define DM_ST_PROBES 1    // binary-search steps
#define DM_ST_TASKS 2     // tasks (phase 0) or chunks (phase 1) run
#define DM_ST_LANES 3     // active lanes summed over the warp steps of set and pair loops
#define DM_ST_STEPS 4     // those warp steps
#define DM_ST_DEFERRED 5  // tasks whose level-2 set went to the arena
#define DM_ST_PUBLISHED 6 // pair lists published for sharing
#define DM_ST_JOINS 7     // lists an idle warp joined
#define DM_ST_SHARED 8    // pairs counted by joiners
#define DM_ST_MEMO_FLUSHES 9  // memo tables counted (match_memo)

// Work sharing: pairs claimed at once, and the fewest unclaimed pairs worth joining a list for.
#define DM_CLAIM 128
#define DM_JOIN_MIN 256
// An idle warp that found no list to join sleeps 32 ns, doubling up to 32 << DM_IDLE_DOUBLINGS ns
// (4 us) before it looks again.
#define DM_IDLE_DOUBLINGS 7

// A warp's board record, DM_BOARD_WORDS words: the list's id while open (0: closed), next unclaimed
// pair, pair count, joiners holding it, then what a joiner needs: task, plan | rank << 32, the list's
// arrays (PairList), the match prefix m[0 .. k-3], two per word, and a memo list's weights.
#define DM_BOARD_WORDS 16
#define DM_B_OPEN 0
#define DM_B_NEXT 1
#define DM_B_END 2
#define DM_B_HOLDS 3
#define DM_B_TASK 4
#define DM_B_PLAN 5
#define DM_B_C 6
#define DM_B_SRC 7
#define DM_B_S 8
#define DM_B_N 9
#define DM_B_M 10
#define DM_B_W 13  // after DM_B_M's (DM_MAX_K - 2) / 2 words

// The batch's pair filter, when the host passes one; not read by the statistics build, which spills
// with it.
#ifndef DM_PAIR_FILTER
#define DM_PAIR_FILTER !DM_STATS
#endif

namespace {

struct Ctx {
    const dm_i64* __restrict__ off;
    const int* __restrict__ deg;
    const int* __restrict__ pool;
    const int* __restrict__ b_slot;
    const dm_i64* __restrict__ b_ptr;
    const int* __restrict__ b_partner;
    const int* __restrict__ b_rank;
    // The same changed pairs as a pair table (pair_table.cuh): key -> rank.
    const dm_u64* __restrict__ b_keys;
    const int* __restrict__ b_key_rank;
    int b_bits;
#if DM_PAIR_FILTER
    // Their filter (pair_table.cuh: dm_pair_maybe), or nullptr.
    const unsigned* __restrict__ b_filter;
    int b_filter_bits;
#endif
    // A joint count's removal ranks (0: one side): its pairs ranked below `removals` are the batch's
    // deletions, the rest its insertions, and the graph holds both (see ranked_out).
    int removals;
    const dm_i64* __restrict__ iso;
    int n_iso;
    int k;
    bool induced;
    // Rows hold only higher ids (degree orientation, static clique counts): adjacency is looked up
    // in the lower endpoint's row.
    bool oriented;
    bool check_other;
    int unroll;  // flat pair lists where a candidate has fewer pairs on average (0: never)
    // Plan p, position l (index p * 8 + l): bit j set when position j is a pattern neighbour
    // (conn), must hold a larger value (lt: value at l < value at j) or a smaller one (gt).
    const int* conn;
    const int* lt;
    const int* gt;
    const int* dep;
    const int* base;
    const int* last_two;
    const int* order;
    dm_u64 deadline;  // globaltimer ns, 0 = none
    int* flags;
    // Work sharing: pair lists of at least `share` pairs go on `board` (0: no sharing), one record
    // per warp of the launch; `counts` gets the joiners' matches; `stats` the rare counters.
    dm_i64 share;
    dm_u64* board;
    dm_i64* counts;
    dm_u64* stats;
    // Hub bitmaps (nullptr: none): hub_row[v] is v's row as a bitmap over the vertex ids (bit y set
    // when y is a neighbour) for the highest-degree vertices, nullptr for the rest.
    const unsigned* const* hub_row;
    // Kept triangles (nullptr: none, or a listing run): kept_j[p] >= 0 when plan p's last level is
    // N(m[kept_j[p]]) & N(m[k-2]) over a pattern edge, counted from t of the table (tt_keys, tt_t).
    const int* kept_j;
    const dm_u64* tt_keys;
    const unsigned* tt_t;
    int tt_bits;
};

__device__ __forceinline__ dm_i64 warp_id() {
    return ((dm_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
}

// Adds to a DM_ST_* counter (lane 0, for events rare enough not to be summed in registers first).
__device__ __forceinline__ void count_event(const Ctx& c, int slot, dm_u64 n) {
    if (c.stats != nullptr) {
        atomicAdd(c.stats + slot, n);
    }
}

// Past the deadline (bit 1 of flags set): the run's counts are incomplete and will be discarded.
// Lane 0 reads the clock and the warp follows it, so every lane takes the same branch.
__device__ __forceinline__ bool expired(const Ctx& c, int lane) {
    if (c.deadline == 0) {
        return false;
    }
    int late = 0;
    if (lane == 0 && dm_globaltimer() > c.deadline) {
        late = 1;
        atomicOr(c.flags, 2);
    }
    return __shfl_sync(DM_FULL_MASK, late, 0) != 0;
}

// What a level's candidates are checked for, over positions of the match (bit j = position j).
struct Checks {
    int rows;      // must be adjacent to m[j]
    int minus;     // induced: must not be adjacent to m[j]
    int distinct;  // must differ from m[j] (an adjacent m[j] differs anyway: no self-loops)
    int ranked;    // the pair with m[j] must not be a changed pair of rank < r
};

// The last level's checks over a pair list (list_checks).
struct ListChecks {
    Checks ch;
    int w_rows;
    int deg;
};

// The state of a warp's task, written by lane 0 between __syncwarp()s, read by every lane.
struct WarpState {
    int m[DM_MAX_K];
    int mdeg[DM_MAX_K];
    dm_i64 moff[DM_MAX_K];
    const int* set[DM_MAX_K];  // level l's candidate set (scratch slot or arena)
    int cnt[DM_MAX_K];
    int pos[DM_MAX_K];
    int end[DM_MAX_K];
    unsigned fresh;  // bit l: hoisted level l's set still holds for the current prefix
    unsigned found[32];  // the flat task loop: matches of the task each lane holds
    // Lane 0's: the current task, the warp's clock (busy: when it started, then how long it worked)
    // and the matches it found; here rather than in registers, held through every task, which
    // match_tasks and match_shared would spill at 28 warps an SM.
    dm_i64 task;
    dm_u64 started;
    dm_u64 worked;
    dm_u64 mine;
    dm_i64 next;  // the warp's chunk of the task queue: its next task and where the chunk ends
    dm_i64 stop;
    dm_u64 lists;  // pair lists this warp has published (their ids on the board)
    // The pair loop's window start (step_owner) and its list's checks; here rather than in
    // registers, which match_tasks and match_shared would spill.
    int cursor;
    ListChecks list;
    // The warp's memo (match_memo; here rather than in registers, which the kernel would spill):
    // its table's keys (w + 1; 0: empty) and multiplicities (2^memo_bits each), the slots it uses
    // and then a flush's distinct keys, its weights and pair list (memo_limit each), and the number
    // of keys it holds.
    int* memo_keys;
    int* memo_mult;
    int* memo_C;
    int* memo_W;
    const int** memo_src;
    dm_i64* memo_S;
    int memo_bits;
    int memo_limit;
    int memo_n;
};

// Statistics are compiled in only where a run asks for them (DM_STATS, defined above): the
// counters cost registers that the launch bounds would otherwise take from the search.
#if DM_STATS
// Every loop that takes a warp step counts its active lanes as `scanned` (one per lane with an
// item), so the active lanes of DM_ST_LANES are the scanned sum: no counter of their own.
struct Stats {
    dm_u64 scanned;
    dm_u64 probes;
    dm_u64 steps;
};
#else
// Without statistics every counter update is a no-op and every read is 0.
struct NoCount {
    __device__ __forceinline__ NoCount& operator++(int) { return *this; }
    __device__ __forceinline__ NoCount& operator+=(dm_u64) { return *this; }
    __device__ __forceinline__ operator dm_u64() const { return 0; }
};
struct Stats {
    NoCount scanned;
    NoCount probes;
    NoCount steps;
};
#endif

// A load that skips L1 (CG: the data was written by another SM during this launch).
template <bool CG, typename T>
__device__ __forceinline__ T load(const T* p) {
    if constexpr (CG) {
        return __ldcg(p);
    } else {
        return *p;
    }
}

// ... of a pointer (__ldcg has no pointer overload).
template <bool CG>
__device__ __forceinline__ const int* load(const int* const* p) {
    if constexpr (CG) {
        return (const int*)__ldcg((const dm_u64*)p);
    } else {
        return *p;
    }
}

__device__ __forceinline__ bool row_contains(const int* __restrict__ row, int n, int x, Stats& st) {
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

// The smallest row worth a hub-bitmap lookup instead of a binary search (about five probes).
#define DM_HUB_SEARCH_MIN 16

// Is w (degree dw) adjacent to x (degree dx, row at ox)?  One bit of the larger row's hub bitmap
// when it has one and the smaller row is worth it; else a search of the smaller row or, oriented,
// of the row of the lower id (the only one that can hold the other).
__device__ __forceinline__ bool adjacent(const Ctx& c, int w, int dw, int x, int dx, dm_i64 ox, Stats& st) {
    const bool in_w = c.oriented ? w < x : dw <= dx;
    if (c.hub_row != nullptr && (in_w ? dw : dx) >= DM_HUB_SEARCH_MIN) {
        const unsigned* bits = c.hub_row[in_w ? x : w];
        if (bits != nullptr) {
            const int y = in_w ? w : x;
            st.probes++;
            return (bits[y >> 5] >> (y & 31)) & 1u;
        }
    }
    if (in_w) {
        return row_contains(c.pool + c.off[w], dw, x, st);
    }
    return row_contains(c.pool + ox, dx, w, st);
}

// Batch rank of the pair {a, b}, -1 when it is not a changed pair: one probe of the batch's pair
// table, or (DM_PAIR_HASH 0) a binary search of a's partners, about six dependent reads for a hub's
// at batches of 10^4; with the batch's pair filter, only for the few unchanged pairs it passes.
#ifndef DM_PAIR_HASH
#define DM_PAIR_HASH 1
#endif
__device__ __forceinline__ int batch_rank(const Ctx& c, int a, int b) {
#if DM_PAIR_FILTER
    if (c.b_filter != nullptr && !dm_pair_maybe(c.b_filter, c.b_filter_bits, dm_pair_key(a, b))) {
        return -1;
    }
#endif
#if DM_PAIR_HASH
    const dm_i64 at = dm_pair_find(c.b_keys, c.b_bits, dm_pair_key(a, b));
    return at >= 0 ? c.b_key_rank[at] : -1;
#else
    const int s = c.b_slot[a];
    if (s < 0) {
        return -1;
    }
    const dm_i64 lo = c.b_ptr[s];
    const int n = (int)(c.b_ptr[s + 1] - lo);
    const int i = dm_lower_bound(c.b_partner + lo, n, b);
    return (i < n && c.b_partner[lo + i] == b) ? c.b_rank[lo + i] : -1;
#endif
}

// Does a changed pair of rank `rank` (-1: not changed) keep a match out of task rank r's?  Those ranked
// below r are counted at their own task.  A joint count runs both sides of a batch in one launch on
// G_old ∪ I (the deletions still in, the insertions already in): an insertion task's rank is at least
// `removals`, so every deletion is below it and the task sees G_new; a removal task (r < removals)
// also keeps out the insertions, and sees G_old.  Edge-induced plans only: an induced plan's
// non-edges would read the insertions.  Static tasks (r = -1) never ask: their callers test r >= 0
// or look up no rank (another test of r here spilled match_shared and the memo kernels).
__device__ __forceinline__ bool ranked_out(const Ctx& c, int rank, int r) {
    return rank >= 0 && (rank < r || (r < c.removals && rank >= c.removals));
}

// Whether a task of rank r can have a changed pair ranked out (ranked_out).
__device__ __forceinline__ bool may_rank_out(const Ctx& c, int r) {
    return r > 0 || (r == 0 && c.removals > 0);
}

// A lane's view of the match: the warp's shared prefix, except for up to two positions p0, p1 (-1:
// none) that the lane holds itself: the flat pair loop gives every lane its own candidate of level
// k-2, the flat task loop its own seed pair.
struct LaneMatch {
    int p0;
    int v0;
    int d0;
    dm_i64 o0;
    int p1;
    int v1;
    int d1;
    dm_i64 o1;
};

__device__ __forceinline__ int vertex_at(const WarpState& s, const LaneMatch& lm, int j) {
    return j == lm.p0 ? lm.v0 : (j == lm.p1 ? lm.v1 : s.m[j]);
}

__device__ __forceinline__ int degree_at(const WarpState& s, const LaneMatch& lm, int j) {
    return j == lm.p0 ? lm.d0 : (j == lm.p1 ? lm.d1 : s.mdeg[j]);
}

__device__ __forceinline__ dm_i64 offset_at(const WarpState& s, const LaneMatch& lm, int j) {
    return j == lm.p0 ? lm.o0 : (j == lm.p1 ? lm.o1 : s.moff[j]);
}

// Checks.ranked less the positions whose matched vertex no changed pair touches (b_slot -1): a pair of
// it and a candidate is never a changed pair, so the lookups against it are dropped once for a whole
// set instead of made per candidate (the CPU engine walks the same slots, _batch_partners).  The
// lookups ran at 7.4 lanes of 32, 37% of the 4-cycle's warp instructions; dropped, its longest
// launch ran 7.4% shorter (Nsight Compute, session 40).  Tasks of rank r >= 0 only: static counts
// have no batch.
#ifndef DM_RANKED_TOUCHED
#define DM_RANKED_TOUCHED 1
#endif
__device__ __forceinline__ int touched_ranked(const Ctx& c, const WarpState& s, const LaneMatch& lm, int ranked,
                                              int r) {
#if DM_RANKED_TOUCHED
    if (r < 0) {
        return ranked;
    }
    int touched = 0;
    for (int bits = ranked; bits != 0; bits &= bits - 1) {
        const int j = __ffs(bits) - 1;
        if (c.b_slot[vertex_at(s, lm, j)] >= 0) {
            touched |= 1 << j;
        }
    }
    return touched;
#else
    return ranked;
#endif
}

// The shared prefix as it is, or with the lane's own vertex w at position l (and x at position q).
__device__ __forceinline__ LaneMatch lane_match(const Ctx& c, int l, int w, int q, int x) {
    LaneMatch lm;
    lm.p0 = l;
    lm.v0 = w;
    lm.d0 = l >= 0 ? c.deg[w] : 0;
    lm.o0 = l >= 0 ? c.off[w] : 0;
    lm.p1 = q;
    lm.v1 = x;
    lm.d1 = q >= 0 ? c.deg[x] : 0;
    lm.o1 = q >= 0 ? c.off[x] : 0;
    return lm;
}

// Induced only: is the vertex set still a match once the batch flips its changed pairs?
// Positions 0 .. k-2 come from the lane's match, position k-1 holds `last`.
__device__ bool survives_other(const Ctx& c, const WarpState& s, const LaneMatch& lm, int p, int last) {
    dm_i64 mask = 0;
    for (int l = 1; l < c.k; ++l) {
        const int a = (l == c.k - 1) ? last : vertex_at(s, lm, l);
        const int conn = c.conn[p * DM_MAX_K + l];
        for (int j = 0; j < l; ++j) {
            bool adj = (conn >> j) & 1;
            if (batch_rank(c, a, vertex_at(s, lm, j)) >= 0) {
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

// Is candidate x (degree dx) adjacent to y, a vertex of the match (degree dy, row at oy)?  With
// DM_HUB_FIRST, y's hub bitmap answers whenever y has one, whatever x's degree: the bit's read then
// depends on x alone, not on x's degree read before it (on a hub's neighbourhood, most candidates).
// Off in the statistics build, which spills with it.
#ifndef DM_HUB_FIRST
#define DM_HUB_FIRST !DM_STATS
#endif
__device__ __forceinline__ bool adjacent_to_matched(const Ctx& c, int x, int dx, int y, int dy, dm_i64 oy,
                                                    Stats& st) {
#if DM_HUB_FIRST
    const unsigned* hub = c.hub_row != nullptr ? c.hub_row[y] : nullptr;
    if (hub != nullptr) {
        st.probes++;
        return (hub[x >> 5] >> (x & 31)) & 1u;
    }
#endif
    return adjacent(c, x, dx, y, dy, oy, st);
}

// Does candidate x pass the adjacency and distinctness checks of `ch` against the lane's match?
__device__ __forceinline__ bool passes_adjacency(const Ctx& c, const WarpState& s, const LaneMatch& lm,
                                                 const Checks& ch, int x, Stats& st) {
    const int all = ch.rows | ch.minus | ch.distinct;
    const int dx = (ch.rows | ch.minus) ? c.deg[x] : 0;
    for (int bits = all; bits != 0; bits &= bits - 1) {
        const int j = __ffs(bits) - 1;
        const int y = vertex_at(s, lm, j);
        if (y == x) {
            return false;
        }
        const int bit = 1 << j;
        if ((ch.rows | ch.minus) & bit) {
            const bool adj = adjacent_to_matched(c, x, dx, y, degree_at(s, lm, j), offset_at(s, lm, j), st);
            if (adj != ((ch.rows & bit) != 0)) {
                return false;
            }
        }
    }
    return true;
}

// Is no pair of candidate x and a position of `ch.ranked` a changed pair that keeps the match out of
// task rank r's (ranked_out)?  Without the filter, a candidate the batch does not touch skips the
// lookups.
__device__ __forceinline__ bool passes_ranked(const Ctx& c, const WarpState& s, const LaneMatch& lm, const Checks& ch,
                                              int r, int x) {
#if DM_PAIR_FILTER
    if (r >= 0 && ch.ranked != 0 && (c.b_filter != nullptr || c.b_slot[x] >= 0)) {
#else
    if (r >= 0 && ch.ranked != 0 && c.b_slot[x] >= 0) {
#endif
        for (int bits = ch.ranked; bits != 0; bits &= bits - 1) {
            const int rank = batch_rank(c, x, vertex_at(s, lm, __ffs(bits) - 1));
            if (ranked_out(c, rank, r)) {
                return false;
            }
        }
    }
    return true;
}

// Does candidate x pass `ch` against the lane's match (rank r of the task)?
__device__ bool passes(const Ctx& c, const WarpState& s, const LaneMatch& lm, const Checks& ch, int r, int x,
                       Stats& st) {
    return passes_adjacency(c, s, lm, ch, x, st) && passes_ranked(c, s, lm, ch, r, x);
}

// Where level l's candidates come from: `src[lo, hi)` (sorted), checked by `ch`.
struct Source {
    const int* src;
    int lo;
    int hi;
    Checks ch;
};

// Level l's checks before its anchor is chosen (`rows` holds every pattern neighbour it is checked
// against), and its pattern neighbours among positions 0 .. dep in `conn`: against positions b .. dep
// when its candidates are level b's set, else (b = -1) against 0 .. dep.
__device__ __forceinline__ Checks plan_checks(const Ctx& c, int p, int l, int b, int& conn) {
    const int at = p * DM_MAX_K + l;
    const int upto = (1 << (c.dep[at] + 1)) - 1;
    conn = c.conn[at] & upto;
    const int since = upto & ~((1 << (b >= 0 ? b : 0)) - 1);
    Checks ch;
    ch.rows = conn & since;
    ch.minus = c.induced ? (~conn & since) : 0;
    ch.distinct = ~conn & since;
    ch.ranked = c.induced ? since : (conn & since);
    return ch;
}

// Level l's checks for the lane's match, following the plan analysis: against positions b .. dep
// when level l extends level b's set, else (b = -1) against 0 .. dep with the row of `anchor` (the
// smallest among l's neighbours, set here) as the source and so left out.
__device__ Checks level_checks(const Ctx& c, const WarpState& s, const LaneMatch& lm, int p, int l, int b,
                               int& anchor) {
    int conn;
    Checks ch = plan_checks(c, p, l, b, conn);
    anchor = -1;
    if (b < 0) {
        int best = 0x7fffffff;
        for (int bits = conn; bits != 0; bits &= bits - 1) {
            const int j = __ffs(bits) - 1;
            const int d = degree_at(s, lm, j);
            if (d < best) {
                best = d;
                anchor = j;
            }
        }
        ch.rows &= ~(1 << anchor);
    }
    return ch;
}

// With DM_DRIVE_SHORT, a warp building level l's set whole does not walk a base level's set longer
// than DM_DRIVE_RATIO times the row of a pattern neighbour the set is filtered by: it walks the
// shortest such row, checked as a level without a base (same members, same order: the CPU engine's
// drive_short).  The house's wall-edge plans filter a seed's whole row by adjacency to each vertex
// of that row.  Not in the pair loop, where a list's pairs share their checks.
#ifndef DM_DRIVE_SHORT
#define DM_DRIVE_SHORT 1
#endif
#define DM_DRIVE_RATIO 2  // chosen, not swept: the row's candidates are checked against more positions

// Level l's source for the lane's match: the base level's set or the anchor's row, between the
// symmetric-order bounds of positions 0 .. dep[l].  DRIVE: the base set may give way to a shorter
// row (DM_DRIVE_SHORT).
template <bool DRIVE>
__device__ Source level_source(const Ctx& c, const WarpState& s, const LaneMatch& lm, int p, int l, Stats& st) {
    const int at = p * DM_MAX_K + l;
    const int upto = (1 << (c.dep[at] + 1)) - 1;
    int b = c.base[at];
#if DM_DRIVE_SHORT
    if (DRIVE && b >= 0) {
        int shortest = 0x7fffffff;
        for (int bits = c.conn[at] & upto & ~((1 << b) - 1); bits != 0; bits &= bits - 1) {
            shortest = min(shortest, degree_at(s, lm, __ffs(bits) - 1));
        }
        if ((dm_i64)s.cnt[b] > (dm_i64)DM_DRIVE_RATIO * shortest) {
            b = -1;
        }
    }
#endif
    const int lt = c.lt[at] & upto;
    const int gt = c.gt[at] & upto;
    dm_i64 lower = -1;
    dm_i64 upper = DM_NO_UPPER;
    for (int bits = lt | gt; bits != 0; bits &= bits - 1) {
        const int j = __ffs(bits) - 1;
        const dm_i64 x = vertex_at(s, lm, j);
        if (((gt >> j) & 1) && x > lower) {
            lower = x;
        } else if (((lt >> j) & 1) && x < upper) {
            upper = x;
        }
    }
    Source out;
    int anchor;
    out.ch = level_checks(c, s, lm, p, l, b, anchor);
    int n;
    if (anchor < 0) {
        out.src = s.set[b];
        n = s.cnt[b];
    } else {
        out.src = c.pool + offset_at(s, lm, anchor);
        n = degree_at(s, lm, anchor);
    }
    out.lo = lower < 0 ? 0 : dm_lower_bound(out.src, n, lower + 1);
    out.hi = upper >= DM_NO_UPPER ? n : out.lo + dm_lower_bound(out.src + out.lo, n - out.lo, upper);
    st.probes += (lower >= 0) + (upper < DM_NO_UPPER);
    return out;
}

// Listing: the match with x at position l (the prefix at 0 .. l-1) as row `row`, written when the
// row falls in the current window [win_lo, win_hi) of the output buffer.
__device__ __forceinline__ void write_row(const Ctx& c, const WarpState& s, int p, int l, int x, int* out,
                                          dm_i64 row, dm_i64 win_lo, dm_i64 win_hi) {
    if (row >= win_lo && row < win_hi) {
        int* o = out + (row - win_lo) * c.k;
        for (int q = 0; q < c.k; ++q) {
            o[c.order[p * c.k + q]] = q == l ? x : s.m[q];
        }
    }
}

// With DM_PREFETCH_NEXT, a lane loads its candidate of the next warp step before checking this
// step's: a step's checks read the candidate's degree, hub bit and pair filter word, all waiting on
// the candidate's own read, and one warp alone builds a long source at about 3 us a step of 32
// (bench/gpu/task_times.py, session 35: phase 0 of the RMAT-20 4-clique, 7.1 + 0.095 us per source
// entry), so the next candidate's read overlaps this step's checks instead of starting the next.
#ifndef DM_PREFETCH_NEXT
#define DM_PREFETCH_NEXT 0
#endif

// With DM_STAGED_LOOKUPS, a warp building or counting a set of a batch task with `stage` (scratch as
// long as the source; a set's own destination) runs its checks in two passes: the adjacency checks
// over the source, writing the candidates that pass into `stage`, then the changed-pair lookups
// (passes_ranked, and survives_other) over those, 32 at a time.  Made in the step that passed the
// adjacency checks, the lookups ran at 7.4 lanes of 32 in the 4-cycle's longest launch (Nsight
// Compute, session 40): few candidates of a step pass.  Same survivors in the same order.
#ifndef DM_STAGED_LOOKUPS
#define DM_STAGED_LOOKUPS 0
#endif

// Adds the survivors among `sc`'s candidates that passed every check (ok, lane's x) to level l's
// set as build_from does: into dst from index `found`, and rows base + found + i into `out`.
// Returns how many survived.
__device__ __forceinline__ int add_survivors(const Ctx& c, const WarpState& s, int p, int l, bool ok, int x, int* dst,
                                             int* out, dm_i64 base, int found, dm_i64 win_lo, dm_i64 win_hi) {
    const unsigned ballot = __ballot_sync(DM_FULL_MASK, ok);
    const int rank = __popc(ballot & dm_lanemask_lt());
    if (ok && dst != nullptr) {
        dst[found + rank] = x;
    }
    if (ok && out != nullptr) {
        write_row(c, s, p, l, x, out, base + found + rank, win_lo, win_hi);
    }
    return __popc(ballot);
}

// Builds level l's set from `sc` into `dst` (every survivor, in order) or, with dst == nullptr,
// counts the survivors; with `out`, also writes each survivor's completed match as row base + i.
// `stage`: scratch for DM_STAGED_LOOKUPS when counting (nullptr: none).  Returns the number of
// survivors (same on every lane).
__device__ __forceinline__ int build_from(const Ctx& c, const WarpState& s, const LaneMatch& lm, const Source& sc,
                                          int p, int l, int r, int lane, int* dst, int* out, dm_i64 base,
                                          dm_i64 win_lo, dm_i64 win_hi, Stats& st, int* stage = nullptr) {
    const bool other = c.check_other && l == c.k - 1;
#if DM_RANKED_TOUCHED
    Checks ch = sc.ch;
    ch.ranked = touched_ranked(c, s, lm, ch.ranked, r);
#else
    const Checks& ch = sc.ch;
#endif
    if (dst != nullptr) {
        stage = dst;
    }
    const bool two = DM_STAGED_LOOKUPS && stage != nullptr && out == nullptr && r >= 0 && ch.ranked != 0;
    int found = 0;
    int next = DM_PREFETCH_NEXT && sc.lo + lane < sc.hi ? sc.src[sc.lo + lane] : 0;
    for (int i = sc.lo; i < sc.hi; i += 32) {
        const int idx = i + lane;
        const bool in = idx < sc.hi;
        bool ok = false;
        int x = next;
        if constexpr (DM_PREFETCH_NEXT) {
            next = idx + 32 < sc.hi ? sc.src[idx + 32] : 0;
        }
        if (in) {
            if constexpr (!DM_PREFETCH_NEXT) {
                x = sc.src[idx];
            }
            st.scanned++;
            ok = passes_adjacency(c, s, lm, ch, x, st) &&
                 (two || (passes_ranked(c, s, lm, ch, r, x) && !(other && survives_other(c, s, lm, p, x))));
        }
        if (lane == 0) {
            st.steps++;
        }
        found += add_survivors(c, s, p, l, ok, x, two ? stage : dst, out, base, found, win_lo, win_hi);
    }
    if (two) {
        // In place when building a set: a step's reads come before its writes (the ballot), and its
        // writes land at or below what it read.
        __syncwarp();
        int kept = 0;
        for (int j = 0; j < found; j += 32) {
            const bool in = j + lane < found;
            const int y = in ? stage[j + lane] : 0;
            const bool live = in && passes_ranked(c, s, lm, ch, r, y) && !(other && survives_other(c, s, lm, p, y));
            kept += add_survivors(c, s, p, l, live, y, dst, nullptr, 0, kept, 0, 0);
        }
        found = kept;
    }
    return found;
}

// build_from level l's whole source (level_source).
__device__ int build_level(const Ctx& c, const WarpState& s, int p, int l, int r, int lane, int* dst, int* out,
                           dm_i64 base, dm_i64 win_lo, dm_i64 win_hi, Stats& st, int* stage = nullptr) {
    const LaneMatch lm = lane_match(c, -1, 0, -1, 0);
    const Source sc = level_source<true>(c, s, lm, p, l, st);
    return build_from(c, s, lm, sc, p, l, r, lane, dst, out, base, win_lo, win_hi, st, stage);
}

// Whether w is one of m[lo .. hi).
__device__ __forceinline__ bool matched_between(const WarpState& s, int lo, int hi, int w) {
    for (int j = lo; j < hi; ++j) {
        if (s.m[j] == w) {
            return true;
        }
    }
    return false;
}

// Makes level l's set current (built into `slot`, or kept when hoisted and still fresh).
__device__ void prepare_level(const Ctx& c, WarpState& s, int p, int l, int r, int lane, int* slot, Stats& st) {
    const bool hoisted = c.dep[p * DM_MAX_K + l] < l - 1;
    if (!(hoisted && ((s.fresh >> l) & 1))) {
        const int n = build_level(c, s, p, l, r, lane, slot, nullptr, 0, 0, 0, st);
        __syncwarp();
        if (lane == 0) {
            s.set[l] = slot;
            s.cnt[l] = n;
            s.fresh |= 1u << l;
        }
    }
    __syncwarp();
    if (lane == 0) {
        s.pos[l] = 0;
        s.end[l] = s.cnt[l];
    }
    __syncwarp();
}

// Position l now holds w (lane 0 writes; caller syncs): later hoisted sets depending on l go stale.
__device__ __forceinline__ void assign(const Ctx& c, WarpState& s, int p, int l, int w) {
    s.m[l] = w;
    s.mdeg[l] = c.deg[w];
    s.moff[l] = c.off[w];
    for (int later = l + 2; later < c.k; ++later) {
        if (c.dep[p * DM_MAX_K + later] >= l) {
            s.fresh &= ~(1u << later);
        }
    }
}

// Listing: the completions of the current prefix at the last level, written from row `base`.
__device__ dm_u64 list_last(const Ctx& c, WarpState& s, int p, int r, int lane, int* slot, int* out, dm_i64 base,
                            dm_i64 win_lo, dm_i64 win_hi, Stats& st) {
    const int l = c.k - 1;
    const int dep = c.dep[p * DM_MAX_K + l];
    if (dep >= l - 1) {
        return build_level(c, s, p, l, r, lane, nullptr, out, base, win_lo, win_hi, st);
    }
    prepare_level(c, s, p, l, r, lane, slot, st);
    dm_u64 found = 0;
    const int n = s.cnt[l];
    for (int i = 0; i < n; i += 32) {
        const bool in = i + lane < n;
        const int x = in ? s.set[l][i + lane] : 0;
        const bool ok = in && !matched_between(s, dep + 1, l, x);
        const unsigned ballot = __ballot_sync(DM_FULL_MASK, ok);
        if (ok) {
            const dm_i64 row = base + (dm_i64)found + __popc(ballot & dm_lanemask_lt());
            write_row(c, s, p, l, x, out, row, win_lo, win_hi);
        }
        found += __popc(ballot);
    }
    return found;
}

// Counting, LAST_COLLAPSE: every candidate w in C[a, e) of level l = k-2 pairs with the last
// level's hoisted set S minus the vertices at positions dep+1 .. l-1 and minus w itself.
__device__ dm_u64 collapse_count(const Ctx& c, WarpState& s, int p, int r, int lane, int a, int e, int* slot,
                                 Stats& st) {
    const int l = c.k - 2;
    const int last = c.k - 1;
    prepare_level(c, s, p, last, r, lane, slot, st);
    const int* S = s.set[last];
    const int ns = s.cnt[last];
    const int dep_last = c.dep[p * DM_MAX_K + last];
    int clashes = 0;
    for (int j = dep_last + 1; j < l; ++j) {
        clashes += row_contains(S, ns, s.m[j], st) ? 1 : 0;
    }
    const int dep_l = c.dep[p * DM_MAX_K + l];
    const bool skip = dep_l < l - 1;
    const int* C = s.set[l];
    int n = 0;
    int common = 0;
    for (int i = a; i < e; i += 32) {
        const bool in = i + lane < e;
        bool ok = false;
        bool both = false;
        if (in) {
            const int w = C[i + lane];
            ok = !(skip && matched_between(s, dep_l + 1, l, w));
            both = ok && row_contains(S, ns, w, st);
            st.scanned++;
        }
        n += __popc(__ballot_sync(DM_FULL_MASK, ok));
        common += __popc(__ballot_sync(DM_FULL_MASK, both));
        if (lane == 0) {
            st.steps++;
        }
    }
    return (dm_u64)n * (dm_u64)(ns - clashes) - (dm_u64)common;
}

// The last two levels of a counting task as one flat list of pairs (w, x), spread over the lanes:
// w = C[i] of level k-2, x in w's last-level source src[i][0 .. S[i+1] - S[i]); pair f belongs to
// the i with S[i] <= f < S[i+1] (S[0] = 0, S[n] = the pair count).
struct PairList {
    const int* C;
    const int* const* src;
    const dm_i64* S;
    int n;
    const int* W;  // the memo's weights (match_memo): a match of pair f counts W[i] times
};

// The candidate owning pair f: the i with S[i] <= f < S[i+1], searched from candidate `lo` on
// (S[lo] <= f).
template <bool CG>
__device__ __forceinline__ int pair_owner(const PairList& pl, dm_i64 f, int lo = 0) {
    int hi = pl.n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (load<CG>(pl.S + 1 + mid) <= f) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The owner of pair f, for a warp step whose lanes hold pairs f0 + lane with S[cursor] <= f0: the 32
// candidates from `cursor` on are read at once (one load per lane) and each lane finds its owner
// among them by shuffles, instead of a binary search of S per pair; a lane past them (a run of
// short candidates) searches the rest.
#ifndef DM_PAIR_WINDOW
#define DM_PAIR_WINDOW 1
#endif
template <bool CG>
__device__ __forceinline__ int step_owner(const PairList& pl, int cursor, dm_i64 f0, int lane) {
#if DM_PAIR_WINDOW
    const int idx = cursor + lane;
    // where each candidate's pairs end, counted from f0 and capped past the step (32-bit shuffles)
    const int ends = idx < pl.n ? (int)min(load<CG>(pl.S + 1 + idx) - f0, (dm_i64)64) : 64;
    if (__shfl_sync(DM_FULL_MASK, ends, 0) >= 32) {  // a long candidate owns the whole step
        return cursor;
    }
    const int within = dm_flat_owner(ends, lane);
    if (__shfl_sync(DM_FULL_MASK, ends, 31) > lane) {
        return cursor + within;
    }
    return pair_owner<CG>(pl, f0 + lane, cursor + 32);
#else
    return pair_owner<CG>(pl, f0 + lane);
#endif
}

// The last level's checks over a pair list, whose prefix (positions 0 .. k-3) every pair shares: a
// pair's own differ from `ch` only in the anchor its rows leave out, the prefix's (`ch.rows`, a row
// of `deg` entries) unless the pair's candidate w, at k-2, is a pattern neighbour with a shorter row
// (`w_rows`; `deg` is -1 when w never anchors).  Ties go to the lower position, as in level_checks.
// DM_LIST_CHECKS 0 runs level_checks per pair instead; so does the statistics build, which spills
// with them.
#ifndef DM_LIST_CHECKS
#define DM_LIST_CHECKS !DM_STATS
#endif
__device__ ListChecks list_checks(const Ctx& c, const WarpState& s, int p) {
    const int l = c.k - 2;
    int conn;
    ListChecks out;
    const int b = c.base[p * DM_MAX_K + l + 1];
    out.ch = plan_checks(c, p, l + 1, b, conn);
    out.w_rows = out.ch.rows;
    out.deg = -1;
    if (b < 0) {  // else the last level filters its base level's set
        int anchor = l;  // w, when it is the only neighbour among the positions checked
        int best = 0x7fffffff;
        for (int bits = conn & ((1 << l) - 1); bits != 0; bits &= bits - 1) {
            const int j = __ffs(bits) - 1;
            if (s.mdeg[j] < best) {
                best = s.mdeg[j];
                anchor = j;
            }
        }
        out.w_rows &= ~(1 << l);
        out.ch.rows &= ~(1 << anchor);
        out.deg = (conn >> l) & 1 ? best : -1;
    }
    return out;
}

// The checks of a pair whose candidate at k-2 has degree `dw`.
__device__ __forceinline__ Checks pair_checks(const ListChecks& lc, int dw) {
    Checks ch = lc.ch;
    if (dw < lc.deg) {
        ch.rows = lc.w_rows;
    }
    return ch;
}

// The matches among pairs [0, total) of the list (same on every lane): all of them, or (`rec`: a
// list on the board) pieces of DM_CLAIM pairs claimed with its atomic counter until none is left.
// One loop for both, so that the claims cost no registers beyond the pair loop's own.  MEMO: a memo's
// list (memo_flush), whose pairs weigh W and whose last level is not told apart from the middle
// positions' vertices here (memo_add takes them out).
template <bool CG, bool MEMO = false>
__device__ dm_u64 count_pairs(const Ctx& c, WarpState& s, int p, int r, int lane, const PairList& pl,
                              dm_u64* rec, dm_i64 total, Stats& st) {
    const int l = c.k - 2;
    dm_u64 found = 0;
    dm_i64 f0 = 0;
    dm_i64 stop = rec != nullptr ? 0 : total;
    if (lane == 0) {
        s.cursor = 0;
#if DM_LIST_CHECKS
        s.list = list_checks(c, s, p);
        if (MEMO) {
            s.list.ch.distinct &= 3;
        }
#if DM_RANKED_TOUCHED
        // the prefix's positions only: position l is each pair's own candidate (written as an xor:
        // masking the two parts and or-ing them took match_tasks from 62 to 68 registers, NVRTC 13.0)
        const int prefix = s.list.ch.ranked & ((1 << l) - 1);
        s.list.ch.ranked ^= prefix ^ touched_ranked(c, s, lane_match(c, -1, 0, -1, 0), prefix, r);
#endif
#endif
    }
    __syncwarp();
    while (true) {
        if (f0 >= stop) {
            if (rec == nullptr) {
                break;
            }
            dm_u64 claimed = 0;
            if (lane == 0) {
                claimed = atomicAdd(rec + DM_B_NEXT, (dm_u64)DM_CLAIM);
            }
            f0 = (dm_i64)__shfl_sync(DM_FULL_MASK, claimed, 0);
            if (f0 >= total || expired(c, lane)) {
                break;
            }
            // No search for the piece's first candidate: a warp's claims only grow, so the cursor
            // still starts at or before it and the window finds it (next to the last piece when
            // nobody claimed in between: the owner's common case).
            stop = min(f0 + DM_CLAIM, total);
            if (CG && lane == 0) {
                count_event(c, DM_ST_SHARED, (dm_u64)(stop - f0));
            }
        } else if ((f0 & 0xffff) == 0 && expired(c, lane)) {
            break;
        }
        const dm_i64 f = f0 + lane;
        const int i = step_owner<CG>(pl, s.cursor, f0, lane);
        __syncwarp();
        if (lane == 31) {
            s.cursor = i;
        }
        __syncwarp();
        bool ok = false;
        if (f < stop) {
            const LaneMatch lm = lane_match(c, l, load<CG>(pl.C + i), -1, 0);
#if DM_LIST_CHECKS
            const Checks ch = pair_checks(s.list, lm.d0);
#else
            int anchor;
            const int last = c.k - 1;
            Checks ch = level_checks(c, s, lm, p, last, c.base[p * DM_MAX_K + last], anchor);
            if (MEMO) {
                ch.distinct &= 3;
            }
#endif
            const int x = load<CG>(load<CG>(pl.src + i) + (f - load<CG>(pl.S + i)));
            st.scanned++;
            ok = passes(c, s, lm, ch, r, x, st) && !(c.check_other && survives_other(c, s, lm, p, x));
        }
        if constexpr (MEMO) {
            found += __reduce_add_sync(DM_FULL_MASK, ok ? (unsigned)load<CG>(pl.W + i) : 0u);
        } else {
            found += __popc(__ballot_sync(DM_FULL_MASK, ok));
        }
        if (lane == 0) {
            st.steps++;
        }
        f0 += 32;
    }
    return found;
}

// The warp's own board record, where it publishes its lists: found again where it is needed rather
// than held in registers through the pair loop.
__device__ __forceinline__ dm_u64* own_record(const Ctx& c) {
    return c.board + warp_id() * DM_BOARD_WORDS;
}

// The owner's side of work sharing: publishes the list on its board record, so that it and any
// joiners claim pieces of it.  The match prefix goes a word a lane: written by lane 0 in a loop, it
// was match_shared's register peak (it spilled 240 bytes at 32 warps an SM, none without).
__device__ void publish(const Ctx& c, WarpState& s, int p, int r, int lane, const PairList& pl, dm_i64 total) {
    dm_u64* rec = own_record(c);
    __threadfence();  // every lane's writes of the list's arrays, before the list opens
    __syncwarp();
    if (lane < (c.k - 1) / 2) {  // m[0 .. k-3], two a word
        rec[DM_B_M + lane] = (unsigned)s.m[2 * lane] | ((dm_u64)(unsigned)s.m[2 * lane + 1] << 32);
    }
    if (lane == 0) {
        rec[DM_B_NEXT] = 0;
        rec[DM_B_END] = (dm_u64)total;
        rec[DM_B_TASK] = (dm_u64)s.task;
        rec[DM_B_PLAN] = (unsigned)p | ((dm_u64)(unsigned)r << 32);
        rec[DM_B_C] = (dm_u64)pl.C;
        rec[DM_B_SRC] = (dm_u64)pl.src;
        rec[DM_B_S] = (dm_u64)pl.S;
        rec[DM_B_N] = (dm_u64)pl.n;
        rec[DM_B_W] = (dm_u64)pl.W;
    }
    __threadfence();  // every lane's words of the record, before it opens
    __syncwarp();
    if (lane == 0) {
        s.lists += 1;
        atomicExch(rec + DM_B_OPEN, s.lists);
        count_event(c, DM_ST_PUBLISHED, 1);
    }
    __syncwarp();
}

// Closes the owner's list and waits until no joiner reads its scratch any more.
__device__ void unpublish(const Ctx& c, int lane) {
    if (lane == 0) {
        dm_u64* rec = own_record(c);
        atomicExch(rec + DM_B_OPEN, 0ull);
        while (atomicAdd((unsigned*)(rec + DM_B_HOLDS), 0u) != 0) {
            __nanosleep(64);
        }
    }
    __syncwarp();
}

// The pair list of candidates C[0, n) of level l = k-2 (their last-level sources) in the warp's
// scratch (`src_of`, `S`), leaving out (`skip`) those matched since their hoisted set was built;
// returns its pair count (same on every lane).
__device__ dm_i64 pair_list(const Ctx& c, const WarpState& s, int p, int lane, const int* C, int n, bool skip,
                            const int** src_of, dm_i64* S, Stats& st) {
    const int l = c.k - 2;
    const int dep_l = c.dep[p * DM_MAX_K + l];
    dm_i64 carry = 0;
    if (lane == 0) {
        S[0] = 0;
    }
    for (int i0 = 0; i0 < n; i0 += 32) {
        const int i = i0 + lane;
        dm_i64 len = 0;
        const int* from = nullptr;
        if (i < n) {
            const int w = C[i];
            if (!(skip && matched_between(s, dep_l + 1, l, w))) {
                const LaneMatch lm = lane_match(c, l, w, -1, 0);
                const Source sc = level_source<false>(c, s, lm, p, c.k - 1, st);
                len = sc.hi - sc.lo;
                from = sc.src + sc.lo;
            }
        }
        const dm_i64 incl = dm_warp_scan(len);
        if (i < n) {
            src_of[i] = from;
            S[i + 1] = carry + incl;
        }
        carry += __shfl_sync(DM_FULL_MASK, incl, 31);
    }
    __syncwarp();
    return carry;
}

// Counting, LAST_EACH with unrolling: the `carry` pairs of candidates C[0, n) of level k-2, a
// PairList built in the warp's scratch (`src_of`, `S`: pair_list), counted by this warp alone or,
// when long enough, shared.
__device__ dm_u64 pair_count(const Ctx& c, WarpState& s, int p, int r, int lane, const int* C, int n, dm_i64 carry,
                             const int** src_of, dm_i64* S, Stats& st) {
    const PairList pl = {C, src_of, S, n, nullptr};
    const bool shared = c.share > 0 && carry >= c.share;
    if (shared) {
        publish(c, s, p, r, lane, pl, carry);
    }
    const dm_u64 found = count_pairs<false>(c, s, p, r, lane, pl, shared ? own_record(c) : nullptr, carry, st);
    if (shared) {
        unpublish(c, lane);
    }
    return found;
}

// The joiner's side of work sharing: joins the open list with the most unclaimed pairs (at least
// DM_JOIN_MIN) and claims pieces of it until none is left, adding its matches to the list's task.
// Returns the matches; sets `joined` to whether it found a list.  MEMO: the lists are memo flushes
// (match_memo_shared publishes no other kind).
template <bool MEMO>
__device__ dm_u64 join_list(const Ctx& c, WarpState& s, int lane, bool& joined, Stats& st) {
    dm_i64 best_left = 0;
    dm_i64 best = -1;
    dm_u64 best_id = 0;
    const dm_i64 n_warps = (dm_i64)gridDim.x * (blockDim.x >> 5);
    for (dm_i64 w = lane; w < n_warps; w += 32) {
        const dm_u64* rec = c.board + w * DM_BOARD_WORDS;
        const dm_u64 id = __ldcg(rec + DM_B_OPEN);
        if (id == 0) {  // most records are closed: one load each, not three
            continue;
        }
        const dm_i64 left = (dm_i64)__ldcg(rec + DM_B_END) - (dm_i64)__ldcg(rec + DM_B_NEXT);
        if (left > best_left) {
            best_left = left;
            best = w;
            best_id = id;
        }
    }
    for (int d = 16; d > 0; d >>= 1) {
        const dm_i64 o_left = __shfl_xor_sync(DM_FULL_MASK, best_left, d);
        const dm_i64 o_best = __shfl_xor_sync(DM_FULL_MASK, best, d);
        const dm_u64 o_id = __shfl_xor_sync(DM_FULL_MASK, best_id, d);
        if (o_left > best_left || (o_left == best_left && o_best > best)) {
            best_left = o_left;
            best = o_best;
            best_id = o_id;
        }
    }
    joined = false;
    if (best_left < DM_JOIN_MIN) {
        return 0;
    }
    dm_u64* rec = c.board + best * DM_BOARD_WORDS;
    int held = 0;
    dm_u64 plan = 0;
    if (lane == 0) {
        atomicAdd((unsigned*)(rec + DM_B_HOLDS), 1u);
        __threadfence();
        held = atomicAdd(rec + DM_B_OPEN, 0ull) == best_id;  // still the list we saw: it stays until we let go
        if (held) {
            __threadfence();
            plan = __ldcg(rec + DM_B_PLAN);
            s.task = (dm_i64)__ldcg(rec + DM_B_TASK);
            for (int j = 0; j < c.k - 2; ++j) {
                const dm_u64 two = __ldcg(rec + DM_B_M + j / 2);
                const int v = (int)(unsigned)(j % 2 == 0 ? two : two >> 32);
                s.m[j] = v;
                s.mdeg[j] = c.deg[v];
                s.moff[j] = c.off[v];
            }
        } else {
            atomicSub((unsigned*)(rec + DM_B_HOLDS), 1u);
        }
    }
    joined = __shfl_sync(DM_FULL_MASK, held, 0) != 0;
    if (!joined) {
        return 0;
    }
    plan = __shfl_sync(DM_FULL_MASK, plan, 0);
    __syncwarp();
    const int p = (int)(unsigned)plan;
    const int r = (int)(unsigned)(plan >> 32);
    PairList pl;
    pl.W = MEMO ? (const int*)__ldcg(rec + DM_B_W) : nullptr;
    pl.C = (const int*)__ldcg(rec + DM_B_C);
    pl.src = (const int* const*)__ldcg(rec + DM_B_SRC);
    pl.S = (const dm_i64*)__ldcg(rec + DM_B_S);
    pl.n = (int)__ldcg(rec + DM_B_N);
    const dm_u64 found = count_pairs<true, MEMO>(c, s, p, r, lane, pl, rec, (dm_i64)__ldcg(rec + DM_B_END), st);
    __syncwarp();
    if (lane == 0) {
        if (c.counts != nullptr && found != 0) {
            atomicAdd((dm_u64*)(c.counts + s.task), found);
        }
        count_event(c, DM_ST_JOINS, 1);
        __threadfence();
        atomicSub((unsigned*)(rec + DM_B_HOLDS), 1u);
    }
    return found;
}

// LAST_PAIRS: the matches completing members [a, e) of level k-2's set C of n members: member i pairs
// with the n-1-i members above it (bound >), the i below it (<), or all n-1 others.
__device__ __forceinline__ dm_u64 pairs_count(const Ctx& c, int p, dm_u64 n, dm_u64 a, dm_u64 e) {
    const dm_u64 m = e - a;
    const dm_u64 below = m == 0 ? 0 : (a + e - 1) * m / 2;  // the sum of i over [a, e)
    const int bit = 1 << (c.k - 2);
    const int at = p * DM_MAX_K + c.k - 1;
    if (c.gt[at] & bit) {
        return m * (n - 1) - below;
    }
    return (c.lt[at] & bit) ? below : m * (n - 1);
}

// Counting from kept triangles: the last level of every candidate w in C[a, e) of level l = k-2 is
// N(x) & N(w), x = m[kept_j[p]] adjacent to w, so its size is t(x, w) less the members to take out:
// the vertices matched below l and, in a batch, those whose edge to x (or else to w) is a changed
// pair ranked below the task (the rank rule of `passes`).  What does not depend on w is settled once
// per call, not per candidate: which matched vertices lie in N(x), and which of them the plan makes
// adjacent to every w (taken out with no test); which of x's first 32 changed pairs are taken out
// for any w that is adjacent to their partner (one ballot).  Each w then tests those partners, x's
// further pairs and its own pairs.  Edge-induced plans with no bound on the last position only
// (plan_table.kept_last_levels).
__device__ __forceinline__ dm_u64 kept_count(const Ctx& c, const WarpState& s, int p, int r, int lane, int a, int e,
                                             Stats& st) {
    const int l = c.k - 2;
    const int j = c.kept_j[p];
    const int x = s.m[j];
    const int dx = s.mdeg[j];
    const dm_i64 ox = s.moff[j];
    const int dep_l = c.dep[p * DM_MAX_K + l];
    const bool skip = dep_l < l - 1;
    const int near_x = (int)__ballot_sync(
        DM_FULL_MASK, lane < l && lane != j && adjacent(c, s.m[lane], s.mdeg[lane], x, dx, ox, st));
    const int given = near_x & c.conn[p * DM_MAX_K + l];
    const int sx = may_rank_out(c, r) ? c.b_slot[x] : -1;
    const dm_i64 x_lo = sx >= 0 ? c.b_ptr[sx] : 0;
    const dm_i64 x_n = sx >= 0 ? c.b_ptr[sx + 1] - x_lo : 0;
    bool out_at_x = false;
    if (lane < x_n && ranked_out(c, c.b_rank[x_lo + lane], r)) {
        const int z = c.b_partner[x_lo + lane];
        out_at_x = !matched_between(s, 0, l, z) && adjacent(c, z, c.deg[z], x, dx, ox, st);
    }
    const unsigned at_x = __ballot_sync(DM_FULL_MASK, out_at_x);
    const dm_i64 x_more = x_n > 32 ? x_n - 32 : 0;
    dm_u64 total = 0;
    for (int i = a + lane; i < e; i += 32) {
        const int w = s.set[l][i];
        if (skip && matched_between(s, dep_l + 1, l, w)) {
            continue;
        }
        const int dw = c.deg[w];
        const dm_i64 ow = c.off[w];
        dm_i64 n = (dm_i64)c.tt_t[dm_pair_find(c.tt_keys, c.tt_bits, dm_pair_key(x, w))] - __popc(given);
        for (int bits = near_x & ~given; bits != 0; bits &= bits - 1) {
            const int q = __ffs(bits) - 1;
            n -= adjacent(c, s.m[q], s.mdeg[q], w, dw, ow, st);
        }
        for (unsigned bits = at_x; bits != 0; bits &= bits - 1) {
            const int z = c.b_partner[x_lo + __ffs(bits) - 1];
            n -= adjacent(c, z, c.deg[z], w, dw, ow, st);
        }
        const int sw = may_rank_out(c, r) ? c.b_slot[w] : -1;
        const dm_i64 w_lo = sw >= 0 ? c.b_ptr[sw] : 0;
        const dm_i64 items = x_more + (sw >= 0 ? c.b_ptr[sw + 1] - w_lo : 0);
        for (dm_i64 item = 0; item < items; ++item) {
            const bool on_x = item < x_more;
            const dm_i64 pair = on_x ? x_lo + 32 + item : w_lo + (item - x_more);
            if (!ranked_out(c, c.b_rank[pair], r)) {
                continue;
            }
            const int z = c.b_partner[pair];
            if (matched_between(s, 0, l, z)) {
                continue;
            }
            if (!on_x) {
                const int other = batch_rank(c, z, x);
                if (ranked_out(c, other, r)) {
                    continue;  // taken out at x
                }
            }
            const int dz = c.deg[z];
            if (adjacent(c, z, dz, x, dx, ox, st) && adjacent(c, z, dz, w, dw, ow, st)) {
                --n;
            }
        }
        total += (dm_u64)n;
        st.scanned++;
    }
    return dm_warp_sum(total);
}

// Whether a pair list may run w by w (Balance.flat_below); the builds without the pair window or the
// list checks and the statistics build, which spill with the choice, run every list flat.
#define DM_FLAT_CHOICE (DM_PAIR_WINDOW && DM_LIST_CHECKS && !DM_STATS)

// Counting: the matches completing every candidate in C[a, e) of level k-2 (the last two levels).
__device__ dm_u64 finish_last_two(const Ctx& c, WarpState& s, int p, int r, int lane, int a, int e, int* last_slot,
                                  const int** src_of, dm_i64* S, Stats& st) {
    const int l = c.k - 2;
#if !DM_STATS  // the statistics build spills with it: its runs match every last level
    if (c.kept_j != nullptr && c.kept_j[p] >= 0) {
        return kept_count(c, s, p, r, lane, a, e, st);
    }
#endif
    const int mode = c.last_two[p];
    if (mode == DM_LAST_PAIRS) {
        return pairs_count(c, p, (dm_u64)s.cnt[l], a, e);
    }
    if (mode == DM_LAST_COLLAPSE) {
        return collapse_count(c, s, p, r, lane, a, e, last_slot, st);
    }
    const int dep_l = c.dep[p * DM_MAX_K + l];
    if (c.unroll > 0) {
        // PGMiner's dynamic unrolling: the flat pair list where the candidates' sets are short on
        // average; sets that fill the lanes are walked w by w, without its owner search per pair.
        const int* C = s.set[l] + a;
        const dm_i64 carry = pair_list(c, s, p, lane, C, e - a, dep_l < l - 1, src_of, S, st);
        if (!DM_FLAT_CHOICE || carry < (dm_i64)c.unroll * (e - a)) {
            return pair_count(c, s, p, r, lane, C, e - a, carry, src_of, S, st);
        }
    }
    dm_u64 total = 0;
    for (int i = a; i < e; ++i) {
        const int w = s.set[l][i];
        if (dep_l < l - 1 && matched_between(s, dep_l + 1, l, w)) {
            continue;
        }
        __syncwarp();
        if (lane == 0) {
            assign(c, s, p, l, w);
        }
        __syncwarp();
        total += build_level(c, s, p, c.k - 1, r, lane, nullptr, nullptr, 0, 0, 0, st, last_slot);
    }
    return total;
}

// Per-warp scratch: one slot of `width` ints per level 2 .. k-1 (rounded up to even), then the pair
// list's `width` source pointers and `width` + 1 pair offsets (PairList) and, with a memo of
// DM_MEMO_FACTOR * width keys, its table's keys and multiplicities (2^memo_bits, at least twice as
// many, each) and a flush's keys, weights, source pointers and pair offsets (set in the warp's state
// by lane 0): cuda_engine.scratch_ints.
struct Scratch {
    int* slot[DM_MAX_K];
    const int** src_of;
    dm_i64* S;
};

__device__ Scratch warp_scratch(int* scratch, dm_i64 width, int k, dm_i64 warp, bool memo, WarpState& s,
                                int lane) {
    Scratch sc;
    const dm_i64 slots = (width * (k - 2) + 1) & ~(dm_i64)1;  // even, so the 8-byte arrays align
    const dm_i64 held = DM_MEMO_FACTOR * width;
    int bits = 1;
    while (((dm_i64)1 << bits) < 2 * held) {
        ++bits;
    }
    const dm_i64 memo_ints = memo ? 2 * ((dm_i64)1 << bits) + 6 * held + 2 : 0;
    int* mine = scratch + warp * (slots + 4 * width + 2 + memo_ints);
    for (int l = 0; l < DM_MAX_K; ++l) {
        sc.slot[l] = l >= 2 && l < k ? mine + (l - 2) * width : nullptr;
    }
    dm_i64* tail = (dm_i64*)(mine + slots);
    sc.src_of = (const int**)tail;
    sc.S = tail + width;
    if (lane == 0) {
        s.memo_bits = bits;
        s.memo_limit = (int)held;
        s.memo_keys = memo ? mine + slots + 4 * width + 2 : nullptr;
        s.memo_mult = memo ? s.memo_keys + ((dm_i64)1 << bits) : nullptr;
        s.memo_C = memo ? s.memo_mult + ((dm_i64)1 << bits) : nullptr;
        s.memo_W = memo ? s.memo_C + held : nullptr;
        s.memo_src = memo ? (const int**)(s.memo_W + held) : nullptr;
        s.memo_S = memo ? (dm_i64*)(s.memo_W + 3 * held) : nullptr;
        s.memo_n = 0;
    }
    __syncwarp();
    return sc;
}

// Counting memo plans (match_memo; Balance.last_memo, 1.3-1.9x faster on the house: session 17).
// The last level's set S(w) of a memo plan (plan_table.memo_plans) depends on the seed and w = m[k-2]
// alone, while k-2 runs for every prefix m[2 .. k-3] of a task, so a hub's neighbours are met again
// and again: the house's roof-edge plans walked 13.7x the pairs they need on RMAT-18 (docs/GPU.md,
// session 16).  As the CPU engine's _memo_count, but kept per task: every w that a prefix gives level
// k-2 goes into the warp's table (w -> prefixes that gave it), and the table is counted as one pair
// list whose pairs weigh as many prefixes (|S(w) minus m[0], m[1]| once per distinct w); a prefix's
// own vertices m[2 .. k-3] that lie in S(w) are taken out as it goes.  A table that reaches
// `memo_limit` distinct keys (a load of 1/2) is counted and cleared: at DM_MEMO_FACTOR times the
// widest row it kept 13.0x of the 13.7x (1x: 3.1x; host count, session 16).  The host runs such
// tasks in a launch of their own, by default not deferred: chunks of level 2 each fill a table of
// their own and lose the reuse (Balance.memo_chunks).  match_memo_shared shares long flushes.

// Whether x, a vertex of the match, passes the last level's tests against the seed positions 0 and 1
// (rows, distinctness, changed-pair ranks, bounds): then it lies in S(w) for every w it is adjacent to
// by a pair that is not changed below rank r (the CPU engine's _in_seed_part).
__device__ bool in_seed_part(const Ctx& c, const WarpState& s, int p, int r, int x, Stats& st) {
    const int last = c.k - 1;
    const int at = p * DM_MAX_K + last;
    int conn;
    Checks ch = plan_checks(c, p, last, -1, conn);
    ch.rows &= 3;
    ch.minus &= 3;
    ch.distinct &= 3;
    ch.ranked &= 3;
    for (int j = 0; j < 2; ++j) {
        if ((((c.lt[at] >> j) & 1) && x >= s.m[j]) || (((c.gt[at] >> j) & 1) && x <= s.m[j])) {
            return false;
        }
    }
    return passes(c, s, lane_match(c, -1, 0, -1, 0), ch, r, x, st);
}

// Adds w to the warp's table; a slot it takes is listed in memo_C.
__device__ __forceinline__ void memo_insert(WarpState& s, int w) {
    const unsigned mask = (1u << s.memo_bits) - 1;
    unsigned h = (unsigned)(((dm_u64)(unsigned)w * 0x9E3779B97F4A7C15ull) >> (64 - s.memo_bits));
    while (true) {
        const int prev = atomicCAS(s.memo_keys + h, 0, w + 1);
        if (prev == 0 || prev == w + 1) {
            atomicAdd(s.memo_mult + h, 1);
            if (prev == 0) {
                s.memo_C[atomicAdd(&s.memo_n, 1)] = (int)h;
            }
            return;
        }
        h = (h + 1) & mask;
    }
}

// Counts the table (one weighted pair list of its distinct keys) and clears the slots it used, so
// that a warp's table is empty between tasks and launches (cuda_engine keeps the scratch of memo
// runs, zeroed once); returns the matches.
__device__ dm_u64 memo_flush(const Ctx& c, WarpState& s, int p, int r, int lane, Stats& st) {
    const int n = s.memo_n;
    for (int i = lane; i < n; i += 32) {
        const int h = s.memo_C[i];
        s.memo_C[i] = __ldcg(s.memo_keys + h) - 1;  // written by atomics: read from L2
        s.memo_W[i] = __ldcg(s.memo_mult + h);
        s.memo_keys[h] = 0;
        s.memo_mult[h] = 0;
    }
    __syncwarp();
    if (lane == 0) {
        s.memo_n = 0;
    }
    __syncwarp();
    if (n == 0) {
        return 0;
    }
    if (lane == 0) {
        count_event(c, DM_ST_MEMO_FLUSHES, 1);
    }
    const dm_i64 total = pair_list(c, s, p, lane, s.memo_C, n, false, s.memo_src, s.memo_S, st);
    const PairList pl = {s.memo_C, s.memo_src, s.memo_S, n, s.memo_W};
    // match_memo_shared: a long flush is shared as pair_count's lists are; its arrays stay untouched
    // until unpublish, since the next memo_add writes them only after this returns.
    const bool shared = c.share > 0 && total >= c.share;
    if (shared) {
        publish(c, s, p, r, lane, pl, total);
    }
    const dm_u64 found = count_pairs<false, true>(c, s, p, r, lane, pl, shared ? own_record(c) : nullptr, total,
                                                  st);
    if (shared) {
        unpublish(c, lane);
    }
    return found;
}

// Puts the current prefix's level k-2 set, from member `from` on, into the table until it is done or
// the table is nearly full (advancing `from`), and returns how many completions of those members
// would reuse the prefix's vertices m[2 .. k-3]: the task takes them out.
__device__ dm_u64 memo_add(const Ctx& c, WarpState& s, int p, int r, int lane, int& from, Stats& st) {
    const int l = c.k - 2;
    // The middle vertices in the seed part of S: in S(w) for every w where level l is adjacent to
    // them (its own tests passed the pair), else where w is adjacent to them by an unexcluded pair.
    const int conn_l = c.conn[p * DM_MAX_K + l];
    const bool seed_part = lane >= 2 && lane < l && in_seed_part(c, s, p, r, s.m[lane], st);
    const unsigned part = __ballot_sync(DM_FULL_MASK, seed_part);
    const int always = __popc(part & conn_l);
    const unsigned maybe = part & ~conn_l;
    const int dep_l = c.dep[p * DM_MAX_K + l];
    const bool skip = dep_l < l - 1;
    const int n = s.cnt[l];
    dm_u64 inside = 0;
    for (; from < n && s.memo_n <= s.memo_limit - 32; from += 32) {
        const int i = from + lane;
        const int w = i < n ? s.set[l][i] : -1;
        if (w >= 0 && !(skip && matched_between(s, dep_l + 1, l, w))) {
            inside += always;
            for (unsigned bits = maybe; bits != 0; bits &= bits - 1) {
                const int j = __ffs(bits) - 1;
                if (adjacent_to_matched(c, w, c.deg[w], s.m[j], s.mdeg[j], s.moff[j], st)) {
                    const int rank = r >= 0 ? batch_rank(c, w, s.m[j]) : -1;
                    inside += !ranked_out(c, rank, r);
                }
            }
            memo_insert(s, w);
            st.scanned++;
        }
        if (lane == 0) {
            st.steps++;
        }
        __syncwarp();
    }
    return dm_warp_sum(inside);
}

// The matches of one task extended from level 2, whose set is s.set[2] (size s.cnt[2]), over its
// candidates [a, e).  Counting (out == nullptr) or listing rows from `base`; MEMO: counting a memo
// plan's task through the warp's memo.
template <bool MEMO>
__device__ dm_u64 descend(const Ctx& c, WarpState& s, const Scratch& sc, int p, int r, int lane, int a, int e,
                          int* out, dm_i64 base, dm_i64 win_lo, dm_i64 win_hi, Stats& st) {
    const bool listing = out != nullptr;
    if (!listing && c.k == 4) {
        return finish_last_two(c, s, p, r, lane, a, e, sc.slot[3], sc.src_of, sc.S, st);
    }
    __syncwarp();
    if (lane == 0) {
        s.pos[2] = a;
        s.end[2] = e;
    }
    __syncwarp();
    dm_u64 total = 0;
    int l = 2;
    while (true) {
        if (s.pos[l] >= s.end[l] || expired(c, lane)) {
            if (l == 2 || s.pos[l] < s.end[l]) {
                break;
            }
            --l;
            continue;
        }
        const int w = s.set[l][s.pos[l]];
        const int dep = c.dep[p * DM_MAX_K + l];
        __syncwarp();
        if (lane == 0) {
            s.pos[l] += 1;
        }
        __syncwarp();
        if (dep < l - 1 && matched_between(s, dep + 1, l, w)) {
            continue;
        }
        if (lane == 0) {
            assign(c, s, p, l, w);
        }
        __syncwarp();
        if (l + 1 == c.k - 1) {
            total += list_last(c, s, p, r, lane, sc.slot[c.k - 1], out, base + (dm_i64)total, win_lo, win_hi, st);
            continue;
        }
        ++l;
        prepare_level(c, s, p, l, r, lane, sc.slot[l], st);
        if (!listing && l == c.k - 2) {
            if constexpr (MEMO) {
                for (int from = 0;;) {
                    total -= memo_add(c, s, p, r, lane, from, st);  // mod 2^64: the task's sum counts
                    if (from >= s.cnt[l]) {
                        break;
                    }
                    total += memo_flush(c, s, p, r, lane, st);
                }
                --l;
                continue;
            }
            total += finish_last_two(c, s, p, r, lane, 0, s.cnt[l], sc.slot[c.k - 1], sc.src_of, sc.S, st);
            --l;
        }
    }
    if (MEMO && s.memo_n > 0) {
        total += memo_flush(c, s, p, r, lane, st);
    }
    return total;
}

// Counting with k = 3 and unrolling: tasks [lo, hi) (at most 32, lane i holds task lo + i) as one flat
// list of (task, candidate) items spread over the lanes, so that short candidate sets (most seed
// pairs of a sparse graph, bounded by the symmetry order) no longer leave most lanes idle.  Writes
// each task's count; returns the sum.
__device__ dm_u64 flat_tasks(const Ctx& c, WarpState& s, int lane, dm_i64 lo, dm_i64 hi, const dm_i64* perm,
                             const int* tu, const int* tv, const int* tr, const int* tp, dm_i64* counts,
                             Stats& st) {
    const dm_i64 i = lo + lane;
    const bool mine = i < hi;
    const dm_i64 t = mine ? (perm != nullptr ? perm[i] : i) : 0;
    const int u = mine ? tu[t] : 0;
    const int v = mine ? tv[t] : 0;
    const int r = mine && tr != nullptr ? tr[t] : -1;
    const int p = mine && tp != nullptr ? tp[t] : 0;
    const int lt1 = c.lt[p * DM_MAX_K + 1];
    const int gt1 = c.gt[p * DM_MAX_K + 1];
    const bool live = mine && u != v && !((lt1 & 1) && v > u) && !((gt1 & 1) && v < u);
    dm_i64 len = 0;
    const int* from = nullptr;
    Checks ch = {0, 0, 0, 0};
    if (live) {
        const Source sc = level_source<false>(c, s, lane_match(c, 0, u, 1, v), p, 2, st);
        len = sc.hi - sc.lo;
        from = sc.src + sc.lo;
        ch = sc.ch;
    }
    const dm_i64 end = dm_warp_scan(len);
    const dm_i64 items = __shfl_sync(DM_FULL_MASK, end, 31);
    s.found[lane] = 0;
    __syncwarp();
    for (dm_i64 f0 = 0; f0 < items; f0 += 32) {
        const dm_i64 f = f0 + lane;
        const int owner = dm_flat_owner(end, f);
        const dm_i64 start = __shfl_sync(DM_FULL_MASK, end - len, owner);
        const int* o_from = (const int*)__shfl_sync(DM_FULL_MASK, (unsigned long long)from, owner);
        const int o_u = __shfl_sync(DM_FULL_MASK, u, owner);
        const int o_v = __shfl_sync(DM_FULL_MASK, v, owner);
        const int o_p = __shfl_sync(DM_FULL_MASK, p, owner);
        const int o_r = __shfl_sync(DM_FULL_MASK, r, owner);
        Checks o_ch;
        o_ch.rows = __shfl_sync(DM_FULL_MASK, ch.rows, owner);
        o_ch.minus = __shfl_sync(DM_FULL_MASK, ch.minus, owner);
        o_ch.distinct = __shfl_sync(DM_FULL_MASK, ch.distinct, owner);
        o_ch.ranked = __shfl_sync(DM_FULL_MASK, ch.ranked, owner);
        if (f < items) {
            const int x = o_from[f - start];
            const LaneMatch lm = lane_match(c, 0, o_u, 1, o_v);
            st.scanned++;
            if (passes(c, s, lm, o_ch, o_r, x, st) && !(c.check_other && survives_other(c, s, lm, o_p, x))) {
                atomicAdd(&s.found[owner], 1u);
            }
        }
        if (lane == 0) {
            st.steps++;
        }
    }
    __syncwarp();
    const dm_u64 got = s.found[lane];
    if (mine && counts != nullptr) {
        counts[t] = (dm_i64)got;
    }
    __syncwarp();
    return got;
}

// The work a level-2 set stands for, estimated as the sum over its candidates w of 1 + deg(w)
// (the rows the levels below w read); the same on every lane.
__device__ dm_u64 deferral_cost(const Ctx& c, const WarpState& s, int lane) {
    dm_u64 cost = 0;
    for (int j = lane; j < s.cnt[2]; j += 32) {
        cost += 1 + (dm_u64)c.deg[s.set[2][j]];
    }
    return __shfl_sync(DM_FULL_MASK, dm_warp_sum(cost), 0);
}

// Lane 0 sets the seed; returns false when the seed's own bound rejects it.
__device__ bool seed(const Ctx& c, WarpState& s, int u, int v, int p, int lane) {
    const int lt1 = c.lt[p * DM_MAX_K + 1];
    const int gt1 = c.gt[p * DM_MAX_K + 1];
    if (u == v || ((lt1 & 1) && v > u) || ((gt1 & 1) && v < u)) {
        return false;
    }
    __syncwarp();
    if (lane == 0) {
        s.m[0] = u;
        s.m[1] = v;
        s.mdeg[0] = c.deg[u];
        s.mdeg[1] = c.deg[v];
        s.moff[0] = c.off[u];
        s.moff[1] = c.off[v];
        s.fresh = 0;
    }
    __syncwarp();
    return true;
}

// Seed pieces (match_pieces): the level-2 sets of the heaviest counting tasks, built by many warps.
// Piece i of `pieces` per task is range i % pieces of task perm[i / pieces]'s level-2 source (the
// anchor row between the symmetry bounds, level_source), built straight into the arena; its record
// (task, arena offset, survivors) is record i of rec_task / rec_off / rec_len.  gather_pieces then
// joins a task's pieces, in order, into one deferred set.  An arena too full for a piece sets bit 2
// of flags; a piece past the deadline is left empty (bit 1, the run's DeadlineExceeded).
__device__ void run_pieces(const Ctx& c, WarpState& s, int lane, const int* tu, const int* tv, const int* tr,
                           const int* tp, const dm_i64* perm, dm_i64 n_pieces, int pieces, dm_u64* queue,
                           int* arena, dm_i64 arena_size, dm_u64* arena_used, dm_i64* rec_task, dm_i64* rec_off,
                           int* rec_len, Stats& st) {
    while (true) {
        dm_u64 grab = 0;
        if (lane == 0) {
            grab = atomicAdd(queue, 1ull);
        }
        const dm_i64 i = (dm_i64)__shfl_sync(DM_FULL_MASK, grab, 0);
        if (i >= n_pieces) {
            break;
        }
        const dm_i64 t = perm[i / pieces];
        const int piece = (int)(i % pieces);
        const int p = tp != nullptr ? tp[t] : 0;
        dm_i64 at = 0;
        int n = 0;
        // Past the deadline a piece is left empty, but its record is still written: gather_pieces
        // reads every one.
        if (!expired(c, lane) && seed(c, s, tu[t], tv[t], p, lane)) {
            const LaneMatch lm = lane_match(c, -1, 0, -1, 0);
            Source sc = level_source<true>(c, s, lm, p, 2, st);
            const dm_i64 len = sc.hi - sc.lo;
            const int lo = sc.lo + (int)(len * piece / pieces);
            sc.hi = sc.lo + (int)(len * (piece + 1) / pieces);
            sc.lo = lo;
            dm_u64 got = 0;
            if (lane == 0) {
                got = atomicAdd(arena_used, (dm_u64)(sc.hi - sc.lo));
            }
            at = (dm_i64)__shfl_sync(DM_FULL_MASK, got, 0);
            if (at + (sc.hi - sc.lo) <= arena_size) {
                n = build_from(c, s, lm, sc, p, 2, tr != nullptr ? tr[t] : -1, lane, arena + at, nullptr, 0, 0, 0,
                               st);
            } else if (lane == 0) {
                atomicOr(c.flags, 4);
            }
        }
        if (lane == 0) {
            rec_task[i] = t;
            rec_off[i] = at;
            rec_len[i] = n;
        }
    }
}

}  // namespace

// The parameters of every match kernel (the host passes them in this order: cuda_engine._MatchRun).
#define DM_MATCH_PARAMS                                                                                   \
    const dm_i64 *offsets, const int *degree, const int *pool,                                          \
    const int *order, const int *conn, const int *lt, const int *gt, const int *dep, const int *base,   \
    const int *last_two, int k, int induced, int oriented, int unroll,                                  \
    const int *tu, const int *tv, const int *tr, const int *tp, const dm_i64 *perm,                     \
    int phase, dm_i64 first, dm_i64 n_tasks,                                                            \
    const int *b_slot, const dm_i64 *b_ptr, const int *b_partner, const int *b_rank,                    \
    const dm_u64 *b_keys, const int *b_key_rank, int b_bits, const unsigned *b_filter, int b_filter_bits, \
    int removals, const dm_i64 *iso_masks, int n_iso, int check_other,                                \
    dm_i64 *counts, dm_u64 *total,                                                                      \
    int *out, const dm_i64 *out_offsets, const dm_i64 *expect, dm_i64 win_lo, dm_i64 win_hi,            \
    int *scratch, dm_i64 width,                                                                         \
    int *arena, dm_i64 arena_size, dm_u64 *arena_used, dm_i64 defer_cost,                               \
    dm_i64 *defer_task, dm_i64 *defer_off, int *defer_len, dm_u64 *defer_n, dm_i64 defer_cap,           \
    const dm_i64 *chunk_of, const int *chunk_lo, const int *chunk_hi,                                   \
    dm_u64 *queue, int chunk, dm_u64 *stats, dm_u64 *busy, dm_u64 deadline, int *flags,                 \
    dm_u64 *board, dm_i64 share_pairs, dm_u64 *active,                                                 \
    const unsigned *const *hub_row, const int *kept_j, const dm_u64 *tt_keys, const unsigned *tt_t,     \
    int tt_bits, int pieces
#define DM_MATCH_ARGS                                                                                     \
    offsets, degree, pool, order, conn, lt, gt, dep, base, last_two, k, induced, oriented, unroll,      \
    tu, tv, tr, tp, perm, phase, first, n_tasks, b_slot, b_ptr, b_partner, b_rank, b_keys, b_key_rank,  \
    b_bits, b_filter, b_filter_bits, removals,                                                          \
    iso_masks, n_iso, check_other, counts, total, out, out_offsets, expect, win_lo, win_hi,             \
    scratch, width, arena, arena_size, arena_used, defer_cost, defer_task, defer_off, defer_len,        \
    defer_n, defer_cap, chunk_of, chunk_lo, chunk_hi, queue, chunk, stats, busy, deadline, flags,        \
    board, share_pairs, active, hub_row, kept_j, tt_keys, tt_t, tt_bits, pieces

// Phase 0 runs tasks [first, n_tasks), phase 1 the chunks [first, n_tasks) of deferred tasks; the
// i-th to run is task or chunk perm[i] when perm is given, else i.  Chunk j walks candidates
// [chunk_lo[j], chunk_hi[j]) of the level-2 set of deferred task chunk_of[j] (arena entry:
// defer_task, defer_off, defer_len); an empty chunk (lo == hi) ends phase 1: the chunks after it
// are empty too (the host sorts them last).
// Count mode: counts[t] (optional; added to atomically in phase 1) and *total get the matches.
// Deferral (phase 0, counting, k >= 4, defer_cost > 0): a task whose level-2 set costs at least
// defer_cost (deferral_cost) copies it to the arena and records itself instead of walking it; when
// the arena or the record list is full it is walked in place.  List mode (out != nullptr): task t's
// rows are numbered from out_offsets[t]; those in [win_lo, win_hi) are written; a task whose count
// differs from expect[t] sets bit 0 of flags.  A run past `deadline` (globaltimer ns, 0 = none)
// sets bit 1.  stats (optional): DM_ST_* sums; busy (optional): nanoseconds each warp worked.
// Work sharing (counting, share_pairs > 0): pair lists of at least share_pairs pairs go on `board`
// (DM_BOARD_WORDS zeroed words per warp of the launch); `active` (zeroed) counts the warps still on
// their own tasks, which idle warps wait for while they join lists.  With sharing, counts[t] must
// start at zero (matches are added to it).
// FLAT runs every grabbed task through the flat task loop (flat_tasks); only SHARE shares work.
template <bool FLAT, bool SHARE, bool MEMO = false, bool PIECES = false>
__device__ __forceinline__ void match_body(DM_MATCH_PARAMS) {
    if constexpr (SHARE || MEMO) {
        out = nullptr;  // sharing and the memo count only: the listing code and its registers compile out
    }
    if constexpr (!DM_STATS) {
        stats = nullptr;
    }
    __shared__ WarpState shared[DM_WARPS_PER_BLOCK];
    const int lane = threadIdx.x & 31;
    WarpState& s = shared[threadIdx.x >> 5];
    if (busy != nullptr && lane == 0) {
        s.started = dm_globaltimer();
    }
    Ctx c;
    c.off = offsets;
    c.deg = degree;
    c.pool = pool;
    c.b_slot = b_slot;
    c.b_ptr = b_ptr;
    c.b_partner = b_partner;
    c.b_rank = b_rank;
    c.b_keys = b_keys;
    c.b_key_rank = b_key_rank;
    c.b_bits = b_bits;
#if DM_PAIR_FILTER
    c.b_filter = b_filter;
    c.b_filter_bits = b_filter_bits;
#endif
    c.removals = removals;
    c.iso = iso_masks;
    c.n_iso = n_iso;
    c.k = k;
    c.induced = induced != 0;
    c.oriented = oriented != 0;
    c.check_other = check_other != 0;
    c.unroll = unroll;
    c.conn = conn;
    c.lt = lt;
    c.gt = gt;
    c.dep = dep;
    c.base = base;
    c.last_two = last_two;
    c.order = order;
    c.deadline = deadline;
    c.flags = flags;
    c.share = SHARE ? share_pairs : 0;
    c.hub_row = oriented != 0 ? nullptr : hub_row;
    c.kept_j = out == nullptr ? kept_j : nullptr;
    c.tt_keys = tt_keys;
    c.tt_t = tt_t;
    c.tt_bits = tt_bits;
    c.board = board;
    c.counts = counts;
    c.stats = stats;
    if constexpr (PIECES) {
        // The pieces' records lie past those phase 0 may take (the host leaves n_tasks free there).
        Stats st = {};
        const dm_i64 rec0 = defer_cap - n_tasks;
        run_pieces(c, s, lane, tu, tv, tr, tp, perm, n_tasks, pieces, queue, arena, arena_size, arena_used,
                   defer_task + rec0, defer_off + rec0, defer_len + rec0, st);
        if (busy != nullptr && lane == 0) {
            busy[warp_id()] = dm_globaltimer() - s.started;
        }
        return;
    }
    if (lane == 0) {
        s.lists = 0;
        s.mine = 0;
        if (c.share > 0) {
            atomicAdd(active, 1ull);
        }
    }
    __syncwarp();
    const Scratch sc = warp_scratch(scratch, width, k, warp_id(), MEMO, s, lane);
    Stats st = {};
    dm_u64 ran = 0;
    dm_u64 deferred = 0;
    while (true) {
        dm_u64 grab = 0;
        if (lane == 0) {
            grab = atomicAdd(queue, (dm_u64)chunk);
        }
        const dm_i64 lo = first + (dm_i64)__shfl_sync(DM_FULL_MASK, grab, 0);
        if (lo >= n_tasks) {
            break;
        }
        if (expired(c, lane)) {
            break;
        }
        const dm_i64 hi = min(lo + (dm_i64)chunk, n_tasks);
        if constexpr (FLAT) {
            for (dm_i64 g = lo; g < hi; g += 32) {
                const dm_u64 found =
                    dm_warp_sum(flat_tasks(c, s, lane, g, min(g + 32, hi), perm, tu, tv, tr, tp, counts, st));
                if (lane == 0) {
                    s.mine += found;
                }
            }
            ran += hi - lo;
        } else {
            if (lane == 0) {
                s.next = lo;
                s.stop = hi;
            }
            while (true) {
                __syncwarp();  // lane 0's last move of s.next, seen by every lane
                const dm_i64 i = s.next;
                if (i >= s.stop) {
                    break;
                }
                __syncwarp();  // every lane read it before lane 0 moves it on
                if (lane == 0) {
                    s.next = i + 1;
                }
                const dm_i64 j = perm != nullptr ? perm[i] : i;  // phase 1: chunk j
                if (phase == 1 && chunk_lo[j] == chunk_hi[j]) {
                    // The empty slots run last (deferred_slot_chunks): no chunk is left.
                    if (lane == 0) {
                        atomicMax(queue, (dm_u64)(n_tasks - first));
                    }
                    break;
                }
                const dm_i64 t = phase == 1 ? defer_task[chunk_of[j]] : j;
                const int r = tr != nullptr ? tr[t] : -1;
                const int p = tp != nullptr ? tp[t] : 0;
                const dm_i64 row0 = out != nullptr ? out_offsets[t] : 0;
                dm_u64 found = 0;
                if (lane == 0) {
                    s.task = t;  // read back after the task rather than held in registers through it
                }
                if (seed(c, s, tu[t], tv[t], p, lane)) {
                    if (k == 2) {
                        const LaneMatch lm = lane_match(c, -1, 0, -1, 0);
                        found = (c.check_other && survives_other(c, s, lm, p, tv[t])) ? 0 : 1;
                        if (out != nullptr && found && lane == 0 && row0 >= win_lo && row0 < win_hi) {
                            out[(row0 - win_lo) * 2 + order[p * 2]] = tu[t];
                            out[(row0 - win_lo) * 2 + order[p * 2 + 1]] = tv[t];
                        }
                    } else if (k == 3 || (out == nullptr && k == 4 && c.last_two[p] == DM_LAST_PAIRS)) {
                        // Level 2 is the last, or (LAST_PAIRS) the count follows from its size alone:
                        // nothing to store, walk or defer.
                        const dm_u64 n2 = build_level(c, s, p, 2, r, lane, nullptr, out, row0, win_lo, win_hi, st);
                        found = k == 3 ? n2 : pairs_count(c, p, n2, 0, n2);
                    } else if (phase == 1) {
                        __syncwarp();
                        if (lane == 0) {
                            const dm_i64 e = chunk_of[j];
                            s.set[2] = arena + defer_off[e];
                            s.cnt[2] = defer_len[e];
                        }
                        __syncwarp();
                        found = descend<MEMO>(c, s, sc, p, r, lane, chunk_lo[j], chunk_hi[j], nullptr, 0, 0, 0, st);
                    } else {
                        prepare_level(c, s, p, 2, r, lane, sc.slot[2], st);
                        const int n2 = s.cnt[2];
                        bool moved = false;
                        if (out == nullptr && defer_cost > 0 && deferral_cost(c, s, lane) >= (dm_u64)defer_cost) {
                            dm_u64 at = 0;
                            dm_u64 rec = 0;
                            if (lane == 0) {
                                at = atomicAdd(arena_used, (dm_u64)n2);
                                rec = at + n2 <= (dm_u64)arena_size ? atomicAdd(defer_n, 1ull) : (dm_u64)defer_cap;
                            }
                            at = __shfl_sync(DM_FULL_MASK, at, 0);
                            rec = __shfl_sync(DM_FULL_MASK, rec, 0);
                            moved = rec < (dm_u64)defer_cap;
                            if (moved) {
                                for (int j = lane; j < n2; j += 32) {
                                    arena[at + j] = s.set[2][j];
                                }
                                if (lane == 0) {
                                    defer_task[rec] = t;
                                    defer_off[rec] = (dm_i64)at;
                                    defer_len[rec] = n2;
                                }
                                ++deferred;
                            }
                        }
                        if (!moved) {
                            found = descend<MEMO>(c, s, sc, p, r, lane, 0, n2, out, row0, win_lo, win_hi, st);
                        }
                    }
                }
                if (lane == 0) {
                    if (counts != nullptr && (phase == 0 || found != 0)) {
                        if (phase == 1 || c.share > 0) {
                            atomicAdd((dm_u64*)&counts[s.task], found);
                        } else {
                            counts[s.task] = (dm_i64)found;
                        }
                    }
                    if (expect != nullptr && (dm_i64)found != expect[s.task]) {
                        atomicOr(flags, 1);
                    }
                    s.mine += found;
                }
                ++ran;
            }
        }
    }
    if (busy != nullptr && lane == 0) {
        s.worked = dm_globaltimer() - s.started;
    }
    if (c.share > 0) {
        int idle = 0;
        if (lane == 0) {
            atomicAdd(active, ~0ull);  // minus one
        }
        while (!expired(c, lane)) {
            if (busy != nullptr && lane == 0) {
                s.started = dm_globaltimer();
            }
            bool joined;
            const dm_u64 found = join_list<MEMO>(c, s, lane, joined, st);
            if (lane == 0) {
                s.mine += found;
            }
            if (joined) {
                if (busy != nullptr && lane == 0) {
                    s.worked += dm_globaltimer() - s.started;
                }
                idle = 0;
                continue;
            }
            int done = 0;
            if (lane == 0) {
                done = *(volatile dm_u64*)active == 0;  // a load: every idle warp polls it
            }
            if (__shfl_sync(DM_FULL_MASK, done, 0)) {
                break;
            }
            __nanosleep(32u << idle);
            idle = min(idle + 1, DM_IDLE_DOUBLINGS);
        }
    }
    if (lane == 0 && total != nullptr && s.mine != 0) {
        atomicAdd(total, s.mine);
    }
    if (stats != nullptr) {
        const dm_u64 scanned = dm_warp_sum(st.scanned);
        const dm_u64 probes = dm_warp_sum(st.probes);
        if (lane == 0) {
            atomicAdd(stats + DM_ST_SCANNED, scanned);
            atomicAdd(stats + DM_ST_PROBES, probes);
            atomicAdd(stats + DM_ST_TASKS, ran);
            atomicAdd(stats + DM_ST_LANES, scanned);
            atomicAdd(stats + DM_ST_STEPS, st.steps);
            atomicAdd(stats + DM_ST_DEFERRED, deferred);
        }
    }
    if (busy != nullptr && lane == 0) {
        busy[warp_id()] = s.worked;
    }
}

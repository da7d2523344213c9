// The match kernels but the memo's (match_memo.cu), and the steps around them: the seed swap,
// the timers, seed pieces' join and the deferred sets' chunk steps.  The matching itself is
// match_body.cuh; the memo's two kernels are a unit of their own so that neither unit's build
// takes nvcc twice as long.
#include "match_body.cuh"

extern "C" __global__ void __launch_bounds__(DM_WARPS_PER_BLOCK * 32, DM_MIN_BLOCKS) match_tasks(DM_MATCH_PARAMS) {
    match_body<false, false>(DM_MATCH_ARGS);
}

// match_tasks with work sharing, counting only, compiled apart so that match_tasks carries none of it.
extern "C" __global__ void __launch_bounds__(DM_WARPS_PER_BLOCK * 32, DM_MIN_BLOCKS) match_shared(DM_MATCH_PARAMS) {
    match_body<false, true>(DM_MATCH_ARGS);
}

// The level-2 sets of the first n_tasks / pieces tasks of perm, in pieces (run_pieces): phase 0 then
// runs the tasks after them, and gather_pieces makes each one deferred set for phase 1.
extern "C" __global__ void __launch_bounds__(DM_WARPS_PER_BLOCK * 32, DM_MIN_BLOCKS) match_pieces(DM_MATCH_PARAMS) {
    match_body<false, false, false, true>(DM_MATCH_ARGS);
}

// match_tasks for counting k = 3 tasks with unrolling (flat_tasks), compiled apart so that the
// general kernel does not carry its registers.
extern "C" __global__ void __launch_bounds__(DM_WARPS_PER_BLOCK * 32, DM_MIN_BLOCKS_FLAT) match_flat(DM_MATCH_PARAMS) {
    match_body<true, false>(DM_MATCH_ARGS);
}

// Counting tasks with their seeds reversed where the plan allows it and level 2 then iterates the
// shorter row (PlanTable.seed_swap: a task's count is the same either way round): task i's seed is
// (tv[i], tu[i]) when swap[tp[i]] is 1 and deg(tu[i]) < deg(tv[i]), or -1 and not, else (tu, tv)
// (plan_table.reverses_seed, the CPU engine's and the cost model's copy of the rule).
// Done before the launch rather than in `seed`, where it cost match_tasks a spilled register.
extern "C" __global__ void swap_seeds(dm_i64 n, const int* tu, const int* tv, const int* tp, const int* swap,
                                      const int* degree, int* su, int* sv) {
    for (dm_i64 i = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (dm_i64)gridDim.x * blockDim.x) {
        const int u = tu[i];
        const int v = tv[i];
        const int side = swap[tp != nullptr ? tp[i] : 0];
        const bool flip = side != 0 && (side == 1) == (degree[u] < degree[v]);
        su[i] = flip ? v : u;
        sv[i] = flip ? u : v;
    }
}

// The device's global nanosecond timer, for deadlines set relative to now.
extern "C" __global__ void read_timer(dm_u64* out) {
    *out = dm_globaltimer();
}

// Keeps the stream busy for `ns` nanoseconds, so that an event recorded after it fires when the
// next launch is already queued: the launch's time then leaves out the host packing its arguments.
extern "C" __global__ void hold(dm_u64 ns) {
    const dm_u64 start = dm_globaltimer();
    while (dm_globaltimer() - start < ns) {
    }
}

// Joins the pieces of n_split tasks (match_pieces: `pieces` records a task, at most 32, from record
// defer_cap - n_split * pieces on) into one deferred set a task, a warp a task (grid-stride): the
// pieces' sets copied in piece order to a new stretch of the arena and a record appended at
// *defer_n.  A task with no level-2 candidate gets no record; an arena too full sets bit 2 of flags.
extern "C" __global__ void gather_pieces(dm_i64 n_split, int pieces, dm_i64* defer_task, dm_i64* defer_off,
                                         int* defer_len, dm_u64* defer_n, dm_i64 defer_cap, int* arena,
                                         dm_i64 arena_size, dm_u64* arena_used, int* flags) {
    const int lane = threadIdx.x & 31;
    const dm_i64 warps = ((dm_i64)gridDim.x * blockDim.x) >> 5;
    for (dm_i64 task = ((dm_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; task < n_split; task += warps) {
        const dm_i64 first = defer_cap - n_split * pieces + task * pieces;
        const int len = lane < pieces ? defer_len[first + lane] : 0;
        int upto = len;  // inclusive prefix sum over the pieces
        for (int d = 1; d < 32; d <<= 1) {
            const int x = __shfl_up_sync(DM_FULL_MASK, upto, d);
            if (lane >= d) {
                upto += x;
            }
        }
        const int total = __shfl_sync(DM_FULL_MASK, upto, 31);
        if (total == 0) {
            continue;
        }
        dm_u64 at = 0;
        if (lane == 0) {
            at = atomicAdd(arena_used, (dm_u64)total);
        }
        at = __shfl_sync(DM_FULL_MASK, at, 0);
        if (at + total > (dm_u64)arena_size) {
            if (lane == 0) {
                atomicOr(flags, 4);
            }
            continue;
        }
        for (int j = 0; j < pieces; ++j) {
            const int n = __shfl_sync(DM_FULL_MASK, len, j);
            const dm_u64 to = at + __shfl_sync(DM_FULL_MASK, upto - len, j);
            const dm_i64 from = defer_off[first + j];
            for (int x = lane; x < n; x += 32) {
                arena[to + x] = arena[from + x];
            }
        }
        if (lane == 0) {
            const dm_u64 rec = atomicAdd(defer_n, 1ull);
            defer_task[rec] = defer_task[first];
            defer_off[rec] = (dm_i64)at;
            defer_len[rec] = total;
        }
    }
}

// Cutting the deferred level-2 sets into chunks of about equal estimated cost (cuda_engine.py:
// _cost_chunks), queued right behind phase 0, so the host reads neither how many sets it deferred
// (*n_sets, at most max_sets) nor their lengths.  Set e < *n_sets is arena[defer_off[e] ..
// + defer_len[e]); its candidate i ("item") costs 1 + deg(candidate), with by_set at most 1 + the
// set's length.  A chunk is a run of a set's items of equal q_i = b_i / target, b_i being the cost
// of the set's items before i: a candidate is never cut, and one that costs more than a chunk is a
// chunk of its own.

#define DM_SCAN_THREADS 256

// A chunk's target cost: the total over `share` chunks, at least `min_cost`.
__device__ __forceinline__ dm_i64 dm_chunk_target(const dm_u64* total, dm_i64 share, dm_i64 min_cost) {
    return max(min_cost, ((dm_i64)*total + share - 1) / share);
}

// The inclusive prefix of `value` over the block's DM_SCAN_THREADS threads, plus *carry, which then
// holds the tile's last prefix (a block scans a long array tile by tile).  Every thread calls it.
__device__ __forceinline__ dm_i64 dm_block_scan(dm_i64 value, dm_i64* warp_sums, dm_i64* carry) {
    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const dm_i64 in_warp = dm_warp_scan(value);
    if (lane == 31) {
        warp_sums[warp] = in_warp;
    }
    __syncthreads();
    if (warp == 0) {
        const dm_i64 sums = dm_warp_scan(lane < DM_SCAN_THREADS / 32 ? warp_sums[lane] : (dm_i64)0);
        if (lane < DM_SCAN_THREADS / 32) {
            warp_sums[lane] = sums;
        }
    }
    __syncthreads();
    const dm_i64 prefix = *carry + (warp > 0 ? warp_sums[warp - 1] : 0) + in_warp;
    __syncthreads();  // every thread has read carry and warp_sums
    if (threadIdx.x == DM_SCAN_THREADS - 1) {
        *carry = prefix;
    }
    __syncthreads();
    return prefix;
}

// Block by block, set by set (DM_SCAN_THREADS threads): the inclusive prefix of the set's item
// costs, within the set, at within[defer_off[e] + i]; their sum is added to *total.
extern "C" __global__ void deferred_set_costs(int max_sets, const dm_u64* n_sets, const dm_i64* defer_off,
                                              const int* defer_len, const int* arena, const int* degree,
                                              int by_set, dm_i64* within, dm_u64* total) {
    __shared__ dm_i64 warp_sums[DM_SCAN_THREADS / 32];
    __shared__ dm_i64 carry;
    const int sets = (int)min((dm_u64)max_sets, *n_sets);
    for (int e = blockIdx.x; e < sets; e += gridDim.x) {
        const dm_i64 off = defer_off[e];
        const int len = defer_len[e];
        if (threadIdx.x == 0) {
            carry = 0;
        }
        __syncthreads();
        for (int base = 0; base < len; base += DM_SCAN_THREADS) {
            const int i = base + threadIdx.x;
            dm_i64 cost = 0;  // items past the set cost 0
            if (i < len) {
                const dm_i64 reads = degree[arena[off + i]];
                cost = 1 + (by_set ? min(reads, (dm_i64)len) : reads);  // the set's length bounds a base-set level
            }
            const dm_i64 prefix = dm_block_scan(cost, warp_sums, &carry);
            if (i < len) {
                within[off + i] = prefix;
            }
        }
        if (threadIdx.x == 0) {
            atomicAdd(total, (dm_u64)carry);
        }
        __syncthreads();  // carry is read before the next set resets it
    }
}

// One block (DM_SCAN_THREADS threads): slot_end[e], the inclusive prefix over the sets e < *n_sets
// (at most max_sets) of their chunk slots, one for each q = 0 .. q of the set's last item: in all
// at most *n_sets + total / target <= max_sets + share.  Some q no item has: their slots stay empty.
// One block scans them tile by tile: a batch defers at most its tasks' worth of sets, and phase 1
// is queued behind this anyway (how long it takes on a batch of 10^5 was not measured).
extern "C" __global__ void deferred_set_slots(int max_sets, const dm_u64* n_sets, const dm_i64* defer_off,
                                              const int* defer_len, const dm_i64* within, const dm_u64* total,
                                              dm_i64 share, dm_i64 min_cost, dm_i64* slot_end) {
    __shared__ dm_i64 warp_sums[DM_SCAN_THREADS / 32];
    __shared__ dm_i64 carry;
    const dm_i64 target = dm_chunk_target(total, share, min_cost);
    const int sets = (int)min((dm_u64)max_sets, *n_sets);
    if (threadIdx.x == 0) {
        carry = 0;
    }
    __syncthreads();
    for (int base = 0; base < sets; base += DM_SCAN_THREADS) {
        const int e = base + threadIdx.x;
        const int len = e < sets ? defer_len[e] : 0;
        const dm_i64 slots = len < 2 ? len : 1 + within[defer_off[e] + len - 2] / target;
        const dm_i64 end = dm_block_scan(slots, warp_sums, &carry);
        if (e < sets) {
            slot_end[e] = end;
        }
    }
}

#define DM_CHUNK_CLASSES 64

// A chunk's class by its estimated cost (at least 1): floor(log2(cost)).  Phase 1 runs the chunks
// by decreasing class (deferred_chunk_order), costs within a factor of 2 in any order.
__device__ __forceinline__ int dm_chunk_class(dm_i64 cost) {
    return 63 - __clzll((unsigned long long)cost);
}

// Slot c (of n_slots, more than the sets' slots; slot_end: deferred_set_slots) as a chunk: its set,
// first and past-the-last candidate within the set, and its class (-1: an empty slot, lo == hi ==
// 0, where match_body stops).  The chunks of each class are added to class_count.
extern "C" __global__ void deferred_slot_chunks(dm_i64 n_slots, int max_sets, const dm_u64* n_sets,
                                                const dm_i64* slot_end, const dm_i64* defer_off,
                                                const int* defer_len, const dm_i64* within, const dm_u64* total,
                                                dm_i64 share, dm_i64 min_cost, dm_i64* chunk_set, int* chunk_lo,
                                                int* chunk_hi, int* chunk_class, dm_u64* class_count) {
    __shared__ unsigned block_count[DM_CHUNK_CLASSES];
    for (int k = threadIdx.x; k < DM_CHUNK_CLASSES; k += blockDim.x) {
        block_count[k] = 0;
    }
    __syncthreads();
    const dm_i64 target = dm_chunk_target(total, share, min_cost);
    const int sets = (int)min((dm_u64)max_sets, *n_sets);
    const dm_i64 slots = sets > 0 ? slot_end[sets - 1] : 0;
    for (dm_i64 c = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; c < n_slots;
         c += (dm_i64)gridDim.x * blockDim.x) {
        int e = 0, cls = -1;
        dm_i64 lo = 0, hi = 0;
        if (c < slots) {
            e = (int)dm_upper_bound64(slot_end, sets, c);
            const dm_i64 q = c - (e > 0 ? slot_end[e - 1] : 0);
            const dm_i64* w = within + defer_off[e];  // b_i = w[i - 1], b_0 = 0
            const dm_i64 last = defer_len[e] - 1;
            // The first item with b_i >= q * target: i = m + 1 for the first m with w[m] >= q * target.
            const dm_i64 first = q == 0 ? 0 : 1 + dm_upper_bound64(w, last, q * target - 1);
            if (first <= last && (first == 0 ? 0 : w[first - 1]) / target == q) {
                // Its run ends at the first m >= first with w[m] >= (q + 1) * target (item m + 1 has
                // moved on), or at the set's last item.
                const dm_i64 end = first + dm_upper_bound64(w + first, last - first, (q + 1) * target - 1);
                lo = first;
                hi = end + 1;
                cls = dm_chunk_class(w[end] - (first > 0 ? w[first - 1] : 0));
                atomicAdd(block_count + cls, 1u);
            }
        }
        chunk_set[c] = e;
        chunk_lo[c] = (int)lo;
        chunk_hi[c] = (int)hi;
        chunk_class[c] = cls;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < DM_CHUNK_CLASSES; k += blockDim.x) {
        if (block_count[k] != 0) {
            atomicAdd(class_count + k, (dm_u64)block_count[k]);
        }
    }
}

// Phase 1's order of the slots (deferred_slot_chunks, all written): the chunks first, by decreasing
// class, and the last slot, n_slots - 1, at every place after them.  That slot is always empty (the
// sets have at most n_slots - 1), so whichever warp takes a place past the chunks stops there.  A
// counting sort over the grid: each block places the classes from their counts, and the lanes of a
// warp that hold one class take their places with one atomic on its cursor (class_cursor, zeroed);
// the empty slots need none.  Block 0 adds the number of chunks to *n_chunks.  (A one-block sort
// whose empty slots each took a place by an atomic on one counter took 2.60 ms of a 4-clique's
// count, session 30.)
extern "C" __global__ void deferred_chunk_order(dm_i64 n_slots, const int* chunk_class, const dm_u64* class_count,
                                                dm_u64* class_cursor, dm_u64* n_chunks, dm_i64* order) {
    __shared__ dm_i64 class_start[DM_CHUNK_CLASSES];
    __shared__ dm_i64 chunks;
    if (threadIdx.x == 0) {
        dm_i64 at = 0;
        for (int k = DM_CHUNK_CLASSES - 1; k >= 0; --k) {
            class_start[k] = at;
            at += (dm_i64)class_count[k];
        }
        chunks = at;
        if (blockIdx.x == 0) {
            atomicAdd(n_chunks, (dm_u64)at);
        }
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const dm_i64 stride = (dm_i64)gridDim.x * blockDim.x;
    // Warp-aligned steps, so that every lane of a warp takes part in its shuffles.
    for (dm_i64 base = (dm_i64)blockIdx.x * blockDim.x + (threadIdx.x & ~31); base < n_slots; base += stride) {
        const dm_i64 c = base + lane;
        const int cls = c < n_slots ? chunk_class[c] : -1;
        const unsigned same = __match_any_sync(0xffffffffu, cls);
        const int leader = __ffs(same) - 1;
        dm_u64 taken = 0;
        if (cls >= 0 && lane == leader) {
            taken = atomicAdd(class_cursor + cls, (dm_u64)__popc(same));
        }
        taken = __shfl_sync(0xffffffffu, taken, leader);
        if (cls >= 0) {
            order[class_start[cls] + (dm_i64)taken + __popc(same & ((1u << lane) - 1))] = c;
        }
        if (c < n_slots && c >= chunks) {
            order[c] = n_slots - 1;
        }
    }
}

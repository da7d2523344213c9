// The memo's match kernels (Balance.last_memo), a unit of their own beside match.cu: the two are
// the costliest of match_body.cuh's instantiations to build.
#include "match_body.cuh"

// match_tasks for counting the tasks of memo plans through the warp's memo (memo_add): the host sends
// only such tasks, and scratch for the memo (cuda_engine.scratch_ints).
extern "C" __global__ void __launch_bounds__(DM_WARPS_PER_BLOCK * 32, DM_MIN_BLOCKS) match_memo(DM_MATCH_PARAMS) {
    match_body<false, false, true>(DM_MATCH_ARGS);
}

// match_memo with work sharing: warps out of tasks join the memo flushes of the others
// (Balance.memo_share), so that a hub task's flush no longer runs on its warp alone.
extern "C" __global__ void __launch_bounds__(DM_WARPS_PER_BLOCK * 32, DM_MIN_BLOCKS_MEMO_SHARED)
    match_memo_shared(DM_MATCH_PARAMS) {
    match_body<false, true, true>(DM_MATCH_ARGS);
}

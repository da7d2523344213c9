// Device-resident dynamic graph: batch apply, the block allocator, row copies.
//
// A batch arrives as directed updates sorted by (row, neighbour), grouped per touched row
// (upd_ptr), with a running count of insertions (ins_prefix).  merge_rows writes every touched
// row's new content to a staging area, one thread per old entry or update: an entry's new
// position is its old index minus the deletions before it plus the insertions before it, all
// found by binary search, so a hub row is merged by many threads at once.  alloc_rows gives
// each row that outgrows its block a fresh run of fixed-size blocks from a bump allocator
// (one atomic per moving row); copy_rows moves the staged rows into place, a warp per row.
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

// Rows whose new degree exceeds their capacity get a fresh run of blocks; the others keep
// their place.  On pool exhaustion *overflow is set and nothing else may be used: the host
// grows the pool, resets *pool_used and runs this again.
extern "C" __global__ void alloc_rows(const int* rows, int n_rows, const int* new_degree, const int* capacity,
                                      const dm_i64* offsets, dm_i64* new_offset, int* new_capacity,
                                      dm_u64* pool_used, dm_i64 pool_size, int block, int* overflow) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_rows) {
        return;
    }
    const int v = rows[r];
    const int nd = new_degree[r];
    if (nd <= capacity[v]) {
        new_offset[r] = offsets[v];
        new_capacity[r] = capacity[v];
        return;
    }
    const dm_i64 want = 2 * (dm_i64)nd > block ? 2 * (dm_i64)nd : block;
    const dm_i64 need = (want + block - 1) / block * block;
    const dm_i64 at = (dm_i64)atomicAdd(pool_used, (dm_u64)need);
    if (at + need > pool_size) {
        atomicExch(overflow, 1);
        new_offset[r] = -1;
        new_capacity[r] = 0;
        return;
    }
    new_offset[r] = at;
    new_capacity[r] = (int)need;
}

// Row r of src (src_off[r], length len[r]) to dst at dst_off[r]: one warp per row.
extern "C" __global__ void copy_rows(int n_rows, const dm_i64* src_off, const int* len, const int* src,
                                     const dm_i64* dst_off, int* dst) {
    const int lane = threadIdx.x & 31;
    const dm_i64 warps = ((dm_i64)gridDim.x * blockDim.x) >> 5;
    for (dm_i64 r = ((dm_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < n_rows; r += warps) {
        const int n = len[r];
        const int* s = src + src_off[r];
        int* d = dst + dst_off[r];
        for (int i = lane; i < n; i += 32) {
            d[i] = s[i];
        }
    }
}

// Shared device helpers of the deltamatch kernels: searches over sorted rows, warp utilities.
// Row v of the graph is pool[offsets[v] .. offsets[v] + degree[v]), sorted ascending.
#pragma once

#define DM_FULL_MASK 0xffffffffu
#define DM_MAX_K 8
#define DM_NO_UPPER (1LL << 62)

typedef long long dm_i64;
typedef unsigned long long dm_u64;

// First index i in arr[0, n) with arr[i] >= x (n when none).
__device__ __forceinline__ int dm_lower_bound(const int* __restrict__ arr, int n, dm_i64 x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if ((dm_i64)arr[mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// First index i in arr[0, n) with arr[i] > x, for prefix arrays of 64-bit offsets.
__device__ __forceinline__ dm_i64 dm_upper_bound64(const dm_i64* __restrict__ arr, dm_i64 n, dm_i64 x) {
    dm_i64 lo = 0, hi = n;
    while (lo < hi) {
        const dm_i64 mid = (lo + hi) >> 1;
        if (arr[mid] <= x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

__device__ __forceinline__ unsigned dm_lanemask_lt() {
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

__device__ __forceinline__ dm_u64 dm_globaltimer() {
    dm_u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ dm_u64 dm_warp_sum(dm_u64 x) {
    for (int s = 16; s > 0; s >>= 1) {
        x += __shfl_down_sync(DM_FULL_MASK, x, s);
    }
    return x;
}

// Inclusive prefix sum of x over the warp's lanes (every lane active).
template <typename T>
__device__ __forceinline__ T dm_warp_scan(T x) {
    const int lane = threadIdx.x & 31;
    for (int d = 1; d < 32; d <<= 1) {
        const T y = __shfl_up_sync(DM_FULL_MASK, x, d);
        if (lane >= d) {
            x += y;
        }
    }
    return x;
}

// A flat loop's owner of item f: the first lane whose items end past f, `end` being each lane's
// inclusive prefix sum of its item count (dm_warp_scan).  Every lane active.
template <typename T>
__device__ __forceinline__ int dm_flat_owner(T end, T f) {
    int owner = 0;
    for (int step = 16; step >= 1; step >>= 1) {
        if (__shfl_sync(DM_FULL_MASK, end, owner + step - 1) <= f) {
            owner += step;
        }
    }
    return owner;
}

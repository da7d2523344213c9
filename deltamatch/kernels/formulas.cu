// Whole-graph counts by dedicated kernels, over a degree relabelling (ids ascending in degree):
//
// edge_triangles / triangles, over the oriented graph (row v holds the neighbours of higher id only,
// slack-free: edge e is pool slot e, from src[e] to pool[e]): each triangle u < v < w is found once,
// at its edge (u, v), as a member w of N+(u) & N+(v).  edge_triangles adds it to its three edges,
// (u, v) and the two slots where w was found, one in each row, giving t[e], the triangles through
// every edge; the edge-induced diamond count is then the sum over edges of C(t[e], 2) (pair_sum: a
// diamond is two triangles sharing its chord).  triangles only counts them.  Thirty-two edges at a
// time per warp, lane i holding edge e0 + i, their intersections as one flat list of items spread
// over the lanes (as match.cu's flat task loop): a member of the shorter of the two rows, searched
// in the other.
//
// four_cycles, house_wedges, ordered_triangles and clique_bits: below, at their kernels.
#include "dm_common.cuh"

#define DM_FORMULA_WARPS 8

// The triangles whose lowest edge is one of edges part, part + parts, ... (taken from `queue`), as
// described above: added to the three edges of each (PER_EDGE: tri) or only counted (into *total).
template <bool PER_EDGE>
__device__ __forceinline__ void oriented_triangles(const dm_i64* __restrict__ off, const int* __restrict__ deg,
                                                   const int* __restrict__ pool, const int* __restrict__ src,
                                                   dm_i64 n_edges, dm_i64 part, dm_i64 parts,
                                                   unsigned long long* __restrict__ queue,
                                                   unsigned* __restrict__ tri, unsigned long long* __restrict__ total) {
    __shared__ unsigned found[DM_FORMULA_WARPS][32];
    const int lane = threadIdx.x & 31;
    unsigned* mine = found[threadIdx.x >> 5];
    unsigned long long count = 0;
    while (true) {
        unsigned long long grab = 0;
        if (lane == 0) {
            grab = atomicAdd(queue, 32ull);
        }
        const dm_i64 e0 = part + (dm_i64)__shfl_sync(DM_FULL_MASK, grab, 0) * parts;
        if (e0 >= n_edges) {
            break;
        }
        const dm_i64 e = e0 + lane * parts;
        dm_i64 a_off = 0, b_off = 0;
        int a_len = 0, b_len = 0;
        if (e < n_edges) {
            const int u = src[e];
            const int v = pool[e];
            const int du = deg[u];
            const int dv = deg[v];
            const bool u_first = du <= dv;
            a_off = off[u_first ? u : v];
            b_off = off[u_first ? v : u];
            a_len = u_first ? du : dv;
            b_len = u_first ? dv : du;
        }
        const int end = dm_warp_scan(a_len);
        const int items = __shfl_sync(DM_FULL_MASK, end, 31);
        if (PER_EDGE) {
            mine[lane] = 0;
            __syncwarp();
        }
        for (int f0 = 0; f0 < items; f0 += 32) {
            const int f = f0 + lane;
            const int owner = dm_flat_owner(end, f);
            const int start = __shfl_sync(DM_FULL_MASK, end - a_len, owner);
            const dm_i64 o_a = __shfl_sync(DM_FULL_MASK, a_off, owner);
            const dm_i64 o_b = __shfl_sync(DM_FULL_MASK, b_off, owner);
            const int o_blen = __shfl_sync(DM_FULL_MASK, b_len, owner);
            if (f < items) {
                const dm_i64 at = o_a + (f - start);
                const int j = dm_lower_bound(pool + o_b, o_blen, pool[at]);
                if (j < o_blen && pool[o_b + j] == pool[at]) {
                    if (PER_EDGE) {
                        atomicAdd(mine + owner, 1u);
                        atomicAdd(tri + at, 1u);
                        atomicAdd(tri + o_b + j, 1u);
                    } else {
                        ++count;
                    }
                }
            }
        }
        if (PER_EDGE) {
            __syncwarp();
            if (e < n_edges && mine[lane] != 0) {
                atomicAdd(tri + e, mine[lane]);
            }
            __syncwarp();
        }
    }
    if (!PER_EDGE) {
        count = dm_warp_sum(count);
        if (lane == 0 && count != 0) {
            atomicAdd(total, count);
        }
    }
}

#define DM_TRIANGLE_PARAMS                                                                                \
    const dm_i64 *off, const int *deg, const int *pool, const int *src, dm_i64 n_edges, dm_i64 part,     \
    dm_i64 parts, unsigned long long *queue, unsigned *tri, unsigned long long *total
#define DM_TRIANGLE_ARGS off, deg, pool, src, n_edges, part, parts, queue, tri, total

extern "C" __global__ void __launch_bounds__(DM_FORMULA_WARPS * 32) edge_triangles(DM_TRIANGLE_PARAMS) {
    oriented_triangles<true>(DM_TRIANGLE_ARGS);
}

// The triangle count alone (`tri` unused).
extern "C" __global__ void __launch_bounds__(DM_FORMULA_WARPS * 32) triangles(DM_TRIANGLE_PARAMS) {
    oriented_triangles<false>(DM_TRIANGLE_ARGS);
}

// four_cycles: the edge-induced 4-cycles of the degree-ordered graph (ids ascending in degree, full
// sorted rows), each counted once at its highest id u (Chiba and Nishizeki's wedge orientation):
// with w the vertex opposite u and c(u, w) = |{v in N(u) & N(w) : v < u}|, the cycles whose highest
// vertex is u number sum over w < u of C(c(u, w), 2).  The wedges u - v - w (v, w < u) are counted
// into the block's own counter array (n words, zero between items), then read back and cleared.
// A work item is (u, w_lo, w_hi): the wedges of u ending in [w_lo, w_hi), so that a hub's wedges
// can be spread over several blocks.
// house_wedges: over the same wedges, the sum of (c(u, w) - 1) * (t(u, v) + t(v, w)), t the
// triangles through an edge per slot of the same graph (`t`): each 4-cycle adds its four edges' t
// through its two wedges at u, so the sum is that of t(e) * c4(e) over the edges, c4(e) the
// 4-cycles through e (cpu_formulas.py gives the house count that follows from it).  The second pass
// only reads the counters; a third clears them.
template <bool HOUSE>
__device__ __forceinline__ void cycle_wedges(const dm_i64* __restrict__ off, const int* __restrict__ deg,
                                             const int* __restrict__ pool, const unsigned* __restrict__ t,
                                             const int* __restrict__ item_u, const int* __restrict__ item_lo,
                                             const int* __restrict__ item_hi, dm_i64 n_items, dm_i64 n_vertices,
                                             unsigned long long* __restrict__ queue, unsigned* __restrict__ wedges,
                                             unsigned long long* __restrict__ total) {
    __shared__ dm_i64 item;
    __shared__ unsigned long long block_sum;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    unsigned* cnt = wedges + (dm_i64)blockIdx.x * n_vertices;
    while (true) {
        if (threadIdx.x == 0) {
            item = (dm_i64)atomicAdd(queue, 1ull);
            block_sum = 0;
        }
        __syncthreads();
        const dm_i64 it = item;
        if (it >= n_items) {
            break;
        }
        const int u = item_u[it];
        const int lo = item_lo[it];
        const int hi = item_hi[it];
        const dm_i64 off_u = off[u];
        const int* row_u = pool + off_u;
        const int below = dm_lower_bound(row_u, deg[u], u);  // N(u) & [0, u): the rows are sorted
        unsigned long long sum = 0;
        for (int pass = 0; pass < (HOUSE ? 3 : 2); ++pass) {
            for (int i = warp; i < below; i += DM_FORMULA_WARPS) {
                const int v = row_u[i];
                const dm_i64 off_v = off[v];
                const int* row_v = pool + off_v;
                const int a = dm_lower_bound(row_v, deg[v], lo);
                const int b = a + dm_lower_bound(row_v + a, deg[v] - a, hi);
                const unsigned long long t_uv = HOUSE ? t[off_u + i] : 0;
                for (int j = a + lane; j < b; j += 32) {
                    if (pass == 0) {
                        atomicAdd(cnt + row_v[j], 1u);
                    } else if (HOUSE && pass == 1) {
                        // through L2 (__ldcg), where the atomics counted: an L1 line of an earlier
                        // item's reads could still be cached
                        const unsigned long long c = __ldcg(cnt + row_v[j]);
                        sum += (c - 1) * (t_uv + t[off_v + j]);
                    } else if (HOUSE) {
                        atomicExch(cnt + row_v[j], 0u);
                    } else {
                        const unsigned long long c = atomicExch(cnt + row_v[j], 0u);
                        sum += c * (c - 1) / 2;
                    }
                }
            }
            __syncthreads();
        }
        sum = dm_warp_sum(sum);
        if (lane == 0 && sum != 0) {
            atomicAdd(&block_sum, sum);
        }
        __syncthreads();
        if (threadIdx.x == 0 && block_sum != 0) {
            atomicAdd(total, block_sum);
        }
    }
}

#define DM_CYCLE_PARAMS                                                                                   \
    const dm_i64 *off, const int *deg, const int *pool, const unsigned *t, const int *item_u,            \
    const int *item_lo, const int *item_hi, dm_i64 n_items, dm_i64 n_vertices, unsigned long long *queue, \
    unsigned *wedges, unsigned long long *total
#define DM_CYCLE_ARGS off, deg, pool, t, item_u, item_lo, item_hi, n_items, n_vertices, queue, wedges, total

// `t` unused.
extern "C" __global__ void __launch_bounds__(DM_FORMULA_WARPS * 32) four_cycles(DM_CYCLE_PARAMS) {
    cycle_wedges<false>(DM_CYCLE_ARGS);
}

extern "C" __global__ void __launch_bounds__(DM_FORMULA_WARPS * 32) house_wedges(DM_CYCLE_PARAMS) {
    cycle_wedges<true>(DM_CYCLE_ARGS);
}

// ordered_triangles: t per slot of the degree-ordered graph from t per edge of the degree-oriented
// one (edge_triangles), both over the same relabelling and slack-free: oriented edge e of x (to
// y > x, the j-th) is ordered slot off[x] + (deg[x] - out_deg[x]) + j (x's row holds its lower
// neighbours first), and x sits among the lower neighbours of y's row.
extern "C" __global__ void ordered_triangles(const dm_i64* __restrict__ off, const int* __restrict__ deg,
                                             const int* __restrict__ pool, const dm_i64* __restrict__ out_off,
                                             const int* __restrict__ out_deg, const int* __restrict__ out_pool,
                                             const int* __restrict__ src, const unsigned* __restrict__ tri,
                                             dm_i64 n_edges, unsigned* __restrict__ t) {
    const dm_i64 stride = (dm_i64)gridDim.x * blockDim.x;
    for (dm_i64 e = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; e < n_edges; e += stride) {
        const int x = src[e];
        const int y = out_pool[e];
        t[off[x] + (deg[x] - out_deg[x]) + (e - out_off[x])] = tri[e];
        t[off[y] + dm_lower_bound(pool + off[y], deg[y] - out_deg[y], x)] = tri[e];
    }
}

// pair_sum: *out += the sum of C(t[e], 2) over e in part, part + parts, ... below n.
extern "C" __global__ void pair_sum(const unsigned* __restrict__ t, dm_i64 n, dm_i64 part, dm_i64 parts,
                                    unsigned long long* __restrict__ out) {
    unsigned long long sum = 0;
    const dm_i64 stride = (dm_i64)gridDim.x * blockDim.x;
    for (dm_i64 i = (dm_i64)blockIdx.x * blockDim.x + threadIdx.x; part + i * parts < n; i += stride) {
        const unsigned long long c = t[part + i * parts];
        sum += c * (c - 1) / 2;
    }
    sum = dm_warp_sum(sum);
    if ((threadIdx.x & 31) == 0 && sum != 0) {
        atomicAdd(out, sum);
    }
}

// clique_bits<K>: the K-cliques (K = 4, 5) of the degree-oriented graph, each counted once at its
// lowest vertex u: the other K-1 lie in S = N+(u) and form a (K-1)-clique of the graph S induces.
// A warp takes one u at a time (costliest first) and builds that graph as a bit matrix in its
// scratch: row i of S[i] holds bit j when S[j] is in N+(S[i]) (so j > i), found by a flat loop over
// the rows' members as in edge_triangles.  Then each lane takes rows i and sums, over the bits j of
// row i, popcount(row i & row j) (K = 4), or, over the bits k of that intersection,
// popcount(row i & row j & row k) (K = 5).  The rows are set by atomics (at L2) and read through L2
// (__ldcg): an L1 line of the previous u's matrix could still be cached.
template <int K>
__device__ __forceinline__ void clique_bits(const dm_i64* __restrict__ off, const int* __restrict__ deg,
                                            const int* __restrict__ pool, const int* __restrict__ us,
                                            dm_i64 n_us, unsigned long long* __restrict__ queue,
                                            unsigned* __restrict__ scratch, dm_i64 words_per_warp,
                                            unsigned long long* __restrict__ total) {
    const int lane = threadIdx.x & 31;
    const dm_i64 warp = ((dm_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned* M = scratch + warp * words_per_warp;
    unsigned long long found = 0;
    while (true) {
        unsigned long long grab = 0;
        if (lane == 0) {
            grab = atomicAdd(queue, 1ull);
        }
        const dm_i64 at = (dm_i64)__shfl_sync(DM_FULL_MASK, grab, 0);
        if (at >= n_us) {
            break;
        }
        const int u = us[at];
        const int d = deg[u];
        const int* S = pool + off[u];
        const int W = (d + 31) >> 5;
        for (dm_i64 w = lane; w < (dm_i64)d * W; w += 32) {
            M[w] = 0;
        }
        __syncwarp();
        for (int r0 = 0; r0 < d; r0 += 32) {
            const int r = r0 + lane;
            int len = 0;
            dm_i64 row = 0;
            if (r < d) {
                row = off[S[r]];
                len = deg[S[r]];
            }
            const int end = dm_warp_scan(len);
            const int items = __shfl_sync(DM_FULL_MASK, end, 31);
            for (int f0 = 0; f0 < items; f0 += 32) {
                const int f = f0 + lane;
                const int owner = dm_flat_owner(end, f);
                const int start = __shfl_sync(DM_FULL_MASK, end - len, owner);
                const dm_i64 o_row = __shfl_sync(DM_FULL_MASK, row, owner);
                if (f < items) {
                    const int b = pool[o_row + (f - start)];
                    const int i = r0 + owner;
                    const int j = i + 1 + dm_lower_bound(S + i + 1, d - i - 1, b);
                    if (j < d && S[j] == b) {
                        atomicOr(M + (dm_i64)i * W + (j >> 5), 1u << (j & 31));
                    }
                }
            }
        }
        __syncwarp();
        for (int i = lane; i < d; i += 32) {
            const unsigned* Mi = M + (dm_i64)i * W;
            for (int wj = (i + 1) >> 5; wj < W; ++wj) {
                for (unsigned bits = __ldcg(Mi + wj); bits != 0; bits &= bits - 1) {
                    const int j = (wj << 5) + __ffs(bits) - 1;
                    const unsigned* Mj = M + (dm_i64)j * W;
                    for (int w = j >> 5; w < W; ++w) {
                        const unsigned both = __ldcg(Mi + w) & __ldcg(Mj + w);
                        if constexpr (K == 4) {
                            found += __popc(both);
                        } else {
                            for (unsigned kb = both; kb != 0; kb &= kb - 1) {
                                const int k = (w << 5) + __ffs(kb) - 1;
                                const unsigned* Mk = M + (dm_i64)k * W;
                                for (int x = k >> 5; x < W; ++x) {
                                    found += __popc(__ldcg(Mi + x) & __ldcg(Mj + x) & __ldcg(Mk + x));
                                }
                            }
                        }
                    }
                }
            }
        }
        __syncwarp();
    }
    found = dm_warp_sum(found);
    if (lane == 0 && found != 0) {
        atomicAdd(total, found);
    }
}

#define DM_CLIQUE_PARAMS                                                                                  \
    const dm_i64 *off, const int *deg, const int *pool, const int *us, dm_i64 n_us,                     \
    unsigned long long *queue, unsigned *scratch, dm_i64 words_per_warp, unsigned long long *total
#define DM_CLIQUE_ARGS off, deg, pool, us, n_us, queue, scratch, words_per_warp, total

extern "C" __global__ void __launch_bounds__(DM_FORMULA_WARPS * 32) clique_bits4(DM_CLIQUE_PARAMS) {
    clique_bits<4>(DM_CLIQUE_ARGS);
}

extern "C" __global__ void __launch_bounds__(DM_FORMULA_WARPS * 32) clique_bits5(DM_CLIQUE_PARAMS) {
    clique_bits<5>(DM_CLIQUE_ARGS);
}

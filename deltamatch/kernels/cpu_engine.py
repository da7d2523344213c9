"""The CPU engine: runs plans over adjacency rows with numba, in parallel over tasks.

A task seeds positions 0 and 1 of its plan with a data pair and extends the match
depth-first.  Candidates for position l come from the smallest adjacency row among
l's matched pattern neighbours, bounded by the symmetric-order constraints, and
are checked against the other neighbours (edges), the non-neighbours (induced),
injectivity and the batch ranks (exactly-once).  Counting never materializes
matches; listing runs the same search a second time writing into exact offsets.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from deltamatch.kernels.plan_table import BatchView, GraphView, PlanTable, TaskList

_NO_UPPER = 2**62


@njit(inline="always", cache=True)
def _lower_bound(arr, start, length, x):
    lo, hi = 0, length
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[start + mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(inline="always", cache=True)
def _adjacent(offsets, degree, pool, a, b):
    if degree[a] > degree[b]:
        a, b = b, a
    d = degree[a]
    i = _lower_bound(pool, offsets[a], d, b)
    return i < d and pool[offsets[a] + i] == b


@njit(inline="always", cache=True)
def _batch_rank(b_slot, b_ptr, b_partner, b_rank, a, b):
    s = b_slot[a]
    if s < 0:
        return -1
    lo = b_ptr[s]
    n = b_ptr[s + 1] - lo
    i = _lower_bound(b_partner, lo, n, b)
    if i < n and b_partner[lo + i] == b:
        return b_rank[lo + i]
    return -1


@njit(cache=True)
def _survives_in_other_graph(m, k, conn, b_slot, b_ptr, b_partner, b_rank, iso_masks):
    """Induced only: is the matched vertex set also a match once the batch flips its pairs?"""
    mask = np.int64(0)
    for l in range(1, k):
        for j in range(l):
            adj = conn[l, j] == 1
            if _batch_rank(b_slot, b_ptr, b_partner, b_rank, m[l], m[j]) >= 0:
                adj = not adj
            if adj:
                mask |= np.int64(1) << np.int64(l * (l - 1) // 2 + j)
    i = _lower_bound(iso_masks, 0, iso_masks.shape[0], mask)
    return i < iso_masks.shape[0] and iso_masks[i] == mask


@njit(cache=True)
def _extend(l, m, k, offsets, degree, pool, conn, cmp, induced, r,
            b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
            cand, order, out, out_row, emit):
    """Candidates of position l: stored in cand[l] (l < k-1) or counted/emitted (l = k-1).

    Returns the number of candidates (l < k-1) or of completed matches (l = k-1).
    """
    lower = np.int64(-1)
    upper = _NO_UPPER
    anchor = -1
    for j in range(l):
        if cmp[l, j] == 1 and m[j] > lower:
            lower = m[j]
        elif cmp[l, j] == -1 and m[j] < upper:
            upper = m[j]
        if conn[l, j] == 1 and (anchor < 0 or degree[m[j]] < degree[m[anchor]]):
            anchor = j
    x = m[anchor]
    start = offsets[x]
    d = degree[x]
    last = l == k - 1
    found = 0
    for i in range(_lower_bound(pool, start, d, lower + 1), d):
        w = pool[start + i]
        if w >= upper:
            break
        ok = True
        for j in range(l):
            if m[j] == w:
                ok = False
                break
            if j == anchor:
                continue
            if conn[l, j] == 1:
                if not _adjacent(offsets, degree, pool, w, m[j]):
                    ok = False
                    break
            elif induced and _adjacent(offsets, degree, pool, w, m[j]):
                ok = False
                break
        if ok and b_slot[w] >= 0:
            for j in range(l):
                if induced or conn[l, j] == 1:
                    rank = _batch_rank(b_slot, b_ptr, b_partner, b_rank, w, m[j])
                    if rank >= 0 and rank < r:
                        ok = False
                        break
        if not ok:
            continue
        if not last:
            cand[l, found] = w
            found += 1
            continue
        m[l] = w
        if check_other and _survives_in_other_graph(m, k, conn, b_slot, b_ptr, b_partner, b_rank, iso_masks):
            continue
        if emit:
            for p in range(k):
                out[out_row + found, order[p]] = m[p]
        found += 1
    return found


@njit(cache=True)
def _search(offsets, degree, pool, order, conn, cmp, k, induced, u, v, r,
            b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
            cand, cnt, pos, m, out, out_row, emit):
    """All matches of one task: seed (u, v) on positions (0, 1), rank r."""
    if u == v or (cmp[1, 0] == -1 and v > u) or (cmp[1, 0] == 1 and v < u):
        return 0
    m[0] = u
    m[1] = v
    if k == 2:
        if check_other and _survives_in_other_graph(m, k, conn, b_slot, b_ptr, b_partner, b_rank, iso_masks):
            return 0
        if emit:
            out[out_row, order[0]] = u
            out[out_row, order[1]] = v
        return 1
    if k == 3:
        return _extend(2, m, k, offsets, degree, pool, conn, cmp, induced, r,
                       b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, cand, order, out, out_row, emit)
    total = 0
    l = 2
    cnt[2] = _extend(2, m, k, offsets, degree, pool, conn, cmp, induced, r,
                       b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, cand, order, out, out_row, False)
    pos[2] = 0
    while l >= 2:
        if pos[l] >= cnt[l]:
            l -= 1
            continue
        m[l] = cand[l, pos[l]]
        pos[l] += 1
        if l + 1 == k - 1:
            total += _extend(l + 1, m, k, offsets, degree, pool, conn, cmp, induced, r,
                       b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, cand, order, out, out_row + total, emit)
        else:
            l += 1
            cnt[l] = _extend(l, m, k, offsets, degree, pool, conn, cmp, induced, r,
                       b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, cand, order, out, out_row, False)
            pos[l] = 0
    return total


@njit(parallel=True, cache=True)
def _run(offsets, degree, pool, orders, conns, cmps, k, induced, tu, tv, tr, tp,
         b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, width, out_offsets, out, emit,
         n_chunks):
    n_tasks = tu.shape[0]
    counts = np.zeros(n_tasks, dtype=np.int64)
    for c in prange(n_chunks):
        cand = np.empty((k, width), dtype=np.int32)
        cnt = np.zeros(k, dtype=np.int64)
        pos = np.zeros(k, dtype=np.int64)
        m = np.empty(k, dtype=np.int64)
        for t in range(c, n_tasks, n_chunks):
            p = tp[t]
            counts[t] = _search(offsets, degree, pool, orders[p], conns[p], cmps[p], k, induced,
                                tu[t], tv[t], tr[t], b_slot, b_ptr, b_partner, b_rank, iso_masks,
                                check_other, cand, cnt, pos, m, out, out_offsets[t], emit)
    return counts


def _call(graph: GraphView, plans: PlanTable, tasks: TaskList, batch: BatchView,
          check_other: bool, out_offsets: np.ndarray, out: np.ndarray, emit: bool) -> np.ndarray:
    width = max(1, int(graph.degree.max(initial=0)))
    return _run(graph.offsets, graph.degree, graph.pool, plans.order, plans.conn, plans.cmp,
                plans.k, plans.induced, tasks.u, tasks.v, tasks.rank, tasks.plan,
                batch.slot, batch.ptr, batch.partner, batch.rank, plans.iso_masks,
                check_other, width, out_offsets, out, emit,
                min(tasks.size, 16 * numba.get_num_threads()))


def count_tasks(graph: GraphView, plans: PlanTable, tasks: TaskList, batch: BatchView,
                check_other: bool = False) -> np.ndarray:
    """Matches found by each task (int64[T]); `check_other` drops induced matches that
    survive the batch (they are neither added nor removed)."""
    none = np.zeros((0, plans.k), dtype=np.int32)
    return _call(graph, plans, tasks, batch, check_other, np.zeros(tasks.size, np.int64), none, False)


def list_tasks(graph: GraphView, plans: PlanTable, tasks: TaskList, batch: BatchView,
               counts: np.ndarray, check_other: bool = False) -> np.ndarray:
    """The matches of each task as rows of internal vertex ids in pattern-vertex order.

    `counts` is what `count_tasks` returned for the same tasks: it fixes each task's rows.
    """
    offsets = np.zeros(tasks.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    out = np.empty((int(counts.sum()), plans.k), dtype=np.int32)
    _call(graph, plans, tasks, batch, check_other, offsets, out, True)
    return out


@njit(parallel=True, cache=True)
def _canonical(rows, auts):
    n, k = rows.shape
    out = np.empty_like(rows)
    for i in prange(n):
        best = 0
        for a in range(1, auts.shape[0]):
            for p in range(k):
                x = rows[i, auts[a, p]]
                y = rows[i, auts[best, p]]
                if x != y:
                    if x < y:
                        best = a
                    break
        for p in range(k):
            out[i, p] = rows[i, auts[best, p]]
    return out


def canonical_rows(rows: np.ndarray, automorphisms: np.ndarray) -> np.ndarray:
    """The listed form (SPEC §1) of each match row: the lexicographically smallest of
    its |Aut| relabellings (row[s[0]], ..., row[s[k-1]]), rows sorted."""
    if rows.shape[0] == 0:
        return rows
    canon = _canonical(rows, automorphisms)
    return canon[np.lexsort(canon.T[::-1])]

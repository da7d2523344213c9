"""The CPU engine: runs plans over adjacency rows with numba, in parallel over tasks.

A task seeds positions 0 and 1 of its plan with a data pair and extends the match
depth-first.  Candidates for position l come from the smallest adjacency row among
l's matched pattern neighbours, bounded by the symmetric-order constraints, and
are checked against the other neighbours (edges), the non-neighbours (induced),
injectivity and the batch ranks (exactly-once).  Counting never materializes
matches; listing runs the same search a second time writing into exact offsets.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from deltamatch.kernels.plan_table import (
    LAST_EACH,
    LAST_PAIRS,
    BatchView,
    GraphView,
    PlanTable,
    TaskList,
    memo_plans,
    reverses_seed,
)
from deltamatch.kernels.sorted_rows import contains, lower_bound

_NO_UPPER = 2**62


def _env_switch(name: str) -> bool:
    """An engine switch from the environment: on unless set to 0, false, no or off."""
    return os.environ.get(name, "1").strip().lower() not in ("0", "false", "no", "off")


# The search's inner functions take a dozen or more arrays per call, and numba's reference
# counting adds an atomic increment and decrement per array to every call: measured at a
# few hundred ns per call, more than a short last level's whole work.  They allocate nothing
# and only borrow arrays their caller (`_run_chunk`) holds, so they are compiled without
# it.  DELTAMATCH_CPU_NRT_FREE=0 (read at import) compiles them with it, and them and their
# callers uncached, so that the two builds never share numba's cache, whose key does not
# include this flag.
NRT_FREE = _env_switch("DELTAMATCH_CPU_NRT_FREE")
_INNER = {"cache": True, "_nrt": False} if NRT_FREE else {"cache": False}


@njit(inline="always", cache=True)
def _batch_rank(b_slot, b_ptr, b_partner, b_rank, a, b):
    s = b_slot[a]
    if s < 0:
        return -1
    lo = b_ptr[s]
    n = b_ptr[s + 1] - lo
    i = lower_bound(b_partner, lo, n, b)
    if i < n and b_partner[lo + i] == b:
        return b_rank[lo + i]
    return -1


@njit(**_INNER)
def _survives_in_other_graph(m, k, conn, b_slot, b_ptr, b_partner, b_rank, iso_masks):
    """Induced only: is the matched vertex set also a match once the batch flips its pairs?"""
    mask = np.int64(0)
    for lv in range(1, k):
        for j in range(lv):
            adj = conn[lv, j] == 1
            if _batch_rank(b_slot, b_ptr, b_partner, b_rank, m[lv], m[j]) >= 0:
                adj = not adj
            if adj:
                mask |= np.int64(1) << np.int64(lv * (lv - 1) // 2 + j)
    i = lower_bound(iso_masks, 0, iso_masks.shape[0], mask)
    return i < iso_masks.shape[0] and iso_masks[i] == mask


@njit(inline="always", cache=True)
def _above(arr, start, length, lower):
    """Index (relative to `start`) of the first of the sorted arr[start : start+length] above
    `lower`: 0 without a search when there is no lower bound (lower < 0)."""
    return 0 if lower < 0 else lower_bound(arr, start, length, lower + 1)


@njit(inline="always", cache=True)
def _below(arr, start, length, upper):
    """The number of the sorted arr[start : start+length] below `upper`: all of them, without a
    search, when there is no upper bound (_NO_UPPER)."""
    return length if upper == _NO_UPPER else lower_bound(arr, start, length, upper)


@njit(inline="always", cache=True)
def _gallop(arr, start, length, p, x):
    """Smallest i >= p with arr[start + i] >= x (rows are sorted): exponential then binary search."""
    if p >= length or arr[start + p] >= x:
        return p
    step = 1
    while p + step < length and arr[start + p + step] < x:
        p += step
        step <<= 1
    lo, hi = p + 1, min(p + step, length)
    return lo + lower_bound(arr, start + lo, hi - lo, x)


@njit(**_INNER)
def _list_hoisted(lv, m, dep, cand, width, cnt, order, out, out_row, k, work):
    """The last level l listed from its cached set (`dep` < l-1): every member not matched
    at positions dep+1 .. l-1 (the only checks the set has not had) completes a match."""
    s0 = lv * width
    n = cnt[lv]
    found = 0
    for i in range(n):
        w = cand[s0 + i]
        if _matched_between(m, dep + 1, lv, w):
            continue
        m[lv] = w
        if out_row + found < out.shape[0]:
            for p in range(k):
                out[out_row + found, order[p]] = m[p]
        found += 1
    work[0] += n
    return found


@njit(inline="always", cache=True)
def _matched_between(m, lo, hi, w):
    """Whether w is one of m[lo:hi] (a loop: numba compiles no generator inside any())."""
    for j in range(lo, hi):  # noqa: SIM110
        if m[j] == w:
            return True
    return False


# Above this length ratio a sorted-row intersection gallops the shorter row through the
# longer one (|A| log(|B|/|A|) steps) instead of merging both (|A| + |B| steps).
_GALLOP_RATIO = 8

# Below this many candidates a counted last level tests each one (`_extend`'s loop): the
# set-size path's fixed cost (rows bounded, exclusions walked) is measured not to pay there.
_SET_COUNT_MIN = 16


@njit(**_INNER)
def _intersection_size(a, a0, na, b, b0, nb, work):
    """|a[a0 : a0+na] & b[b0 : b0+nb]| of two sorted rows: a branch-free merge, or galloping
    when one row is much the longer.  work[0] += elements read, work[1] += gallop probes."""
    if na > nb:
        a, a0, na, b, b0, nb = b, b0, nb, a, a0, na
    common = 0
    if nb > _GALLOP_RATIO * na:
        q = 0
        for i in range(na):
            x = a[a0 + i]
            q = _gallop(b, b0, nb, q, x)
            if q >= nb:
                break
            common += b[b0 + q] == x
        work[0] += na
        work[1] += na
        return common
    i = 0
    j = 0
    while i < na and j < nb:
        x = a[a0 + i]
        y = b[b0 + j]
        common += x == y
        i += x <= y
        j += y <= x
    work[0] += i + j
    return common


# `paths`, the kernels' bit set of the count paths `EngineOptions` switches on.
SET_COUNT = 1
DRIVE_SHORT = 2
REVERSE_LAST = 4

# A row of position 0, 1 or 2 at least this long gets a bit set when a level that is run
# for several prefixes sharing that position tests membership in it; shorter rows are
# merged or galloped as before.
_BITS_MIN_DEGREE = 32
# Positions with a bit set slot: the seed pair (one set per task) and position 2 (one set
# per level-2 vertex, serving all of its deeper prefixes).
_BIT_ROWS = 3


@njit(inline="always", cache=True)
def _uses_seed_bits(j, dl, x, degree, bits):
    """Whether a level whose candidates depend on positions 0 .. dl (`PlanTable.dep`) tests
    membership in the row of position j (vertex x) through its bit set: bit sets are on
    (bits[j] >= 0), j < _BIT_ROWS, dl >= max(2, j + 1) (so the level runs for several
    prefixes sharing m[j], and the set serves them all) and the row is long."""
    return j < _BIT_ROWS and dl >= max(2, j + 1) and bits[j] >= 0 and degree[x] >= _BITS_MIN_DEGREE


@njit(**_INNER)
def _seed_bits(j, x, offsets, degree, pool, bits, work):
    """Start (a word index into bits) of the bit set of position j's row (vertex x), one bit
    per vertex.

    bits[j] is 1 once a first use has set the row's bits, 0 before: the sets are cleared
    (`_clear_bits`) after each task and, for position 2, when m[2] changes.  The set of
    position j starts at word _BIT_ROWS + j * (size of one set).
    """
    start = _BIT_ROWS + j * ((bits.shape[0] - _BIT_ROWS) // _BIT_ROWS)
    if bits[j] == 0:
        xs = offsets[x]
        for i in range(degree[x]):
            y = pool[xs + i]
            bits[start + (y >> 6)] |= np.int64(1) << (y & 63)
        bits[j] = 1
        work[0] += degree[x]
    return start


@njit(**_INNER)
def _clear_bits(m, lo, hi, offsets, degree, pool, bits):
    """Unset the bit sets of positions lo .. hi-1 (rows m[lo:hi]) where set, ready for reuse."""
    size = (bits.shape[0] - _BIT_ROWS) // _BIT_ROWS
    for j in range(lo, hi):
        if bits[j] == 1:
            start = _BIT_ROWS + j * size
            xs = offsets[m[j]]
            for i in range(degree[m[j]]):
                bits[start + (pool[xs + i] >> 6)] = 0
            bits[j] = 0


@njit(inline="always", cache=True)
def _has_bit(bits, start, w):
    """Is w's bit set in the bit set at word `start`?"""
    return (bits[start + (w >> 6)] >> (w & 63)) & 1 == 1


@njit(**_INNER)
def _bits_count(src, s0, n, bits, start, work):
    """How many of src[s0 : s0+n] have their bit set in the bit set at word `start`."""
    common = 0
    for i in range(n):
        w = src[s0 + i]
        common += (bits[start + (w >> 6)] >> (w & 63)) & 1
    work[0] += n
    return common


@njit(inline="always", cache=True)
def _in_rows(lv, m, offsets, degree, pool, conn, src, s0, n, first, top, anchor, lower, upper, w):
    """Whether w is in the set a counted last level sizes: within the bounds, in
    src[s0 : s0+n] and in the row of every neighbour at positions first .. top-1 but the anchor."""
    if w <= lower or w >= upper or not contains(src, s0, n, w):
        return False
    for j in range(first, top):
        if j != anchor and conn[lv, j] == 1 and not contains(pool, offsets[m[j]], degree[m[j]], w):
            return False
    return True


@njit(inline="always", cache=True)
def _batch_partners(lv, m, conn, first, top, b_slot, b_ptr):
    """How many changed pairs touch level l's neighbours at positions first .. top-1: what
    `_count_last` walks to find batch-excluded members."""
    total = 0
    for j in range(first, top):
        s = b_slot[m[j]]
        if conn[lv, j] == 1 and s >= 0:
            total += b_ptr[s + 1] - b_ptr[s]
    return total


@njit(**_INNER)
def _count_last(lv, m, offsets, degree, pool, conn, src, s0, n, lower, upper, first, top, anchor, r,
                b_slot, b_ptr, b_partner, b_rank, ptr, work, bits):
    """A counted last level (edge-induced, not hoisted, not listing) as a set size.

    S = the candidates src[s0 : s0+n] (already past the lower bound and below the upper)
    that are in every other neighbour's row among positions first .. top-1.  The matches
    are S minus the vertices matched at first .. top-1 and minus the members a changed pair
    of rank < r joins to a neighbour there: both are few, and found from the match and the
    neighbours' batch partners rather than by testing every member of S.  Membership in a
    long seed row is one probe of its bit set (`_seed_bits`) where scanning the other side
    costs less than intersecting the two.
    """
    others = 0
    other = -1
    for j in range(first, top):
        if j != anchor and conn[lv, j] == 1:
            others += 1
            other = j
    if others == 0:
        size = n
        work[0] += n
    elif others == 1:
        x = m[other]
        xs = offsets[x]
        lo = _above(pool, xs, degree[x], lower)
        hi = lo + _below(pool, xs + lo, degree[x] - lo, upper)
        # A seed row's bit set answers membership in one probe: scan the other side, unless
        # galloping the shorter side through it is cheaper (scan > _GALLOP_RATIO x shorter).
        short = min(n, hi - lo)
        by_other = _uses_seed_bits(other, lv - 1, x, degree, bits) and n <= _GALLOP_RATIO * short
        by_anchor = (anchor >= 0 and _uses_seed_bits(anchor, lv - 1, m[anchor], degree, bits)
                     and hi - lo <= _GALLOP_RATIO * short)
        if by_anchor and (not by_other or hi - lo < n):
            start = _seed_bits(anchor, m[anchor], offsets, degree, pool, bits, work)
            size = _bits_count(pool, xs + lo, hi - lo, bits, start, work)
        elif by_other:
            start = _seed_bits(other, x, offsets, degree, pool, bits, work)
            size = _bits_count(src, s0, n, bits, start, work)
        else:
            size = _intersection_size(src, s0, n, pool, xs + lo, hi - lo, work)
    else:
        size = 0
        for j in range(first, top):
            ptr[j] = 0
        for i in range(n):
            w = src[s0 + i]
            ok = True
            for j in range(first, top):
                if j == anchor or conn[lv, j] == 0:
                    continue
                x = m[j]
                if _uses_seed_bits(j, lv - 1, x, degree, bits):
                    if not _has_bit(bits, _seed_bits(j, x, offsets, degree, pool, bits, work), w):
                        ok = False
                        break
                    continue
                q = _gallop(pool, offsets[x], degree[x], ptr[j], w)
                ptr[j] = q
                if q >= degree[x] or pool[offsets[x] + q] != w:
                    ok = False
                    break
            size += ok
        work[0] += n
        work[1] += n * (others - 1)
    for j in range(first, top):
        # A neighbour position's vertex is not in its own row (no self-loops), hence not in S.
        if conn[lv, j] == 0 and _in_rows(lv, m, offsets, degree, pool, conn, src, s0, n, first, top, anchor,
                                         lower, upper, m[j]):
            size -= 1
    for j in range(first, top):
        s = b_slot[m[j]] if conn[lv, j] == 1 else -1
        if s < 0:
            continue
        q = 0  # the partners ascend: find each in the candidates by galloping on from the last
        for e in range(b_ptr[s], b_ptr[s + 1]):
            w = b_partner[e]
            if b_rank[e] >= r or w <= lower or w >= upper or _matched_between(m, first, top, w):
                continue
            q = _gallop(src, s0, n, q, w)
            if q >= n:
                break
            if src[s0 + q] != w or not _in_rows(lv, m, offsets, degree, pool, conn, src, s0 + q, 1, first,
                                                 top, anchor, lower, upper, w):
                continue
            counted = False
            for i in range(first, j):
                if conn[lv, i] == 1:
                    rank = _batch_rank(b_slot, b_ptr, b_partner, b_rank, w, m[i])
                    if rank >= 0 and rank < r:
                        counted = True
                        break
            if not counted:
                size -= 1
    work[1] += top - first
    return size


@njit(**_INNER)
def _extend(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
            b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
            cand, width, cnt, ptr, order, out, out_row, emit, work, dep, fresh, paths, bits):
    """Candidates of position l: stored in cand[l*width:] (l < k-1) or counted/emitted (l = k-1).

    Candidates come from the smallest matched neighbour's row or, when base[l] = i >= 0,
    from level i's candidates (same neighbours before i, compatible bounds), so only the
    positions i .. l-1 are left to check.  Membership tests gallop forward through the other
    rows, since candidates arrive in increasing order.  A level whose neighbours and
    bounds all lie at positions <= dep[l] < l-1 is hoisted: its set is built once per
    prefix m[0..dep[l]] (`fresh[l]` says it still holds) and returned as it is; the
    vertices matched since are skipped by the caller (a counted last level is summed
    by `_collapsed_count`).  Returns the number of candidates (l < k-1, or a hoisted
    level not emitting) or of completed matches; work[0] += candidates read, work[1] +=
    membership probes and bound searches.  With `paths & SET_COUNT`, a counted last level may be
    sized as a set instead (`_count_last`); membership in a long seed row may be answered
    by its bit set in `bits` (`_seed_bits`; bits[0] < 0: no bit sets).
    """
    last = lv == k - 1
    hoist = dep[lv] < lv - 1
    if hoist and fresh[lv]:
        if last and emit:
            return _list_hoisted(lv, m, dep[lv], cand, width, cnt, order, out, out_row, k, work)
        return cnt[lv]
    top = dep[lv] + 1 if hoist else lv
    lower = np.int64(-1)
    upper = _NO_UPPER
    anchor = -1
    for j in range(top):
        if cmp[lv, j] == 1 and m[j] > lower:
            lower = m[j]
        elif cmp[lv, j] == -1 and m[j] < upper:
            upper = m[j]
        if conn[lv, j] == 1 and (anchor < 0 or degree[m[j]] < degree[m[anchor]]):
            anchor = j
    if base[lv] >= 0:
        src = cand
        s0 = base[lv] * width
        slen = cnt[base[lv]]
        first = base[lv]
        anchor = -1
    else:
        src = pool
        s0 = offsets[m[anchor]]
        slen = degree[m[anchor]]
        first = 0
    i0 = _above(src, s0, slen, lower)
    # Sized as a set unless the candidates are few (the exclusions' fixed cost would not pay)
    # or the neighbours' batch partners, walked for the exclusions, outnumber them.
    if (last and not hoist and paths & SET_COUNT and not emit and not check_other and not induced
            and slen - i0 >= _SET_COUNT_MIN
            and _batch_partners(lv, m, conn, first, top, b_slot, b_ptr) <= slen - i0):
        i1 = i0 + _below(src, s0 + i0, slen - i0, upper)
        return _count_last(lv, m, offsets, degree, pool, conn, src, s0 + i0, i1 - i0, lower, upper, first,
                           top, anchor, r, b_slot, b_ptr, b_partner, b_rank, ptr, work, bits)
    if (last and not hoist and first == lv - 1 and not emit and not check_other and not induced
            and conn[lv, lv - 1] == 0):
        # Nothing left to check but injectivity with l-1: count the range.
        i1 = i0 + _below(src, s0 + i0, slen - i0, upper)
        prev = m[lv - 1]
        work[1] += 2
        return (i1 - i0) - (1 if lower < prev < upper else 0)
    for j in range(first, top):
        ptr[j] = 0
    store = hoist or not last
    found = 0
    seen = 0
    probes = 1  # the bound search above
    # A base level's set may be far longer than a neighbour's row: then walk that row and
    # gallop through the set instead.  Same members, same (increasing) order.
    drive = -1
    if paths & DRIVE_SHORT and base[lv] >= 0:
        for j in range(first, top):
            if conn[lv, j] == 1 and (drive < 0 or degree[m[j]] < degree[m[drive]]):
                drive = j
        if drive >= 0 and _GALLOP_RATIO * degree[m[drive]] >= slen - i0:
            drive = -1
    if drive >= 0:
        walk = pool
        w0 = offsets[m[drive]]
        wlen = degree[m[drive]]
        start = _above(pool, w0, wlen, lower)
        probes += 1
    else:
        walk = src
        w0 = s0
        wlen = slen
        start = i0
    at = i0
    for i in range(start, wlen):
        w = walk[w0 + i]
        if w >= upper:
            break
        if drive >= 0:
            at = _gallop(src, s0, slen, at, w)
            probes += 1
            if at >= slen:
                break
            if src[s0 + at] != w:
                continue
        seen += 1
        if _matched_between(m, first, top, w):
            continue
        ok = True
        for j in range(first, top):
            if j == anchor or j == drive:  # noqa: SIM109 (numba: two compares, no tuple)
                continue
            need = conn[lv, j] == 1
            if not need and not induced:
                continue
            x = m[j]
            probes += 1
            if _uses_seed_bits(j, dep[lv], x, degree, bits):
                if _has_bit(bits, _seed_bits(j, x, offsets, degree, pool, bits, work), w) != need:
                    ok = False
                    break
                continue
            xs = offsets[x]
            xd = degree[x]
            q = _gallop(pool, xs, xd, ptr[j], w)
            ptr[j] = q
            if (q < xd and pool[xs + q] == w) != need:
                ok = False
                break
        if ok and b_slot[w] >= 0:
            for j in range(first, top):
                if induced or conn[lv, j] == 1:
                    rank = _batch_rank(b_slot, b_ptr, b_partner, b_rank, w, m[j])
                    if rank >= 0 and rank < r:
                        ok = False
                        break
        if not ok:
            continue
        if store:
            cand[lv * width + found] = w
            found += 1
            continue
        m[lv] = w
        if check_other and _survives_in_other_graph(m, k, conn, b_slot, b_ptr, b_partner, b_rank, iso_masks):
            continue
        if emit and out_row + found < out.shape[0]:
            for p in range(k):
                out[out_row + found, order[p]] = m[p]
        found += 1
    work[0] += seen
    work[1] += probes
    if not hoist:
        return found
    cnt[lv] = found
    fresh[lv] = True
    if last and emit:
        return _list_hoisted(lv, m, dep[lv], cand, width, cnt, order, out, out_row, k, work)
    return found


@njit(**_INNER)
def _triangle_count(offsets, degree, pool, cmp, u, v, r, b_slot, b_ptr, b_partner, b_rank, work):
    """A triangle task counted (edge-induced, `paths & SET_COUNT`): the common neighbours of the
    seed (u, v) within level 2's bounds (`_intersection_size`), less those a changed pair of rank
    < r joins to u or v, found from u's and v's batch partners.  The same count as `_search`,
    without its per-level bookkeeping, which cost more than the intersection."""
    if u == v or (cmp[1, 0] == -1 and v > u) or (cmp[1, 0] == 1 and v < u):
        return 0
    lower = np.int64(-1)
    upper = _NO_UPPER
    for j in range(2):
        x = u if j == 0 else v
        if cmp[2, j] == 1 and x > lower:
            lower = x
        elif cmp[2, j] == -1 and x < upper:
            upper = x
    su = offsets[u] + _above(pool, offsets[u], degree[u], lower)
    nu = _below(pool, su, offsets[u] + degree[u] - su, upper)
    sv = offsets[v] + _above(pool, offsets[v], degree[v], lower)
    nv = _below(pool, sv, offsets[v] + degree[v] - sv, upper)
    found = _intersection_size(pool, su, nu, pool, sv, nv, work)
    for j in range(2):
        x, y = (u, v) if j == 0 else (v, u)
        s = b_slot[x]
        if s < 0:
            continue
        y0, ny = (sv, nv) if j == 0 else (su, nu)
        q = 0  # the partners ascend: gallop on through y's row
        for e in range(b_ptr[s], b_ptr[s + 1]):
            w = b_partner[e]
            if b_rank[e] >= r or w <= lower or w >= upper:
                continue
            q = _gallop(pool, y0, ny, q, w)
            if q >= ny:
                break
            if pool[y0 + q] != w or not contains(pool, offsets[x], degree[x], w):
                continue
            if j == 1:
                rank = _batch_rank(b_slot, b_ptr, b_partner, b_rank, w, u)
                if 0 <= rank < r:
                    continue  # subtracted with u's partners
            found -= 1
    work[1] += 2
    return found


@njit(**_INNER)
def _search(offsets, degree, pool, order, conn, cmp, base, dep, last_two, k, induced, u, v, r,
            b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
            cand, width, cnt, pos, ptr, m, fresh, out, out_row, emit, work, paths, bits, memo, side, reuse):
    """All matches of one task: seed (u, v) on positions (0, 1), rank r; `last_two` is the
    plan's `PlanTable.last_two` or, counting, _LAST_MEMO (`_memo_count`, with `memo`, `side`) or
    _LAST_FUSED (`_fused_count`, with `side`).
    With `reuse` (k >= 4), cand[2 * width:] and cnt[2] already hold level 2's candidates."""
    if u == v or (cmp[1, 0] == -1 and v > u) or (cmp[1, 0] == 1 and v < u):
        return 0
    m[0] = u
    m[1] = v
    fresh[:] = False
    if k == 2:
        if check_other and _survives_in_other_graph(m, k, conn, b_slot, b_ptr, b_partner, b_rank, iso_masks):
            return 0
        if emit and out_row < out.shape[0]:
            out[out_row, order[0]] = u
            out[out_row, order[1]] = v
        return 1
    if k == 3:
        return _extend(2, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                       b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                       cand, width, cnt, ptr, order, out, out_row, emit, work, dep, fresh, paths, bits)
    # Counting may finish the last two levels at once, for all of k-2's candidates.
    at_once = not emit and last_two != 0
    total = 0
    lv = 2
    if not reuse:
        cnt[2] = _extend(2, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                         b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                         cand, width, cnt, ptr, order, out, out_row, False, work, dep, fresh, paths, bits)
    pos[2] = 0
    if at_once and lv == k - 2:
        return _last_two_count(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                               b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                               cand, width, cnt, ptr, order, out, work, dep, fresh, last_two, paths, bits,
                               memo, side)
    while lv >= 2:
        if pos[lv] >= cnt[lv]:
            lv -= 1
            continue
        w = cand[lv * width + pos[lv]]
        pos[lv] += 1
        if dep[lv] < lv - 1 and _matched_between(m, dep[lv] + 1, lv, w):
            continue
        if lv == 2:
            _clear_bits(m, 2, 3, offsets, degree, pool, bits)
        m[lv] = w
        for later in range(lv + 2, k):
            if dep[later] >= lv:
                fresh[later] = False
        if lv + 1 == k - 1:
            total += _extend(lv + 1, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                             b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                             cand, width, cnt, ptr, order, out, out_row + total, emit, work, dep, fresh,
                             paths, bits)
        else:
            lv += 1
            cnt[lv] = _extend(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                              b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                              cand, width, cnt, ptr, order, out, out_row, False, work, dep, fresh, paths,
                              bits)
            pos[lv] = 0
            if at_once and lv == k - 2:
                total += _last_two_count(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                                         b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                                         cand, width, cnt, ptr, order, out, work, dep, fresh, last_two,
                                         paths, bits, memo, side)
                lv -= 1
    return total


@njit(**_INNER)
def _last_two_count(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                    b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                    cand, width, cnt, ptr, order, out, work, dep, fresh, last_two, paths, bits, memo, side):
    """Matches completing every candidate of level l = k-2 at once (`PlanTable.last_two`, or
    _LAST_MEMO: `_memo_count`, or _LAST_FUSED: `_fused_count`)."""
    if last_two == LAST_PAIRS:
        n = cnt[lv]
        return n * (n - 1) // (2 if cmp[k - 1, lv] != 0 else 1)
    if last_two == _LAST_FUSED:
        return _fused_count(lv, m, k, offsets, degree, pool, conn, cmp, r, b_slot, b_ptr, b_partner, b_rank,
                            cand, width, cnt, dep, work, side)
    if last_two == _LAST_MEMO:
        return _memo_count(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                           b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                           cand, width, cnt, ptr, order, out, work, dep, fresh, paths, bits, memo, side)
    return _collapsed_count(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                            b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                            cand, width, cnt, ptr, order, out, work, dep, fresh, paths, bits)


# How a counting run of a `memo_plans` plan ends its tasks (kernel side only: such a plan's
# `PlanTable.last_two` is LAST_EACH, which listing keeps).
_LAST_MEMO = 3
# The memo of `_memo_count`: an open-addressing table of at most this many slots (a power of
# two), filled to half at most (past that, sizes are computed and not stored).  Vertex ids are
# spread over the slots by an odd multiplier, so neighbouring ids do not form probe runs.
_MEMO_MAX_SLOTS = 1 << 16
_MEMO_HASH = 2654435761


@njit(**_INNER)
def _clear_memo(memo):
    """Empty the memo (`_memo_count`): unset the slots its used list names."""
    slots = memo.shape[1] - 1
    for i in range(memo[2, slots]):
        memo[0, memo[2, i]] = -1
    memo[2, slots] = 0


@njit(**_INNER)
def _in_seed_part(last, m, offsets, degree, pool, conn, cmp, r, b_slot, b_ptr, b_partner, b_rank, x):
    """Whether x passes every test of the last level's set that involves only the seed
    positions 0 and 1 (bounds, adjacency, batch ranks below r)."""
    for j in range(2):
        if (cmp[last, j] == 1 and x <= m[j]) or (cmp[last, j] == -1 and x >= m[j]):
            return False
        if conn[last, j] == 1:
            if not contains(pool, offsets[m[j]], degree[m[j]], x):
                return False
            rank = _batch_rank(b_slot, b_ptr, b_partner, b_rank, x, m[j])
            if rank >= 0 and rank < r:
                return False
    return True


# How a counting run of a `fused_plans` plan ends its tasks (kernel side only: such a plan's
# `PlanTable.last_two` is LAST_EACH, which listing keeps).
_LAST_FUSED = 4


@njit(**_INNER)
def _fused_count(lv, m, k, offsets, degree, pool, conn, cmp, r, b_slot, b_ptr, b_partner, b_rank, cand, width,
                 cnt, dep, work, side):
    """Matches completing every candidate w of level l = k-2 = 2 of a `fused_plans` plan, the
    last two levels in one pass per task.  With x the seed neighbour of the last level and L its
    row less the other seed vertex and less the vertices a changed pair of rank < r joins to x
    (the last level's seed part, tested once per task instead of once per w), the count is the
    number of pairs (w, z) in C x L with z adjacent to w, less those whose pair (w, z) changed at
    a rank below r.  Each w's row is scanned against a bit set of L (side[3 + width:], set here
    and cleared before returning), or x's row galloped through a w row more than
    _GALLOP_RATIO x longer.  (Scanning L's rows against a bit set of C instead, `_reverse_count`,
    when they are the shorter, was measured slower: listing L costs a search per member.)"""
    if cnt[lv] == 0:
        return 0
    s = 0 if conn[k - 1, 0] == 1 else 1
    x = m[s]
    xs, xd = offsets[x], degree[x]
    c0 = lv * width
    bits0 = 3 + width
    for i in range(xd):
        z = pool[xs + i]
        side[bits0 + (z >> 6)] |= np.int64(1) << (z & 63)
    o = m[1 - s]
    side[bits0 + (o >> 6)] &= ~(np.int64(1) << (o & 63))
    sx = b_slot[x]
    if sx >= 0:
        for e in range(b_ptr[sx], b_ptr[sx + 1]):
            if b_rank[e] < r:
                z = b_partner[e]
                side[bits0 + (z >> 6)] &= ~(np.int64(1) << (z & 63))
    total = 0
    for i in range(cnt[lv]):
        w = cand[c0 + i]
        ws, d = offsets[w], degree[w]
        if d > _GALLOP_RATIO * xd:
            q = 0
            for j in range(xd):
                z = pool[xs + j]
                q = _gallop(pool, ws, d, q, z)
                if q >= d:
                    break
                if pool[ws + q] == z and _has_bit(side, bits0, z):
                    total += 1
            work[0] += xd
            work[1] += xd
        else:
            total += _bits_count(pool, ws, d, side, bits0, work)
        sw = b_slot[w]
        if sw < 0:
            continue
        for e in range(b_ptr[sw], b_ptr[sw + 1]):
            z = b_partner[e]
            if b_rank[e] < r and _has_bit(side, bits0, z) and contains(pool, ws, d, z):
                total -= 1
    for i in range(xd):
        side[bits0 + (pool[xs + i] >> 6)] = 0
    side[bits0 + (o >> 6)] = 0
    work[0] += xd
    work[1] += cnt[lv]
    return total


# A memo plan's prefix is counted from the seed side (`_reverse_count`) when the rows it reads
# there (side[1]) are at most this many per level k-2 candidate: a candidate costs a memo probe
# or, the first time, a last-level call; a row element costs one bit probe.
_REVERSE_RATIO = 8


@njit(**_INNER)
def _seed_side(last, m, offsets, degree, pool, conn, cmp, r, b_slot, b_ptr, b_partner, b_rank, side, work):
    """The seed part L of the last level's set, once per task (`_reverse_count`): the members of
    its seed neighbours' rows (positions 0, 1) within its seed bounds, neither m[0] nor m[1],
    joined to no seed neighbour by a changed pair of rank < r; sorted, in side[3:], |L| in
    side[2], the sum of their degrees in side[1], side[0] = 1.  No seed neighbour: side[0] = 0."""
    anchor = -1
    for j in range(2):
        if conn[last, j] == 1 and (anchor < 0 or degree[m[j]] < degree[m[anchor]]):
            anchor = j
    if anchor < 0:
        side[0] = 0
        return
    a = m[anchor]
    n = 0
    rows = 0
    for i in range(degree[a]):
        z = pool[offsets[a] + i]
        if z == m[0] or z == m[1]:
            continue
        if not _in_seed_part(last, m, offsets, degree, pool, conn, cmp, r, b_slot, b_ptr, b_partner, b_rank,
                             z):
            continue
        side[3 + n] = z
        n += 1
        rows += degree[z]
    work[0] += degree[a]
    side[0] = 1
    side[1] = rows
    side[2] = n


@njit(**_INNER)
def _reverse_count(lv, m, offsets, degree, pool, r, b_slot, b_ptr, b_partner, b_rank, cand, width, cnt, dep,
                   work, side):
    """`_memo_count`'s sum for one prefix, from the seed side: with C the candidates w of level
    l = k-2 (less those matched since, when hoisted) and L the seed part (`_seed_side`) less
    m[2 .. l-1], the matches are the pairs (w, z) in C x L with z adjacent to w, less those
    whose pair (w, z) changed at a rank below r.  Each z's row is scanned against a bit set of
    C (side[3 + width:]), set here and cleared before returning."""
    c0 = lv * width
    bits0 = 3 + width
    skip = dep[lv] < lv - 1
    for i in range(cnt[lv]):
        w = cand[c0 + i]
        if skip and _matched_between(m, dep[lv] + 1, lv, w):
            continue
        side[bits0 + (w >> 6)] |= np.int64(1) << (w & 63)
    total = 0
    n = side[2]
    for i in range(n):
        z = side[3 + i]
        if not _matched_between(m, 2, lv, z):
            total += _bits_count(pool, offsets[z], degree[z], side, bits0, work)
    for i in range(cnt[lv]):
        w = cand[c0 + i]
        s = b_slot[w]
        if s < 0 or not _has_bit(side, bits0, w):
            continue
        for e in range(b_ptr[s], b_ptr[s + 1]):
            z = b_partner[e]
            if (b_rank[e] < r and contains(side, 3, n, z) and not _matched_between(m, 2, lv, z)
                    and contains(pool, offsets[w], degree[w], z)):
                total -= 1
    for i in range(cnt[lv]):
        side[bits0 + (cand[c0 + i] >> 6)] = 0
    work[1] += cnt[lv] + n
    return total


@njit(**_INNER)
def _memo_count(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                cand, width, cnt, ptr, order, out, work, dep, fresh, paths, bits, memo, side):
    """Matches completing every candidate w of level l = k-2, for a `memo_plans` plan.

    The last level's set S(w) (its candidates less the batch-excluded ones) depends on w and
    the seed positions 0, 1 only, so a task needs |S(w) minus m[0], m[1]| once per distinct
    w, whichever prefix m[2 .. l-1] meets it.  The memo holds it (memo[0]: keys, -1 empty;
    memo[1]: sizes; memo[2]: the used slots, their number in memo[2, -1]) until the task ends
    (`_clear_memo`).  A prefix's count for w is that size less its vertices m[2 .. l-1] in
    S(w); on a miss it is the last level's count for this prefix (`_extend`), and the memo
    gets that count plus those vertices.  With `paths & REVERSE_LAST`, a prefix whose
    candidates outnumber the seed side's rows enough is counted from that side instead
    (`_reverse_count`).
    """
    last = k - 1
    if paths & REVERSE_LAST:
        if side[0] < 0:
            _seed_side(last, m, offsets, degree, pool, conn, cmp, r, b_slot, b_ptr, b_partner, b_rank, side,
                       work)
        if side[0] == 1 and side[1] <= _REVERSE_RATIO * cnt[lv]:
            return _reverse_count(lv, m, offsets, degree, pool, r, b_slot, b_ptr, b_partner, b_rank,
                                  cand, width, cnt, dep, work, side)
    slots = memo.shape[1] - 1
    mask = slots - 1
    # Middle positions whose vertex passes S's seed-only tests.  Where level l is adjacent to
    # one, so is every w, by a pair of rank >= r (level l's own tests): it is in S(w).
    always = 0
    maybe = 0
    for i in range(2, lv):
        if _in_seed_part(last, m, offsets, degree, pool, conn, cmp, r, b_slot, b_ptr, b_partner, b_rank,
                         m[i]):
            if conn[lv, i] == 1:
                always += 1
            else:
                maybe |= 1 << i
    skip = dep[lv] < lv - 1
    c0 = lv * width
    total = 0
    misses = 0
    for i in range(cnt[lv]):
        w = cand[c0 + i]
        if skip and _matched_between(m, dep[lv] + 1, lv, w):
            continue
        inside = always
        if maybe != 0:
            for j in range(2, lv):
                if (maybe >> j) & 1 == 1 and contains(pool, offsets[w], degree[w], m[j]):
                    rank = _batch_rank(b_slot, b_ptr, b_partner, b_rank, w, m[j])
                    inside += rank < 0 or rank >= r
        h = (w * _MEMO_HASH) & mask
        while memo[0, h] != w and memo[0, h] >= 0:
            h = (h + 1) & mask
        if memo[0, h] == w:
            total += memo[1, h] - inside
            continue
        m[lv] = w
        found = _extend(last, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                        b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                        cand, width, cnt, ptr, order, out, 0, False, work, dep, fresh, paths, bits)
        total += found
        misses += 1
        used = memo[2, slots]
        if 2 * used < slots:
            memo[0, h] = w
            memo[1, h] = found + inside
            memo[2, used] = h
            memo[2, slots] = used + 1
    work[0] += cnt[lv]
    work[1] += cnt[lv] - misses
    return total

@njit(**_INNER)
def _collapsed_count(lv, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                     b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                     cand, width, cnt, ptr, order, out, work, dep, fresh, paths, bits):
    """Matches completing every candidate C of level l = k-2 when the last level's set S
    does not depend on position l: each w in C pairs with S minus the vertices matched
    at positions dep+1 .. l-1 minus w itself, so the sum is |C| * (|S| - clashes) - |C & S|."""
    ns = _extend(k - 1, m, k, offsets, degree, pool, conn, cmp, base, induced, r,
                 b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other,
                 cand, width, cnt, ptr, order, out, 0, False, work, dep, fresh, paths, bits)
    c0 = lv * width
    s0 = (k - 1) * width
    clashes = 0
    for j in range(dep[k - 1] + 1, lv):
        i = lower_bound(cand, s0, ns, m[j])
        if i < ns and cand[s0 + i] == m[j]:
            clashes += 1
    per_candidate = ns - clashes
    skip = dep[lv] < lv - 1
    n = 0
    common = 0
    q = 0
    for i in range(cnt[lv]):
        w = cand[c0 + i]
        if skip and _matched_between(m, dep[lv] + 1, lv, w):
            continue
        n += 1
        q = _gallop(cand, s0, ns, q, w)
        if q < ns and cand[s0 + q] == w:
            common += 1
    work[0] += cnt[lv]
    work[1] += n + lv - 1 - dep[k - 1]
    return n * per_candidate - common


@njit(cache=NRT_FREE)
def _run_chunk(c, n_chunks, counts, work, offsets, degree, pool, orders, conns, cmps, bases, deps, last_twos,
               k, induced, tu, tv, tr, tp, b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, width,
               out_offsets, out, emit, paths, swaps, seed_bits, memos, memo_slots, seq, shared2):
    """Tasks seq[c], seq[c + n_chunks], ... with one set of scratch buffers.  A plan p with
    swaps[p] != 0 runs a task's seed reversed when that puts the lower-degree endpoint at
    position 1 (swaps[p] = 1) or 0 (-1): the position whose row level 2 iterates
    (`PlanTable.seed_swap`).  A plan p with shared2[p] != 0 takes level 2's set from the task run just
    before when that one had such a plan, the same seed pair (either way round) and the same
    rank (`level2_shared`).  A plan with memos[p] != 0 ends its tasks by `_memo_count`, in a
    memo of memo_slots slots (a power of two; 0 when no plan has one); one with
    last_twos[p] = _LAST_FUSED by `_fused_count`."""
    cand = np.empty(k * width, dtype=np.int32)
    cnt = np.zeros(k, dtype=np.int64)
    pos = np.zeros(k, dtype=np.int64)
    ptr = np.zeros(k, dtype=np.int64)
    m = np.empty(k, dtype=np.int64)
    fresh = np.zeros(k, dtype=np.bool_)
    words = (offsets.shape[0] + 63) >> 6
    bits = np.zeros(_BIT_ROWS * (1 + words) if seed_bits else _BIT_ROWS, dtype=np.int64)
    bits[:_BIT_ROWS] = 0 if seed_bits else -1
    memo = np.full((3, memo_slots + 1), -1, dtype=np.int32)
    memo[2, memo_slots] = 0
    sided = memo_slots > 0 or (last_twos == _LAST_FUSED).any()
    side = np.zeros(3 + width + words if sided else 1, dtype=np.int64)
    side[0] = -1
    _run_tasks(c, n_chunks, counts, work[c], offsets, degree, pool, orders, conns, cmps, bases, deps,
               last_twos, k, induced, tu, tv, tr, tp, b_slot, b_ptr, b_partner, b_rank, iso_masks,
               check_other, width, out_offsets, out, emit, paths, swaps, memos, seq, shared2, cand, cnt, pos,
               ptr, m, fresh, bits, memo, side)


@njit(**_INNER)
def _run_tasks(c, n_chunks, counts, wk, offsets, degree, pool, orders, conns, cmps, bases, deps, last_twos,
               k, induced, tu, tv, tr, tp, b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, width,
               out_offsets, out, emit, paths, swaps, memos, seq, shared2, cand, cnt, pos, ptr, m, fresh, bits,
               memo, side):
    """`_run_chunk`'s task loop over the scratch buffers it allocated.  Compiled without
    reference counting (`_INNER`): the per-task views of the plan arrays (orders[p], ...) and
    the calls they are passed to would otherwise cost an atomic increment and decrement per
    array and task, measured at half of a triangle task's time."""
    held = False  # cand[2 * width:] holds level 2's set of the seed pair (held_a, held_b), rank held_r
    held_a = held_b = held_r = -1
    triangles = k == 3 and paths & SET_COUNT != 0 and not emit and not check_other and not induced
    for i in range(c, tu.shape[0], n_chunks):
        t = seq[i]
        p = tp[t]
        u, v = tu[t], tv[t]
        if reverses_seed(swaps[p], degree[u], degree[v]):
            u, v = v, u
        a, b = min(u, v), max(u, v)
        reuse = held and shared2[p] != 0 and a == held_a and b == held_b and tr[t] == held_r
        if not reuse:
            cnt[2] = -1
        if triangles and conns[p, 2, 0] == 1 and conns[p, 2, 1] == 1:
            counts[t] = _triangle_count(offsets, degree, pool, cmps[p], u, v, tr[t], b_slot, b_ptr, b_partner,
                                        b_rank, wk)
            continue
        last_two = _LAST_MEMO if memos[p] != 0 else last_twos[p]
        counts[t] = _search(offsets, degree, pool, orders[p], conns[p], cmps[p], bases[p], deps[p],
                            last_two, k, induced, u, v, tr[t], b_slot, b_ptr, b_partner, b_rank,
                            iso_masks, check_other, cand, width, cnt, pos, ptr, m, fresh, out, out_offsets[t],
                            emit, wk, paths, bits, memo, side, reuse)
        held = shared2[p] != 0 and cnt[2] >= 0
        held_a, held_b, held_r = a, b, tr[t]
        _clear_bits(m, 0, _BIT_ROWS, offsets, degree, pool, bits)
        if memos[p] != 0:
            _clear_memo(memo)
            side[0] = -1


@njit(parallel=True, cache=NRT_FREE)
def _run_parallel(offsets, degree, pool, orders, conns, cmps, bases, deps, last_twos, k, induced, tu, tv, tr,
                  tp, b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, width, out_offsets, out, emit,
                  paths, swaps, seed_bits, memos, memo_slots, seq, shared2, n_chunks):
    counts = np.zeros(tu.shape[0], dtype=np.int64)
    work = np.zeros((n_chunks, 2), dtype=np.int64)
    for c in prange(n_chunks):
        _run_chunk(c, n_chunks, counts, work, offsets, degree, pool, orders, conns, cmps, bases, deps,
                   last_twos, k, induced, tu, tv, tr, tp, b_slot, b_ptr, b_partner, b_rank, iso_masks,
                   check_other, width, out_offsets, out, emit, paths, swaps, seed_bits, memos, memo_slots,
                   seq, shared2)
    return counts, work


@njit(cache=NRT_FREE)
def _run_serial(offsets, degree, pool, orders, conns, cmps, bases, deps, last_twos, k, induced, tu, tv, tr,
                tp, b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, width, out_offsets, out, emit,
                paths, swaps, seed_bits, memos, memo_slots, seq, shared2):
    counts = np.zeros(tu.shape[0], dtype=np.int64)
    work = np.zeros((1, 2), dtype=np.int64)
    _run_chunk(0, 1, counts, work, offsets, degree, pool, orders, conns, cmps, bases, deps, last_twos, k,
               induced, tu, tv, tr, tp, b_slot, b_ptr, b_partner, b_rank, iso_masks, check_other, width,
               out_offsets, out, emit, paths, swaps, seed_bits, memos, memo_slots, seq, shared2)
    return counts, work


# Below this many tasks a parallel launch costs more than it saves.
PARALLEL_MIN_TASKS = 128


class EngineOptions(NamedTuple):
    """Switches of the count path, each on by default (off: the ablation baseline).

    set_count: a counted last level is the size of a set intersection, corrected for the
    few matched vertices and batch-excluded pairs in it (`_count_last`; a triangle task is one
    such intersection, `_triangle_count`), instead of a test of every candidate (env
    DELTAMATCH_CPU_SET_COUNT=0 turns it off).
    seed_swap: tasks of a plan whose seed may be reversed start from the lower-degree
    endpoint's row (`PlanTable.seed_swap`; env DELTAMATCH_CPU_SEED_SWAP=0 turns it off).
    seed_bits: levels >= 3 test membership in a long seed row through a bit set over the
    vertex ids, built once per task (`_seed_bits`), instead of searching or merging the row
    (DELTAMATCH_CPU_SEED_BITS=0).
    drive_short: a level whose candidates are a base level's set (`PlanTable.base`) walks a
    neighbour's row instead when the set is more than _GALLOP_RATIO times longer, galloping
    through the set (DELTAMATCH_CPU_DRIVE_SHORT=0).
    last_memo: a plan whose last level depends on level k-2 and the seed only (`memo_plans`)
    sizes that level once per task and level-k-2 vertex, not once per prefix (`_memo_count`;
    DELTAMATCH_CPU_LAST_MEMO=0).
    reverse_last: with last_memo, such a plan counts a prefix from the seed side (the rows of
    the last level's seed neighbours, against a bit set of level k-2's candidates) when that
    reads fewer elements (`_reverse_count`; DELTAMATCH_CPU_REVERSE_LAST=0).
    reuse_level2: where every plan's level 2 is the seed's common neighbours (`level2_shared`:
    the diamond), one thread runs a seed pair's tasks one after another and builds that set
    once for all of them (DELTAMATCH_CPU_REUSE_LEVEL2=0).
    fuse_last: a plan whose last level is level 2's row against a seed row (`fused_plans`:
    the 4-cycle, the diamond's outer-edge plans) counts its last two levels in one pass per
    task, each level-2 row against a bit set of the seed's part built once per task
    (`_fused_count`; DELTAMATCH_CPU_FUSE_LAST=0).
    formulas: a whole-graph count of the edge-induced diamond, 4-cycle or house is computed
    from per-edge triangles and oriented wedges (`cpu_formulas`) instead of a match run
    (DELTAMATCH_CPU_FORMULAS=0).
    Listing never uses these paths, so rows and their order are unaffected.  The build
    switch `NRT_FREE` (DELTAMATCH_CPU_NRT_FREE, read at import) is not one of these options.
    """

    set_count: bool = True
    seed_swap: bool = True
    seed_bits: bool = True
    drive_short: bool = True
    last_memo: bool = True
    reverse_last: bool = True
    reuse_level2: bool = True
    fuse_last: bool = True
    formulas: bool = True

    @classmethod
    def from_env(cls) -> EngineOptions:
        return cls(set_count=_env_switch("DELTAMATCH_CPU_SET_COUNT"),
                   seed_swap=_env_switch("DELTAMATCH_CPU_SEED_SWAP"),
                   seed_bits=_env_switch("DELTAMATCH_CPU_SEED_BITS"),
                   drive_short=_env_switch("DELTAMATCH_CPU_DRIVE_SHORT"),
                   last_memo=_env_switch("DELTAMATCH_CPU_LAST_MEMO"),
                   reverse_last=_env_switch("DELTAMATCH_CPU_REVERSE_LAST"),
                   reuse_level2=_env_switch("DELTAMATCH_CPU_REUSE_LEVEL2"),
                   fuse_last=_env_switch("DELTAMATCH_CPU_FUSE_LAST"),
                   formulas=_env_switch("DELTAMATCH_CPU_FORMULAS"))


# (memo_plans, level2_shared, fused_plans) per plan table, keyed by id(plans.order)
# and kept with that array, so a recycled id never matches: every batch counts with the same
# tables again.
_PLAN_EXTRAS: dict[int, tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
_PLAN_EXTRAS_KEPT = 64


def _plan_extras(plans: PlanTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    hit = _PLAN_EXTRAS.get(id(plans.order))
    if hit is not None and hit[0] is plans.order:
        return hit[1]
    if len(_PLAN_EXTRAS) >= _PLAN_EXTRAS_KEPT:
        _PLAN_EXTRAS.clear()
    extras = memo_plans(plans), level2_shared(plans), fused_plans(plans)
    _PLAN_EXTRAS[id(plans.order)] = (plans.order, extras)
    return extras


def level2_shared(plans: PlanTable) -> np.ndarray:
    """Per plan (int8): 1 when level 2 is adjacent to both seed positions with no bound on
    them, so its candidates are the seed's common neighbours less those a changed pair of rank
    < r joins to it: the same set for every such plan, either seed orientation.  All 0 unless
    k >= 4 and every plan of the table, two or more, has it: running a pair's tasks together
    interleaves the plans, which was measured to cost more than the shared set saves where
    other plans are in between (the house's first file-order batch: 0.093 -> 0.102 CPU s)."""
    none = np.zeros(plans.order.shape[0], dtype=np.int8)
    if plans.k < 4:
        return none
    level2 = np.concatenate([plans.conn[:, 2, :2] == 1, plans.cmp[:, 2, :2] == 0], axis=1).all(axis=1)
    return level2.astype(np.int8) if level2.shape[0] >= 2 and level2.all() else none


def fused_plans(plans: PlanTable) -> np.ndarray:
    """Per plan (int8): 1 when counting may end its tasks by `_fused_count`, else 0.

    That is an edge-induced plan with k = 4 ending LAST_EACH whose last level draws from
    adjacency rows (no base set), has no bounds and is adjacent to position 2 and to one seed
    position: its set for a level-2 vertex w is N(w) intersected with a part of that seed's row
    that depends on the seed alone (the memo plans' shape, `memo_plans`, with no middle
    positions).
    """
    fused = np.zeros(plans.order.shape[0], dtype=np.int8)
    if plans.induced or plans.k != 4:
        return fused
    for p in range(fused.shape[0]):
        conn, cmp = plans.conn[p, 3], plans.cmp[p, 3]
        fused[p] = (plans.last_two[p] == LAST_EACH and plans.base[p, 3] < 0 and conn[2] == 1
                    and conn[0] + conn[1] == 1 and not cmp.any())
    return fused


def _call(graph: GraphView, plans: PlanTable, tasks: TaskList, batch: BatchView,
          check_other: bool, out_offsets: np.ndarray, out: np.ndarray, emit: bool,
          work: np.ndarray | None, options: EngineOptions) -> np.ndarray:
    if batch.removals:
        if plans.induced:
            raise ValueError("a joint count (BatchView.joint) is for edge-induced plans")
        counts = np.zeros(tasks.size, dtype=np.int64)
        for index, part, view in _joint_sides(tasks, batch):
            counts[index] = _call(graph, plans, part, view, check_other, out_offsets[index], out, emit, work,
                                  options)
        return counts
    width = max(1, int(graph.degree.max(initial=0)))
    memos, shared2, fused = _plan_extras(plans)
    swaps = plans.seed_swap if options.seed_swap else np.zeros_like(plans.seed_swap)
    if not options.last_memo:
        memos = np.zeros_like(memos)
    last_twos = plans.last_two.astype(np.int64)
    if options.fuse_last and fused.any():
        last_twos[fused != 0] = _LAST_FUSED
    threads = numba.get_num_threads()
    serial = tasks.size < PARALLEL_MIN_TASKS or threads == 1
    if options.reuse_level2 and serial and shared2.any():
        # A seed pair's tasks of those plans one after another (a TaskList lists them plan by plan).
        seq = np.lexsort((shared2[tasks.plan] == 0, tasks.rank, np.maximum(tasks.u, tasks.v),
                          np.minimum(tasks.u, tasks.v)))
    else:
        shared2 = np.zeros_like(shared2)
        seq = np.arange(tasks.size)
    vertices = graph.offsets.shape[0]
    memo_slots = min(_MEMO_MAX_SLOTS, 1 << (2 * vertices - 1).bit_length()) if memos.any() else 0
    args = (graph.offsets, graph.degree, graph.pool, plans.order, plans.conn, plans.cmp,
            plans.base.astype(np.int64), plans.dep.astype(np.int64), last_twos,
            plans.k, plans.induced, tasks.u, tasks.v, tasks.rank, tasks.plan,
            batch.slot, batch.ptr, batch.partner, batch.rank, plans.iso_masks,
            check_other, width, out_offsets, out, emit,
            (SET_COUNT if options.set_count else 0) | (DRIVE_SHORT if options.drive_short else 0)
            | (REVERSE_LAST if options.reverse_last else 0),
            swaps, options.seed_bits, memos, memo_slots, seq, shared2)
    if serial:
        counts, chunk_work = _run_serial(*args)
    else:
        counts, chunk_work = _run_parallel(*args, min(tasks.size, 16 * threads))
    if work is not None:
        work += chunk_work.sum(axis=0)
    return counts


def _joint_sides(tasks: TaskList, batch: BatchView) -> list[tuple[np.ndarray, TaskList, BatchView]]:
    """A joint batch's (`BatchView.joint`) task indices, tasks and one-sided view per side.  The
    insertion tasks keep the ranks (every deletion is below them); the deletion tasks run with
    the ranks turned so that every insertion ranks below every deletion, which the rank rule
    alone then keeps out of their matches."""
    deletions = batch.removals
    insertions = batch.rank.shape[0] // 2 - deletions
    rank = batch.rank
    turned = np.where(rank >= deletions, rank - deletions, rank + insertions).astype(np.int32)
    removal = tasks.rank < deletions
    sides = []
    for index, view, shift in ((np.flatnonzero(removal), batch._replace(rank=turned, removals=0), insertions),
                               (np.flatnonzero(~removal), batch._replace(removals=0), 0)):
        part = tasks.take(index)
        sides.append((index, part._replace(rank=(part.rank + shift).astype(np.int32)), view))
    return sides


def count_tasks(graph: GraphView, plans: PlanTable, tasks: TaskList, batch: BatchView,
                check_other: bool = False, work: np.ndarray | None = None,
                options: EngineOptions | None = None) -> np.ndarray:
    """Matches found by each task (int64[T]); `check_other` drops induced matches that
    survive the batch (they are neither added nor removed).  When given, `work`
    (int64[2]) is incremented by [candidates read, membership probes + bound searches].
    `options` (default: `EngineOptions.from_env()`) changes the work, never the counts."""
    none = np.zeros((0, plans.k), dtype=np.int32)
    return _call(graph, plans, tasks, batch, check_other, np.zeros(tasks.size, np.int64), none, False, work,
                 options if options is not None else EngineOptions.from_env())


def list_tasks(graph: GraphView, plans: PlanTable, tasks: TaskList, batch: BatchView,
               counts: np.ndarray, check_other: bool = False, limit: int | None = None) -> np.ndarray:
    """The matches of each task as rows of internal vertex ids in pattern-vertex order.

    `counts` is what `count_tasks` returned for the same tasks: it fixes each task's rows.
    With `limit`, only the first `limit` of those rows are listed: tasks past them are not
    run, and the one they end in writes only its share (a hub task's millions of rows are not
    held to list a few of them).
    """
    offsets = np.zeros(tasks.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    total = int(counts.sum())
    n_rows = total if limit is None else min(total, limit)
    out = np.empty((n_rows, plans.k), dtype=np.int32)
    if n_rows < total:
        run = int(np.searchsorted(offsets, n_rows, side="left"))
        tasks, offsets = tasks.take(np.arange(run)), offsets[:run]
    _call(graph, plans, tasks, batch, check_other, offsets, out, True, None,
          EngineOptions(set_count=False, seed_swap=False, seed_bits=False, drive_short=False,
                        last_memo=False, reverse_last=False, reuse_level2=False, fuse_last=False))
    return out


@njit(cache=True)
def _canonical_row(rows, auts, out, i):
    best = 0
    k = rows.shape[1]
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


@njit(parallel=True, cache=True)
def _canonical(rows, auts):
    out = np.empty_like(rows)
    for i in prange(rows.shape[0]):
        _canonical_row(rows, auts, out, i)
    return out


@njit(cache=True)
def _canonical_serial(rows, auts):
    out = np.empty_like(rows)
    for i in range(rows.shape[0]):
        _canonical_row(rows, auts, out, i)
    return out


# Below this many row relabellings (rows x |Aut|, some tens of microseconds on one thread) a
# parallel launch costs more than it saves: on a loaded host waking the team took milliseconds.
_CANONICAL_PARALLEL_MIN = 1 << 16


def canonical_rows(rows: np.ndarray, automorphisms: np.ndarray) -> np.ndarray:
    """The listed form (SPEC §1) of each match row: the lexicographically smallest of
    its |Aut| relabellings (row[s[0]], ..., row[s[k-1]]), rows sorted."""
    if rows.shape[0] == 0:
        return rows
    serial = rows.shape[0] * automorphisms.shape[0] < _CANONICAL_PARALLEL_MIN or numba.get_num_threads() == 1
    canon = (_canonical_serial if serial else _canonical)(rows, automorphisms)
    return canon[np.lexsort(canon.T[::-1])]

"""Search primitives over sorted int rows, shared by every numba kernel of the project."""

from __future__ import annotations

from numba import njit


@njit(inline="always", cache=True)
def lower_bound(arr, start, length, x):
    """Index (relative to `start`) of the first of arr[start : start+length] that is >= x."""
    lo, hi = 0, length
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[start + mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(inline="always", cache=True)
def contains(arr, start, length, x):
    """Is x in the sorted arr[start : start+length]?"""
    i = lower_bound(arr, start, length, x)
    return i < length and arr[start + i] == x


@njit(inline="always", cache=True)
def adjacent(offsets, degree, pool, a, b):
    """Is b in row a?  Searches the shorter of the two rows (the graph is undirected)."""
    if degree[a] > degree[b]:
        a, b = b, a
    return contains(pool, offsets[a], degree[a], b)

"""Batched direct convolution of many lattice users: the exact levels of the sum engine.

A balanced tree whose levels convolve neighbouring users by shifts and adds, vectorized
over all the pairs of a level (``np.convolve`` semantics: every mass to a few ulps, no
cancellation). :mod:`pufferfish.lattice.sums` runs it to the root while it is cheap, and
below the tilted FFT levels of :mod:`pufferfish.lattice.tilted` otherwise. The derivation
and the accuracy are in docs/math/engine.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__: list[str] = []

#: direct levels of method="tilted" stop at this row length
TILTED_DIRECT_LENGTH = 32
#: direct levels of methods auto/direct go on, whatever a level costs, while they form rows of at most this length
EXACT_ROW_LENGTH = 33
#: shifts and adds of a direct level work on chunks of pairs of about this many bytes per operand
_DIRECT_CHUNK_BYTES = 1 << 18


def stack_rows(arrays: Sequence[np.ndarray], offs) -> tuple[np.ndarray, np.ndarray]:
    """Rows of equal length (shorter ones zero-padded at the end) and their offsets.

    Parameters
    ----------
    arrays : sequence of 1-D float arrays
        The pmfs, one per row.
    offs : array_like of int
        Their offsets.

    Returns
    -------
    rows : ndarray, shape (len(arrays), max length)
    offs : ndarray of int64
    """
    width = max(a.size for a in arrays)
    rows = np.zeros((len(arrays), width))
    for k, a in enumerate(arrays):
        rows[k, :a.size] = a
    return rows, np.asarray(offs, dtype=np.int64)


def _direct_pairs(cols: np.ndarray) -> np.ndarray:
    """Column-wise convolutions of columns 2k and 2k+1 of ``cols`` (length x count layout).

    Shifts and adds vectorized over the pairs, in chunks of pairs that fit in a cache
    (every sum is accumulated in the same order as without chunks: the same bits).
    """
    length, count = cols.shape
    pairs = count // 2
    if pairs >= length:
        out = np.zeros((2 * length - 1, pairs))
        step = max(16, _DIRECT_CHUNK_BYTES // (8 * length))
        tmp = np.empty((length, min(step, pairs)))
        for p0 in range(0, pairs, step):
            p1 = min(pairs, p0 + step)
            a = np.ascontiguousarray(cols[:, 2 * p0:2 * p1:2])
            b = np.ascontiguousarray(cols[:, 2 * p0 + 1:2 * p1:2])
            o = out[:, p0:p1]
            t = tmp[:, :p1 - p0]
            for i in range(length):
                np.multiply(a[i], b, out=t)
                o[i:i + length] += t
        return out
    out = np.empty((2 * length - 1, pairs))
    for k in range(pairs):
        out[:, k] = np.convolve(cols[:, 2 * k], cols[:, 2 * k + 1])
    return out


def columns(arrays: Sequence[np.ndarray], offs) -> tuple[np.ndarray, np.ndarray]:
    """The pmfs ``arrays`` as columns (length x count, zero padded at the end) and their offsets."""
    offs = np.asarray(offs, dtype=np.int64)
    sizes = np.fromiter(map(len, arrays), dtype=np.int64, count=len(arrays))
    width = int(sizes.max())
    if width == sizes.min():
        cols = np.concatenate(arrays).reshape(len(arrays), width).T.copy()
    else:
        cols = np.zeros((width, len(arrays)))
        for k, a in enumerate(arrays):
            cols[:a.size, k] = a
    return cols, offs


def _stops(length: int, count: int, max_work: float) -> bool:
    """Does the level that pairs ``count`` columns of ``length`` points exceed the budget ``max_work``?"""
    if max_work == 0.0:
        return length > TILTED_DIRECT_LENGTH
    return (count // 2) * length * length > max_work and 2 * length - 1 > EXACT_ROW_LENGTH


def direct_levels(cols: np.ndarray, offs: np.ndarray, max_work: float) -> tuple[np.ndarray, np.ndarray]:
    """Batched balanced-tree direct convolution of the users in ``cols`` while a level is cheap.

    ``max_work = 0`` stops at rows of 32 points; otherwise rows of up to
    :data:`EXACT_ROW_LENGTH` points are always formed (shifts and adds cost about as much
    as FFTs there, and exact rows can be tilted without loss).

    Parameters
    ----------
    cols : ndarray, shape (length, count)
        A user per column.
    offs : ndarray of int64, shape (count,)
        Their offsets.
    max_work : float
        The most multiply-adds a level may cost (``math.inf``: up to the root).

    Returns
    -------
    rows : ndarray, shape (count', length')
        The partial sums of the last level computed, a row each (zero padded at the end).
        A level pairs neighbours; an odd count is padded with the point mass at 0.
    offs : ndarray of int64
        Their offsets.
    """
    while cols.shape[1] > 1:
        length, count = cols.shape
        if _stops(length, count, max_work):
            break
        if count % 2:
            pad = np.zeros((length, 1))
            pad[0, 0] = 1.0
            cols = np.hstack([cols, pad])
            offs = np.append(offs, 0)
        cols = _direct_pairs(cols)
        offs = offs[0::2] + offs[1::2]
    return np.ascontiguousarray(cols.T), offs


def reaches_root(count: int, length: int, max_work: float) -> bool:
    """Would :func:`direct_levels` on ``count`` users of ``length`` points reach the root within ``max_work``?"""
    while count > 1:
        if _stops(length, count, max_work):
            return False
        count, length = (count + 1) // 2, 2 * length - 1
    return True


def direct_power(probs: np.ndarray, count: int) -> np.ndarray:
    """``probs``^{*count} by binary powering with ``np.convolve`` (every mass to a few ulps; no cancellation)."""
    result, base, k = None, probs, count
    while True:
        if k & 1:
            result = base if result is None else np.convolve(result, base)
        k >>= 1
        if not k:
            break
        base = np.convolve(base, base)
    return result

"""Sums of independent lattice users: the law of X = f(D) = sum_i D_i (paper 000, Section 3, eqs. 7-9).

Exact fractions while the problem is small (the transport plan and Delta* of Lemma 7
compare CDF values for equality), direct convolution for moderate sizes, and a tilted,
batched FFT for large systems (see :func:`sum_of_users`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from scipy import fft as sp_fft

from pufferfish.lattice.pmf import LatticePMF, check_sum_size

__all__ = ["convolve", "sum_of_users", "EXACT_MAX_WORK", "DIRECT_LEVEL_WORK", "TILT_FLOOR"]

#: the exact (fraction) convolution is kept while len(p) * len(q) stays below this
EXACT_MAX_WORK = 200_000
#: direct (np.convolve) below this many multiply-adds, FFT above
DIRECT_MAX_WORK = 5_000_000


def _exact_convolve(p: Sequence[Fraction], q: Sequence[Fraction]) -> tuple[Fraction, ...]:
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for j, b in enumerate(q):
                if b:
                    out[i + j] += a * b
    return tuple(out)


def convolve(p: LatticePMF, q: LatticePMF, *, method: str = "auto") -> LatticePMF:
    """The law of X + X' for independent X ~ p and X' ~ q.

    ``method``: ``"direct"`` (``np.convolve``, every entry to a few ulps, no cancellation),
    ``"fft"`` (``scipy.signal.fftconvolve``; negative round-off clipped, mass
    renormalized; absolute error about 1e-16 of the largest mass), ``"tilted"`` (FFT of
    exponentially tilted pmfs, every resolved mass to about 1e-10 relative, see
    :func:`sum_of_users`), or ``"auto"`` (direct while ``len(p) * len(q)`` is below 5e6,
    tilted above). Exact fractions are propagated while ``len(p) * len(q)`` is below
    :data:`EXACT_MAX_WORK`.
    """
    check_sum_size([p, q], name="convolve(p, q)")
    work = p.probs.size * q.probs.size
    if method == "auto":
        method = "direct" if work <= DIRECT_MAX_WORK else "tilted"
    if method == "direct":
        probs, offset = np.convolve(p.probs, q.probs), p.offset + q.offset
    elif method == "fft":
        from scipy import signal   # imported here: scipy.signal costs ~0.5 s of start-up per workflow job
        probs, offset = signal.fftconvolve(p.probs, q.probs), p.offset + q.offset
        np.clip(probs, 0.0, None, out=probs)
        probs /= probs.sum()
    elif method == "tilted":
        offset, probs = _tilted_sum(*_stack_rows([p.probs, q.probs], np.array([p.offset, q.offset])))
    else:
        raise ValueError(f"unknown convolution method {method!r}")
    exact = None
    if p.exact is not None and q.exact is not None and work <= EXACT_MAX_WORK:
        exact = _exact_convolve(p.exact, q.exact)
        probs, offset = np.array([float(f) for f in exact]), p.offset + q.offset
    return LatticePMF(offset, probs, exact)


def _tree_stays_exact(users: Sequence[LatticePMF]) -> bool:
    """Would the pairwise tree of :func:`convolve` keep exact fractions up to the root?"""
    if any(u.exact is None for u in users):
        return False
    sizes = np.fromiter((u.probs.size for u in users), dtype=np.int64, count=len(users))
    while sizes.size > 1:
        a, b = sizes[0:-1:2], sizes[1::2]
        if np.any(a * b > EXACT_MAX_WORK):
            return False
        sizes = np.concatenate((a + b - 1, sizes[-1:] if sizes.size % 2 else sizes[:0]))
    return True


def sum_of_users(users: Sequence[LatticePMF], *, method: str = "auto") -> LatticePMF:
    """The law of the sum of independent users (Section 3: f(D) = sum_i D_i).

    Small systems (at most :data:`SMALL_SYSTEM` users, or any system whose sum stays
    exact) are convolved pair by pair in a balanced tree with :func:`convolve`, exact
    fractions kept as long as they are cheap. Larger systems go through the batched
    engine, ``method``:

    * ``"auto"``: batched direct convolution (``np.convolve`` semantics: every mass to a
      few ulps, all users of a tree level at once) while a level costs at most
      :data:`DIRECT_LEVEL_WORK` multiply-adds, then the tilted FFT (below);
    * ``"direct"``: batched direct convolution up to the root, whatever it costs;
    * ``"tilted"``: direct only while the partial sums are at most 32 points long, tilted
      FFT above (the FFT path, also where direct would be cheap; for tests);
    * ``"fft"``: the pairwise tree of plain ``convolve(method="fft")`` (absolute error
      about 1e-16 of the largest mass: the tails are noise; kept as the naive baseline).

    Tilted FFT (accuracy at scale). A plain FFT has absolute error about 1e-16 of the
    largest mass, so a tail mass of 1e-12 would carry a relative error of 1e-4. For a tilt
    lambda the users p_k(x) e^{lambda x} / M_k(lambda) (in log space) sum, by FFT, to
    S_lambda(x) = S(x) e^{lambda x - K(lambda)}, K(lambda) = sum_k log M_k(lambda) (exact, from the
    users); S_lambda is accurate in relative terms where it is within
    :data:`TILT_WINDOW` of its own maximum, around its mean K'(lambda), and
    S(x) = S_lambda(x) exp(-lambda x + K(lambda)). Tilts are chosen outwards from lambda = 0, each
    by a Newton step on K'(lambda) = (edge of the resolved region) + 4.5 sd(lambda), so that
    the accurate windows overlap, until the resolved mass at the edge is below
    :data:`TILT_FLOOR` or the hull ends; every point keeps the estimate of the tilt where
    it is most accurate. Result: every mass above :data:`TILT_FLOOR` (1e-300, i.e. every
    mass float64 holds as a normal number) is within about 1e-10 relative of the exact sum
    (measured: 3e-11 against direct convolution, 10^3 and 10^4 users, tests/unit/test_scale.py).
    Masses that no tilt resolves (below the floor; or in a valley more than 1e13 below the
    log-concave envelope of the sum, which no exponential tilt can lift) are set to 0, so
    the hull of the result is the resolved part of the support; e.g. for 10^5 users on 5
    points the mathematical hull has 4e5 points but only about 3.5e4 carry a mass above
    1e-300 (0.01^100000 is not a float64). Within each tilt, partial sums are truncated to
    the entries above :data:`TILT_TRUNCATE` of their maximum, which keeps the FFT sizes near
    the width of the tilted distribution instead of the whole hull. A resolved sum that is
    convolved again by the tilted path (users with a few long alphabets, added after the
    others; ``convolve`` above 5e6 multiply-adds) misses the dropped masses below the floor:
    its masses within about 1e10 of the floor (below ~1e-290) can be off by more; direct
    convolution of a resolved sum R~ with a short user (a query prior) is exact for R~.
    """
    users = check_sum_size(users)  # a list of LatticePMF whose sum fits MAX_LATTICE_POINTS
    users = list(users)
    if not users:
        return LatticePMF.point(0)
    if method not in ("auto", "direct", "fft", "tilted"):
        raise ValueError(f"unknown convolution method {method!r}")
    if method == "fft" or len(users) <= SMALL_SYSTEM or (method == "auto" and _tree_stays_exact(users)):
        layer = users
        while len(layer) > 1:
            nxt = [convolve(layer[k], layer[k + 1], method=method) for k in range(0, len(layer) - 1, 2)]
            if len(layer) % 2:
                nxt.append(layer[-1])
            layer = nxt
        return layer[0]
    sizes = np.fromiter((u.probs.size for u in users), dtype=np.int64, count=len(users))
    wide = sizes > max(8, 4 * int(np.median(sizes)))
    if wide.any() and (~wide).sum() >= 2:
        # a few long alphabets: batch the short ones, then add the long ones (rows stay narrow)
        narrow = sum_of_users([u for u, w in zip(users, wide) if not w], method=method)
        return sum_of_users([narrow] + [u for u, w in zip(users, wide) if w], method=method)
    limit = {"auto": DIRECT_LEVEL_WORK, "direct": math.inf, "tilted": 0.0}[method]
    rows, offs = _direct_levels(users, limit)
    if rows.shape[0] == 1:
        return LatticePMF(int(offs[0]), rows[0])
    lo, probs = _tilted_sum(rows, offs)
    return LatticePMF(lo, probs)


# --------------------------------------------------------------------------------- batched engine
#: batched direct convolution while one tree level costs at most this many multiply-adds
DIRECT_LEVEL_WORK = 3e7
#: at most this many users are summed by the pairwise tree of :func:`convolve`
SMALL_SYSTEM = 64
#: masses below this are not resolved by the tilted FFT (set to 0)
TILT_FLOOR = 1e-300
#: a tilt's estimate counts as accurate where the tilted mass is >= this fraction of its maximum
TILT_WINDOW = 1e-5
#: an estimate below this fraction of its tilt's maximum is FFT round-off: unresolved (0)
TILT_NOISE = 1e-13
#: within a tilted tree, entries below this fraction of their row's maximum are dropped
TILT_TRUNCATE = 1e-15
#: at most this many tilts per sum (a guard; 10^5 users on 5 points need 9)
MAX_TILTS = 200
#: the Newton step puts the next tilt's mean this many of its sd beyond the resolved edge
_TILT_STEP_SD = 4.5
#: a Newton step changes the tilt by at most this much (near a hull end the sd vanishes)
_MAX_TILT_STEP = 8.0
#: direct levels of method="tilted" stop at this row length
_TILTED_DIRECT_LENGTH = 32


def _stack_rows(arrays: Sequence[np.ndarray], offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of equal length (shorter ones zero-padded at the end) and their offsets."""
    width = max(a.size for a in arrays)
    rows = np.zeros((len(arrays), width))
    for k, a in enumerate(arrays):
        rows[k, :a.size] = a
    return rows, np.asarray(offs, dtype=np.int64)


def _direct_pairs(cols: np.ndarray) -> np.ndarray:
    """Column-wise convolutions of columns 2k and 2k+1 of ``cols`` (length x count layout)."""
    length, count = cols.shape
    a, b = cols[:, 0::2], cols[:, 1::2]
    pairs = count // 2
    if pairs >= length:  # shifts and adds, vectorized over all pairs of the level
        out = np.zeros((2 * length - 1, pairs))
        for i in range(length):
            out[i:i + length] += a[i] * b
        return out
    out = np.empty((2 * length - 1, pairs))
    for k in range(pairs):
        out[:, k] = np.convolve(a[:, k], b[:, k])
    return out


def _direct_levels(users: Sequence[LatticePMF], max_work: float) -> tuple[np.ndarray, np.ndarray]:
    """Batched balanced-tree direct convolution of ``users`` while a level is cheap.

    Returns the partial sums of the last level computed as rows (count x length, zero
    padded at the end) and their offsets. A level pairs neighbours; an odd count is
    padded with the point mass at 0. ``max_work = 0`` stops at rows of 32 points.
    """
    arrays = [u.probs for u in users]
    offs = np.array([u.offset for u in users], dtype=np.int64)
    sizes = np.fromiter(map(len, arrays), dtype=np.int64, count=len(arrays))
    width = int(sizes.max())
    if width == sizes.min():
        cols = np.concatenate(arrays).reshape(len(arrays), width).T.copy()
    else:
        cols = np.zeros((width, len(arrays)))
        for k, a in enumerate(arrays):
            cols[:a.size, k] = a
    while cols.shape[1] > 1:
        length, count = cols.shape
        if max_work == 0.0:
            if length > _TILTED_DIRECT_LENGTH:
                break
        elif (count // 2) * length * length > max_work:
            break
        if count % 2:
            pad = np.zeros((length, 1))
            pad[0, 0] = 1.0
            cols = np.hstack([cols, pad])
            offs = np.append(offs, 0)
        cols = _direct_pairs(cols)
        offs = offs[0::2] + offs[1::2]
    return np.ascontiguousarray(cols.T), offs


def _tilt(logrows: np.ndarray, lam: float):
    """The lam-tilted rows: normalized tilted rows, log normalizers, means and variances (row coordinates)."""
    j = np.arange(logrows.shape[1], dtype=float)
    v = logrows + lam * j
    top = v.max(axis=1, keepdims=True)
    w = np.exp(v - top)
    s = w.sum(axis=1)
    mean = (w @ j) / s
    var = np.maximum((w @ (j * j)) / s - mean * mean, 0.0)
    w /= s[:, None]
    return w, top[:, 0] + np.log(s), mean, var


def _fft_tree(rows: np.ndarray, offs: np.ndarray) -> tuple[np.ndarray, int]:
    """Sum of the rows (each a pmf) by batched FFT levels; every level truncated at TILT_TRUNCATE."""
    while rows.shape[0] > 1:
        count, length = rows.shape
        if count % 2:
            pad = np.zeros((1, length))
            pad[0, 0] = 1.0
            rows = np.vstack([rows, pad])
            offs = np.append(offs, 0)
        size = 2 * length - 1
        nfft = sp_fft.next_fast_len(size, real=True)
        spec = sp_fft.rfft(rows, nfft, axis=1)
        out = sp_fft.irfft(spec[0::2] * spec[1::2], nfft, axis=1)[:, :size]
        offs = offs[0::2] + offs[1::2]
        np.maximum(out, 0.0, out=out)
        keep = out >= out.max(axis=1, keepdims=True) * TILT_TRUNCATE
        first = keep.argmax(axis=1)
        last = size - 1 - keep[:, ::-1].argmax(axis=1)
        width = int((last - first).max()) + 1
        if width < size:
            start = np.minimum(first, size - width)
            out = np.take_along_axis(out, start[:, None] + np.arange(width), axis=1)
            offs = offs + start
        rows = out
    return rows[0], int(offs[0])


class _Tilt(NamedTuple):
    """One tilted sum: S(x) = exp(logval[x - start]), accurate where score >= log(TILT_WINDOW)."""

    lam: float
    mean: float        # K'(lam), the mean of the tilted sum
    sd: float          # sqrt(K''(lam))
    start: int         # first lattice point of the (truncated) tilted sum
    logval: np.ndarray  # log S(x), through exp(-lam x + K(lam))
    score: np.ndarray   # log S_lam(x) - max log S_lam: the accuracy of each estimate
    acc_lo: int        # the accurate window (score >= log TILT_WINDOW)
    acc_hi: int


def _tilted_sum(rows: np.ndarray, offs: np.ndarray) -> tuple[int, np.ndarray]:
    """Sum of the pmfs in ``rows`` (offsets ``offs``) by tilted FFTs; returns (lo, probs).

    See :func:`sum_of_users` for the method and its accuracy.
    """
    with np.errstate(divide="ignore"):
        logrows = np.log(rows)
    base = int(offs.sum())                     # x = base + J, J the index in the sum of the rows
    nonzero = rows > 0
    hull_lo = base + int(nonzero.argmax(axis=1).sum())
    hull_hi = base + int((rows.shape[1] - 1 - nonzero[:, ::-1].argmax(axis=1)).sum())
    tilts: list[_Tilt] = []

    def run(lam: float) -> _Tilt:
        w, c, mean, var = _tilt(logrows, lam)
        row, off = _fft_tree(w, offs.copy())
        with np.errstate(divide="ignore"):
            lr = np.log(row)
        score = lr - lr.max()
        logval = lr - lam * np.arange(off - base, off - base + row.size, dtype=float) + math.fsum(c)
        accurate = np.flatnonzero(score >= math.log(TILT_WINDOW))
        tilt = _Tilt(lam, base + math.fsum(mean), math.sqrt(math.fsum(var)), off, logval, score,
                     off + int(accurate[0]), off + int(accurate[-1]))
        tilts.append(tilt)
        return tilt

    def resolved_log_mass(x: int) -> float:
        best, value = -math.inf, -math.inf
        for t in tilts:
            k = x - t.start
            if 0 <= k < t.logval.size and t.score[k] > best:
                best, value = t.score[k], t.logval[k]
        return value

    center = run(0.0)
    floor = math.log(TILT_FLOOR)
    for direction in (1, -1):
        last = center
        edge = center.acc_hi if direction > 0 else center.acc_lo
        while len(tilts) < MAX_TILTS:
            if (edge >= hull_hi if direction > 0 else edge <= hull_lo) or resolved_log_mass(edge) < floor:
                break
            # Newton step on K'(lam) = edge +- 4.5 sd, shrunk until the windows touch
            target = edge + direction * _TILT_STEP_SD * last.sd
            step = (target - last.mean) / max(last.sd ** 2, 1e-300)
            step = max(-_MAX_TILT_STEP, min(_MAX_TILT_STEP, step))
            while True:
                t = run(last.lam + step)
                touches = t.acc_lo <= edge + 1 if direction > 0 else t.acc_hi >= edge - 1
                if touches or len(tilts) >= MAX_TILTS:
                    break
                step /= 2.0
            far = t.acc_hi if direction > 0 else t.acc_lo
            if (far <= edge) if direction > 0 else (far >= edge):
                break                          # no progress: the hull ends here
            last, edge = t, far
    lo = min(t.start for t in tilts)
    hi = max(t.start + t.logval.size for t in tilts)
    best = np.full(hi - lo, -np.inf)
    value = np.full(hi - lo, -np.inf)
    for t in tilts:                            # every point keeps its most accurate estimate
        sl = slice(t.start - lo, t.start - lo + t.logval.size)
        better = t.score > best[sl]
        best[sl][better] = t.score[better]
        value[sl][better] = t.logval[better]
    resolved = (best >= math.log(TILT_NOISE)) & (value >= math.log(TILT_FLOOR))
    probs = np.zeros(hi - lo)
    with np.errstate(over="ignore", under="ignore"):
        probs[resolved] = np.exp(np.minimum(value[resolved], 0.0))
    a, b = max(hull_lo - lo, 0), min(hull_hi - lo + 1, hi - lo)
    return lo + a, probs[a:b]

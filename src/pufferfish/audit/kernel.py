"""Sums of a lattice pmf against the two-sided exponential kernel e^(-|k - x| rate), in log space.

At the lattice points k, sum_x P(x) e^(-|k - x| rate) is the density of X + Laplace(1 / rate)
(times 2 / rate) and the pmf of X + G, G two-sided geometric with ratio e^(-rate) (times
(1 + e^-rate) / (1 - e^-rate)): the Laplace and geometric audits on lattice priors rest on it.
It splits into one-sided sums F(k) = sum_{x<=k} P(x) e^(-(k-x) rate) and
H(k) = sum_{x>=k} P(x) e^(-(x-k) rate), each a linear recursion, computed in time and memory
linear in the support (blocks of at most 256 points, cumulative sums in linear space scaled by
the block's maximum, block ends carried in log space): neither overflow nor underflow for any
rate > 0 or support size, rounding about 1e-16 of the magnitude of the log sums
(docs/math/paper000-multiuser.md, "The exact privacy loss").

These are the audit package's internal helpers: they take validated values (``logp`` a float
array of log masses, -inf for 0; ``rate`` finite and > 0).
"""

from __future__ import annotations

import numpy as np

__all__ = ["log_kernel_sums", "one_sided_sums", "log_forward", "logaddexp", "nearest_sums", "NEAREST_RATE",
           "scan_block", "SCAN_MAX_BLOCK"]

#: from this rate on, :func:`nearest_sums` is exact: a term one point further than another is below
#: e^-800 of it, and masses of 1e-300 to 1 differ by at most e^691
NEAREST_RATE = 800.0

#: block length cap of the reference recursion: within a block the re-anchored exponents stay below this
_BLOCK_EXPONENT = 1.0e4
#: exponent cap of the carry recursion between scan blocks
_CARRY_EXPONENT = 1.0e3
#: within a scan block the exponents i / theta stay below this
_SCAN_EXPONENT = 64.0
#: scan blocks shorter than this fall back to the plain blocked recursion
_SCAN_MIN_BLOCK = 8
#: scan blocks are at most this long (the rows of a block are a Python loop)
_SCAN_MAX_BLOCK = 256


#: the longest scan block (:func:`scan_block`)
SCAN_MAX_BLOCK = _SCAN_MAX_BLOCK


def scan_block(n: int, rate: float) -> int | None:
    """The block length of the blocked scans of :func:`log_kernel_sums` and :func:`one_sided_sums` on
    ``n`` points at ``rate``, or None where they take the plain recursion (:func:`log_forward`)."""
    block = int(min(n, _SCAN_MAX_BLOCK, _SCAN_EXPONENT / rate)) if rate > 0 else min(n, _SCAN_MAX_BLOCK)
    return None if block < _SCAN_MIN_BLOCK or n < 4 * _SCAN_MIN_BLOCK else block


def log_forward(logp: np.ndarray, rate: float, *, exponent: float = _BLOCK_EXPONENT,
                min_block: int = 64) -> np.ndarray:
    r"""log F(k), F(k) = sum_{x<=k} P(x) exp(-(k-x) rate), for k = 0..n-1, in log space.

    The reference recursion: blocks of at least ``min_block`` points, within a block
    ``numpy.logaddexp.accumulate`` of logP + i rate (exponents below ``exponent``).

    Parameters
    ----------
    logp : numpy.ndarray
        :math:`\log P(x)` at the lattice points :math:`0, \dots, n - 1` (1-D; ``-inf`` for no mass).
    rate : float
        The decay per lattice step, :math:`\ge 0` (``1 / theta`` for Laplace noise).
    exponent : float
        Within a block the exponents stay below this.
    min_block : int
        The smallest block.

    Returns
    -------
    numpy.ndarray
        :math:`\log F(k)` for :math:`k = 0, \dots, n - 1`.
    """
    n = logp.size
    out = np.empty(n)
    block = int(max(min_block, min(n, exponent / rate))) if rate > 0 else n
    block = max(block, 1)
    carry = -np.inf
    for start in range(0, n, block):
        seg = logp[start:start + block]
        j = np.arange(seg.size, dtype=float)
        # within the block: log sum_{i<=j} P(s+i) e^{-(j-i) rate} = -j rate + LSE_i(logP + i rate)
        inner = np.logaddexp.accumulate(seg + j * rate) - j * rate
        out[start:start + seg.size] = np.logaddexp(inner, carry - (j + 1.0) * rate)
        carry = out[start + seg.size - 1]
    return out


def logaddexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    r"""log(e^a + e^b) elementwise (``numpy.logaddexp`` has no vectorized loop; this is 5x faster).

    Parameters
    ----------
    a, b : numpy.ndarray
        Arrays of one shape (``-inf`` allowed).

    Returns
    -------
    numpy.ndarray
        :math:`\log(e^a + e^b)`, ``-inf`` where both are ``-inf``.
    """
    top = np.maximum(a, b)
    with np.errstate(invalid="ignore"):
        gap = np.abs(a - b)                            # nan where both are -inf
    gap[np.isnan(gap)] = np.inf
    np.negative(gap, out=gap)
    np.exp(gap, out=gap)
    np.log1p(gap, out=gap)
    gap += top
    return gap


def _block_scans(seqs: np.ndarray, rate: float, block: int) -> np.ndarray:
    """log F of every row of ``seqs`` (m x N, N a multiple of ``block``), in the transposed layout.

    Returns a (block, m N/block) array: column c holds block c (rows of ``seqs`` one after
    the other), entry (i, c) the point c*block + i. Within a block, F(s+i) =
    e^{-i rate} (sum_{i'<=i} P(s+i') e^{i' rate} + e^{-rate} F(s-1)): the sum is a cumulative
    sum down the rows in linear space, scaled by the column maximum of logP + i' rate
    (exponents within [-650, 0]; a column whose first partial sum is below 1e-280 of its
    maximum is redone exactly in log space); the carry F(s-1) comes from the recursion on
    the block ends (:func:`log_forward`, rate * block).
    """
    m, total = seqs.shape
    nb = total // block
    cols = m * nb
    steps = np.arange(block, dtype=float) * rate
    view = seqs.reshape(cols, block).T
    x = np.empty((block, cols))
    np.add(view, steps[:, None], out=x)
    top = x.max(axis=0)                                # -inf for an empty block
    x -= np.where(np.isfinite(top), top, 0.0)
    np.exp(x, out=x)
    rows = list(x)
    for prev, row in zip(rows, rows[1:]):              # cumulative sums, vectorized over blocks
        np.add(prev, row, out=row)
    bad = np.flatnonzero(((x > 0.0) & (x < 1e-280)).any(axis=0))
    with np.errstate(divide="ignore"):
        end_local = np.log(x[-1]) + top - steps[-1]    # log of the in-block sum at the block end
    exact = None
    if bad.size:
        exact = np.logaddexp.accumulate(view[:, bad] + steps[:, None], axis=0) - steps[:, None]
        end_local[bad] = exact[-1]
    ends = end_local.reshape(m, nb)
    carry = np.empty((m, nb))                          # log F(s - 1) of every block
    carry[:, 0] = -np.inf
    for r in range(m):
        carry[r, 1:] = log_forward(ends[r], rate * block, exponent=_CARRY_EXPONENT, min_block=16)[:-1]
    carry = carry.reshape(cols) - rate
    scale = np.maximum(top, carry)
    scale[~np.isfinite(scale)] = 0.0                   # nothing so far: every sum is 0
    with np.errstate(under="ignore"):
        x *= np.exp(top - scale)                       # in-block and carried parts on one scale
        x += np.exp(carry - scale)
    with np.errstate(divide="ignore"):
        np.log(x, out=x)
    x += scale
    x -= steps[:, None]
    if bad.size:
        x[:, bad] = logaddexp(exact, carry[bad][None, :] - steps[:, None])
    return x


def log_kernel_sums(logp: np.ndarray, rate: float) -> np.ndarray:
    r"""log sum_x P(x) e^{-|k-x| rate} at every lattice point k, for every row of ``logp`` (m x n).

    Parameters
    ----------
    logp : numpy.ndarray
        An m x n array, a row of :math:`\log P(x)` per prior (``-inf``: no mass).
    rate : float
        Kernel decay :math:`\ge 0` per lattice step.

    Returns
    -------
    numpy.ndarray
        The m x n two-sided log sums.

    Raises
    ------
    ValueError
        ``logp`` not two-dimensional (the caller validates everything else).
    """
    m, n = logp.shape
    block = int(min(n, _SCAN_MAX_BLOCK, _SCAN_EXPONENT / rate)) if rate > 0 else min(n, _SCAN_MAX_BLOCK)
    if block < _SCAN_MIN_BLOCK or n < 4 * _SCAN_MIN_BLOCK:
        out = np.empty((m, n))
        for r in range(m):
            log_f = log_forward(logp[r], rate, exponent=_CARRY_EXPONENT)
            log_b = log_forward(logp[r, ::-1], rate, exponent=_CARRY_EXPONENT)[::-1]
            log_g = np.concatenate((log_b[1:] - rate, [-np.inf]))
            out[r] = logaddexp(log_f, log_g)
        return out
    nb = -(-n // block)
    total = nb * block
    seqs = np.full((2 * m, total), -np.inf)
    seqs[:m, :n] = logp                                # forward: F(k) = sum_{x<=k}
    # backward, as a forward scan of the reversed masses shifted by one point, padded at
    # the front: its point total-1-k holds G(k) = sum_{x>k} P(x) e^{-(x-k) rate}
    seqs[m:, total - n + 1:] = logp[:, :0:-1] - rate
    scans = _block_scans(seqs, rate, block)
    out = np.empty((m, n))
    for r in range(m):
        fwd = scans[:, r * nb:(r + 1) * nb]
        bwd = scans[:, (m + r) * nb:(m + r + 1) * nb][::-1, ::-1]
        out[r] = logaddexp(fwd, bwd).T.reshape(total)[:n]
    return out


def _log_forward_rows(seqs: np.ndarray, rate: float) -> np.ndarray:
    """log F of every row of ``seqs`` (m x n): F(k) = sum_{x<=k} P(x) e^{-(k-x) rate} (the scans above)."""
    m, n = seqs.shape
    block = int(min(n, _SCAN_MAX_BLOCK, _SCAN_EXPONENT / rate)) if rate > 0 else min(n, _SCAN_MAX_BLOCK)
    if block < _SCAN_MIN_BLOCK or n < 4 * _SCAN_MIN_BLOCK:
        return np.array([log_forward(row, rate, exponent=_CARRY_EXPONENT) for row in seqs])
    nb = -(-n // block)
    total = nb * block
    padded = np.full((m, total), -np.inf)
    padded[:, :n] = seqs
    scans = _block_scans(padded, rate, block)
    return np.array([scans[:, r * nb:(r + 1) * nb].T.reshape(total)[:n] for r in range(m)])


def one_sided_sums(logp: np.ndarray, rate: float) -> tuple[np.ndarray, np.ndarray]:
    r"""F(k) = sum_{x<=k} P(x) e^{-(k-x) rate} and H(k) = sum_{x>=k} P(x) e^{-(x-k) rate}, rows of ``logp``.

    Parameters
    ----------
    logp : numpy.ndarray
        Log masses, one prior per row (m x n).
    rate : float
        Decay of the one-sided kernel per step, :math:`\ge 0`.

    Returns
    -------
    tuple of numpy.ndarray
        ``(F, H)`` in linear space, each m x n.

    Raises
    ------
    IndexError
        ``logp`` is one-dimensional (the caller passes an m x n array).
    """
    m = logp.shape[0]
    scans = _log_forward_rows(np.vstack((logp, logp[:, ::-1])), rate)
    with np.errstate(under="ignore"):
        return np.exp(scans[:m]), np.exp(scans[m:, ::-1])


def nearest_sums(logp: np.ndarray, rate: float) -> tuple[np.ndarray, np.ndarray]:
    r"""The kernel sums at a large ``rate`` (>= :data:`NEAREST_RATE`), factored: (d, log S) with
    sum_x P(x) e^(-|k - x| rate) = e^(-rate d(k)) S(k), d(k) the distance from k to the nearest atom
    of any row (an integer array) and S(k) the sum over the row's atoms nearest to k on either side
    with exponents -(|k - x| - d(k)) rate (every other term is below e^-800 of those, relative).

    Ratios of two rows are log S_P - log S_Q, exactly: the huge common exponent rate d(k) never
    enters them (where :func:`log_kernel_sums` would subtract two rounded numbers of that size).

    Parameters
    ----------
    logp : numpy.ndarray
        Rows of log masses; at least one row has an atom.
    rate : float
        A decay of at least :data:`NEAREST_RATE` per step.

    Returns
    -------
    tuple of numpy.ndarray
        ``(d, log_s)``: the integer distances (length n) and the m x n factored log sums.

    Raises
    ------
    ValueError
        ``logp`` is not two-dimensional.
    """
    m, n = logp.shape
    k = np.arange(n)
    union = np.flatnonzero(np.isfinite(logp).any(axis=0))
    j = np.searchsorted(union, k)
    left = np.where(j > 0, k - union[np.maximum(j - 1, 0)], np.iinfo(np.int64).max)
    right = np.where(j < union.size, union[np.minimum(j, union.size - 1)] - k, np.iinfo(np.int64).max)
    d = np.minimum(left, right)
    out = np.empty((m, n))
    for r in range(m):
        atoms = np.flatnonzero(np.isfinite(logp[r]))
        jl = np.searchsorted(atoms, k, side="right") - 1            # the nearest atom <= k
        jr = np.searchsorted(atoms, k, side="left")                 # the nearest atom >= k
        with np.errstate(invalid="ignore"):
            lo_term = np.where(jl >= 0, logp[r, atoms[np.maximum(jl, 0)]]
                               - rate * (k - atoms[np.maximum(jl, 0)] - d), -np.inf)
            hi_term = np.where(jr < atoms.size, logp[r, atoms[np.minimum(jr, atoms.size - 1)]]
                               - rate * (atoms[np.minimum(jr, atoms.size - 1)] - k - d), -np.inf)
        at_atom = (jl >= 0) & (jr < atoms.size) & (atoms[np.maximum(jl, 0)] == k)
        out[r] = np.where(at_atom, lo_term, logaddexp(lo_term, hi_term))
    return d, out

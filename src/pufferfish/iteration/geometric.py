r"""The step weights q_t = c^(T-t) of the noisy running mean (c = 1 - eta) and their sums, in closed form.

With the quadratic loss each step of noisy gradient descent contracts by c = 1 - eta, so the
release w_T weighs record t by q_t = c^(T-t) (:mod:`.exact`). Everything the exact audit needs
from q is a geometric sum; this module computes them without a power per step and without
cancellation for eta -> 0 (c -> 1) or eta -> 1 (c -> 0, c = 0 included). Derivations and the
accuracy of each: docs/math/iteration.md, section "Closed forms of the step weights".

* :func:`contraction_powers` -- c^h = exp(h log1p(-eta)), in blocks: exp(iB lc) exp(j lc), h = iB + j;
  relative error at most (h |log c| + 3) u (u = 2^-52), below np.power(1 - eta, h)'s h u / 2;
* :func:`step_weights` -- q_1..q_T; :func:`noise_gain` = sum q_t^2; :func:`weight_sum` = sum q_t;
* :func:`lag_sums` -- A_h = sum_t q_t q_{t+h} = c^h (1 - c^(2(T-h))) / (1 - c^2), so that
  q^T Sigma q = gamma(0) A_0 + 2 sum_h gamma(h) A_h for a stationary prior (one dot product);
* :func:`significant_lags` -- the lags with c^h >= e^-690 (beyond them A_h < 5e-300 A_0);
* :func:`discounted_cumsum` -- F_m = sum_{j<=m} c^(m-j) x_j, the convolution of x with the
  geometric kernel, O(T), by blocks of :data:`BLOCK` (one matrix product and a carry per block).
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import integer, real, reals
from pufferfish.errors import InvalidArgumentError

__all__ = ["BLOCK", "contraction_powers", "step_weights", "noise_gain", "weight_sum", "lag_sums",
           "significant_lags", "discounted_cumsum", "log_contraction"]

#: block length of :func:`discounted_cumsum` (a BLOCK x BLOCK matrix of powers per level)
BLOCK = 64
#: rows of blocks whose carries :func:`discounted_cumsum` adds at once (a 2 MB temporary)
CARRY_ROWS = 4096
#: c^h = exp((i B) lc) exp(j lc) with h = i B + j and B = POWER_BLOCK (:func:`contraction_powers`)
POWER_BLOCK = 1024
#: |log c| below which c = 1 - eta is 1 to double precision in every sum here (eta < 1e-290): G(n) = n,
#: c^h = 1, and expm1(2 log c) would be subnormal
TINY_LOG = 1e-290
#: h |log c| above which c^h < e^-690 (about 2.3e-300) is left out of the sums (:func:`significant_lags`)
SIGNIFICANT_EXPONENT = 690.0


def _eta(eta) -> float:
    return real(eta, name="eta", lo=0.0, hi=1.0, lo_open=True)


def log_contraction(eta: float) -> float:
    """log c = log1p(-eta) (relative error u / 2; -inf at eta = 1, where c = 0).

    Parameters
    ----------
    eta : float
        The step size, in (0, 1].

    Returns
    -------
    float
        log(1 - eta), computed without forming 1 - eta.

    Raises
    ------
    InvalidArgumentError
        ``eta`` outside (0, 1].
    """
    eta = _eta(eta)
    return -math.inf if eta == 1.0 else math.log1p(-eta)


def _powers(lc: float, start: int, count: int) -> np.ndarray:
    """c^(start + i), i = 0..count-1, c = e^lc (validated arguments).

    Always the same split h = i B + j (B = :data:`POWER_BLOCK`): c^h = exp((i B) lc) exp(j lc), so
    that a power does not depend on which range it was asked with.
    """
    if lc == -math.inf:
        out = np.zeros(count)
        if start == 0 and count:
            out[0] = 1.0
        return out
    if count == 0:
        return np.zeros(0)
    first, last = start // POWER_BLOCK, (start + count - 1) // POWER_BLOCK
    offset = start - first * POWER_BLOCK
    with np.errstate(under="ignore"):
        big = np.exp(np.arange(first, last + 1, dtype=float) * POWER_BLOCK * lc)
        if first == last:
            return big[0] * np.exp(np.arange(offset, offset + count, dtype=float) * lc)
        small = np.exp(np.arange(POWER_BLOCK, dtype=float) * lc)
        return np.multiply.outer(big, small).ravel()[offset:offset + count]


def contraction_powers(eta: float, count: int, *, start: int = 0) -> np.ndarray:
    """c^(start), c^(start + 1), ..., c^(start + count - 1) for c = 1 - eta (0^0 = 1).

    Computed as exp((i B) lc) exp(j lc) for h = i B + j, with lc = log1p(-eta) and
    B = :data:`POWER_BLOCK`: about count / B + B exponentials and one product per entry, and the
    same value of c^h whatever range it is asked with. The relative error of c^h is at
    most (h |lc| + 3) u, u = 2^-52 (the rounding of lc, of the two exponents and of the product),
    where c^h is a normal number; np.power(1 - eta, h) errs by up to h u / 2 because 1 - eta is
    rounded first (docs/math/iteration.md).

    Parameters
    ----------
    eta : float
        The step size, in (0, 1].
    count : int
        How many powers (>= 0).
    start : int, optional
        The first exponent (>= 0, default 0).

    Returns
    -------
    numpy.ndarray
        ``count`` floats (underflow gives 0).

    Raises
    ------
    InvalidArgumentError
        ``eta`` outside (0, 1], ``count`` or ``start`` negative or not an integer.
    """
    lc = log_contraction(eta)
    count = integer(count, name="count", lo=0)
    start = integer(start, name="start", lo=0)
    return _powers(lc, start, count)


def step_weights(size: int, eta: float) -> np.ndarray:
    """q_t = (1 - eta)^(T - t), t = 1..T (q_T = 1; 0^0 = 1 at eta = 1), by :func:`contraction_powers`.

    Parameters
    ----------
    size : int
        T >= 1.
    eta : float
        The step size, in (0, 1].

    Returns
    -------
    numpy.ndarray
        q_1..q_T.

    Raises
    ------
    InvalidArgumentError
        ``size`` < 1 or ``eta`` outside (0, 1].
    """
    size = integer(size, name="size", lo=1)
    return _powers(log_contraction(eta), 0, size)[::-1].copy()


def _geometric(size: int, log_ratio: float) -> float:
    """sum_{j<size} e^(j log_ratio) = expm1(size log_ratio) / expm1(log_ratio) (size if the ratio is 1 to
    double precision, where expm1 would be subnormal)."""
    if -log_ratio < TINY_LOG:
        return float(size)
    return math.expm1(size * log_ratio) / math.expm1(log_ratio)


def noise_gain(size: int, eta: float) -> float:
    """sum_{t=1}^T (1 - eta)^(2(T-t)) = expm1(2T log(1-eta)) / expm1(2 log(1-eta)) (1 at eta = 1).

    Parameters
    ----------
    size : int
        T >= 1.
    eta : float
        The step size, in (0, 1].

    Returns
    -------
    float
        sum_t q_t^2, the factor of sigma^2 in the variance of w_T.

    Raises
    ------
    InvalidArgumentError
        ``size`` < 1 or ``eta`` outside (0, 1].
    """
    size, eta = integer(size, name="size", lo=1), _eta(eta)
    return 1.0 if eta == 1.0 else _geometric(size, 2.0 * math.log1p(-eta))


def weight_sum(size: int, eta: float) -> float:
    """sum_{t=1}^T (1 - eta)^(T-t) = expm1(T log(1-eta)) / expm1(log(1-eta)) (1 at eta = 1).

    Parameters
    ----------
    size : int
        T >= 1.
    eta : float
        The step size, in (0, 1].

    Returns
    -------
    float
        sum_t q_t (relative error a few u: expm1 has no cancellation as eta -> 0).

    Raises
    ------
    InvalidArgumentError
        ``size`` < 1 or ``eta`` outside (0, 1].
    """
    size, eta = integer(size, name="size", lo=1), _eta(eta)
    return 1.0 if eta == 1.0 else _geometric(size, math.log1p(-eta))


def _significant(lc: float, size: int) -> int:
    if lc == -math.inf:
        return 1
    if -lc < TINY_LOG:
        return size
    return int(min(size, math.floor(SIGNIFICANT_EXPONENT / -lc) + 1))


def significant_lags(size: int, eta: float) -> int:
    """H = the number of lags h = 0..T-1 with h |log c| <= 690, i.e. c^h >= e^-690 (about 2.3e-300).

    Beyond them c^h < 2.3e-300, so A_h < 5e-300 A_0 (:func:`lag_sums`) and a weight q_t < 2.3e-300:
    the sums over the prior leave them out (an absolute change below T 5e-300 gamma(0)).

    Parameters
    ----------
    size : int
        T >= 1.
    eta : float
        The step size, in (0, 1].

    Returns
    -------
    int
        H, 1 <= H <= T (1 at eta = 1, where q = (0, ..., 0, 1)).

    Raises
    ------
    InvalidArgumentError
        ``size`` < 1 or ``eta`` outside (0, 1].
    """
    size = integer(size, name="size", lo=1)
    return _significant(log_contraction(eta), size)


def _lag_sums(lc: float, size: int, count: int) -> np.ndarray:
    """A_0..A_{count-1} (validated arguments, count <= size): A_h = c^h G(T - h), G(n) = sum_{j<n} c^(2j).

    G(n) = (1 - (c^n)^2) / (1 - c^2) where c^(2n) <= 1/2 (no cancellation: both c^n and the
    difference keep their digits), and -expm1(2 n lc) / -expm1(2 lc) for the n with c^(2n) > 1/2.
    """
    if lc == -math.inf:
        out = np.zeros(count)
        out[0] = 1.0
        return out
    if -lc < TINY_LOG:                                           # c^h = 1 and G(n) = n to double precision
        return size - np.arange(count, dtype=float)
    denominator = -math.expm1(2.0 * lc)
    out = _powers(lc, size - count + 1, count)[::-1].copy()     # c^(T - h), h = 0..count-1
    np.multiply(out, out, out=out)
    np.subtract(1.0, out, out=out)
    near = min(size, int(math.floor(0.5 * math.log(2.0) / -lc)))  # n <= near: c^(2n) > 1/2, expm1
    first = max(0, size - near)                                  # h >= first <=> n = T - h <= near
    if first < count:
        n = size - np.arange(first, count, dtype=float)
        out[first:] = -np.expm1(2.0 * n * lc)
    out /= denominator
    out *= _powers(lc, 0, count)                                 # c^h
    return out


def lag_sums(size: int, eta: float, *, count: int | None = None) -> np.ndarray:
    r"""A_h = sum_{t=1}^{T-h} q_t q_{t+h} = c^h (1 - c^(2(T-h))) / (1 - c^2), h = 0..count-1.

    q_t = c^(T-t), c = 1 - eta: A_h = c^h sum_{j=0}^{T-h-1} c^(2j) (the pairs (t, t + h) with
    j = T - t - h). Written stably (docs/math/iteration.md): 1 - c^(2n) from the blocked powers
    where c^(2n) <= 1/2, -expm1(2 n log1p(-eta)) where c^(2n) > 1/2 (eta tiny or h near T), and
    1 - c^2 as -expm1(2 log1p(-eta)); at c = 0 (eta = 1) A = (1, 0, ..., 0). Relative error at most
    about (h |log c| + 12) u. A_0 = :func:`noise_gain`. For a stationary prior
    q^T Sigma q = gamma(0) A_0 + 2 sum_{h>=1} gamma(h) A_h: one dot product, O(T).

    Parameters
    ----------
    size : int
        T >= 1.
    eta : float
        The step size, in (0, 1].
    count : int, optional
        How many lags, 1 <= count <= T (default T).

    Returns
    -------
    numpy.ndarray
        A_0..A_{count-1}.

    Raises
    ------
    InvalidArgumentError
        ``size`` < 1, ``eta`` outside (0, 1], ``count`` outside [1, T].
    """
    size = integer(size, name="size", lo=1)
    lc = log_contraction(eta)
    count = size if count is None else integer(count, name="count", lo=1, hi=size)
    return _lag_sums(lc, size, count)


def _discounted(x: np.ndarray, lc: float) -> np.ndarray:
    """F_m = sum_{j<=m} e^((m-j) lc) x_j (validated arguments, lc finite)."""
    n, width = x.size, BLOCK
    lags = np.subtract.outer(np.arange(width), np.arange(width))
    with np.errstate(under="ignore"):
        kernel = np.where(lags >= 0, np.exp(np.maximum(lags, 0) * lc), 0.0)   # kernel[i, j] = c^(i-j), j <= i
        if n <= width:
            return kernel[:n, :n] @ x
        rows, full = -(-n // width), n // width
        out = np.empty(rows * width)
        block = out.reshape(rows, width)
        np.matmul(x[:full * width].reshape(full, width), kernel.T, out=block[:full])   # the sums within each block
        if full < rows:
            tail = np.zeros(width)
            tail[:n - full * width] = x[full * width:]
            block[-1] = kernel @ tail
        ends = _discounted(block[:, -1].copy(), width * lc)   # F at each block's end: base c^B over the blocks
        carry = np.exp(np.arange(1, width + 1) * lc)          # F_{bB+i} = inner + c^(i+1) F_{bB-1}
        for lo in range(1, rows, CARRY_ROWS):                   # in slices: no T-sized temporary
            hi = min(rows, lo + CARRY_ROWS)
            block[lo:hi] += np.multiply.outer(ends[lo - 1:hi - 1], carry)
    return out[:n]


def discounted_cumsum(values, eta: float) -> np.ndarray:
    """F_m = sum_{j=0}^{m} c^(m-j) x_j, m = 0..n-1, c = 1 - eta: x convolved with the weights c^0, c^1, ...

    The recurrence F_m = c F_{m-1} + x_m computed exactly in blocks of :data:`BLOCK`: within a
    block one matrix product with the powers c^(i-j) (:func:`contraction_powers`' accuracy, not
    those of a rounded 1 - eta raised step after step), between blocks the same recurrence with
    base c^B on the block ends, recursively. O(n) time and memory. Each F_m is accurate to a
    few u times sum_j c^(m-j) |x_j| (plus (lag |log c|) u per term, as the powers).

    Parameters
    ----------
    values : array_like
        x_0..x_{n-1}, finite reals, n >= 1.
    eta : float
        The step size, in (0, 1] (eta = 1: F = x).

    Returns
    -------
    numpy.ndarray
        F_0..F_{n-1}.

    Raises
    ------
    InvalidArgumentError
        ``values`` empty, not one-dimensional or not finite; ``eta`` outside (0, 1].
    """
    x = values
    fast = (isinstance(x, np.ndarray) and x.dtype == np.float64 and x.ndim == 1 and x.size
            and math.isfinite(x.min()) and math.isfinite(x.max()))   # two reductions, no temporary
    if not fast:
        x = reals(values, name="values")
        if x.ndim != 1:
            raise InvalidArgumentError(f"values: must be one-dimensional, has shape {x.shape}")
    lc = log_contraction(eta)
    if lc == -math.inf:
        return x.copy()
    return _discounted(x, lc)

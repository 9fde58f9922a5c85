"""A certified interval for E[(w(Z_1) + ... + w(Z_n))^+], Z_i i.i.d. nu on finitely many atoms.

The tupling mechanism's delta is this expectation over n (Section "Tupling" of the docs page).
On a grid of step h (a power of 2) each value is split w = h q + r with q = floor(w_lo / h)
and r in [0, h): S = h Q + R, Q = sum q(Z_i) an integer walk, R = sum r(Z_i) in [0, R_max].

1. The law of Q is computed by n - 1 sparse convolutions (one shift per atom), exponentially
   tilted by theta (the saddle point of the sum at 0) so that the law is centred and its far
   tails, cut off at a relative threshold, carry a small mass D that is tracked. Every
   operation adds or multiplies non-negative floats: each entry is exact to a relative
   (1 + u)^(atoms x steps), no FFT, no cancellation.
2. At grid points s = h x >= 0, S >= 0 surely: E[S 1{hQ = s}] = s P(s) + E[R 1{hQ = s}] is
   exact (one more convolution, by exchangeability). Below -R_max, S < 0 surely. In the band
   between, the moments of R given hQ = s (up to the 4th, from the last four convolution
   powers, by exchangeability) bound E[S^+ 1{hQ = s}] from both sides
   (:mod:`pufferfish.distp.moment_bounds`).
3. The untilted law is P(s) = C^n e^(-theta s) x (tilted law); the truncated mass D enters
   the upper end through sup_s (s + R_max)^+ e^(-theta s) C^n, every rounding through relative
   factors stated in :func:`grid_positive_part`.

Internal: takes validated arrays (see :mod:`pufferfish.distp.sums`). Proofs in
``docs/math/paper003-distribution.md`` (section "Certified interval").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

from pufferfish.distp.moment_bounds import UNIT_ROUNDOFF, positive_part_bounds

__all__ = ["GridBounds", "GridTooLarge", "EXP_ULPS", "directed_float", "tilt_parameter", "chernoff_bound", "grid_positive_part"]

#: the largest error of exp and log (numpy's and libm's) assumed, in ulps (2u each); the measured
#: errors are below 1 ulp; every relative rounding factor below uses this
EXP_ULPS = 4
#: the moments of R given hQ = s: integer partitions of l = 1..4 (parts, number of index tuples of that pattern / n^(parts))
_PATTERNS = {1: (((1,), 1),), 2: (((2,), 1), ((1, 1), 1)), 3: (((3,), 1), ((2, 1), 3), ((1, 1, 1), 1)),
             4: (((4,), 1), ((3, 1), 4), ((2, 2), 3), ((2, 1, 1), 6), ((1, 1, 1, 1), 1))}


#: above the total every product of a moment sum that underflows can lose (at most 10^5 terms of < 2^-1022)
_UNDERFLOW = 1e-300
#: the 4th moments need the atoms^4 products of four steps; above this many, only the 2nd are used
_MAX_PATTERN_TERMS = 2_000_000


class GridTooLarge(Exception):
    """The window of the walk would exceed the allowed number of grid points (internal signal)."""


@dataclass(frozen=True)
class GridBounds:
    """lower <= E[S^+] <= upper, from a grid of step ``step`` whose widest window held ``points`` points.

    ``truncated`` is the part of ``upper`` that bounds the mass cut off the tails (and dropped
    atoms); ``theta`` the tilt.
    """

    lower: float
    upper: float
    step: float
    points: int
    truncated: float
    theta: float


def tilt_parameter(w: np.ndarray, nu: np.ndarray) -> float:
    """theta >= 0 with sum_j nu_j w_j e^(theta w_j) = 0 (the sum's saddle point at 0); 0 when E[w] >= 0.

    Requires max w > 0 when E[w] < 0. Any theta > 0 gives a valid certificate; this one centres
    the tilted walk at 0, where the band is.
    """
    top = float(np.max(w))

    def slope(theta: float) -> float:
        return float(np.sum(nu * w * np.exp(theta * (w - top))))

    if slope(0.0) >= 0.0:
        return 0.0
    hi = 1.0 / top
    while slope(hi) < 0.0:
        hi *= 2.0
    return brentq(slope, 0.0, hi, xtol=1e-12 * hi, rtol=1e-12)


def chernoff_bound(w_hi: np.ndarray, nu: np.ndarray, n: int, theta: float) -> float:
    """E[S^+] <= E[e^(theta S)] sup_s s e^(-theta s) = M(theta)^n / (e theta), rounded up (theta > 0)."""
    log_m = float(logsumexp(np.log(nu) + theta * w_hi))
    log_m += 4 * UNIT_ROUNDOFF * (abs(log_m) + float(np.max(np.abs(theta * w_hi)))) + 8 * UNIT_ROUNDOFF
    exponent = n * log_m - 1.0 - math.log(theta)
    return math.exp(exponent) * (1.0 + 2 * EXP_ULPS * UNIT_ROUNDOFF) * (1.0 + 1e-12) if exponent < 709 else math.inf


def directed_float(value: Fraction, *, up: bool) -> float:
    """The float next to ``value`` on the side ``up`` (above) or below: exact when representable."""
    out = float(value)
    if up and Fraction(out) < value:
        return math.nextafter(out, math.inf)
    if not up and Fraction(out) > value:
        return math.nextafter(out, -math.inf)
    return out


def _split(w_lo: np.ndarray, w_hi: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q = floor(w_lo / h) and the residuals w - h q, rounded down (of w_lo) and up (of w_hi), exactly."""
    q = np.floor(w_lo / step)
    h = Fraction(step)
    r_lo = np.array([max(directed_float(Fraction(a) - h * int(k), up=False), 0.0) for a, k in zip(w_lo, q)])
    r_hi = np.array([directed_float(Fraction(b) - h * int(k), up=True) for b, k in zip(w_hi, q)])
    return q.astype(np.int64), r_lo, r_hi


@dataclass(frozen=True)
class _Kernel:
    """The tilted step law on the grid: atom j moves the walk by q[j] with weight g[j] (floats)."""

    q: np.ndarray
    g: np.ndarray
    r_lo: np.ndarray
    r_hi: np.ndarray
    log_c: float
    eta: float            # |nu_j / g_j - C e^(-theta h q_j)| <= eta C e^(-theta h q_j) for every kept atom
    dropped: float        # an upper bound on the tilted weight of the dropped atoms (all of them)


def _kernel(w_lo, w_hi, nu, step: float, theta: float, floor: float) -> _Kernel:
    q, r_lo, r_hi = _split(w_lo, w_hi, step)
    exponent = np.log(nu) + theta * (step * q)          # h q exact (h a power of 2)
    log_c = float(logsumexp(exponent))
    log_g = exponent - log_c
    keep = log_g >= math.log(floor)
    g = np.array([math.exp(v) for v in log_g[keep]])
    # the exponent's rounding (log nu to EXP_ULPS ulps, the product, two sums) and exp's own error
    size = 1.0 + np.abs(theta * step * q[keep]) + abs(log_c) + np.abs(np.log(nu[keep]))
    eta = float(np.max(size)) * (2 * EXP_ULPS + 8) * UNIT_ROUNDOFF
    dropped = float(np.sum(np.exp(log_g[~keep]))) * (1.0 + 1e-12) + 1e-300 * np.count_nonzero(~keep)
    order = np.argsort(q[keep], kind="stable")
    return _Kernel(q[keep][order], g[order], r_lo[keep][order], r_hi[keep][order], log_c, eta, dropped)


def _step(cur: np.ndarray, kernel: _Kernel, weights: np.ndarray) -> np.ndarray:
    """sum_j weights[j] cur(. - q[j]) on the union of the shifted windows (offset q[0] from cur's)."""
    span = int(kernel.q[-1] - kernel.q[0])
    out = np.zeros(cur.size + span)
    scratch = np.empty(cur.size)
    for shift, weight in zip((kernel.q - kernel.q[0]).tolist(), weights.tolist()):
        np.multiply(cur, weight, out=scratch)
        window = out[shift:shift + cur.size]
        np.add(window, scratch, out=window)
    return out


def _walk(kernel: _Kernel, n: int, threshold: float, max_points: int) -> tuple[list, float]:
    """The tilted laws T_{n-1}, ..., T_{n-4} of Q (arrays, offsets) and the mass cut off their tails."""
    cur, low, cut = np.ones(1), 0, 0.0
    laws = [(cur, low)]
    chunk = 4 * int(kernel.q[-1] - kernel.q[0]) + 64
    for _ in range(n - 1):
        cur = _step(cur, kernel, kernel.g)
        low += int(kernel.q[0])
        if cur.size > max_points:
            raise GridTooLarge(cur.size)
        level = threshold * cur.max()
        first, last = _edge(cur, level, chunk), cur.size - _edge(cur[::-1], level, chunk)
        cut += float(np.sum(cur[:first])) + float(np.sum(cur[last:]))
        cur, low = cur[first:last], low + first
        laws = (laws + [(cur, low)])[-4:]
    return laws[::-1], cut


def _edge(values: np.ndarray, level: float, chunk: int) -> int:
    """The index of the first entry >= ``level``, scanning ``chunk`` entries at a time (the cut is near the edge)."""
    start = 0
    while start < values.size:
        hits = np.flatnonzero(values[start:start + chunk] >= level)
        if hits.size:
            return start + int(hits[0])
        start += chunk
    return values.size


def _sparse(parts: tuple, kernel: _Kernel, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The convolution of the sparse kernels (q_j, g_j r_j^part) over ``parts``: (offsets, weights), merged."""
    offsets, weights = np.zeros(1, dtype=np.int64), np.ones(1)
    for part in parts:
        offsets = (offsets[:, None] + kernel.q[None, :]).ravel()
        weights = (weights[:, None] * (kernel.g * r ** part)[None, :]).ravel()
        offsets, inverse = np.unique(offsets, return_inverse=True)
        weights = np.bincount(inverse, weights=weights)
    return offsets, weights


def _gather(law: tuple, offsets: np.ndarray, weights: np.ndarray, points: np.ndarray) -> np.ndarray:
    """sum_o weights[o] T(x - o) at each x of ``points`` (T is 0 off its window)."""
    values, low = law
    index = points[:, None] - offsets[None, :] - low
    inside = (index >= 0) & (index < values.size)
    return np.sum(np.where(inside, values[np.clip(index, 0, values.size - 1)], 0.0) * weights[None, :], axis=1)


def _band_moments(laws: list, kernel: _Kernel, r: np.ndarray, n: int, points: np.ndarray, order: int) -> np.ndarray:
    """E_T[R^l 1{Q = x}], l = 2..order, at ``points`` (rows 2..4; rows 0, 1 and those above order left 0)."""
    out = np.zeros((5, points.size))
    for power, patterns in _PATTERNS.items():
        if power < 2 or power > order:
            continue
        for parts, count in patterns:
            if len(parts) > min(n, len(laws)):
                continue                                   # fewer than len(parts) distinct draws
            tuples = count * math.perm(n, len(parts))
            offsets, weights = _sparse(parts, kernel, r)
            out[power] += tuples * _gather(laws[len(parts) - 1], offsets, weights, points)
    return out


def grid_positive_part(w_lo: np.ndarray, w_hi: np.ndarray, nu: np.ndarray, n: int, *, step: float, theta: float,
                       threshold: float, max_points: int) -> GridBounds:
    """lower <= E[(sum_{i<=n} w(Z_i))^+] <= upper for every w with w_lo <= w <= w_hi, Z_i i.i.d. nu.

    ``step`` h (a power of 2), ``theta`` >= 0 the tilt, ``threshold`` the relative level below
    which the tails of the walk are cut (their mass enters the upper end), ``max_points`` the
    widest window allowed (:class:`GridTooLarge` beyond). w_lo, w_hi clamped from below at
    -(n - 1) max(w_hi^+) (that changes no term) and nu > 0 on every atom are the caller's.
    Rounding: each entry of the walk is exact to (1 + u)^(atoms n); the kernel's tilt to
    (1 +- eta)^n; the moment sums to (1 + u)^(terms); exp to EXP_ULPS ulps.
    """
    kernel = _kernel(w_lo, w_hi, nu, step, theta, floor=threshold * 1e-3 / n)
    laws, cut = _walk(kernel, n, threshold, max_points)
    last, low = laws[0]
    rho_walk = (kernel.q.size + 2) * n * UNIT_ROUNDOFF
    sigma = math.fsum(kernel.g.tolist()) * (1.0 + 2 * UNIT_ROUNDOFF)
    tilt_up, tilt_down = (1.0 - kernel.eta) ** -n, (1.0 + kernel.eta) ** -n
    # the g-mass of the paths the walk lost (cut tails, dropped atoms), times sigma_g^4 >= what up to
    # four more kernel steps (the moments' patterns) can gather of it at one point
    grow = max(1.0, sigma) * tilt_up
    missing = (cut * (1.0 + rho_walk + last.size * UNIT_ROUNDOFF) * max(1.0, sigma) ** n * tilt_up
               + n * kernel.dropped * (grow + kernel.dropped) ** n) * grow ** 4
    r_max = n * float(np.max(kernel.r_hi))
    full = [_step(last, kernel, weights) for weights in (kernel.g, n * kernel.g * kernel.r_lo,
                                                         n * kernel.g * kernel.r_hi)]
    x = np.arange(full[0].size) + low + int(kernel.q[0])
    used = step * x > -r_max
    x, full = x[used], [row[used] for row in full]
    s = step * x
    scale = np.exp(n * kernel.log_c - theta * s)
    rho = 4 * UNIT_ROUNDOFF * (abs(n * kernel.log_c) + float(np.max(np.abs(theta * s), initial=0.0)) + 2) \
        + 2 * EXP_ULPS * UNIT_ROUNDOFF
    sure, band = x >= 0, x < 0
    certain_lo = math.fsum((scale[sure] * (s[sure] * full[0][sure] + full[1][sure])).tolist()) * tilt_down
    certain_hi = math.fsum((scale[sure] * (s[sure] * full[0][sure] + full[2][sure])).tolist()) * tilt_up
    band_lo, band_hi = _band(laws, kernel, n, x[band], s[band], [row[band] for row in full], r_max,
                             (tilt_down * (1.0 - rho_walk), tilt_up * (1.0 + rho_walk), missing))
    lower = (certain_lo * (1.0 - rho_walk) + math.fsum((scale[band] * band_lo).tolist())) * (1.0 - rho)
    upper = (certain_hi * (1.0 + rho_walk) + math.fsum((scale[band] * band_hi).tolist())) * (1.0 + rho)
    truncated = _worst_tail(theta, r_max, n * float(np.max(w_hi)), n * kernel.log_c) * missing * (1.0 + rho)
    return GridBounds(max(lower, 0.0), upper + truncated + _UNDERFLOW * 1e10, step, int(last.size), truncated, theta)


def _band(laws: list, kernel: _Kernel, n: int, x: np.ndarray, s: np.ndarray, full: list, r_max: float,
          factors: tuple) -> tuple[np.ndarray, np.ndarray]:
    """[lo, up] on E_g[(s + R)^+ 1{Q = x}] at the band points, from the moments of R there (tilted)."""
    down, up, missing = factors
    order = 4 if kernel.q.size ** 4 <= _MAX_PATTERN_TERMS else 2
    rho = (2 * kernel.q.size ** order + 64 + 8 * EXP_ULPS) * UNIT_ROUNDOFF
    intervals = []
    for r, first in ((kernel.r_lo, full[1]), (kernel.r_hi, full[2])):
        rows = _band_moments(laws, kernel, r, n, x, order)
        rows[0], rows[1] = full[0], first
        spill = (r_max ** np.arange(5))[:, None] * missing + _UNDERFLOW     # cut mass; products that underflowed
        intervals.append((rows * (down * (1.0 - rho)), rows * (up * (1.0 + rho)) + spill))
    return positive_part_bounds(s, r_max, intervals[0], intervals[1], order=order)


def _worst_tail(theta: float, r_max: float, top: float, log_cn: float) -> float:
    """sup over -R_max <= s <= top of (s + R_max) e^(-theta s) C^n: what a unit of lost tilted mass can add
    wherever it lands (the band's points outside the computed window included)."""
    if theta > 0 and 1.0 / theta - r_max < top:
        value = math.exp(theta * r_max - 1.0) / theta                       # at s = 1/theta - R_max
    else:
        value = (max(top, 0.0) + r_max) * (math.exp(-theta * top) if theta > 0 else 1.0)
    return value * math.exp(log_cn) * (1.0 + 1e-12)

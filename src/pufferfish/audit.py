"""Exact privacy loss of Laplace noise on lattice priors, and the tight calibration.

For priors P_i, P_j on the integer lattice and Y = X + N_theta (eq. 2), the privacy loss is

    L(theta) = sup over all real y of |log p_Y(y|s_i) / p_Y(y|s_j)|,

reported as its two directions: forward = sup_y log(p_i/p_j), backward = sup_y log(p_j/p_i),
L = max(forward, backward) (each direction is >= 0 since both densities integrate to 1).

Where the sup lies. Between consecutive lattice points k <= y <= k + 1 every density
p_Y(y) = (1/2theta) sum_x P(x) e^{-|y-x|/theta} has the form A e^{-y/theta} + B e^{y/theta}
with A = sum_{x<=k} P(x) e^{x/theta}, B = sum_{x>k} P(x) e^{-x/theta} (both >= 0, not both
0). So, with u = e^{2y/theta} (increasing in y), the ratio is (A_i + B_i u) / (A_j + B_j u):
a linear-fractional function of u whose denominator does not vanish on u > 0, hence
monotone on the interval; its sup and inf over [k, k+1] are at the end points. Left of
the smallest atom (and right of the largest) only one of A, B is non-zero and the ratio
is constant, equal to its value at that atom. The sup over all real y is therefore the
max over the lattice points between the extreme atoms of both priors: computed exactly,
not on a sampled grid.

Computation. At a lattice point k, p_Y(k) is proportional to F(k) + G(k) with
F(k) = sum_{x<=k} P(x) e^{-(k-x)/theta} and G(k) = sum_{x>k} P(x) e^{-(x-k)/theta}; the
forward recursion F(k) = P(k) + e^{-1/theta} F(k-1) and its backward twin run in log
space (``numpy.logaddexp.accumulate`` by blocks, re-anchored at each block so that no
exponent grows past about 1e4), in time linear in the support; neither overflow nor
underflow occurs for any theta > 0 or support size.

Monotonicity in theta (why bisection is valid). For theta_2 > theta_1 the Laplace
characteristic functions satisfy 1/(1 + theta_2^2 t^2) = 1/(1 + theta_1^2 t^2) * c(t) with
c(t) = r + (1 - r)/(1 + theta_2^2 t^2), r = (theta_1/theta_2)^2: c is the characteristic
function of W = 0 w.p. r, Laplace(theta_2) w.p. 1 - r. So N_{theta_2} = N_{theta_1} + W in
law with W independent: Y_2 is a post-processing of Y_1 and, by the data-processing
inequality for the max-divergence, L(theta_2) <= L(theta_1). L is non-increasing; the
smallest accepted theta is found by bisection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import ConfigError
from .lattice import LatticePMF
from .transport import plan_span

__all__ = [
    "PrivacyLoss", "lattice_privacy_loss", "log_density_at_lattice", "theta_min", "tight",
    "zero_noise_loss", "TightResult",
]

#: block length cap: within a block the re-anchored exponents stay below this
_BLOCK_EXPONENT = 1.0e4


@dataclass(frozen=True)
class PrivacyLoss:
    """The exact privacy loss of Laplace(theta) noise for one secret pair.

    ``forward`` = sup_y log p_Y(y|s_i)/p_Y(y|s_j), ``backward`` = sup_y log p_Y(y|s_j)/p_Y(y|s_i),
    attained at the lattice points ``argmax_forward`` / ``argmax_backward``.
    """

    theta: float
    forward: float
    backward: float
    argmax_forward: int
    argmax_backward: int

    @property
    def epsilon(self) -> float:
        """L(theta) = sup_y |log p_Y(y|s_i) / p_Y(y|s_j)|."""
        return max(self.forward, self.backward)


def _log_forward(logp: np.ndarray, rate: float) -> np.ndarray:
    """log F(k), F(k) = sum_{x<=k} P(x) exp(-(k-x) rate), for k = 0..n-1, in log space."""
    n = logp.size
    out = np.empty(n)
    block = int(max(64, min(n, _BLOCK_EXPONENT / rate))) if rate > 0 else n
    carry = -np.inf
    for start in range(0, n, block):
        seg = logp[start:start + block]
        j = np.arange(seg.size, dtype=float)
        # within the block: log sum_{i<=j} P(s+i) e^{-(j-i) rate} = -j rate + LSE_i(logP + i rate)
        inner = np.logaddexp.accumulate(seg + j * rate) - j * rate
        out[start:start + seg.size] = np.logaddexp(inner, carry - (j + 1.0) * rate)
        carry = out[start + seg.size - 1]
    return out


def log_density_at_lattice(pmf_values: np.ndarray, theta: float) -> np.ndarray:
    """log p_Y(k) at k = 0..n-1 for Y = X + Laplace(theta), X with masses ``pmf_values`` at 0..n-1."""
    with np.errstate(divide="ignore"):
        logp = np.log(np.asarray(pmf_values, dtype=float))
    rate = 1.0 / theta
    log_f = _log_forward(logp, rate)                        # x <= k
    # x > k: G(k) = e^{-rate} (P(k+1) + G(k+1)) = e^{-rate} * F_rev evaluated one step up
    log_b = _log_forward(logp[::-1], rate)[::-1]          # sum_{x>=k} P(x) e^{-(x-k) rate}
    log_g = np.concatenate((log_b[1:] - rate, [-np.inf]))
    return np.logaddexp(log_f, log_g) - math.log(2.0 * theta)


def _check_theta(theta: float) -> float:
    theta = float(theta)
    if not (math.isfinite(theta) and theta > 0):
        raise ConfigError(f"theta = {theta!r}: a Laplace scale must be finite and > 0")
    return theta


def lattice_privacy_loss(p: LatticePMF, q: LatticePMF, theta: float) -> PrivacyLoss:
    """The exact privacy loss L(theta) of Laplace(theta) noise between priors ``p`` and ``q``.

    See the module docstring for why the sup over all real y is a max over lattice points.
    """
    theta = _check_theta(theta)
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    diff = log_density_at_lattice(p.pmf_on(lo, hi), theta) - log_density_at_lattice(q.pmf_on(lo, hi), theta)
    kf, kb = int(np.argmax(diff)), int(np.argmin(diff))
    return PrivacyLoss(theta, float(diff[kf]), float(-diff[kb]), lo + kf, lo + kb)


def zero_noise_loss(p: LatticePMF, q: LatticePMF) -> float:
    """lim_{theta -> 0} L(theta) = max over lattice points of |log P_i(x) / P_j(x)| (inf if supports differ)."""
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    a, b = p.pmf_on(lo, hi), q.pmf_on(lo, hi)
    if np.any((a > 0) != (b > 0)):
        return math.inf
    mask = a > 0
    return float(np.max(np.abs(np.log(a[mask]) - np.log(b[mask]))))


@dataclass(frozen=True)
class TightResult:
    """theta_min for one epsilon: the smallest scale the exact audit accepts.

    ``theta`` is the accepted end of the final bracket (so ``loss <= epsilon``), ``steps``
    the number of loss evaluations, ``reason`` why theta is 0 or inf when it is.
    """

    epsilon: float
    theta: float
    loss: float
    steps: int
    reason: str = ""


def theta_min(p: LatticePMF, q: LatticePMF, epsilon: float, *, rtol: float = 1e-12,
              max_steps: int = 200) -> TightResult:
    """The smallest theta with L(theta) <= epsilon (the ``tight`` calibration), by bisection.

    L is non-increasing in theta (module docstring), continuous, and
    L(span / epsilon) <= epsilon by Proposition 1 (span = sup over supp(pi*) |x - x'|).
    If the zero-noise loss max |log P_i/P_j| is already <= epsilon, theta_min = 0.
    Otherwise: upper end theta_hi = span/epsilon (doubled while rounding makes it fail),
    lower end halved from theta_hi until L > epsilon, then bisection on log(theta) until
    theta_hi / theta_lo - 1 <= ``rtol``. At most ``max_steps`` loss evaluations in all;
    a bracket that cannot be closed in time gives theta = inf with the reason.
    """
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ConfigError(f"epsilon = {epsilon!r}: must be finite and > 0")
    if zero_noise_loss(p, q) <= epsilon:
        return TightResult(epsilon, 0.0, zero_noise_loss(p, q), 0, "no noise needed: max |log P_i/P_j| <= epsilon")
    span = plan_span(p, q)
    steps = 0

    def loss(theta: float) -> float:
        nonlocal steps
        steps += 1
        return lattice_privacy_loss(p, q, theta).epsilon

    hi = span / epsilon
    loss_hi = loss(hi)
    while loss_hi > epsilon:
        if steps >= max_steps:
            return TightResult(epsilon, math.inf, math.nan, steps, "no accepted upper bracket within the step cap")
        hi *= 2.0
        loss_hi = loss(hi)
    lo = hi / 2.0
    while True:
        value = loss(lo)
        if value > epsilon:
            break
        hi, loss_hi = lo, value
        lo /= 2.0
        if steps >= max_steps:
            return TightResult(epsilon, math.inf, math.nan, steps, "no rejected lower bracket within the step cap")
    while hi / lo - 1.0 > rtol:
        if steps >= max_steps:
            return TightResult(epsilon, math.inf, math.nan, steps, f"bisection did not reach rtol={rtol:g} within {max_steps} steps")
        mid = math.sqrt(lo * hi)
        value = loss(mid)
        if value <= epsilon:
            hi, loss_hi = mid, value
        else:
            lo = mid
    return TightResult(epsilon, hi, loss_hi, steps)


def tight(p: LatticePMF, q: LatticePMF, *, epsilons, rtol: float = 1e-12, max_steps: int = 200) -> np.ndarray:
    """theta_min(epsilon) for every epsilon of a grid (see :func:`theta_min`)."""
    return np.array([theta_min(p, q, float(e), rtol=rtol, max_steps=max_steps).theta for e in np.atleast_1d(epsilons)])

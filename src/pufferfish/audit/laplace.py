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
F(k) = sum_{x<=k} P(x) e^{-(k-x)/theta} and G(k) = sum_{x>k} P(x) e^{-(x-k)/theta}; G is
the forward sum of the reversed masses, shifted by one point. Both are computed in time
and memory linear in the support, never forming an n x m matrix (:func:`_block_scans`):
the support is cut into blocks of B points (B <= 64 theta, B <= 256); within every block
at once, a cumulative sum down the rows of the transposed B x (n/B) array, in linear
space scaled by the block's maximum of log P(x) + x/theta (a block whose partial sums span
more than 1e280 is redone in log space); the block ends carry over by the same recursion
at rate B/theta in log space (:func:`_log_forward`); one vectorized log-sum-exp adds the
carried part. The four scans (F and G of both priors) share one array. Neither overflow
nor underflow occurs for any theta > 0 or support size; rounding is about 1e-16 of the
magnitude of the log-densities (about 1e-13 absolute where a density is near 1e-300;
measured 5e-15 against 34-digit sums, where the previous blocked
``numpy.logaddexp.accumulate`` reached 1e-12). For theta < 1/8 (blocks under 8 points)
the blocked log-space recursion alone is used.

Hockey stick, (epsilon, delta) (:func:`laplace_hockey_stick`). delta(eps) = sup_S
P_Y(S) - e^eps Q_Y(S) = integral of [p_Y - e^eps q_Y]_+ dy is computed exactly, with no
quadrature. On [k, k+1] write y = k + t; then 2 theta p_Y(k + t) = F(k) e^{-t/theta} +
H(k+1) e^{-(1-t)/theta} with F(k) = sum_{x<=k} P(x) e^{-(k-x)/theta} and H(k+1) =
sum_{x>=k+1} P(x) e^{-(x-k-1)/theta} (both <= 1, the one-sided scans above). So
2 theta (p_Y - e^eps q_Y) = a e^{-t/theta} + beta e^{-(1-t)/theta}, a = F_P - e^eps F_Q,
beta = H_P - e^eps H_Q: with u = e^{2t/theta} its sign is that of a + beta e^{-1/theta} u,
which changes at most once, at t* = (1/theta + log(a/-beta)) theta / 2 when a and beta
have opposite signs. The positive part of each unit interval is therefore [0, 1], [0, t*],
[t*, 1] or empty, and its integral is in closed form: (a/2)(e^{-s/theta} - e^{-t/theta}) +
(beta/2)(e^{-(1-t)/theta} - e^{-(1-s)/theta}) over [s, t] (the difference of the two
mixtures' CDFs, computed without subtracting numbers near 1). Left of the hull the
difference is beta_L e^{-(L-y)/theta} / 2 theta (integral beta_L / 2 if positive), right of
it a_R e^{-(y-R)/theta} / 2 theta. Every term is a product of scan values with relative
error about 1e-15, so delta has absolute error about 1e-15 (1 + e^eps): exact to floating
point. The noise-free limit theta -> 0 is sum_x [P(x) - e^eps Q(x)]_+
(:func:`~pufferfish.audit.zero_noise.zero_noise_hockey_stick`), an upper bound for every theta by data processing.

Monotonicity in theta (why bisection is valid). For theta_2 > theta_1 the Laplace
characteristic functions satisfy 1/(1 + theta_2^2 t^2) = 1/(1 + theta_1^2 t^2) * c(t) with
c(t) = r + (1 - r)/(1 + theta_2^2 t^2), r = (theta_1/theta_2)^2: c is the characteristic
function of W = 0 w.p. r, Laplace(theta_2) w.p. 1 - r. So N_{theta_2} = N_{theta_1} + W in
law with W independent: Y_2 is a post-processing of Y_1 and, by the data-processing
inequality for the max-divergence, L(theta_2) <= L(theta_1) (and for the hockey-stick
divergence, delta(theta_2) <= delta(theta_1)). L is non-increasing: every
theta above an accepted one is accepted, every theta below a rejected one is rejected,
and the smallest accepted theta is found by bracketing and bisection (:func:`theta_min`).

At scale. The audit is exact for the priors it is given. Priors of large systems are
float64 arrays (:func:`pufferfish.lattice.sums.sum_of_users`): masses below 1e-300 are not
represented (for 10^5 users on 5 points, about 3e4 of the 4e5 lattice points carry a
mass). A query prior is R~ + D_i, R~ the resolved sum of the other users convolved
directly with the short user D_i, so the audit of a pair (R~ + A, R~ + B) is exact for the
rest R~; its y -> +-inf limits, log M_A(+-1/theta) - log M_B(+-1/theta) (moment generating
functions of A and B alone), are those of the true rest R too (:func:`mgf_tail_loss`
gives them exactly: a lower bound on the true L(theta)). Where the sup for the true R lies
in tails below 1e-300, the audit of R~ can differ from it; the benchmark pairs of
benchmarks/engine.py have their sup at that limit, from 10^2 to 10^5 users.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.audit.base import Achieved, LatticeAuditor, Smallest, Target, smallest_by_bisection
from pufferfish.audit.zero_noise import zero_noise_hockey_stick, zero_noise_loss
from pufferfish.checks import instance, integer, real, reals, search
from pufferfish.errors import InvalidArgumentError
from pufferfish.grids import check_epsilons
from pufferfish.registry import Method, register
from pufferfish.lattice.pmf import LatticePMF, check_lattice_size
from pufferfish.lattice.transport import plan_span

__all__ = [
    "LaplaceLatticeAuditor", "PrivacyLoss", "lattice_privacy_loss", "log_density_at_lattice", "theta_min", "tight",
    "TightResult", "mgf_tail_loss", "laplace_hockey_stick",
    "MIN_RTOL",
]

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
#: secant predictions of theta_min before falling back to bisection
_PREDICT_STEPS = 24
#: the smallest relative bracket width theta_min accepts: two float64 numbers a few ulps apart
#: (hi/lo - 1 cannot fall below about 2.2e-16 for distinct floats, so a smaller rtol never closes)
MIN_RTOL = 4 * float(np.finfo(float).eps)


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


# ------------------------------------------------------------------------ log-space recursions
def _log_forward(logp: np.ndarray, rate: float, *, exponent: float = _BLOCK_EXPONENT,
                 min_block: int = 64) -> np.ndarray:
    """log F(k), F(k) = sum_{x<=k} P(x) exp(-(k-x) rate), for k = 0..n-1, in log space.

    The reference recursion: blocks of at least ``min_block`` points, within a block
    ``numpy.logaddexp.accumulate`` of logP + i rate (exponents below ``exponent``).
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


def _logaddexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log(e^a + e^b) elementwise (``numpy.logaddexp`` has no vectorized loop; this is 5x faster)."""
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
    the block ends (:func:`_log_forward`, rate * block).
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
        carry[r, 1:] = _log_forward(ends[r], rate * block, exponent=_CARRY_EXPONENT, min_block=16)[:-1]
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
        x[:, bad] = _logaddexp(exact, carry[bad][None, :] - steps[:, None])
    return x


def _log_kernel_sums(logp: np.ndarray, rate: float) -> np.ndarray:
    """log sum_x P(x) e^{-|k-x| rate} at every lattice point k, for every row of ``logp`` (m x n)."""
    m, n = logp.shape
    block = int(min(n, _SCAN_MAX_BLOCK, _SCAN_EXPONENT / rate)) if rate > 0 else min(n, _SCAN_MAX_BLOCK)
    if block < _SCAN_MIN_BLOCK or n < 4 * _SCAN_MIN_BLOCK:
        out = np.empty((m, n))
        for r in range(m):
            log_f = _log_forward(logp[r], rate, exponent=_CARRY_EXPONENT)
            log_b = _log_forward(logp[r, ::-1], rate, exponent=_CARRY_EXPONENT)[::-1]
            log_g = np.concatenate((log_b[1:] - rate, [-np.inf]))
            out[r] = _logaddexp(log_f, log_g)
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
        out[r] = _logaddexp(fwd, bwd).T.reshape(total)[:n]
    return out


def log_density_at_lattice(pmf_values: np.ndarray, theta: float) -> np.ndarray:
    """log p_Y(k) at k = 0..n-1 for Y = X + Laplace(theta), X with masses ``pmf_values`` at 0..n-1."""
    pmf_values = reals(pmf_values, name="pmf_values", lo=0.0)
    theta = _check_theta(theta)
    with np.errstate(divide="ignore"):
        logp = np.log(np.atleast_1d(pmf_values))
    return _log_kernel_sums(logp[None, :], 1.0 / theta)[0] - math.log(2.0 * theta)


def _log_forward_rows(seqs: np.ndarray, rate: float) -> np.ndarray:
    """log F of every row of ``seqs`` (m x n): F(k) = sum_{x<=k} P(x) e^{-(k-x) rate} (the scans above)."""
    m, n = seqs.shape
    block = int(min(n, _SCAN_MAX_BLOCK, _SCAN_EXPONENT / rate)) if rate > 0 else min(n, _SCAN_MAX_BLOCK)
    if block < _SCAN_MIN_BLOCK or n < 4 * _SCAN_MIN_BLOCK:
        return np.array([_log_forward(row, rate, exponent=_CARRY_EXPONENT) for row in seqs])
    nb = -(-n // block)
    total = nb * block
    padded = np.full((m, total), -np.inf)
    padded[:, :n] = seqs
    scans = _block_scans(padded, rate, block)
    return np.array([scans[:, r * nb:(r + 1) * nb].T.reshape(total)[:n] for r in range(m)])


def _one_sided_sums(logp: np.ndarray, rate: float) -> tuple[np.ndarray, np.ndarray]:
    """F(k) = sum_{x<=k} P(x) e^{-(k-x) rate} and H(k) = sum_{x>=k} P(x) e^{-(x-k) rate}, rows of ``logp``."""
    m = logp.shape[0]
    scans = _log_forward_rows(np.vstack((logp, logp[:, ::-1])), rate)
    with np.errstate(under="ignore"):
        return np.exp(scans[:m]), np.exp(scans[m:, ::-1])


def _positive_part(a: np.ndarray, beta: np.ndarray, rate: float) -> np.ndarray:
    """integral over t in [0, 1] of [a e^{-rate t} + beta e^{-rate (1 - t)}]_+ rate dt / 2, elementwise.

    The bracket changes sign at most once (module docstring), at t* where a e^{-rate t*} =
    -beta e^{-rate (1 - t*)}; the integral of the bracket over [s, t] is
    (a/2)(e^{-rate s} - e^{-rate t}) + (beta/2)(e^{-rate (1-t)} - e^{-rate (1-s)}).
    """
    s = np.zeros(a.size)
    t = np.ones(a.size)
    mixed = (a > 0) != (beta > 0)
    mixed &= (a != 0) & (beta != 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        root = np.clip(0.5 + (np.log(np.abs(a)) - np.log(np.abs(beta))) / (2.0 * rate), 0.0, 1.0)
    head = mixed & (a > 0)                             # positive on [0, t*]
    tail = mixed & (beta > 0)                          # positive on [t*, 1]
    t = np.where(head, root, t)
    s = np.where(tail, root, s)
    with np.errstate(under="ignore", invalid="ignore"):
        part_a = 0.5 * a * np.exp(-rate * s) * -np.expm1(-rate * (t - s))
        part_b = 0.5 * beta * np.exp(-rate * (1.0 - t)) * -np.expm1(-rate * (t - s))
    out = np.where((a <= 0) & (beta <= 0), 0.0, part_a + part_b)
    return np.maximum(np.nan_to_num(out, nan=0.0), 0.0)


def _hockey_from_scans(fp, hp, fq, hq, scale: float, rate: float) -> float:
    """H_scale(P_Y || Q_Y) from the one-sided sums of P (fp, hp) and Q (fq, hq) on one hull."""
    a = fp[:-1] - scale * fq[:-1]
    beta = hp[1:] - scale * hq[1:]
    pieces = [0.5 * max(hp[0] - scale * hq[0], 0.0), 0.5 * max(fp[-1] - scale * fq[-1], 0.0)]
    if a.size:
        pieces.extend(_positive_part(a, beta, rate).tolist())
    return math.fsum(pieces)


def _check_epsilon(epsilon) -> float:
    """epsilon of a hockey stick: a real number (not a bool or string), finite and >= 0."""
    return real(epsilon, name="epsilon", lo=0.0)


def laplace_hockey_stick(p: LatticePMF, q: LatticePMF, *, epsilon: float, scale: float) -> tuple[float, float]:
    """Both directions of the hockey-stick divergence of Y = X + Laplace(``scale``), exactly.

    Returns ``(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y))``, H_c(P || Q) = sup_S P(S) -
    c Q(S): the smallest delta for which the noise gives (epsilon, delta)-PP in each
    direction. Closed form per unit interval (module docstring, "Hockey stick"); absolute
    error about 1e-15 (1 + e^eps). ``epsilon`` >= 0 (0 gives the total variation distance).
    """
    _check_pair(p, q)
    eps = _check_epsilon(epsilon)
    theta = real(scale, name="scale", lo=0.0, lo_open=True)
    aud = _auditor(p, q)
    return aud.hockey(eps, theta)


def _check_theta(theta: float) -> float:
    """A Laplace scale: a real number (not a bool or string), finite and > 0."""
    return real(theta, name="theta", lo=0.0, lo_open=True)


def _check_pair(p: LatticePMF, q: LatticePMF) -> None:
    """Two lattice pmfs whose common hull fits :data:`~pufferfish.lattice.pmf.MAX_LATTICE_POINTS` (checked
    before the audit allocates it)."""
    instance(p, LatticePMF, name="p")
    instance(q, LatticePMF, name="q")
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    check_lattice_size(hi - lo + 1, name="p, q", what=f"their common hull from {lo} to {hi}")


# ------------------------------------------------------------------------ one pair of priors
class _Auditor:
    """The two priors of a pair on their common hull, with every loss evaluated so far."""

    def __init__(self, p: LatticePMF, q: LatticePMF):
        self.p, self.q = p, q
        self.lo, self.hi = min(p.lo, q.lo), max(p.hi, q.hi)
        with np.errstate(divide="ignore"):
            self.logp = np.log(np.vstack((p.pmf_on(self.lo, self.hi), q.pmf_on(self.lo, self.hi))))
        self.history: list[PrivacyLoss] = []
        self._span: int | None = None
        self._zero: float | None = None
        self._scans: tuple | None = None

    def loss(self, theta: float) -> PrivacyLoss:
        dens = _log_kernel_sums(self.logp, 1.0 / theta)
        diff = dens[0] - dens[1]
        kf, kb = int(np.argmax(diff)), int(np.argmin(diff))
        result = PrivacyLoss(theta, float(diff[kf]), float(-diff[kb]), self.lo + kf, self.lo + kb)
        self.history.append(result)
        return result

    def hockey(self, epsilon: float, theta: float) -> tuple[float, float]:
        """(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y)) for Laplace(theta) (module docstring)."""
        if self._scans is None or self._scans[0] != theta:
            f, h = _one_sided_sums(self.logp, 1.0 / theta)
            self._scans = (theta, f, h)
        _, f, h = self._scans
        c, rate = math.exp(epsilon), 1.0 / theta
        return (_hockey_from_scans(f[0], h[0], f[1], h[1], c, rate),
                _hockey_from_scans(f[1], h[1], f[0], h[0], c, rate))

    @property
    def span(self) -> int:
        if self._span is None:
            self._span = plan_span(self.p, self.q)
        return self._span

    @property
    def zero_noise(self) -> float:
        if self._zero is None:
            self._zero = zero_noise_loss(self.p, self.q)
        return self._zero


_CACHE: list = []


def _auditor(p: LatticePMF, q: LatticePMF) -> _Auditor:
    """The auditor of the pair (p, q), kept for the next call with the same two objects."""
    if _CACHE and _CACHE[0].p is p and _CACHE[0].q is q:
        return _CACHE[0]
    aud = _Auditor(p, q)
    _CACHE[:] = [aud]
    return aud


def lattice_privacy_loss(p: LatticePMF, q: LatticePMF, theta: float) -> PrivacyLoss:
    """The exact privacy loss L(theta) of Laplace(theta) noise between priors ``p`` and ``q``.

    See the module docstring for why the sup over all real y is a max over lattice points.
    """
    theta = _check_theta(theta)
    _check_pair(p, q)
    return _auditor(p, q).loss(theta)


def mgf_tail_loss(a: LatticePMF, b: LatticePMF, theta: float) -> tuple[float, float]:
    """The y -> +inf and y -> -inf limits of log p_Y(y|s_i)/p_Y(y|s_j) for X_i = R + A, X_j = R + B.

    For y beyond every atom, p_Y(y) = e^{-y/theta} E[e^{X/theta}] / (2 theta), and R cancels:
    the limits are log M_A(1/theta) - log M_B(1/theta) and log M_A(-1/theta) - log M_B(-1/theta),
    computed from the two user pmfs alone (log-sum-exp). Since L(theta) is a sup over y,
    max(|first|, |second|) <= L(theta) for the true priors, whatever the other users:
    an exact cross-check of an audit at scale (module docstring).
    """
    theta = _check_theta(theta)
    instance(a, LatticePMF, name="a")
    instance(b, LatticePMF, name="b")
    return (a.log_mgf(1.0 / theta) - b.log_mgf(1.0 / theta),
            a.log_mgf(-1.0 / theta) - b.log_mgf(-1.0 / theta))


# ------------------------------------------------------------------------ tight calibration
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


class _StepCap(Exception):
    pass


def _solve(aud: _Auditor, epsilon: float, rtol: float, max_steps: int) -> TightResult:
    """theta_min for one epsilon on the pair of ``aud`` (see :func:`theta_min`)."""
    zero = aud.zero_noise
    if zero <= epsilon:
        return TightResult(epsilon, 0.0, zero, 0, "no noise needed: max |log P_i/P_j| <= epsilon")
    steps = 0
    lo: PrivacyLoss | None = None                      # rejected: L > epsilon
    hi: PrivacyLoss | None = None                      # accepted: L <= epsilon
    recent: list[PrivacyLoss] = []

    def evaluate(theta: float) -> PrivacyLoss:
        nonlocal steps, lo, hi
        if steps >= max_steps:
            raise _StepCap
        steps += 1
        result = aud.loss(theta)
        if result.epsilon <= epsilon:
            if hi is None or theta < hi.theta:
                hi = result
        elif lo is None or theta > lo.theta:
            lo = result
        recent.append(result)
        return result

    def closed() -> bool:
        return lo is not None and hi is not None and hi.theta / lo.theta - 1.0 <= rtol

    # earlier evaluations of this pair bracket the root for free (L is non-increasing)
    for r in aud.history:
        if r.epsilon <= epsilon and (hi is None or r.theta < hi.theta):
            hi = r
    for r in aud.history:
        if r.epsilon > epsilon and (lo is None or r.theta > lo.theta) and (hi is None or r.theta < hi.theta):
            lo = r
    if lo is not None and hi is not None and lo.theta >= hi.theta:
        lo = None
    seeds = [r for r in (lo, hi) if r is not None]
    ln_rtol = math.log1p(rtol)
    try:
        if hi is None:                                 # Proposition 1: span / epsilon is accepted
            theta = (aud.span if aud.span > 0 else 1.0) / epsilon
            if lo is not None and theta <= lo.theta:
                theta = 2.0 * lo.theta
            while evaluate(theta).epsilon > epsilon:
                theta *= 2.0
        # bracketing: secant on log L against log theta, each prediction evaluated
        recent[:0] = seeds
        previous, widths = None, []
        margin = ln_rtol / 3
        for _ in range(_PREDICT_STEPS):
            if closed():
                break
            u_hi = math.log(hi.theta)
            pts = [r for r in recent if r.epsilon > 0][-2:]
            if len(pts) == 2 and pts[0].theta != pts[1].theta and pts[0].epsilon != pts[1].epsilon:
                (t1, l1), (t2, l2) = ((r.theta, r.epsilon) for r in pts)
                f1, f2 = math.log(l1 / epsilon), math.log(l2 / epsilon)
                u = math.log(t2) - f2 * (math.log(t2) - math.log(t1)) / (f2 - f1)
            else:                                      # L ~ c / theta for large theta
                u = u_hi + math.log(hi.epsilon / epsilon) if hi.epsilon > 0 else u_hi - math.log(2.0)
            if not math.isfinite(u):
                u = u_hi - math.log(2.0)
            if lo is None:
                u = min(max(u, u_hi - math.log(8.0)), u_hi - margin)
            else:
                u_lo = math.log(lo.theta)
                widths.append(u_hi - u_lo)
                if not (u_lo <= u <= u_hi) or (len(widths) > 3 and widths[-1] > widths[-4] / 2):
                    u = 0.5 * (u_lo + u_hi)            # the secant left the bracket or stalls: bisect
                # a margin from the ends, so that a prediction on the root closes the bracket
                u = min(max(u, u_lo + margin), u_hi - margin)
            if previous is not None and abs(u - previous) < ln_rtol / 4:
                # the prediction has converged: straddle it
                for v in (u + margin, u - margin):
                    if (lo is None or v > math.log(lo.theta)) and v < math.log(hi.theta) and not closed():
                        evaluate(math.exp(v))
                break
            previous = u
            theta = math.exp(u)
            if theta >= hi.theta or (lo is not None and theta <= lo.theta):
                break
            evaluate(theta)
        # the lower end, if still unknown: halve until rejected
        while lo is None:
            evaluate(hi.theta / 2.0)
        # bisection on log theta: every step halves the bracket
        while not closed():
            mid = math.sqrt(lo.theta * hi.theta)
            if not lo.theta < mid < hi.theta:
                raise _StepCap
            evaluate(mid)
    except _StepCap:
        bracket = f" (bracket [{lo.theta:.17g}, {hi.theta:.17g}])" if lo is not None and hi is not None else ""
        return TightResult(epsilon, math.inf, math.nan, steps,
                           f"theta_min did not reach rtol={rtol:g} within {max_steps} steps{bracket}")
    return TightResult(epsilon, hi.theta, hi.epsilon, steps)


def theta_min(p: LatticePMF, q: LatticePMF, epsilon: float, *, rtol: float = 1e-12,
              max_steps: int = 200) -> TightResult:
    """The smallest theta with L(theta) <= epsilon (the ``tight`` calibration).

    L is non-increasing in theta (module docstring), continuous, and
    L(span / epsilon) <= epsilon by Proposition 1 (span = sup over supp(pi*) |x - x'|).
    If the zero-noise loss max |log P_i/P_j| is already <= epsilon, theta_min = 0.
    Otherwise a bracket [lo, hi] is kept, lo rejected (L > epsilon) and hi accepted
    (L <= epsilon), each end proven by a full exact audit:

    1. ends from earlier audits of the same pair (earlier epsilons of :func:`tight`, or
       earlier calls with the same two pmf objects), else hi = span/epsilon (doubled
       while rounding makes it fail);
    2. bracketing: a secant on log L against log theta predicts the root; each prediction
       (kept strictly inside the bracket) is audited and replaces one end; once two
       predictions agree to rtol/4, the points rtol/3 on either side of it are audited, which
       usually closes the bracket; if no lower end is known yet, hi is halved until rejected;
    3. bisection on log theta (each step halves the bracket) until hi/lo - 1 <= ``rtol``.

    The returned theta is always an audited, accepted one (``loss <= epsilon``), and lo =
    theta / (1 + rtol) or above is rejected. At most ``max_steps`` loss evaluations in
    all (typically 6-10 per epsilon, against about 40 for bisection alone); a bracket that
    cannot be closed in time gives theta = inf with the reason.
    """
    epsilon = real(epsilon, name="epsilon", lo=0.0, lo_open=True)
    rtol = real(rtol, name="rtol", lo=MIN_RTOL)
    max_steps = integer(max_steps, name="max_steps", lo=1)
    _check_pair(p, q)
    return _solve(_auditor(p, q), epsilon, rtol, max_steps)


def tight(p: LatticePMF, q: LatticePMF, *, epsilons, rtol: float = 1e-12, max_steps: int = 200) -> np.ndarray:
    """theta_min(epsilon) for every epsilon of a grid (see :func:`theta_min`); audits are shared.

    Every value is an audited, accepted scale: an epsilon whose bracket cannot be closed
    within ``max_steps`` (theta_min's theta = inf) raises, naming it and the reason.
    """
    epsilons = check_epsilons(epsilons)
    out = []
    for k, e in enumerate(epsilons):
        res = theta_min(p, q, float(e), rtol=rtol, max_steps=max_steps)
        if not math.isfinite(res.theta):
            raise InvalidArgumentError(f"epsilons[{k}] = {float(e)!r}: no tight scale: {res.reason}")
        out.append(res.theta)
    return np.array(out)


class LaplaceLatticeAuditor(LatticeAuditor):
    """:class:`~pufferfish.audit.base.Auditor` of Laplace noise on two lattice priors.

    Pure epsilon: ``achieved`` is :func:`lattice_privacy_loss` (both directions),
    ``smallest_scale`` is :func:`theta_min`. (epsilon, delta): ``achieved`` is
    :func:`laplace_hockey_stick` (forward = H_{e^eps}(P_Y|s_i || P_Y|s_j), backward the
    other way), ``smallest_scale`` the smallest theta whose larger direction is <= delta:
    0 when the priors already meet it (:func:`~pufferfish.audit.zero_noise.zero_noise_hockey_stick`), else doubling or
    halving and safeguarded interpolation on log theta
    (:func:`~pufferfish.audit.base.smallest_by_bisection`; valid because delta
    does not increase with theta, module docstring), started at W_inf / epsilon, which
    gives pure epsilon-PP (paper 000, Prop. 1) and so delta = 0. Audits of the pair are
    shared between calls.
    """

    noise = "laplace"
    guarantees = ("epsilon", "epsilon_delta")

    def __init__(self, p: LatticePMF, q: LatticePMF, *, rtol: float = 1e-12, max_steps: int = 200):
        _check_pair(p, q)
        rtol, max_steps = search(rtol, max_steps)
        self.p, self.q, self.rtol, self.max_steps = p, q, rtol, max_steps

    def achieved(self, scale: float, target: Target) -> Achieved:
        target = self.check_target(target)
        if target.guarantee == "epsilon_delta":
            fwd, bwd = laplace_hockey_stick(self.p, self.q, epsilon=target.epsilon, scale=scale)
            return Achieved(float(scale), target, fwd, bwd)
        loss = lattice_privacy_loss(self.p, self.q, scale)
        return Achieved(float(scale), target, loss.forward, loss.backward)

    def smallest_scale(self, target: Target) -> Smallest:
        target = self.check_target(target)
        if target.guarantee == "epsilon_delta":
            aud = _auditor(self.p, self.q)
            eps = target.epsilon
            zero = max(zero_noise_hockey_stick(self.p, self.q, epsilon=eps))
            start = (aud.span if aud.span > 0 else 1.0) / eps
            scale, value, steps, reason = smallest_by_bisection(
                lambda b: max(aud.hockey(eps, b)), target.delta, start=start, at_zero=zero,
                rtol=self.rtol, max_steps=self.max_steps)
            return Smallest(target, scale, value, steps, reason)
        res = theta_min(self.p, self.q, target.epsilon, rtol=self.rtol, max_steps=self.max_steps)
        return Smallest(target, res.theta, res.loss, res.steps, res.reason)


def _tight_apply(pair, epsilons, **_) -> np.ndarray:
    return tight(pair.prior_i, pair.prior_j, epsilons=epsilons)


register(Method("tight", _tight_apply, pairs=None, automatic=True,
                label=r"tight: $\theta_{\min}$ (exact audit)",
                citation="this project: the smallest Laplace scale whose exact privacy loss is <= epsilon"))

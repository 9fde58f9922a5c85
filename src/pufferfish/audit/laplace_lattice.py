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
and memory linear in the support, never forming an n x m matrix (:mod:`pufferfish.audit.kernel`):
the support is cut into blocks of B points (B <= 64 theta, B <= 256); within every block
at once, a cumulative sum down the rows of the transposed B x (n/B) array, in linear
space scaled by the block's maximum of log P(x) + x/theta (a block whose partial sums span
more than 1e280 is redone in log space); the block ends carry over by the same recursion
at rate B/theta in log space (:func:`~pufferfish.audit.kernel.log_forward`); one vectorized log-sum-exp adds the
carried part. The four scans (F and G of both priors) share one array. Neither overflow
nor underflow occurs for any theta > 0 or support size; rounding is about 1e-16 of the
magnitude of the log-densities (about 1e-13 absolute where a density is near 1e-300;
measured 5e-15 against 34-digit sums, where the previous blocked
``numpy.logaddexp.accumulate`` reached 1e-12). For theta < 1/8 (blocks under 8 points)
the blocked log-space recursion alone is used; for
theta <= 1.25e-3 the loss comes from each point's nearest atoms with the common factor
e^(-d/theta) cancelled (:func:`~pufferfish.audit.kernel.nearest_sums`), and the hockey stick is
the priors' own (a bump's mass beyond the next lattice point is below e^-800).

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

from pufferfish.audit.auditor import LatticeAuditor, TightMethod
from pufferfish.audit.kernel import NEAREST_RATE, log_kernel_sums, nearest_sums, one_sided_sums
from pufferfish.audit.search import smallest_scale
from pufferfish.audit.target import Achieved, Smallest, Target
from pufferfish.audit.zero_noise import zero_noise_hockey_stick, zero_noise_loss
from pufferfish.checks import instance, integer, real, reals
from pufferfish.checks import search as checked_search
from pufferfish.errors import InvalidArgumentError
from pufferfish.grids import check_epsilons
from pufferfish.lattice.pmf import LatticePMF, check_lattice_size
from pufferfish.lattice.transport import plan_span

__all__ = [
    "LaplaceLatticeAuditor", "PrivacyLoss", "lattice_privacy_loss", "log_density_at_lattice", "theta_min", "tight",
    "TightResult", "mgf_tail_loss", "laplace_hockey_stick",
    "MIN_RTOL",
]

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


def log_density_at_lattice(pmf_values: np.ndarray, theta: float) -> np.ndarray:
    """log p_Y(k) at k = 0..n-1 for Y = X + Laplace(theta), X with masses ``pmf_values`` at 0..n-1."""
    pmf_values = reals(pmf_values, name="pmf_values", lo=0.0)
    theta = _check_theta(theta)
    with np.errstate(divide="ignore"):
        logp = np.log(np.atleast_1d(pmf_values))
    return log_kernel_sums(logp[None, :], 1.0 / theta)[0] - math.log(2.0 * theta)


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
        rate = 1.0 / theta
        # at rates >= NEAREST_RATE (theta <= 1.25e-3) the factored sums keep the ratio exact
        dens = log_kernel_sums(self.logp, rate) if rate < NEAREST_RATE else nearest_sums(self.logp, rate)[1]
        diff = dens[0] - dens[1]
        kf, kb = int(np.argmax(diff)), int(np.argmin(diff))
        result = PrivacyLoss(theta, float(diff[kf]), float(-diff[kb]), self.lo + kf, self.lo + kb)
        self.history.append(result)
        return result

    def hockey(self, epsilon: float, theta: float) -> tuple[float, float]:
        """(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y)) for Laplace(theta) (module docstring)."""
        if 1.0 / theta >= NEAREST_RATE:
            # each atom's Laplace bump puts below e^-800 beyond the next lattice point (masses of 1e-300
            # to 1 differ by e^691 at most): to double precision, the priors' own divergences
            return zero_noise_hockey_stick(self.p, self.q, epsilon=epsilon)
        if self._scans is None or self._scans[0] != theta:
            f, h = one_sided_sums(self.logp, 1.0 / theta)
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


def _solve(aud: _Auditor, epsilon: float, rtol: float, max_steps: int) -> TightResult:
    """theta_min for one epsilon on the pair of ``aud`` (see :func:`theta_min`)."""
    zero = aud.zero_noise
    if zero <= epsilon:
        return TightResult(epsilon, 0.0, zero, 0, "no noise needed: max |log P_i/P_j| <= epsilon")
    history = [(r.theta, r.epsilon) for r in aud.history]
    start = (aud.span if aud.span > 0 else 1.0) / epsilon          # Proposition 1: accepted
    theta, loss, steps, reason = smallest_scale(lambda t: aud.loss(t).epsilon, epsilon, start=start,
                                                strategy=LaplaceLatticeAuditor.search, rtol=rtol,
                                                max_steps=max_steps, history=history)
    return TightResult(epsilon, theta, loss, steps, reason)


def theta_min(p: LatticePMF, q: LatticePMF, epsilon: float, *, rtol: float = 1e-12,
              max_steps: int = 200) -> TightResult:
    """The smallest theta with L(theta) <= epsilon (the ``tight`` calibration).

    L is non-increasing in theta (module docstring), continuous, and L(span / epsilon) <=
    epsilon by Proposition 1 (span = sup over supp(pi*) |x - x'|). If the zero-noise loss
    max |log P_i/P_j| is already <= epsilon, theta_min = 0. Otherwise
    :func:`~pufferfish.audit.search.smallest_scale`: a bracket [lo, hi], lo rejected (L >
    epsilon) and hi accepted, each end proven by a full exact audit, seeded for free by the
    earlier audits of the same pair (earlier epsilons of :func:`tight`, or earlier calls with
    the same two pmf objects: L does not depend on epsilon), else found by doubling or
    halving from span / epsilon, then closed by safeguarded interpolation on log theta until
    hi/lo - 1 <= ``rtol``.

    Parameters
    ----------
    p, q : LatticePMF
        The two priors.
    epsilon : float
        The target, > 0.
    rtol : float
        Relative width of the final bracket, at least :data:`MIN_RTOL`.
    max_steps : int
        At most this many loss evaluations.

    Returns
    -------
    TightResult
        ``theta`` an audited, accepted scale (``loss <= epsilon``) with a rejected one within
        ``rtol`` below it; inf with the reason when the bracket cannot be closed in time.

    Raises
    ------
    InvalidArgumentError
        An argument out of range (naming it).
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
    """:class:`~pufferfish.audit.auditor.Auditor` of Laplace noise on two lattice priors.

    Pure epsilon: ``achieved`` is :func:`lattice_privacy_loss` (both directions),
    ``smallest_scale`` is :func:`theta_min` (seeded by every earlier audit of the pair).
    (epsilon, delta): ``achieved`` is :func:`laplace_hockey_stick` (forward =
    H_{e^eps}(P_Y|s_i || P_Y|s_j), backward the other way), ``smallest_scale`` the generic
    search (:meth:`~pufferfish.audit.auditor.Auditor.smallest_scale`; valid because delta does
    not increase with theta, module docstring), doubling or halving from W_inf / epsilon,
    which gives pure epsilon-PP (paper 000, Prop. 1) and so delta = 0. Audits of the pair are
    shared between calls.
    """

    noise = "laplace"
    guarantees = ("epsilon", "epsilon_delta")
    search = "double"
    order = 0
    tight = {
        "epsilon": TightMethod(
            "tight", r"tight: $\theta_{\min}$ (exact audit)",
            "this project: the smallest Laplace scale whose exact privacy loss is <= epsilon", automatic=True),
        "epsilon_delta": TightMethod(
            "tight_laplace_delta", "tight Laplace, (ε, δ)-PP (exact audit)",
            "this project: the smallest Laplace scale whose exact hockey-stick divergence is <= delta"),
    }

    def __init__(self, p: LatticePMF, q: LatticePMF, *, rtol: float = 1e-12, max_steps: int = 200):
        _check_pair(p, q)
        rtol, max_steps = checked_search(rtol, max_steps)
        self.p, self.q, self.rtol, self.max_steps = p, q, rtol, max_steps

    @classmethod
    def std(cls, scale: float) -> float:
        """sqrt(2) b: Var Laplace(b) = 2 b^2."""
        return math.sqrt(2.0) * scale

    def start_scale(self, target: Target) -> float:
        """W_inf / epsilon (paper 000, Prop. 1: pure epsilon-PP, so delta = 0 there)."""
        span = _auditor(self.p, self.q).span
        return (span if span > 0 else 1.0) / target.epsilon

    def achieved(self, scale: float, target: Target) -> Achieved:
        target = self.check_target(target)
        if target.guarantee == "epsilon_delta":
            fwd, bwd = laplace_hockey_stick(self.p, self.q, epsilon=target.epsilon, scale=scale)
            return Achieved(float(scale), target, fwd, bwd)
        loss = lattice_privacy_loss(self.p, self.q, scale)
        return Achieved(float(scale), target, loss.forward, loss.backward)

    def smallest_scale(self, target: Target) -> Smallest:
        target = self.check_target(target)
        if target.guarantee == "epsilon":                 # theta_min: the pair's audits as history
            res = theta_min(self.p, self.q, target.epsilon, rtol=self.rtol, max_steps=self.max_steps)
            return Smallest(target, res.theta, res.loss, res.steps, res.reason)
        return super().smallest_scale(target)

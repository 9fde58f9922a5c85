r"""Exact privacy loss of Laplace noise on lattice priors, and the tight calibration.

For priors :math:`P_i`, :math:`P_j` on the integer lattice and :math:`Y = X + N_\theta` (paper 000,
eq. 2), the privacy loss :math:`L(\theta) = \sup_y |\log p_Y(y \mid s_i) / p_Y(y \mid s_j)|` is
reported as its two directions (forward :math:`\sup_y \log(p_i / p_j)`, backward
:math:`\sup_y \log(p_j / p_i)`, both :math:`\ge 0`).

* :func:`lattice_privacy_loss` -- the sup is exact, not sampled: between lattice points the
  ratio is linear-fractional in :math:`e^{2y/\theta}`, hence monotone, so the sup is a max over
  the lattice points between the extreme atoms, computed by linear-time one-sided scans
  (:mod:`pufferfish.audit.kernel`) that neither overflow nor underflow for any
  :math:`\theta > 0`;
* :func:`laplace_hockey_stick` -- :math:`\delta(\epsilon) = \int [p_Y - e^\epsilon q_Y]_+ \, dy` in closed
  form on every unit interval (its sign changes at most once there), no quadrature,
  absolute error about :math:`10^{-15}(1 + e^\epsilon)`;
* :func:`theta_min`, :class:`LaplaceLatticeAuditor` -- the smallest scale meeting a target, by
  :mod:`pufferfish.audit.search`: both losses are non-increasing in :math:`\theta` (a larger
  Laplace is the smaller one plus independent noise, and data processing);
* :func:`mgf_tail_loss` -- the exact :math:`y \to \pm\infty` limits
  :math:`\log M_A(\pm 1/\theta) - \log M_B(\pm 1/\theta)` of a pair of users, valid for the true rest
  of a large system whose float64 prior drops masses below :math:`10^{-300}`.

Derivation, the scans, error bounds and the monotonicity proof: docs/math/audits.md,
"Laplace noise on lattice priors".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.audit.auditor import LatticeAuditor, TightMethod
from pufferfish.audit.certify import ACCEPT, U, arb_laplace_hockey, arb_loss, from_float, kernel_log_error
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
    r"""log p_Y(k) at k = 0..n-1 for Y = X + Laplace(theta), X with masses ``pmf_values`` at 0..n-1.

    Parameters
    ----------
    pmf_values : numpy.ndarray
        Masses (:math:`\ge 0`) of :math:`X` at :math:`0, \dots, n - 1`.
    theta : float
        Scale of the Laplace noise added, :math:`> 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\log p_Y(k)` at :math:`k = 0, \dots, n - 1`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A negative or non-real mass, or :math:`\theta` not finite and positive.
    """
    pmf_values = reals(pmf_values, name="pmf_values", lo=0.0)
    theta = _check_theta(theta)
    with np.errstate(divide="ignore"):
        logp = np.log(np.atleast_1d(pmf_values))
    return log_kernel_sums(logp[None, :], 1.0 / theta)[0] - math.log(2.0 * theta)


def _positive_part(a: np.ndarray, beta: np.ndarray, rate: float) -> np.ndarray:
    """integral over t in [0, 1] of [a e^{-rate t} + beta e^{-rate (1 - t)}]_+ rate dt / 2, elementwise.

    The bracket changes sign at most once (docs/math/audits.md), at t* where a e^{-rate t*} =
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


def _hockey_error(fp, hp, fq, hq, c: float, rate: float, rel: float) -> float:
    """A bound on the error of :func:`_hockey_from_scans` for one-sided sums of relative error ``rel``
    and c = e^eps of relative error 2u (docs/math/audits.md, "Certified values"): every piece whose
    bracket is not certainly negative at both ends of its interval contributes (rel + 16 u) times
    the sum of its terms' magnitudes, weighted by (1 - e^-rate) / 2 <= min(1, rate) / 2 (the ends by 1/2)."""
    if c == math.inf:
        return math.inf                                   # e^eps not a float: the arb route decides
    slack = rel + 16.0 * U
    decay = math.exp(-rate)
    with np.errstate(over="ignore", invalid="ignore"):
        mag_a, mag_b = fp[:-1] + c * fq[:-1], hp[1:] + c * hq[1:]
        a, beta = fp[:-1] - c * fq[:-1], hp[1:] - c * hq[1:]
        # the bracket a e^(-rate t) + beta e^(-rate (1 - t)) is monotone or of one sign on [0, 1]: it is
        # certainly <= 0 there when it is at both ends, beyond the error of its terms
        neg0 = a + decay * beta < -2.0 * slack * (mag_a + decay * mag_b)
        neg1 = decay * a + beta < -2.0 * slack * (decay * mag_a + mag_b)
        live = ~(neg0 & neg1)
        inner = min(1.0, rate) * 0.5 * float(np.sum(np.where(live, mag_a + mag_b, 0.0)))
        ends = 0.0
        for u, v in ((hp[0], hq[0]), (fp[-1], fq[-1])):
            if not u - c * v < -slack * (u + c * v):
                ends += 0.5 * (u + c * v)
    total = slack * (inner + ends) * (1.0 + 1e-6)
    return total if math.isfinite(total) else math.inf


def _check_epsilon(epsilon) -> float:
    """epsilon of a hockey stick: a real number (not a bool or string), finite and >= 0."""
    return real(epsilon, name="epsilon", lo=0.0)


def laplace_hockey_stick(p: LatticePMF, q: LatticePMF, *, epsilon: float, scale: float) -> tuple[float, float]:
    r"""Both directions of the hockey-stick divergence of Y = X + Laplace(``scale``), exactly.

    Returns ``(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y))``, H_c(P || Q) = sup_S P(S) -
    c Q(S): the smallest delta for which the noise gives (epsilon, delta)-PP in each
    direction. Closed form per unit interval (docs/math/audits.md, "Hockey stick"); absolute
    error about 1e-15 (1 + e^eps). ``epsilon`` >= 0 (0 gives the total variation distance).

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        Lattice priors of the secret pair under Laplace noise.
    epsilon : float
        :math:`\epsilon \ge 0` (0: total variation).
    scale : float
        Laplace scale :math:`\theta > 0`.

    Returns
    -------
    tuple of float
        :math:`(H_{e^\epsilon}(P_Y \| Q_Y), H_{e^\epsilon}(Q_Y \| P_Y))`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        ``p``, ``q``, ``epsilon`` or ``scale`` invalid (the message names which).
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
        self.masses = np.vstack((p.pmf_on(self.lo, self.hi), q.pmf_on(self.lo, self.hi)))
        with np.errstate(divide="ignore"):
            self.logp = np.log(self.masses)
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
        fwd, bwd = float(diff[kf]), float(-diff[kb])
        # certified: the float route plus its error bound, else arb from the definition (docs/math/audits.md)
        error = (2.0 * kernel_log_error(self.logp, dens, rate, nearest=rate >= NEAREST_RATE)
                 + 2.0 * U * max(abs(fwd), abs(bwd)))
        got = from_float((fwd, bwd), error)
        if got is None:
            got = arb_loss(self.masses, theta)
        result = PrivacyLoss(theta, got[0], got[1], self.lo + kf, self.lo + kb)
        self.history.append(result)
        return result

    def hockey(self, epsilon: float, theta: float) -> tuple[float, float]:
        """(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y)) for Laplace(theta) (docs/math/audits.md)."""
        if 1.0 / theta >= NEAREST_RATE:
            # each atom's Laplace bump puts below e^-800 beyond the next lattice point (masses of 1e-300
            # to 1 differ by e^691 at most): to double precision, the priors' own divergences
            return zero_noise_hockey_stick(self.p, self.q, epsilon=epsilon)
        if self._scans is None or self._scans[0] != theta:
            f, h = one_sided_sums(self.logp, 1.0 / theta)
            with np.errstate(divide="ignore"):
                logs = np.log(np.vstack((f, h)))
            # the relative error of F and H: the log-space bound, and the exp back to linear space
            rel = 2.0 * kernel_log_error(self.logp, logs, 1.0 / theta) + 4.0 * U
            self._scans = (theta, f, h, rel)
        _, f, h, rel = self._scans
        c, rate = math.exp(epsilon) if epsilon < 709.0 else math.inf, 1.0 / theta
        got = []
        for top, bot in ((0, 1), (1, 0)):
            value = _hockey_from_scans(f[top], h[top], f[bot], h[bot], c, rate)
            error = _hockey_error(f[top], h[top], f[bot], h[bot], c, rate, rel)
            got.append(from_float((value,), error))
        if got[0] is None or got[1] is None:
            return arb_laplace_hockey(self.masses, theta, epsilon)
        return got[0][0], got[1][0]

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
    r"""The exact privacy loss L(theta) of Laplace(theta) noise between priors ``p`` and ``q``.

    See docs/math/audits.md for why the sup over all real y is a max over lattice points.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The two query priors :math:`P_i`, :math:`P_j`.
    theta : float
        The Laplace scale :math:`\theta > 0` audited.

    Returns
    -------
    PrivacyLoss
        Forward and backward sup of the log-ratio, and where they are attained.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Priors that are not lattice pmfs, or :math:`\theta` not finite and positive.
    """
    theta = _check_theta(theta)
    _check_pair(p, q)
    return _auditor(p, q).loss(theta)


def mgf_tail_loss(a: LatticePMF, b: LatticePMF, theta: float) -> tuple[float, float]:
    r"""The y -> +inf and y -> -inf limits of log p_Y(y|s_i)/p_Y(y|s_j) for X_i = R + A, X_j = R + B.

    For y beyond every atom, p_Y(y) = e^{-y/theta} E[e^{X/theta}] / (2 theta), and R cancels:
    the limits are log M_A(1/theta) - log M_B(1/theta) and log M_A(-1/theta) - log M_B(-1/theta),
    computed from the two user pmfs alone (log-sum-exp). Since L(theta) is a sup over y,
    max(|first|, |second|) <= L(theta) for the true priors, whatever the other users:
    an exact cross-check of an audit at scale (docs/math/audits.md).

    Parameters
    ----------
    a, b : pufferfish.lattice.pmf.LatticePMF
        Laws :math:`A`, :math:`B` of the one user that differs between the secrets.
    theta : float
        Laplace scale at which the tail limits are taken, :math:`> 0`.

    Returns
    -------
    tuple of float
        The limits of the log-ratio at :math:`y \to +\infty` and :math:`y \to -\infty`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        ``a`` or ``b`` not a lattice pmf, or ``theta`` invalid.
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

    L is non-increasing in theta (docs/math/audits.md), continuous, and L(span / epsilon) <=
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
    r"""theta_min(epsilon) for every epsilon of a grid (see :func:`theta_min`); audits are shared.

    Every value is an audited, accepted scale: an epsilon whose bracket cannot be closed
    within ``max_steps`` (theta_min's theta = inf) raises, naming it and the reason.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The secret pair's priors to calibrate for.
    epsilons : float or sequence of float
        Targets :math:`\epsilon > 0`, one tight scale each.
    rtol : float
        Relative width at which each bracket is closed.
    max_steps : int
        Audits allowed for one :math:`\epsilon`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta_{\min}(\epsilon)` for each target, each an audited, accepted scale.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors or grid, or an :math:`\epsilon` whose bracket does not close within ``max_steps``.
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
    not increase with theta, docs/math/audits.md), doubling or halving from W_inf / epsilon,
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

    def decide(self, scale: float, target: Target) -> Achieved:
        """:meth:`achieved`; where its certified value exceeds the target, the arb route at the
        precision that decides the verdict (a value on the target, e.g. a closed form's exact scale)."""
        got = self.achieved(scale, target)
        theta = float(scale)
        if got.meets() or not math.isfinite(got.value) or 1.0 / theta >= NEAREST_RATE:
            return got
        aud = _auditor(self.p, self.q)
        if target.guarantee == "epsilon_delta":
            fwd, bwd = arb_laplace_hockey(aud.masses, theta, target.epsilon, bound=target.bound)
        else:
            fwd, bwd = arb_loss(aud.masses, theta, bound=target.bound)
        return Achieved(theta, target, fwd, bwd)

    def smallest_scale(self, target: Target) -> Smallest:
        target = self.check_target(target)
        if target.guarantee == "epsilon":                 # theta_min: the pair's audits as history
            res = theta_min(self.p, self.q, target.epsilon, rtol=self.rtol, max_steps=self.max_steps)
            return Smallest(target, res.theta, res.loss, res.steps, res.reason)
        return super().smallest_scale(target)

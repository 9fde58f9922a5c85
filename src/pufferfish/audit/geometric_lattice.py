"""Exact audits of two-sided geometric noise on lattice priors: pure epsilon, hockey stick, Renyi.

G on the integers with P(G = g) = c r^|g|, r = e^(-1/b), c = (1 - r) / (1 + r) (the discrete
Laplace law of scale b > 0; paper 003's geometric mechanism has eps_A = 1/b), Y = X + G, X|s_i ~ P
and X|s_j ~ Q on the integer lattice. At every integer y, p_Y(y) = c K_P(y) with
K_P(y) = sum_x P(x) r^|y - x| (:func:`pufferfish.audit.kernel.log_kernel_sums`, in log space).
Beyond the hull [L, R] of both priors K_P(R + j) = r^j K_P(R) and K_P(L - j) = r^j K_P(L), so
every audit is a finite sum over the hull plus two geometric series in closed form:

* pure epsilon (:func:`geometric_privacy_loss`): max over the hull of |log K_P - log K_Q| -- the
  tails are constant, equal to their end values log M_P(+-1/b) - log M_Q(+-1/b) (moment
  generating functions);
* hockey stick (:func:`geometric_hockey_stick`): c sum_hull [K_P - e^eps K_Q]_+ plus
  r / (1 + r) ([K_P(R) - e^eps K_Q(R)]_+ + [K_P(L) - e^eps K_Q(L)]_+);
* Renyi (:func:`geometric_renyi`): D_alpha = log(1 + J) / (alpha - 1) with J = sum_y q psi(p/q),
  psi(t) = t^alpha - 1 - alpha (t - 1) >= 0 (no cancellation), the tails again r / (1 + r) times
  their end terms.

Monotonicity in b (why the smallest-scale search is valid). The characteristic function of G
is (1 - r)^2 / (1 - 2 r cos t + r^2). For r2 >= r1 the ratio of those of b2 >= b1,
(1 - r2)^2 (1 - 2 r1 cos t + r1^2) / ((1 - r1)^2 (1 - 2 r2 cos t + r2^2)), has the Fourier
coefficients w_k = (1 - r2)^2 r2^(|k| - 1) (r2 - r1)(1 - r1 r2) / ((1 - r1)^2 (1 - r2^2)) for
k != 0 and w_0 = (1 - r2)^2 (1 + r1^2 - 2 r1 r2) / ((1 - r1)^2 (1 - r2^2)) (expand
1 / (1 - 2 r2 cos t + r2^2) = sum_k r2^|k| e^(ikt) / (1 - r2^2)): all >= 0 (1 + r1^2 - 2 r1 r2
>= (1 - r1)^2), summing to the ratio at t = 0, 1. So G_b2 = G_b1 + W in law with W ~ w
independent: Y_b2 is Y_b1 post-processed by one kernel whatever the secret, and the
max-divergence, the hockey stick and D_alpha obey data processing: none increases with b
(tested, tests/unit/test_geometric_lattice.py). As b -> 0, K_P -> P on the hull: the audits
tend to the divergences of the priors (:mod:`pufferfish.audit.zero_noise`).
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.audit.auditor import LatticeAuditor, TightMethod
from pufferfish.audit.certify import U, arb_geometric, arb_loss, from_float, kernel_log_error
from pufferfish.audit.kernel import NEAREST_RATE, log_kernel_sums, nearest_sums
from pufferfish.audit.quadrature import log_psi, lse
from pufferfish.audit.target import Achieved, Target
from pufferfish.checks import instance, real
from pufferfish.checks import search as checked_search
from pufferfish.errors import InvalidArgumentError
from pufferfish.lattice.pmf import LatticePMF, check_lattice_size
from pufferfish.lattice.transport import plan_span

__all__ = ["GeometricLatticeAuditor", "geometric_privacy_loss", "geometric_hockey_stick", "geometric_renyi"]

#: scales below this times the hull's width are refused (module docstring): 1/b stays below 1e290 / width
_MIN_SCALE = 1e-290


class _Pair:
    """The two priors on their common hull and log K_P, log K_Q at the last scale asked for."""

    def __init__(self, p: LatticePMF, q: LatticePMF):
        instance(p, LatticePMF, name="p")
        instance(q, LatticePMF, name="q")
        lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
        check_lattice_size(hi - lo + 1, name="p, q", what=f"their common hull from {lo} to {hi}")
        self.p, self.q = p, q
        self.masses = np.vstack((p.pmf_on(lo, hi), q.pmf_on(lo, hi)))
        with np.errstate(divide="ignore"):
            self.logp = np.log(self.masses)
        #: the smallest scale audited: the exponents |k - x| / b across the hull stay below 1e290
        self.floor = _MIN_SCALE * max(1.0, float(hi - lo))
        self._last: tuple | None = None

    def sums(self, b: float) -> tuple[np.ndarray, np.ndarray]:
        """(d, log S): K(k) = e^(-d(k) / b) S(k) on the hull for both priors (2 x n), K(k) =
        sum_x P(x) e^(-|k - x| / b); d = 0 below :data:`~pufferfish.audit.kernel.NEAREST_RATE`
        (:func:`~pufferfish.audit.kernel.log_kernel_sums`), the distance to the nearest atom above
        it (:func:`~pufferfish.audit.kernel.nearest_sums`: ratios exact however small b is)."""
        if b < self.floor:
            raise InvalidArgumentError(f"scale = {b!r}: below {self.floor:.3g}, the smallest geometric scale "
                                       "audited on these priors (the exponents |k - x| / scale would overflow)")
        if self._last is None or self._last[0] != b:
            rate = 1.0 / b
            if rate < NEAREST_RATE:
                sums = (np.zeros(self.logp.shape[1]), log_kernel_sums(self.logp, rate))
            else:
                sums = nearest_sums(self.logp, rate)
            error = kernel_log_error(self.logp, sums[1], rate, nearest=rate >= NEAREST_RATE)
            self._last = (b, sums, error)
        return self._last[1]

    def error(self, b: float) -> float:
        """The bound on the absolute error of every log S of :meth:`sums` at ``b`` (certify.kernel_log_error)."""
        self.sums(b)
        return self._last[2]


def _log_norm(b: float) -> tuple[float, float]:
    """(log c, log (r / (1 + r))): c = (1 - r) / (1 + r) the pmf at 0, r / (1 + r) = c r / (1 - r) the
    weight of a geometric tail, r = e^(-1/b), accurate for every b > 0."""
    rate = 1.0 / b
    log_c = math.log(-math.expm1(-rate)) - math.log1p(math.exp(-rate))
    return log_c, -float(np.logaddexp(0.0, rate))


def _loss(pair: _Pair, b: float) -> tuple[float, float]:
    _, log_s = pair.sums(b)
    gap = log_s[0] - log_s[1]                         # the common factor e^(-d / b) cancels
    fwd, bwd = float(np.max(gap)), float(-np.min(gap))
    got = from_float((fwd, bwd), 2.0 * pair.error(b) + 2.0 * U * max(abs(fwd), abs(bwd)))
    return got if got is not None else arb_loss(pair.masses, b)


def _certified(value: float, up: float, arb_route):
    """``up`` (an upper bound from the directed evaluation of docs/math/audits.md) when it is within
    ACCEPT of ``value``, else None (``arb_route`` decides)."""
    got = from_float((value,), max(up - value, 0.0))
    return None if got is None else max(got[0], up)


def _hockey(pair: _Pair, b: float, eps: float) -> tuple[float, float]:
    d, log_s = pair.sums(b)
    log_c, log_tail = _log_norm(b)
    log_w = log_c - d / b                             # log c e^(-d / b); the hull's ends are atoms: d = 0
    out = []
    # directed evaluation: every exponent moved by the error of log S plus 4u of its magnitude (its
    # roundings, and log c, log r/(1+r) to 2u), the exps to 2u: an upper end of each term
    err = pair.error(b)
    for top, bot in ((0, 1), (1, 0)):
        with np.errstate(over="ignore", invalid="ignore"):
            a_in, b_in = log_w + log_s[top], eps + log_w + log_s[bot]
            a_end, b_end = log_tail + log_s[top, [0, -1]], eps + log_tail + log_s[bot, [0, -1]]
            terms = np.exp(a_in) - np.exp(b_in)
            ends = np.exp(a_end) - np.exp(b_end)
            value = math.fsum(np.maximum(np.concatenate((terms, ends)), 0.0).tolist())
            pad_a = err + 4.0 * U * (np.abs(log_w) + np.abs(log_s[top]) + 2.0 * abs(log_c) + 1.0)
            pad_b = err + 4.0 * U * (np.abs(log_w) + np.abs(log_s[bot]) + eps + 2.0 * abs(log_c) + 1.0)
            hi_in = np.exp(a_in + pad_a) * (1.0 + 4.0 * U) - np.exp(b_in - pad_b) * (1.0 - 4.0 * U)
            pad_ea = err + 4.0 * U * (abs(log_tail) + np.abs(log_s[top, [0, -1]]) + 1.0)
            pad_eb = err + 4.0 * U * (abs(log_tail) + np.abs(log_s[bot, [0, -1]]) + eps + 1.0)
            hi_end = np.exp(a_end + pad_ea) * (1.0 + 4.0 * U) - np.exp(b_end - pad_eb) * (1.0 - 4.0 * U)
        up = math.fsum(np.maximum(np.concatenate((hi_in, hi_end)), 0.0).tolist()) * (1.0 + 8.0 * U)
        # a term whose exp underflowed may be positive below the floats: arb decides
        lost = up < 1e-290 and bool(np.any(np.isfinite(a_in) & (a_in + pad_a < -700.0)))
        out.append(_certified(value, up, None) if math.isfinite(up) and not lost else None)
    if out[0] is None or out[1] is None:
        return arb_geometric(pair.masses, b, "epsilon_delta", epsilon=eps)
    return out[0], out[1]


def _renyi(pair: _Pair, b: float, alpha: float) -> tuple[float, float]:
    d, log_s = pair.sums(b)
    log_c, log_tail = _log_norm(b)
    out = []
    # directed evaluation: psi(e^l) grows with |l|, so l moved away from 0 by its error bound (2 err
    # plus 4u |l|) and log q up by err give an upper end of every term; log_psi, lse and the logs
    # within 64 ulps (assumed), then D = log1p(J) / (alpha - 1) rounded up
    err = pair.error(b)
    for top, bot in ((0, 1), (1, 0)):
        ell = log_s[top] - log_s[bot]
        terms = log_s[bot] + log_psi(ell, alpha)     # q psi(p / q), e^(-d / b) apart
        log_j = float(np.logaddexp(lse(log_c - d / b + terms), log_tail + lse(terms[[0, -1]])))
        value = float(np.logaddexp(0.0, log_j)) / (alpha - 1.0)
        pad = 2.0 * err + 4.0 * U * np.abs(ell)
        with np.errstate(invalid="ignore"):
            far = np.where(ell >= 0, ell + pad, ell - pad)
            terms_up = log_s[bot] + err + np.maximum(log_psi(far, alpha), log_psi(np.where(ell >= 0, ell - pad,
                                                                                            ell + pad), alpha))
        slack = 64.0 * U * (1.0 + float(np.max(np.abs(terms_up[np.isfinite(terms_up)]), initial=0.0))
                            + abs(log_c) + float(np.max(np.abs(d / b))) + abs(log_tail))
        log_j_up = float(np.logaddexp(lse(log_c - d / b + terms_up), log_tail + lse(terms_up[[0, -1]]))) + slack
        up = math.log1p(math.exp(log_j_up)) * (1.0 + 8.0 * U) / (alpha - 1.0) * (1.0 + 8.0 * U) if log_j_up < 700 \
            else (log_j_up + math.log1p(math.exp(-log_j_up))) * (1.0 + 8.0 * U) / (alpha - 1.0) * (1.0 + 8.0 * U)
        # a value below the normal floats loses its relative accuracy (and may underflow): arb decides
        out.append(_certified(value, up, None) if math.isfinite(up) and value >= 1e-290 else None)
    if out[0] is None or out[1] is None:
        return arb_geometric(pair.masses, b, "renyi", alpha=alpha)
    return out[0], out[1]


def _check_scale(scale) -> float:
    return real(scale, name="scale", lo=0.0, lo_open=True)


def geometric_privacy_loss(p: LatticePMF, q: LatticePMF, *, scale: float) -> tuple[float, float]:
    r"""Both directions of the pure-epsilon loss of Y = X + G, G two-sided geometric of scale b.

    Returns ``(max_y log p_Y(y) / q_Y(y), max_y log q_Y(y) / p_Y(y))`` over every integer y: a max
    over the hull, the tails being constant (module docstring).

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        Lattice priors released with two-sided geometric noise.
    scale : float
        The geometric scale :math:`b > 0` (:math:`r = e^{-1/b}`).

    Returns
    -------
    tuple of float
        Pure-:math:`\epsilon` loss in each direction, a max over the integers.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        ``p``, ``q`` not lattice pmfs, or ``scale`` not finite and > 0 (or below 1e-290 times the width of the priors' hull).
    """
    return _loss(_Pair(p, q), _check_scale(scale))


def geometric_hockey_stick(p: LatticePMF, q: LatticePMF, *, epsilon: float, scale: float) -> tuple[float, float]:
    r"""Both directions of the hockey-stick divergence of Y = X + G, exactly.

    Returns ``(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y))``, H_c(P || Q) = sum_y [p(y) - c q(y)]_+:
    the smallest delta of (epsilon, delta)-PP in each direction; absolute error about
    1e-16 (1 + e^eps). ``epsilon`` >= 0 (0: the total variation distance).

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The pair's priors; the output is :math:`X + G`.
    epsilon : float
        Hockey-stick level :math:`\epsilon \ge 0` (0: total variation).
    scale : float
        :math:`b > 0`, the scale of :math:`G`.

    Returns
    -------
    tuple of float
        The smallest :math:`\delta` of :math:`(\epsilon, \delta)`-PP, forward and backward.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors, ``epsilon`` < 0 or not finite, ``scale`` not finite and > 0.
    """
    eps = real(epsilon, name="epsilon", lo=0.0)
    return _hockey(_Pair(p, q), _check_scale(scale), eps)


def geometric_renyi(p: LatticePMF, q: LatticePMF, *, alpha: float, scale: float) -> tuple[float, float]:
    r"""Both directions of the Renyi divergence of Y = X + G: (D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y)).

    alpha > 1; D_alpha = log(1 + J) / (alpha - 1), J a finite sum and two geometric tails
    (module docstring). (alpha, epsilon)-RPP holds in a direction when its value is <= epsilon.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The two priors, each convolved with the geometric noise.
    alpha : float
        Order :math:`\alpha > 1` of the Renyi divergence.
    scale : float
        Scale :math:`b > 0` of the two-sided geometric law.

    Returns
    -------
    tuple of float
        ``(D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y))``, exact sums and geometric tails.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors, ``alpha`` <= 1 or not finite, ``scale`` not finite and > 0.
    """
    alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
    return _renyi(_Pair(p, q), _check_scale(scale), alpha)


class GeometricLatticeAuditor(LatticeAuditor):
    """:class:`~pufferfish.audit.auditor.Auditor` of two-sided geometric noise on two lattice priors.

    ``epsilon``: :func:`geometric_privacy_loss`; ``epsilon_delta``: :func:`geometric_hockey_stick`;
    ``renyi``: :func:`geometric_renyi` (forward: s_i against s_j). ``smallest_scale`` is the
    generic search (doubling, valid by the monotonicity of the module docstring) from
    W_inf / epsilon, which gives pure epsilon-PP (a shift s changes the pmf by at most
    e^(s / b); along the W_inf coupling every shift is at most W_inf) and so meets all three.
    """

    noise = "geometric"
    guarantees = ("epsilon", "epsilon_delta", "renyi")
    search = "double"
    order = 3
    tight = {
        "epsilon_delta": TightMethod(
            "tight_geometric", "tight geometric, (ε, δ)-PP (exact audit)",
            "this project: the smallest two-sided geometric scale whose exact hockey-stick divergence is <= delta"),
        "epsilon": TightMethod(
            "tight_geometric_epsilon", "tight geometric, ε-PP (exact audit)",
            "this project: the smallest two-sided geometric scale whose exact privacy loss is <= epsilon"),
        "renyi": TightMethod(
            "tight_geometric_renyi", "tight geometric, (α, ε)-RPP (exact audit)",
            "this project: the smallest two-sided geometric scale whose exact Renyi divergence is <= epsilon"),
    }

    def __init__(self, p: LatticePMF, q: LatticePMF, *, rtol: float = 1e-10, max_steps: int = 200):
        self._pair = _Pair(p, q)
        self.p, self.q = p, q
        self.rtol, self.max_steps = checked_search(rtol, max_steps)
        self._span: int | None = None

    @classmethod
    def std(cls, scale: float) -> float:
        """sqrt(2 r) / (1 - r), r = e^(-1/b): Var G = 2 r / (1 - r)^2 (sqrt(r) = e^(-1/(2b)): no underflow
        of r itself for tiny b)."""
        if scale == 0:
            return 0.0
        return math.sqrt(2.0) * math.exp(-0.5 / scale) / -math.expm1(-1.0 / scale)

    def floor(self, target: Target) -> float:
        """1e-290 times the hull's width: below it the exponents |k - x| / b could overflow."""
        return self._pair.floor

    def start_scale(self, target: Target) -> float:
        """W_inf / epsilon (pure epsilon-PP there, so every guarantee is met: class docstring)."""
        if self._span is None:
            self._span = plan_span(self.p, self.q)
        return (self._span if self._span > 0 else 1.0) / target.epsilon

    def decide(self, scale: float, target: Target) -> Achieved:
        """:meth:`achieved`; where its certified value exceeds the target, the arb route at the
        precision that decides the verdict (a value on the target, e.g. a closed form's exact scale)."""
        got = self.achieved(scale, target)
        b = float(scale)
        if got.meets() or not math.isfinite(got.value) or 1.0 / b >= NEAREST_RATE:
            return got
        masses = self._pair.masses
        if target.guarantee == "epsilon":
            fwd, bwd = arb_loss(masses, b, bound=target.bound)
        else:
            fwd, bwd = arb_geometric(masses, b, target.guarantee, epsilon=target.epsilon,
                                     alpha=target.alpha if target.alpha is not None else 2.0, bound=target.bound)
        return Achieved(b, target, fwd, bwd)

    def achieved(self, scale: float, target: Target) -> Achieved:
        target = self.check_target(target)
        b = _check_scale(scale)
        if target.guarantee == "epsilon_delta":
            fwd, bwd = _hockey(self._pair, b, target.epsilon)
        elif target.guarantee == "renyi":
            fwd, bwd = _renyi(self._pair, b, target.alpha)
        else:
            fwd, bwd = _loss(self._pair, b)
        return Achieved(b, target, fwd, bwd)

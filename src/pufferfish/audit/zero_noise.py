"""The noise-free limit of an audit on two lattice priors: the divergences of the priors themselves.

As the scale of any additive noise (Laplace, Gaussian, Cauchy) tends to 0, the shifted noises
separate the atoms of the lattice, so every audit tends to the divergence of the two priors
P and Q: max_x |log P(x)/Q(x)| (pure epsilon), sum_x [P(x) - e^eps Q(x)]_+ (hockey stick),
D_alpha(P || Q) (Renyi). By data processing each is also an upper bound on the audit of every
noise scale: when it already meets a target, no noise is needed.

These depend on no noise family, so they sit below :mod:`pufferfish.audit.auditor` (whose
``LatticeAuditor.noise_free`` returns them) and the per-noise modules.

Every value is certified (:mod:`pufferfish.audit.certify`): at least the true divergence of the
float masses and at most 1e-9 relative above it, from the float route and its error bound
(docs/math/audits.md, "Certified values"), else from arb balls.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.audit.certify import U, arb_zero_noise, from_float
from pufferfish.checks import instance, real
from pufferfish.lattice.pmf import LatticePMF, check_lattice_size

__all__ = ["zero_noise_directions", "zero_noise_loss", "zero_noise_hockey_stick", "zero_noise_renyi"]


def _on_hull(p: LatticePMF, q: LatticePMF) -> tuple[np.ndarray, np.ndarray]:
    """The masses of ``p`` and ``q`` on their common hull (two lattice pmfs, checked)."""
    instance(p, LatticePMF, name="p")
    instance(q, LatticePMF, name="q")
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    check_lattice_size(hi - lo + 1, name="p, q", what=f"their common hull from {lo} to {hi}")
    return p.pmf_on(lo, hi), q.pmf_on(lo, hi)


def zero_noise_directions(p: LatticePMF, q: LatticePMF) -> tuple[float, float]:
    r"""(max_x log P(x)/Q(x), max_x log Q(x)/P(x)) over the union of the supports (inf where one
    prior charges an atom the other does not): the two directions of :func:`zero_noise_loss`.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The priors compared atom by atom, without noise.

    Returns
    -------
    tuple of float
        ``(max log P/Q, max log Q/P)`` over the supports (``inf`` if one charges an atom the other does not).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Not lattice pmfs, or a common hull too large to hold.
    """
    a, b = _on_hull(p, q)
    return _directions(a, b)


def _directions(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """:func:`zero_noise_directions` of the masses on the hull, certified: log a - log b rounds each log
    (2 ulps of |log|, assumed of numpy) and the difference; where a / b lies in [1/2, 2] the ratio
    is formed first (a - b exact by Sterbenz, so log1p((a - b) / b) errs by 4 ulps of the value)."""
    both = (a > 0) & (b > 0)
    u, v = a[both], b[both]
    close = (u <= 2.0 * v) & (v <= 2.0 * u)
    with np.errstate(all="ignore"):
        gap = np.where(close, np.log1p((u - v) / v), np.log(u) - np.log(v))
        err = np.where(close, 6.0 * U * np.abs(gap), 3.0 * U * (np.abs(np.log(u)) + np.abs(np.log(v)) + np.abs(gap)))
    error = float(np.max(err, initial=0.0))
    fwd = float(max(np.max(gap, initial=0.0), 0.0))
    bwd = float(max(np.max(-gap, initial=0.0), 0.0))
    got = from_float((fwd, bwd), error)
    if got is None:
        got = arb_zero_noise(u, v, "epsilon")
    fwd = math.inf if np.any((a > 0) & (b == 0)) else got[0]
    bwd = math.inf if np.any((b > 0) & (a == 0)) else got[1]
    return fwd, bwd


def zero_noise_loss(p: LatticePMF, q: LatticePMF) -> float:
    r"""lim_{theta -> 0} L(theta) = max over lattice points of |log P_i(x) / P_j(x)| (inf if supports differ).

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        Priors whose noise-free pure-:math:`\epsilon` loss is wanted.

    Returns
    -------
    float
        The larger direction of :func:`zero_noise_directions`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        ``p`` / ``q`` of the wrong type, or their hull too large.
    """
    a, b = _on_hull(p, q)
    if np.any((a > 0) != (b > 0)):
        return math.inf
    return max(_directions(a, b))


def zero_noise_hockey_stick(p: LatticePMF, q: LatticePMF, *, epsilon: float) -> tuple[float, float]:
    r"""The noise-free limit: (sum_x [P(x) - e^eps Q(x)]_+, sum_x [Q(x) - e^eps P(x)]_+).

    The hockey-stick divergences of the priors themselves; every noise scale does at least
    as well (data processing), and as the scale tends to 0 the audit tends to this value.
    ``epsilon`` >= 0 (0 gives the total variation distance).

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        Priors :math:`P`, :math:`Q` released as they are.
    epsilon : float
        Level of the hockey stick, :math:`\ge 0`.

    Returns
    -------
    tuple of float
        The two sums :math:`\sum_x [P(x) - e^\epsilon Q(x)]_+` and its mirror.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Bad priors, or ``epsilon`` negative or not finite.
    """
    eps = real(epsilon, name="epsilon", lo=0.0)
    a, b = _on_hull(p, q)
    c = math.exp(eps) if eps < 709.0 else math.inf          # e^eps overflows past 709.78

    def one(u: np.ndarray, v: np.ndarray):
        # [u - c v]_+: u where v = 0, else 0 once c v >= u; each term errs by 4u (c v) + u |term|
        # (c = e^eps to 2 ulps, the product, the difference), fsum by half an ulp of the sum, and a
        # term computed <= 0 may be > 0 only where c v (1 - 4u) < u
        if c == math.inf and np.any((v > 0) & (u > 0)):
            return None                                  # e^eps is no float: arb decides
        with np.errstate(over="ignore", invalid="ignore"):
            cv = c * v
            terms = np.where(v > 0, np.maximum(u - cv, 0.0), u)
            live = (v > 0) & (cv * (1.0 - 8.0 * U) <= u)
            error = 4.0 * U * float(np.sum(np.where(live, cv + u, 0.0)))
        value = math.fsum(terms.tolist())
        got = from_float((value,), error + U * value)
        return None if got is None else got[0]

    fwd, bwd = one(a, b), one(b, a)
    if fwd is None or bwd is None:
        keep = (a > 0) | (b > 0)
        return arb_zero_noise(a[keep], b[keep], "epsilon_delta", epsilon=eps)
    return fwd, bwd


def zero_noise_renyi(p: LatticePMF, q: LatticePMF, *, alpha: float) -> tuple[float, float]:
    r"""The noise-free limit: (D_alpha(P || Q), D_alpha(Q || P)) of the priors themselves (inf where a
    support is not inside the other's); an upper bound on the audit of every noise scale (data processing).

    D_alpha(P || Q) = log sum_x P(x)^alpha Q(x)^(1 - alpha) / (alpha - 1), alpha > 1 (paper 002, Def. 3.1),
    the sum taken as a log-sum-exp.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The priors whose own Renyi divergences bound every audit.
    alpha : float
        The order, greater than 1.

    Returns
    -------
    tuple of float
        :math:`(D_\alpha(P \| Q), D_\alpha(Q \| P))`, ``inf`` where a support is not inside the other.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Priors of the wrong type, or ``alpha`` at most 1.
    """
    alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
    a, b = _on_hull(p, q)

    def one(u, v):
        # the terms err by 4u (alpha |log u| + (alpha - 1) |log v|) + 2u |term|, the sum of exps
        # relatively by (m + 4) u, the log by u |value|: bound E on (alpha - 1) D, then / (alpha - 1)
        if np.any((u > 0) & (v == 0)):
            return math.inf
        m = u > 0
        lu, lv = np.log(u[m]), np.log(v[m])
        terms = alpha * lu + (1 - alpha) * lv  # finite: u, v > 0 on m
        top = float(np.max(terms))
        total = top + math.log(float(np.sum(np.exp(terms - top))))
        error = (4.0 * U * float(np.max(alpha * np.abs(lu) + (alpha - 1.0) * np.abs(lv) + np.abs(terms)))
                 + (m.sum() + 8.0) * U + 2.0 * U * abs(total) + 2.0 * U * abs(top))
        value = max(0.0, total / (alpha - 1.0))
        got = from_float((value,), (error / (alpha - 1.0)) * (1.0 + 4.0 * U) + 2.0 * U * value)
        return None if got is None else got[0]

    fwd, bwd = one(a, b), one(b, a)
    if fwd is None or bwd is None:
        keep = (a > 0) | (b > 0)
        arb_f, arb_b = arb_zero_noise(a[keep], b[keep], "renyi", alpha=alpha)
        fwd = arb_f if fwd is None else fwd
        bwd = arb_b if bwd is None else bwd
    return fwd, bwd

r"""Exact audit of Cauchy noise on lattice priors: the Renyi divergence and the smallest scale.

:math:`Y = X + C`, :math:`C \sim \mathrm{Cauchy}(0, \gamma)`, :math:`X \mid s_i \sim P` and
:math:`X \mid s_j \sim Q` on the integer lattice. Paper 002 (Pierquin et al., Renyi Pufferfish
Privacy, ICML 2024, Cor. 4.1) calibrates :math:`\gamma = W_2 / \sqrt{2 (e^\epsilon - 1)}` for
:math:`(2, \epsilon)`-RPP (the DAGWM); this module computes what a :math:`\gamma` achieves.

:func:`cauchy_renyi` gives :math:`D_\alpha(P_Y \| Q_Y)` (both directions) to relative accuracy
:math:`10^{-10}`: as for Gaussian noise (:mod:`pufferfish.audit.gaussian_lattice`), an integrand
without cancellation, integrated by adaptive Gauss-Kronrod over the core and over each
heavy tail mapped onto a finite interval (nothing is cut off). Every atom contributes at
every point: meant for priors of up to a few thousand atoms. Scales below :math:`10^{-8}`
times the largest centred atom are refused (float64 rounding of the nodes), and the
smallest-scale search stops there and says so. :class:`CauchyLatticeAuditor` finds the
smallest :math:`\gamma` meeting a target: Cauchy is stable, so :math:`D_\alpha` is non-increasing
in :math:`\gamma` (data processing).

Derivation and error bounds: docs/math/audits.md, "Cauchy noise on lattice priors".
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.audit.atoms import PairAtoms
from pufferfish.audit.auditor import LatticeAuditor, TightMethod
from pufferfish.audit.quadrature import QUAD_RTOL, gk_log, log_psi
from pufferfish.audit.target import Achieved, Target
from pufferfish.checks import instance, real
from pufferfish.checks import search as checked_search
from pufferfish.errors import ComputationError, ConfigError
from pufferfish.lattice.distances import wasserstein_p
from pufferfish.lattice.pmf import LatticePMF

__all__ = ["CauchyLatticeAuditor", "cauchy_renyi"]

#: entries of one (points x atoms) block of the evaluation
_BLOCK = 2_000_000
#: the core extends this many gamma beyond the atoms
_CORE = 10.0
#: initial panels of each mapped tail
_TAIL_PANELS = 32
#: the smallest gamma audited, relative to the largest |atom| (centred, at least 1): :func:`_floor`
_FLOOR = 1e-8


class _CauchyPair:
    """(log q_Y + log psi(l), log p_Y + log psi(-l)) at y: the two Renyi integrands (log pi gamma dropped)."""

    def __init__(self, atoms: PairAtoms, gamma: float, alpha: float):
        self.at, self.gamma, self.alpha = atoms, gamma, alpha
        self.diff = atoms.pa - atoms.pb

    def log_integrands(self, y: np.ndarray) -> np.ndarray:
        at, g = self.at, self.gamma
        out = np.empty((2, y.size))
        step = max(1, _BLOCK // max(at.x.size, 1))
        for start in range(0, y.size, step):
            ys = y[start:start + step]
            z = np.abs(ys[:, None] - at.x[None, :])
            with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
                near = (1.0 / g) / (1.0 + (z / g) ** 2)
                far = (g / z) / z / (1.0 + (g / z) ** 2)
            k = np.where(z <= g, near, far)            # pi k(z) = gamma / (gamma^2 + z^2), no gamma^2 underflow
            p, q = k @ at.pa, k @ at.pb
            d = k @ self.diff
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = d / q
                ell = np.where(np.abs(rel) <= 0.5, np.log1p(rel), np.log(p) - np.log(q))
                out[0, start:start + step] = np.log(q) + log_psi(ell, self.alpha)
                out[1, start:start + step] = np.log(p) + log_psi(-ell, self.alpha)
        return out - math.log(math.pi)


def _core_edges(x: np.ndarray, gamma: float, lo: float, hi: float) -> np.ndarray:
    """Panel edges partitioning the core [lo, hi] exactly (the mapped tails start at lo and hi, so
    every point is integrated once): width gamma where gamma >= 1/4; else the lattice half-points
    and, around every atom, x +- gamma 2^k up to 1/2 (a geometric grading that resolves a spike of
    width gamma in O(log 1/gamma) panels), with 20 panels between each end atom +- 1/2 and lo / hi
    when those lie further out (gamma > 1/20), every edge outside [lo, hi] dropped."""
    if gamma >= 0.25:
        count = int(math.ceil((hi - lo) / gamma))
        if count > 2_000_000:
            raise ComputationError(f"gamma = {gamma!r}: the Cauchy audit would need {count} panels")
        return np.linspace(lo, hi, count + 1)
    offsets = gamma * 2.0 ** np.arange(0, math.floor(math.log2(0.5 / gamma)) + 1)
    offsets = np.concatenate((-offsets[::-1], [0.0], offsets, [-0.5, 0.5]))
    edges = (x[:, None] + offsets[None, :]).ravel()
    ends = np.concatenate((np.linspace(lo, x[0] - 0.5, 21), np.linspace(x[-1] + 0.5, hi, 21)))
    edges = np.unique(np.concatenate((edges, ends, [lo, hi])))
    return edges[(edges >= lo) & (edges <= hi)]


def _floor(at: PairAtoms) -> float:
    """The smallest gamma audited: 1e-8 times the largest |atom| (centred, at least 1), so that the
    spikes x +- gamma around every atom are resolved in float64 coordinates (docs/math/audits.md)."""
    return _FLOOR * max(1.0, float(np.max(np.abs(at.x))))


def _renyi_cauchy(at: PairAtoms, gamma: float, alpha: float) -> tuple[float, float]:
    """(D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y)) for Cauchy noise (docs/math/audits.md)."""
    if gamma < _floor(at):
        raise ConfigError(f"gamma = {gamma!r}: below {_floor(at):.3g}, the smallest Cauchy scale this audit "
                          f"resolves on these priors")
    if np.array_equal(at.pa, at.pb):
        return 0.0, 0.0                                # the same prior: p_Y = q_Y
    ev = _CauchyPair(at, gamma, alpha)
    lo, hi = float(at.x[0]) - _CORE * gamma, float(at.x[-1]) + _CORE * gamma
    core = gk_log(ev.log_integrands, _core_edges(at.x, gamma, lo, hi))
    s = gamma + (float(at.x[-1]) - float(at.x[0])) + 1.0
    theta = np.linspace(0.0, 0.5 * math.pi, _TAIL_PANELS + 1)

    def tail(edge: float, sign: float):
        def log_f(t):
            y = edge + sign * s * np.tan(t)
            return ev.log_integrands(y) + math.log(s) - 2.0 * np.log(np.cos(t))
        return gk_log(log_f, theta, log_atol=math.log(QUAD_RTOL) + core)

    log_j = np.logaddexp(core, np.logaddexp(tail(hi, 1.0), tail(lo, -1.0)))
    d = np.logaddexp(0.0, log_j) / (alpha - 1.0)
    return float(d[0]), float(d[1])


def cauchy_renyi(p: LatticePMF, q: LatticePMF, *, alpha: float, gamma: float) -> tuple[float, float]:
    r"""Both directions of the Renyi divergence of Y = X + Cauchy(0, ``gamma``): (D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y)).

    alpha > 1; relative accuracy 1e-10 (docs/math/audits.md), an estimate: NOT certified (issue 39 open
    for this route, docs/math/audits.md "Certified values: Gaussian noise"). (alpha, epsilon)-RPP (paper 002,
    Def. 3.1) holds in a direction when its value is <= epsilon.

    Parameters
    ----------
    p, q : pufferfish.lattice.pmf.LatticePMF
        The priors whose Cauchy-noise outputs :math:`P_Y`, :math:`Q_Y` are compared.
    alpha : float
        Order of the divergence, :math:`\alpha > 1`.
    gamma : float
        Cauchy scale :math:`\gamma > 0`.

    Returns
    -------
    tuple of float
        ``(D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y))``.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        ``p`` or ``q`` not a lattice pmf, :math:`\alpha \le 1` or :math:`\gamma \le 0` (naming it).
    """
    instance(p, LatticePMF, name="p")
    instance(q, LatticePMF, name="q")
    alpha = real(alpha, name="alpha", lo=1.0, lo_open=True)
    gamma = real(gamma, name="gamma", lo=0.0, lo_open=True)
    return _renyi_cauchy(PairAtoms(p, q), gamma, alpha)


class CauchyLatticeAuditor(LatticeAuditor):
    """:class:`~pufferfish.audit.auditor.Auditor` of Cauchy(0, gamma) noise on two lattice priors, Renyi.

    ``Target(epsilon, alpha=a)`` means D_alpha <= epsilon; ``achieved`` is :func:`cauchy_renyi`
    (forward = D_alpha(P_Y|s_i || P_Y|s_j)); ``smallest_scale`` the generic search (galloping;
    valid by stability, docs/math/audits.md) from :meth:`start_scale`, no gamma below
    :meth:`floor`; the bracket is widened as needed. D_alpha does not depend on epsilon, so
    the audits of earlier targets at the same alpha seed the search.
    """

    noise = "cauchy"
    guarantees = ("renyi",)
    search = "gallop"
    order = 2
    tight = {"renyi": TightMethod(
        "tight_cauchy", "tight Cauchy, (α, ε)-RPP (exact audit)",
        "this project: the smallest Cauchy gamma whose exact Renyi divergence is <= epsilon")}

    def __init__(self, p: LatticePMF, q: LatticePMF, *, rtol: float = 1e-10, max_steps: int = 200):
        instance(p, LatticePMF, name="p")
        instance(q, LatticePMF, name="q")
        rtol, max_steps = checked_search(rtol, max_steps)
        self.p, self.q, self.rtol, self.max_steps = p, q, rtol, max_steps
        self._atoms = PairAtoms(p, q)
        self._w2: float | None = None

    @classmethod
    def std(cls, scale: float) -> float:
        """None: a Cauchy law has no variance (NaN)."""
        return math.nan

    def start_scale(self, target: Target) -> float:
        """Paper 002's Cor. 4.1 scale W_2 / sqrt(2 (e^eps - 1)) for alpha = 2, W_2 sqrt(alpha / (4 eps))
        otherwise (the local behaviour of one Cauchy shift: D_alpha ~ alpha Delta^2 / (4 gamma^2))."""
        if self._w2 is None:
            self._w2 = wasserstein_p(self.p, self.q, 2) or 1.0
        eps, alpha = target.epsilon, target.alpha
        return (self._w2 / math.sqrt(2.0 * math.expm1(eps)) if alpha == 2.0
                else self._w2 * math.sqrt(alpha / (4.0 * eps)))

    def floor(self, target: Target) -> float:
        """1e-8 times the largest |atom| (centred, at least 1): below it the audit is not resolved."""
        return _floor(self._atoms)

    def achieved(self, scale: float, target: Target) -> Achieved:
        target = self.check_target(target)
        gamma = real(scale, name="gamma", lo=0.0, lo_open=True)
        fwd, bwd = _renyi_cauchy(self._atoms, gamma, target.alpha)
        return Achieved(gamma, target, fwd, bwd)

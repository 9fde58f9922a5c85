r"""Certified curvature envelopes of the log-ratio r = log p_i - log p_j of two densities on a line (fact (c)).

The exact mixture audits (:mod:`.mixture_hockey_stick`, :mod:`.mixture_privacy_loss`) find where
:math:`r(y) = \log p_i(y) - \log p_j(y)` crosses a level (:math:`\pm\epsilon`, paper 004 eq. (1)) or
where :math:`|r|` peaks, on a grid refined until every interval is certified: with bounds
:math:`-D \le r'' \le U` on :math:`[a, c]` (from the families' curvature bounds, fact (b)),
:math:`r` lies between the chord :math:`\pm` :math:`D` (resp. :math:`U`) :math:`(y - a)(c - y)/2`
(fact (c), :func:`curvature_envelope`).

* :class:`LogRatioPair` -- node values of two families, counting evaluations;
* :func:`curvature_envelope` -- the max and min of the envelope on each interval;
* :func:`excess_above` -- how far, and on how long a set, the upper envelope can exceed a level
  (the certified error bounds of docs/math/audits.md, "Certified values of the mixture routes");
* :func:`mass_window`, :func:`limit_window`, :func:`refinement_grid` -- the windows and first grids.

Internal numerics of the audit package: they take validated values. Derivation: docs/math/audits.md,
"Laplace noise on Gaussian-mixture priors".
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import reals
from pufferfish.mixture import GMM

__all__ = ["Z_TAIL", "LAPLACE_TAIL", "MAX_ROUNDS", "MAX_WORK", "LogRatioPair", "curvature_envelope", "excess_above",
           "mass_window", "limit_window", "refinement_grid"]

#: standard-normal quantile beyond which a component's tail is negligible (Q(8.5) = 9.5e-18)
Z_TAIL = 8.5
#: Laplace tail length in units of b (Pr(N > 39 b) = e^{-39}/2 = 5.8e-18)
LAPLACE_TAIL = 39.0
#: at most this many refinement rounds
MAX_ROUNDS = 80
#: cap on the number of intervals refined at once (a guard; never reached in the pipeline)
MAX_WORK = 200_000


class LogRatioPair:
    """Node values [log p_i, log p_j, aux_i, aux_j] of two families (validated), counting evaluations."""

    def __init__(self, fi, fj):
        self.fi, self.fj = fi, fj
        self.points = 0

    def __call__(self, y) -> np.ndarray:
        y = np.atleast_1d(reals(y, name="y"))
        self.points += y.size
        lpi, qi = self.fi.values(y)
        lpj, qj = self.fj.values(y)
        return np.stack([lpi, lpj, qi, qj], axis=1)

    def r(self, y) -> np.ndarray:
        y = np.atleast_1d(reals(y, name="y"))
        self.points += y.size
        return self.fi.values(y)[0] - self.fj.values(y)[0]

    def curvatures(self, a, c, va, vc):
        """(D, U) >= 0 with -D <= r'' <= U on each [a, c], r = log p_i - log p_j."""
        lo_i, hi_i = self.fi.curvature(a, c, va[:, [0, 2]], vc[:, [0, 2]])
        lo_j, hi_j = self.fj.curvature(a, c, va[:, [1, 3]], vc[:, [1, 3]])
        with np.errstate(invalid="ignore", over="ignore"):
            d = np.maximum(hi_j - lo_i, 0.0)
            u = np.maximum(hi_i - lo_j, 0.0)
        return np.nan_to_num(d, nan=np.inf), np.nan_to_num(u, nan=np.inf)


# ----------------------------------------------------------------------------- windows and envelopes

def mass_window(pi: GMM, pj: GMM, b: float) -> tuple[float, float]:
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    return float(np.min(mu - Z_TAIL * sd) - LAPLACE_TAIL * b), float(np.max(mu + Z_TAIL * sd) + LAPLACE_TAIL * b)


def limit_window(pi: GMM, pj: GMM, b: float) -> tuple[float, float]:
    """[Y-, Y+] beyond which r equals its tail limits (fact (d)) to double precision."""
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    reach = sd ** 2 / b + Z_TAIL * sd
    return float(np.min(mu - reach) - b), float(np.max(mu + reach) + b)


def refinement_grid(lo: float, hi: float, step: float, extra: np.ndarray) -> np.ndarray:
    """Nodes of step about ``step`` on [lo, hi] (16 to 200,000 intervals) and the ``extra`` points inside."""
    count = int(min(max(math.ceil((hi - lo) / step), 16), 200_000))
    nodes = np.linspace(lo, hi, count + 1)
    inside = extra[(extra > lo) & (extra < hi)]
    return np.unique(np.concatenate([nodes, inside]))


def curvature_envelope(ra, rc, h, d_curv, u_curv):
    """(max, min) over [a, c] of the envelope of fact (c): chord +- curvature * (y-a)(c-y)/2."""
    slope = rc - ra
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        hd = d_curv * h * h
        hu = u_curv * h * h
        u_up = np.clip(0.5 + slope / np.where(hd > 0, hd, np.inf), 0.0, 1.0)
        u_dn = np.clip(0.5 - slope / np.where(hu > 0, hu, np.inf), 0.0, 1.0)
        env_max = ra + slope * u_up + 0.5 * hd * u_up * (1.0 - u_up)
        env_min = ra + slope * u_dn - 0.5 * hu * u_dn * (1.0 - u_dn)
    # an infinite curvature bound certifies nothing
    return np.where(np.isnan(env_max), np.inf, env_max), np.where(np.isnan(env_min), -np.inf, env_min)


def excess_above(ra, rc, h, curv, level):
    r"""(M, L): the upper envelope :math:`e` of fact (c) on each :math:`[a, c]` exceeds ``level`` by at most
    :math:`M \ge 0`, on a set of length at most :math:`L h` (:math:`0 \le L \le 1`).

    In :math:`u = (y - a)/h`, :math:`q(u) = e - \text{level} = q_0 + (s + K) u - K u^2` with
    :math:`s = r_c - r_a`, :math:`K = \text{curv}\, h^2 / 2 \ge 0`: concave. With its max :math:`M` at an
    interior vertex, :math:`q = M - K (u - u^*)^2` and :math:`\{q > 0\}` has length :math:`2\sqrt{M/K}`;
    with the max at :math:`u = 0` (resp. 1), concavity gives :math:`q(u) \le M + q'(0) u` (resp.
    :math:`M - q'(1)(1 - u)`), so the length is at most :math:`M / |q'|` there. Infinite curvature:
    :math:`M = \infty`, :math:`L = 1`. The lower envelope below a level is this on :math:`-r`.

    Parameters
    ----------
    ra, rc, h, curv : numpy.ndarray
        Node values of :math:`r` at both ends, the lengths and the curvature bounds (``D`` of fact (c)).
    level : float
        The level.

    Returns
    -------
    tuple of numpy.ndarray
        ``M`` and ``L`` (floats; their rounding is covered by the factor 2 of the callers).
    """
    env_max = curvature_envelope(ra, rc, h, curv, curv)[0]
    excess = np.maximum(env_max - level, 0.0)
    slope = rc - ra
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        k = 0.5 * curv * h * h
        d0, d1 = slope + k, slope - k                    # q'(0), q'(1)
        # q decreasing (max at u = 0), increasing (max at u = 1), or its vertex inside
        length = np.where(d0 < 0, excess / -d0, np.where(d1 > 0, excess / d1, 2.0 * np.sqrt(excess / k)))
        length = np.where(np.isfinite(excess), np.clip(np.nan_to_num(length, nan=1.0), 0.0, 1.0), 1.0)
    return excess, np.where(excess > 0, length, 0.0)

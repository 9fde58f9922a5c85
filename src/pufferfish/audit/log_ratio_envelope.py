r"""Certified curvature envelopes of the log-ratio r = log p_i - log p_j of two densities on a line (fact (c)).

The exact mixture audits (:mod:`.mixture_hockey_stick`, :mod:`.mixture_privacy_loss`) find where
:math:`r(y) = \log p_i(y) - \log p_j(y)` crosses a level (:math:`\pm\epsilon`, paper 004 eq. (1)) or
where :math:`|r|` peaks, on a grid refined until every interval is certified: with bounds
:math:`-D \le r'' \le U` on :math:`[a, c]` (from the families' curvature bounds, fact (b)),
:math:`r` lies between the chord :math:`\pm` :math:`D` (resp. :math:`U`) :math:`(y - a)(c - y)/2`
(fact (c), :func:`curvature_envelope`).

* :class:`LogRatioPair` -- node values of two families, counting evaluations;
* :func:`curvature_envelope` -- the max and min of the envelope on each interval;
* :func:`mass_window`, :func:`limit_window`, :func:`refinement_grid` -- the windows and first grids.

Internal numerics of the audit package: they take validated values. Derivation: docs/math/audits.md,
"Laplace noise on Gaussian-mixture priors".
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import reals
from pufferfish.mixture import GMM

__all__ = ["Z_TAIL", "LAPLACE_TAIL", "MAX_ROUNDS", "MAX_WORK", "LogRatioPair", "curvature_envelope",
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

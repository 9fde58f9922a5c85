r"""The auditor of Laplace noise on Gaussian-mixture priors, and the tight calibration (paper 004).

Paper 004 (N. Ding, IEEE TIFS 2024) gives *sufficient* scales :math:`b` for
:math:`Y = X + \mathrm{Laplace}(b)` (Theorems 1-2, Corollaries 1-2). :func:`b_min` and
:class:`LaplaceMixtureAuditor` give the smallest :math:`b` a secret pair of Gaussian-mixture
priors needs to meet a target :math:`(\epsilon, \delta)` of eq. (1): the audits are
:func:`~pufferfish.audit.mixture_hockey_stick.hockey_stick` (:math:`\delta > 0`) and
:func:`~pufferfish.audit.mixture_privacy_loss.epsilon_achieved` (:math:`\delta = 0`); both losses
are non-increasing in :math:`b` (a larger Laplace is the smaller one plus independent noise, and
data processing), so :func:`pufferfish.audit.search.smallest_scale` finds :math:`b_{\min}`.
The auditor class declares itself (module name ``*_mixture``, :func:`pufferfish.audit.auditor.auditor_classes`).

Derivation and the monotonicity proof: docs/math/audits.md, "Laplace noise on Gaussian-mixture priors".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.audit.auditor import Auditor
from pufferfish.audit.emg_density import as_prior
from pufferfish.audit.mixture_hockey_stick import delta_achieved, hockey_stick, prior_hockey_stick
from pufferfish.audit.mixture_privacy_loss import epsilon_achieved, prior_epsilon_achieved
from pufferfish.audit.search import smallest_scale
from pufferfish.audit.target import Achieved, Target
from pufferfish.checks import real
from pufferfish.checks import search as checked_search
from pufferfish.mixture import GMM

__all__ = ["LaplaceMixtureAuditor", "BMin", "b_min"]

# ----------------------------------------------------------------------------- b_min

@dataclass(frozen=True)
class BMin:
    """The smallest accepted Laplace scale: ``b`` (inf when no bracket was found, see ``reason``).

    ``achieved`` is delta_achieved(b) (or epsilon_achieved(b) when ``delta == 0``), ``rejected``
    the largest scale tried that fails (``b_rejected`` < b with b / b_rejected - 1 <= rtol),
    ``steps`` the number of audit evaluations.
    """

    epsilon: float
    delta: float
    b: float
    achieved: float
    b_rejected: float
    steps: int
    reason: str = ""


def _start_scale(pi: GMM, pj: GMM) -> float:
    w = np.concatenate([pi.weights, pj.weights])
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    centre = float(w @ mu) / 2.0
    spread = float(np.sqrt(w @ ((mu - centre) ** 2 + sd ** 2) / 2.0))
    gap = abs(pi.mean() - pj.mean()) + abs(float(np.sqrt(pi.weights @ pi.stds ** 2))
                                           - float(np.sqrt(pj.weights @ pj.stds ** 2)))
    return max(gap, 1e-6 * max(spread, abs(centre), 1.0))


def b_min(prior_i, prior_j, *, epsilon: float, delta: float, rtol: float = 1e-10, max_steps: int = 200,
          b_start: float | None = None) -> BMin:
    """The smallest b with delta_achieved(b) <= delta (delta = 0: epsilon_achieved(b) <= epsilon).

    Both losses are non-increasing in b (docs/math/audits.md: Laplace(b2) is Laplace(b1) plus
    an independent W, a post-processing, and the hockey-stick / max divergences obey data
    processing), so the accepted scales form a half-line [b_min, inf) (or [0, inf)).

    First the noise-free limit: if the priors themselves meet the target
    (:func:`prior_hockey_stick`, or :func:`prior_epsilon_achieved` for delta = 0), b_min = 0
    ("no noise needed"). Otherwise :func:`~pufferfish.audit.search.smallest_scale` (doubling
    or halving, then safeguarded interpolation on log b until b_accepted / b_rejected - 1 <=
    ``rtol``) from ``b_start`` (e.g. the theorem's scale) or a scale from the priors' spread,
    no b below 1e-9 times that spread evaluated.

    Parameters
    ----------
    prior_i, prior_j : GMM or tuple of float
        The two priors: each a GMM, or ``(mean, std)`` of one Gaussian.
    epsilon : float
        > 0.
    delta : float
        In [0, 1): 0 for pure epsilon.
    rtol : float
        In (0, 1): relative width of the final bracket.
    max_steps : int
        At most this many audits.
    b_start : float, optional
        Where the search starts (ignored unless finite and > 0).

    Returns
    -------
    BMin
        ``b`` an audited, accepted scale with ``b_rejected`` (a rejected one) within ``rtol``
        below it; inf with the reason when the target cannot be bracketed in time; the
        smallest scale accepted with a reason when no rejected one is found. Never hangs.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        An argument out of range or of the wrong type (naming it).
    """
    pi, pj = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j")
    eps = real(epsilon, name="epsilon", lo=0.0, lo_open=True)
    dl = real(delta, name="delta", lo=0.0, hi=1.0, hi_open=True)   # 0 for pure epsilon
    rtol, max_steps = checked_search(rtol, max_steps)
    rtol = real(rtol, name="rtol", hi=1.0, hi_open=True)
    target = eps if dl == 0.0 else dl
    limit = prior_hockey_stick(pi, pj, epsilon=eps).delta if dl > 0.0 else prior_epsilon_achieved(pi, pj)
    if limit <= target:
        what = "delta" if dl > 0.0 else "epsilon"
        return BMin(eps, dl, 0.0, limit, 0.0, 0,
                    f"no noise needed: the priors themselves give {what} = {limit:.6g} <= {target:g}")
    seen = []

    def loss(bv: float) -> float:
        value = epsilon_achieved(pi, pj, b=bv) if dl == 0.0 else delta_achieved(pi, pj, epsilon=eps, b=bv)
        seen.append((bv, value))
        return value

    spread = _start_scale(pi, pj)
    start = float(b_start) if b_start is not None and math.isfinite(b_start) and b_start > 0 else spread / eps
    b, value, steps, reason = smallest_scale(loss, target, start=start, strategy=LaplaceMixtureAuditor.search,
                                             rtol=rtol, max_steps=max_steps, floor=1e-9 * spread)
    rejected = max((s for s, v in seen if not v <= target and s < b), default=math.nan)
    return BMin(eps, dl, b, value, rejected, steps, reason)


class LaplaceMixtureAuditor(Auditor):
    """:class:`~pufferfish.audit.auditor.Auditor` of Laplace(b) noise on two Gaussian / GMM priors
    (paper 004), for (epsilon, delta): ``achieved`` is :func:`hockey_stick` (both directions),
    ``noise_free`` is :func:`prior_hockey_stick`, ``smallest_scale`` the generic search, the
    search of :func:`b_min` (from the priors' spread / epsilon, no b below 1e-9 times the spread)."""

    noise = "laplace"
    guarantees = ("epsilon_delta",)
    prior = "mixture"
    search = "double"
    order = 10

    def __init__(self, prior_i, prior_j, *, rtol: float = 1e-10, max_steps: int = 200):
        self.prior_i, self.prior_j = as_prior(prior_i, name="prior_i"), as_prior(prior_j, name="prior_j")
        self.rtol, self.max_steps = checked_search(rtol, max_steps)

    @classmethod
    def std(cls, scale: float) -> float:
        """sqrt(2) b: Var Laplace(b) = 2 b^2."""
        return math.sqrt(2.0) * scale

    def start_scale(self, target: Target) -> float:
        """A scale from the priors' spread, over epsilon (as :func:`b_min`)."""
        return _start_scale(self.prior_i, self.prior_j) / target.epsilon

    def floor(self, target: Target) -> float:
        """1e-9 times the priors' spread (as :func:`b_min`)."""
        return 1e-9 * _start_scale(self.prior_i, self.prior_j)

    def noise_free(self, target: Target) -> Achieved:
        """The limit b -> 0: the hockey-stick divergences of the priors themselves (:func:`prior_hockey_stick`)."""
        target = self.check_target(target)
        hs = prior_hockey_stick(self.prior_i, self.prior_j, epsilon=target.epsilon)
        return Achieved(0.0, target, hs.forward, hs.backward)

    def achieved(self, scale: float, target: Target) -> Achieved:
        target = self.check_target(target)
        hs = hockey_stick(self.prior_i, self.prior_j, epsilon=target.epsilon, b=scale)
        return Achieved(float(scale), target, hs.forward, hs.backward)

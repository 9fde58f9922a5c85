"""The one interface every noise's auditor implements.

An auditor holds one secret pair (two priors) and one noise family, and answers two
questions, each exactly (never from a sampled grid):

* :meth:`Auditor.achieved` -- what a noise scale achieves against a :class:`Target`, in both
  directions (s_i against s_j and s_j against s_i);
* :meth:`Auditor.smallest_scale` -- the smallest scale that meets the target (0 when the
  priors meet it without noise).

The target is one of three guarantees:

===================  ==============================  ======================================
``guarantee``        target                          achieved value (``forward``/``backward``)
===================  ==============================  ======================================
``"epsilon"``        pure epsilon-PP                 sup_y |log p_Y(y|s_i) / p_Y(y|s_j)|
``"epsilon_delta"``  (epsilon, delta)-PP             hockey-stick divergence H_{e^eps}
``"renyi"``          (alpha, epsilon)-RPP            Renyi divergence D_alpha(P_Y|s_i || P_Y|s_j)
===================  ==============================  ======================================

For all three the achieved value only falls as the scale grows (the larger Laplace,
Gaussian or Cauchy scale is the smaller one plus independent noise, and every divergence
above obeys the data-processing inequality), so the smallest scale is well defined and
is found by bracketing and bisection (:func:`smallest_by_bisection`).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.errors import ConfigError

__all__ = ["GUARANTEES", "NOISES", "noise_std", "Target", "Achieved", "Smallest", "Auditor", "LatticeAuditor", "smallest_by_bisection", "bisect_bracket"]

#: the guarantees a target can state
GUARANTEES = ("epsilon", "epsilon_delta", "renyi")
#: the additive noise families the project audits
NOISES = ("laplace", "gaussian", "cauchy")


def noise_std(noise: str, scale: float) -> float:
    """The standard deviation of ``noise`` at ``scale``: Laplace(b) sqrt(2) b, Gaussian sigma, Cauchy none (NaN)."""
    if noise == "laplace":
        return math.sqrt(2.0) * scale
    if noise == "gaussian":
        return scale
    if noise == "cauchy":
        return math.nan
    raise ValueError(f"noise = {noise!r}: must be one of {', '.join(NOISES)}")


def _positive(name: str, value) -> float:
    from pufferfish.checks import real  # a real number (no string or bool), finite and > 0

    return real(value, name=name, lo=0.0, lo_open=True)


@dataclass(frozen=True)
class Target:
    """A privacy target: pure ``epsilon``; (``epsilon``, ``delta``) with 0 < delta < 1; or
    Renyi at order ``alpha`` > 1 with bound ``epsilon`` on D_alpha (not both delta and alpha)."""

    epsilon: float
    delta: float | None = None
    alpha: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _positive("epsilon", self.epsilon))
        if self.delta is not None and self.alpha is not None:
            raise ConfigError(f"target: delta = {self.delta!r} and alpha = {self.alpha!r} exclude each other")
        if self.delta is not None:
            delta = _positive("delta", self.delta)
            if not delta < 1:
                raise ConfigError(f"delta = {self.delta!r}: must be < 1")
            object.__setattr__(self, "delta", delta)
        if self.alpha is not None:
            alpha = _positive("alpha", self.alpha)
            if not alpha > 1:
                raise ConfigError(f"alpha = {self.alpha!r}: must be > 1")
            object.__setattr__(self, "alpha", alpha)

    @property
    def guarantee(self) -> str:
        """``"epsilon"``, ``"epsilon_delta"`` or ``"renyi"``."""
        if self.delta is not None:
            return "epsilon_delta"
        if self.alpha is not None:
            return "renyi"
        return "epsilon"

    @property
    def bound(self) -> float:
        """The value the achieved quantity must not exceed: delta for (eps, delta), else epsilon."""
        return self.delta if self.delta is not None else self.epsilon


@dataclass(frozen=True)
class Achieved:
    """What one noise ``scale`` achieves against ``target``, in both directions.

    ``forward`` is the achieved quantity of s_i against s_j (an epsilon, a delta at the
    target's epsilon, or a Renyi divergence at the target's alpha), ``backward`` of s_j
    against s_i.
    """

    scale: float
    target: Target
    forward: float
    backward: float

    @property
    def value(self) -> float:
        """The larger direction: what the guarantee is about."""
        return max(self.forward, self.backward)

    def meets(self, rtol: float = 0.0) -> bool:
        """True when ``value <= bound * (1 + rtol)``."""
        return self.value <= self.target.bound * (1.0 + rtol)


@dataclass(frozen=True)
class Smallest:
    """The smallest accepted scale for ``target``: ``scale`` (0 when no noise is needed,
    inf with a ``reason`` when no bracket could be closed), the achieved ``value`` there,
    and the number of audits it took (``steps``)."""

    target: Target
    scale: float
    value: float
    steps: int
    reason: str = ""


class Auditor(abc.ABC):
    """The exact audit of one noise family on one secret pair (module docstring)."""

    #: the noise family (one of :data:`NOISES`)
    noise: ClassVar[str]
    #: the guarantees this auditor can check (a subset of :data:`GUARANTEES`)
    guarantees: ClassVar[tuple[str, ...]]

    def check_target(self, target: Target) -> Target:
        if not isinstance(target, Target):
            raise TypeError(f"target = {target!r}: must be a pufferfish.audit.Target")
        if target.guarantee not in self.guarantees:
            raise ConfigError(f"{type(self).__name__} audits {', '.join(self.guarantees)}, "
                              f"not {target.guarantee} (target {target})")
        return target

    @abc.abstractmethod
    def achieved(self, scale: float, target: Target) -> Achieved:
        """What noise of this ``scale`` achieves against ``target`` (both directions), exactly."""

    @abc.abstractmethod
    def smallest_scale(self, target: Target) -> Smallest:
        """The smallest scale whose :meth:`achieved` value meets ``target``."""

    def noise_free(self, target: Target) -> Achieved:
        """What releasing with no noise (scale 0) achieves against ``target``, both directions: the
        limit of :meth:`achieved` as the scale goes to 0, and an upper bound for every scale
        (post-processing). Lattice auditors answer it from the two priors
        (:class:`LatticeAuditor`)."""
        raise NotImplementedError(f"{type(self).__name__} has no noise-free audit")


class LatticeAuditor(Auditor):
    """An auditor of noise added to two lattice priors ``p`` and ``q`` (set by the subclass).

    On the lattice the noise-free audit does not depend on the noise: the shifted noises
    separate the atoms as the scale goes to 0, so the limit is the divergence of the priors
    themselves: max_x |log P(x)/Q(x)| (pure epsilon), sum_x [P(x) - e^eps Q(x)]_+
    (hockey stick), D_alpha(P || Q) (Renyi; inf where P charges an atom Q does not).
    """

    p: object
    q: object

    def noise_free(self, target: Target) -> Achieved:
        target = self.check_target(target)
        if target.guarantee == "epsilon_delta":
            from pufferfish.audit.laplace import zero_noise_hockey_stick

            fwd, bwd = zero_noise_hockey_stick(self.p, self.q, epsilon=target.epsilon)
        elif target.guarantee == "renyi":
            from pufferfish.audit.gaussian_noise import zero_noise_renyi

            fwd, bwd = zero_noise_renyi(self.p, self.q, alpha=target.alpha)
        else:
            from pufferfish.audit.laplace import zero_noise_directions

            fwd, bwd = zero_noise_directions(self.p, self.q)
        return Achieved(0.0, target, fwd, bwd)


def smallest_by_bisection(value: Callable[[float], float], bound: float, *, start: float,
                          at_zero: float | None = None, rtol: float = 1e-10, max_steps: int = 200
                          ) -> tuple[float, float, int, str]:
    """Smallest scale s with ``value(s) <= bound`` for a value non-increasing in s.

    ``at_zero`` is the noise-free value (the limit s -> 0); when it already meets ``bound``
    the answer is 0. Otherwise ``start`` is doubled until accepted, halved until rejected,
    and the bracket is bisected on log s until hi/lo - 1 <= ``rtol``. Returns
    ``(scale, value(scale), steps, reason)``: the scale is always an evaluated, accepted
    one; inf with a reason when ``max_steps`` evaluations do not close the bracket.
    """
    if at_zero is not None and at_zero <= bound:
        return 0.0, float(at_zero), 0, "no noise needed: the priors meet the target"
    steps = 0

    def ev(s: float) -> float:
        nonlocal steps
        steps += 1
        return float(value(s))

    hi, v_hi = float(start), None
    lo = None
    while steps < max_steps:
        v = ev(hi)
        if v <= bound:
            v_hi = v
            break
        lo, hi = hi, hi * 2.0
    if v_hi is None:
        return math.inf, math.nan, steps, f"no accepted scale up to {hi:.6g} within {max_steps} steps"
    if lo is None:
        lo = hi
        while steps < max_steps:
            lo = lo / 2.0
            v = ev(lo)
            if v > bound:
                break
            hi, v_hi = lo, v
            if lo < 1e-300:
                return 0.0, v, steps, "accepted down to 1e-300"
    return bisect_bracket(value, bound, lo, hi, v_hi, rtol=rtol, max_steps=max_steps, steps=steps)


def bisect_bracket(value: Callable[[float], float], bound: float, lo: float, hi: float, v_hi: float, *,
                   rtol: float, max_steps: int, steps: int) -> tuple[float, float, int, str]:
    """Bisect the bracket [lo, hi] on log scale (``lo`` rejected, ``hi`` accepted with value
    ``v_hi``) until hi/lo - 1 <= ``rtol``; ``steps`` evaluations were spent finding it.

    Returns ``(scale, value, steps, reason)`` like :func:`smallest_by_bisection`: the accepted
    end, or inf with a reason when ``max_steps`` evaluations in all do not close the bracket.
    """
    while hi / lo - 1.0 > rtol:
        if steps >= max_steps:
            return math.inf, math.nan, steps, f"bracket [{lo:.17g}, {hi:.17g}] not closed within {max_steps} steps"
        mid = math.sqrt(lo * hi)
        if not lo < mid < hi:
            break
        steps += 1
        v = float(value(mid))
        if v <= bound:
            hi, v_hi = mid, v
        else:
            lo = mid
    return hi, v_hi, steps, ""

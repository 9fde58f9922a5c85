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

__all__ = ["GUARANTEES", "NOISES", "Target", "Achieved", "Smallest", "Auditor", "smallest_by_bisection"]

#: the guarantees a target can state
GUARANTEES = ("epsilon", "epsilon_delta", "renyi")
#: the additive noise families the project audits
NOISES = ("laplace", "gaussian", "cauchy")


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
    while hi / lo - 1.0 > rtol:
        if steps >= max_steps:
            return math.inf, math.nan, steps, f"bracket [{lo:.17g}, {hi:.17g}] not closed within {max_steps} steps"
        mid = math.sqrt(lo * hi)
        if not lo < mid < hi:
            break
        v = ev(mid)
        if v <= bound:
            hi, v_hi = mid, v
        else:
            lo = mid
    return hi, v_hi, steps, ""

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
is found by bracketing it and closing the bracket on log s (:func:`smallest_by_bisection`,
:func:`close_bracket`: interpolation safeguarded so that it never takes more than
:data:`CLOSE_SLACK` steps beyond bisection).
"""

from __future__ import annotations

import abc
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.audit.zero_noise import zero_noise_directions, zero_noise_hockey_stick, zero_noise_renyi
from pufferfish.errors import ConfigError

__all__ = ["GUARANTEES", "NOISES", "noise_std", "Target", "Achieved", "Smallest", "Auditor", "LatticeAuditor", "smallest_by_bisection", "close_bracket"]

#: the guarantees a target can state
GUARANTEES = ("epsilon", "epsilon_delta", "renyi")
#: the additive noise families the project audits
NOISES = ("laplace", "gaussian", "cauchy")


def noise_std(noise: str, scale: float) -> float:
    """The standard deviation of ``noise`` at ``scale``: Laplace(b) sqrt(2) b, Gaussian sigma, Cauchy none (NaN)."""
    from pufferfish.checks import choice, real

    choice(noise, NOISES, name="noise")
    scale = real(scale, name="scale", lo=0.0)
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
            fwd, bwd = zero_noise_hockey_stick(self.p, self.q, epsilon=target.epsilon)
        elif target.guarantee == "renyi":
            fwd, bwd = zero_noise_renyi(self.p, self.q, alpha=target.alpha)
        else:
            fwd, bwd = zero_noise_directions(self.p, self.q)
        return Achieved(0.0, target, fwd, bwd)


def check_search(value, bound, start, at_zero, rtol, max_steps) -> tuple:
    """The arguments of a search for the smallest scale (:func:`smallest_by_bisection`), checked:
    ``value`` a function, ``bound`` and ``start`` finite and > 0, ``rtol`` finite and >= 0 (0:
    down to neighbouring floats), ``at_zero`` a real number (inf allowed: the priors are apart)
    or None, ``max_steps`` an integer >= 1."""
    from pufferfish.checks import function, integer, is_real, real

    function(value, name="value")
    bound = real(bound, name="bound", lo=0.0, lo_open=True)
    start = real(start, name="start", lo=0.0, lo_open=True)
    if at_zero is not None and not (is_real(at_zero) and float(at_zero) == math.inf):
        at_zero = real(at_zero, name="at_zero")
    rtol, max_steps = real(rtol, name="rtol", lo=0.0), integer(max_steps, name="max_steps", lo=1)
    return bound, start, at_zero, rtol, max_steps


def smallest_by_bisection(value: Callable[[float], float], bound: float, *, start: float,
                          at_zero: float | None = None, rtol: float = 1e-10, max_steps: int = 200
                          ) -> tuple[float, float, int, str]:
    """Smallest scale s with ``value(s) <= bound`` for a value non-increasing in s.

    ``at_zero`` is the noise-free value (the limit s -> 0); when it already meets ``bound``
    the answer is 0. Otherwise ``start`` is doubled until accepted, halved until rejected,
    and the bracket is closed by :func:`close_bracket` (safeguarded interpolation on log s)
    until hi/lo - 1 <= ``rtol``. Returns ``(scale, value(scale), steps, reason)``: the scale
    is always an evaluated, accepted one; inf with a reason when ``max_steps`` evaluations
    do not close the bracket (the smallest accepted scale with a reason when they find no
    rejected one; 0 with a reason when scales below 1e-300 are still accepted).
    """
    bound, start, at_zero, rtol, max_steps = check_search(value, bound, start, at_zero, rtol, max_steps)
    if at_zero is not None and at_zero <= bound:
        return 0.0, float(at_zero), 0, "no noise needed: the priors meet the target"
    steps = 0

    def ev(s: float) -> float:
        nonlocal steps
        steps += 1
        return float(value(s))

    hi, v_hi = float(start), None
    lo = v_lo = None
    while steps < max_steps:
        v = ev(hi)
        if v <= bound:
            v_hi = v
            break
        lo, v_lo, hi = hi, v, hi * 2.0
    if v_hi is None:
        return math.inf, math.nan, steps, f"no accepted scale up to {hi:.6g} within {max_steps} steps"
    if lo is None:
        lo = hi
        while steps < max_steps:
            lo = lo / 2.0
            v = ev(lo)
            if v > bound:
                v_lo = v
                break
            hi, v_hi = lo, v
            if lo < 1e-300:
                return 0.0, v, steps, "accepted down to 1e-300"
        else:
            return hi, v_hi, steps, f"no rejected scale found within {max_steps} steps"
    return close_bracket(value, bound, lo, hi, v_hi, rtol=rtol, max_steps=max_steps, steps=steps, v_lo=v_lo)


#: bisection steps that the projection of :func:`close_bracket` lets interpolation lose, at most
CLOSE_SLACK = 3
#: :func:`close_bracket` bisects while hi / lo exceeds this (interpolation across wider brackets is poor)
WIDE_BRACKET = 8.0


def _excess(v: float | None, bound: float, form: str) -> float | None:
    """f at a value: log v - log bound (``form`` ``"log"``) or v - bound (``"lin"``), > 0 exactly
    when rejected; None when ``v`` has no finite f in that form (unknown, 0 in log form, inf, NaN)."""
    if v is None or not math.isfinite(v):
        return None
    if form == "log":
        return math.log(v) - math.log(bound) if v > 0.0 else None
    return v - bound


def _estimate(recent: list, v_lo: float | None, v_hi: float | None, bound: float,
              t_lo: float, t_hi: float) -> float:
    """Where f(t) crosses 0, from the evaluated points ``recent`` (oldest first, up to three,
    ``(t, value)``) and the ends' values: NaN when no interpolation is usable."""
    if v_lo is None or v_hi is None or v_lo == 0.0 or v_hi == 0.0:
        return math.nan
    form = "log" if bound > 0.0 and v_lo > 0.0 and v_hi > 0.0 else "lin"
    f_lo, f_hi = _excess(v_lo, bound, form), _excess(v_hi, bound, form)
    if f_lo is None or f_hi is None:
        return math.nan
    pts = [(tp, _excess(vp, bound, form)) for tp, vp in recent]
    pts = [(tp, fp) for tp, fp in pts if fp is not None]
    t = math.nan
    if len(pts) == 3 and len({fp for _, fp in pts}) == 3:
        # inverse quadratic interpolation through the last three points
        (x0, f0), (x1, f1), (x2, f2) = pts
        t = (x0 * f1 * f2 / ((f0 - f1) * (f0 - f2)) + x1 * f0 * f2 / ((f1 - f0) * (f1 - f2))
             + x2 * f0 * f1 / ((f2 - f0) * (f2 - f1)))
    if not t_lo < t < t_hi and len(pts) >= 2:
        # secant through the newest point and the one before it nearest the root (smaller |f|)
        tb, fb = pts[-1]
        ta, fa = min(pts[:-1], key=lambda p: abs(p[1]))
        if fa != fb:
            t = tb - fb * ((tb - ta) / (fb - fa))
    if not t_lo < t < t_hi and f_lo > f_hi:
        t = t_hi - f_hi * ((t_hi - t_lo) / (f_hi - f_lo))          # regula falsi through the ends
    return t if t_lo <= t <= t_hi else math.nan


def close_bracket(value: Callable[[float], float], bound: float, lo: float, hi: float, v_hi: float, *,
                  rtol: float, max_steps: int, steps: int, v_lo: float | None = None
                  ) -> tuple[float, float, int, str]:
    """Shrink the bracket [lo, hi] (``lo`` rejected, with value ``v_lo`` if known; ``hi`` accepted,
    with value ``v_hi``; ``value`` non-increasing) until hi/lo - 1 <= ``rtol``; ``steps``
    evaluations were spent finding it.

    Every step evaluates one scale strictly inside the bracket and moves the end on its side
    there, so ``lo`` stays rejected and ``hi`` accepted. The scale is chosen on t = log s,
    for f(t) = log value - log bound (value - bound if an end's value or the bound is < 0):

    1. estimate: inverse quadratic interpolation through the last three evaluated points
       (the two ends at first), else the secant through the newest one and whichever of
       the two before it has the smaller |f|, else regula falsi through the ends -- the
       first that falls inside the bracket. The midpoint (a bisection step) instead when
       there is none; when an end's value is unknown, 0 or not finite; while hi / lo >
       :data:`WIDE_BRACKET`; and when the last two steps together did not halve the width
       of the bracket (unless the estimate is within log(1 + rtol) of an end, where
       evaluating it closes the bracket if it is right);
    2. an estimate within log(1 + rtol) / 2 of an end is moved to that distance from it
       (s = lo (1 + rtol)^(1/2) or hi / (1 + rtol)^(1/2)): when the estimate is right, that
       scale lands on the far side of the threshold and closes the bracket, instead of
       moving the near end by a sliver;
    3. projection towards the midpoint (the "project" step of the ITP method, Oliveira and
       Takahashi, ACM Trans. Math. Softw. 47(1), 2020): with L = log(1 + rtol) (less 0.1 %
       and a few ulps of t, for rounding), w_j the width of the bracket before step j (from
       0) and n the number of bisection steps that would close the first bracket
       (w_0 / 2^n <= L), step j's t is kept within (L/2) 2^(n + CLOSE_SLACK - j) - w_j/2 of
       the midpoint, so that the width after it is at most (L/2) 2^(n + CLOSE_SLACK - j):
       whatever ``value`` does, the bracket closes within n + :data:`CLOSE_SLACK` steps (if
       L is well above the rounding of t; else the projection aims at a few ulps of t),
       while estimates that keep ahead of that schedule are not moved.

    When no float lies strictly between the ends any more (``rtol`` below float resolution)
    the search stops there. Returns ``(scale, value, steps, reason)`` like
    :func:`smallest_by_bisection`: the accepted end ``hi`` (an evaluated scale), or inf with a
    reason when ``max_steps`` evaluations in all do not close the bracket. Deterministic:
    the same inputs give the same result, bit for bit.
    """
    from pufferfish.checks import function, integer, is_real, real

    function(value, name="value")
    bound = real(bound, name="bound", lo=0.0, lo_open=True)
    lo, hi = real(lo, name="lo", lo=0.0, lo_open=True), real(hi, name="hi", lo=0.0, lo_open=True)
    v_hi, rtol = real(v_hi, name="v_hi"), real(rtol, name="rtol", lo=0.0)
    max_steps, steps = integer(max_steps, name="max_steps", lo=1), integer(steps, name="steps", lo=0)
    if v_lo is not None and not (is_real(v_lo) and float(v_lo) == math.inf):   # inf: rejected outright
        v_lo = real(v_lo, name="v_lo")
    half = 0.5 * math.log1p(rtol) if rtol > 0.0 else 0.0
    t_lo, t_hi = math.log(lo), math.log(hi)
    # the width the projection aims at: L less 0.1 % and the rounding of t = log s, exp t (a
    # few ulps of t), or the resolution of t if that is more
    ulps = 8.0 * sys.float_info.epsilon * max(1.0, abs(t_lo), abs(t_hi))
    close = max(2.0 * half * (1.0 - 1e-3) - ulps, 2.0 * ulps)
    width = t_hi - t_lo
    budget = (math.ceil(math.log2(width / close)) if width > close else 0) + CLOSE_SLACK
    recent = [(t_lo, v_lo), (t_hi, v_hi)]          # the last (up to) three evaluated points
    widths = []                                    # the width before each step
    while hi / lo - 1.0 > rtol:
        if steps >= max_steps:
            return math.inf, math.nan, steps, f"bracket [{lo:.17g}, {hi:.17g}] not closed within {max_steps} steps"
        t_lo, t_hi = math.log(lo), math.log(hi)
        width = t_hi - t_lo
        t_mid = 0.5 * (t_lo + t_hi)
        t = _estimate(recent, v_lo, v_hi, bound, t_lo, t_hi) if hi <= WIDE_BRACKET * lo else math.nan
        if len(widths) >= 2 and width > 0.5 * widths[-2] and not min(t - t_lo, t_hi - t) <= 2.0 * half:
            t = math.nan                           # two steps did not halve the bracket: bisect
        if math.isnan(t):                          # (unless the estimate would close it)
            t = t_mid
        # an estimate next to an end: probe half an rtol inside it
        t = min(max(t, t_lo + half), t_hi - half)
        # projection: never more than CLOSE_SLACK steps beyond bisection
        radius = max(0.5 * close * 2.0 ** (budget - len(widths)) - 0.5 * width, 0.0)
        t = min(max(t, t_mid - radius), t_mid + radius)
        widths.append(width)
        s = math.exp(t)
        if not lo < s < hi:
            s = math.sqrt(lo * hi)
            if not lo < s < hi:
                break
        steps += 1
        v = float(value(s))
        recent = recent[-2:] + [(math.log(s), v)]
        if v <= bound:
            hi, v_hi = s, v
        else:
            lo, v_lo = s, v
    return hi, v_hi, steps, ""

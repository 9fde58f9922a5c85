"""The one search for the smallest noise scale a monotone audit accepts.

Every auditor's achieved value only falls as its scale grows (the larger scale is the smaller
one plus independent noise, and every divergence audited obeys data processing: the proofs are
in each auditor's module), so the accepted scales form a half-line [s_min, inf).
:func:`smallest_scale` finds s_min in two phases:

1. bracketing: a rejected ``lo`` and an accepted ``hi``, seeded for free by earlier
   evaluations of the same function (``history``), else found from ``start`` by one of the
   :data:`STRATEGIES` -- ``"double"`` (factor 2 each step) or ``"gallop"`` (factors 2, 4, 16,
   256, ...: a threshold 60 orders of magnitude from the start costs 8 evaluations, not 200);
2. :func:`close_bracket`: safeguarded interpolation on log s (inverse quadratic, secant,
   regula falsi) with the projection of the ITP method, never more than :data:`CLOSE_SLACK`
   steps beyond bisection, until hi / lo - 1 <= rtol.

Where a power law through the last two evaluations predicts the threshold, the bracketing steps
there (at most a factor 8 a step). The scale returned is always an evaluated, accepted one: the
bracket's upper end, whose value (an auditor's certified value, :mod:`pufferfish.certified`) is at
most the bound, with no tolerance -- the smallest scale the search can certify. ``rtol`` is only the
relative width at which the bracket is closed (how far below it the true threshold may lie).
Derivation and step counts: docs/math/results.md ("Tight calibration").
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable

__all__ = ["STRATEGIES", "FLOOR", "CEILING", "NO_NOISE", "CLOSE_SLACK", "WIDE_BRACKET", "smallest_scale",
           "close_bracket"]

#: the bracketing strategies of :func:`smallest_scale`
STRATEGIES = ("double", "gallop")
#: no scale below this is evaluated unless a larger floor is given
FLOOR = 1e-300
#: no scale above this is evaluated
CEILING = 1e300
#: the reason of a search that needs no noise
NO_NOISE = "no noise needed: the priors meet the target"
#: bisection steps that the projection of :func:`close_bracket` lets interpolation lose, at most
CLOSE_SLACK = 3
#: :func:`close_bracket` bisects while hi / lo exceeds this (interpolation across wider brackets is poor)
WIDE_BRACKET = 8.0
#: the largest factor of one galloping step
_MAX_FACTOR = 1e30
#: after this many predictions in a row stay on the known end's side, the strategy's steps take over
_MAX_MISSES = 3
_MAX_BOOST = 2.0 ** _MAX_MISSES


def _check_search(value, bound, start, at_zero, rtol, max_steps) -> tuple:
    """The arguments of a search for the smallest scale, checked: ``value`` a function, ``bound``
    and ``start`` finite and > 0, ``rtol`` finite and >= 0 (0: down to neighbouring floats),
    ``at_zero`` a real number (inf allowed: the priors are apart) or None, ``max_steps`` an integer >= 1.

    Returns
    -------
    tuple
        ``(bound, start, at_zero, rtol, max_steps)`` as floats and an int.
    """
    from pufferfish.checks import function, integer, is_real, real

    function(value, name="value")
    bound = real(bound, name="bound", lo=0.0, lo_open=True)
    start = real(start, name="start", lo=0.0, lo_open=True)
    if at_zero is not None and not (is_real(at_zero) and float(at_zero) == math.inf):
        at_zero = real(at_zero, name="at_zero")
    rtol, max_steps = real(rtol, name="rtol", lo=0.0), integer(max_steps, name="max_steps", lo=1)
    return bound, start, at_zero, rtol, max_steps


def _check_history(history) -> list[tuple[float, float]]:
    """Earlier evaluations ``(scale, value)``: scale finite and > 0, value a real number or inf."""
    from pufferfish.checks import is_real, real
    from pufferfish.errors import ArgumentTypeError

    if history is None or isinstance(history, (str, bytes)) or not hasattr(history, "__iter__"):
        raise ArgumentTypeError(f"history = {history!r:.60}: must be a list of pairs (scale, value)")
    out = []
    for k, pair in enumerate(history):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ArgumentTypeError(f"history[{k}] = {pair!r:.60}: must be a pair (scale, value)")
        scale, value = pair
        scale = real(scale, name=f"history[{k}] scale", lo=0.0, lo_open=True)
        if not (is_real(value) and float(value) == math.inf):
            value = real(value, name=f"history[{k}] value")
        out.append((scale, float(value)))
    return out


def _seed(history: list[tuple[float, float]], bound: float) -> tuple:
    """(lo, v_lo, hi, v_hi) from earlier evaluations: the smallest accepted scale and the largest
    rejected one below it (None where there is none). Valid because the value is non-increasing."""
    hi = v_hi = lo = v_lo = None
    for s, v in history:
        if v <= bound and (hi is None or s < hi):
            hi, v_hi = s, v
    for s, v in history:
        if not v <= bound and (lo is None or s > lo) and (hi is None or s < hi):
            lo, v_lo = s, v
    return lo, v_lo, hi, v_hi


def smallest_scale(value: Callable[[float], float], bound: float, *, start: float, at_zero: float | None = None,
                   strategy: str = "double", rtol: float = 1e-10, max_steps: int = 200, floor: float = FLOOR,
                   history: Iterable = ()) -> tuple[float, float, int, str]:
    """Smallest scale s with ``value(s) <= bound`` for a ``value`` non-increasing in s.

    Parameters
    ----------
    value : callable
        s -> the achieved value at scale s (an audit), non-increasing in s.
    bound : float
        The target value (> 0).
    start : float
        The first scale evaluated when ``history`` does not already bracket s_min.
    at_zero : float, optional
        The noise-free value (the limit s -> 0): when it meets ``bound`` the answer is 0.
    strategy : str
        ``"double"`` or ``"gallop"`` (:data:`STRATEGIES`, module docstring).
    rtol : float
        The bracket is closed when hi / lo - 1 <= ``rtol`` (0: down to neighbouring floats).
    max_steps : int
        At most this many evaluations.
    floor : float
        No scale below ``floor`` is evaluated: if ``floor`` itself is accepted it is returned
        with a reason (an accepted scale, but maybe not the smallest).
    history : iterable of tuple of float
        Earlier evaluations of the same ``value``: they bound the bracket for free.

    Returns
    -------
    tuple
        ``(scale, value(scale), steps, reason)``: the scale is an evaluated, accepted one (0 with
        :data:`NO_NOISE` when ``at_zero`` meets the bound); ``steps`` the evaluations made; inf
        with a reason when ``max_steps`` evaluations close no bracket or no scale up to
        :data:`CEILING` is accepted; the smallest accepted scale with a reason when no rejected
        one is found (``max_steps``, or ``floor`` accepted).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        An argument of the wrong type or out of range (naming it).
    """
    from pufferfish.checks import choice, real

    bound, start, at_zero, rtol, max_steps = _check_search(value, bound, start, at_zero, rtol, max_steps)
    choice(strategy, STRATEGIES, name="strategy")
    floor = real(floor, name="floor", lo=0.0, lo_open=True)
    seeds = _seed(_check_history(history), bound)
    if at_zero is not None and at_zero <= bound:
        return 0.0, float(at_zero), 0, NO_NOISE
    found = _bracket(value, bound, start, seeds, grow=strategy == "gallop", floor=floor, max_steps=max_steps,
                     rtol=rtol)
    if len(found) == 4:
        return found                                   # no bracket: a final answer with its reason
    lo, v_lo, hi, v_hi, steps = found
    return close_bracket(value, bound, lo, hi, v_hi, rtol=rtol, max_steps=max_steps, steps=steps, v_lo=v_lo)


def _slope(recent: list[tuple[float, float]]) -> float:
    """d log value / d log s through the last two evaluated points with positive finite values:
    -1 (a small shift's divergence falls like 1/s) when there is only one, NaN when there is none
    or the slope is not negative and finite (no power law to follow)."""
    pts = [(math.log(s), math.log(v)) for s, v in recent if 0.0 < v < math.inf][-2:]
    if len(pts) == 1:
        return -1.0
    if len(pts) == 2 and pts[0][0] != pts[1][0]:
        slope = (pts[1][1] - pts[0][1]) / (pts[1][0] - pts[0][0])
        if math.isfinite(slope) and slope < 0.0:
            return slope
    return math.nan


def _two_points(recent: list[tuple[float, float]]) -> bool:
    """Whether :func:`_slope` comes from two points (not the guess -1 from one)."""
    return sum(1 for _, v in recent if 0.0 < v < math.inf) >= 2


def _next_probe(recent: list, bound: float, lo, v_lo, hi, v_hi, factor: float, half: float, floor: float,
                boost: float = 1.0) -> tuple[float, bool]:
    """The next scale of the bracketing phase, and whether a prediction from two points chose it.

    From the known end (a rejected ``lo`` or an accepted ``hi``): where the power law through the
    last two evaluated points meets ``bound``, stretched by ``boost`` (2^k after k such
    predictions in a row stayed on the known end's side), at most max(:data:`WIDE_BRACKET`,
    ``factor``) and at least half an rtol away; with one point, where the law value ~ 1/s (a small
    shift's divergence) through it meets ``bound``, at most the strategy's step (``factor``) away;
    else, and after :data:`_MAX_MISSES` misses, that step. Inside a known but wide bracket: the
    power law through its two ends (NaN: none)."""
    if lo is not None and hi is not None:
        ends = [(lo, v_lo), (hi, v_hi)]
        slope = _slope(ends)
        if not _two_points(ends) or math.isnan(slope):
            return math.nan, False
        t_lo, t_hi = math.log(lo), math.log(hi)
        u = t_hi + (math.log(bound) - math.log(v_hi)) / slope
        return math.exp(min(max(u, t_lo + half), t_hi - half)), True
    end, v_end, sign = (hi, v_hi, -1.0) if lo is None else (lo, v_lo, 1.0)
    t = math.log(end)
    slope = _slope(recent)
    predicted = False
    if not 0.0 < v_end < math.inf or math.isnan(slope) or boost > _MAX_BOOST:
        step = math.log(factor)                          # no prediction: the strategy's step
    else:
        two = _two_points(recent)
        reach = math.log(max(WIDE_BRACKET, factor)) if two else math.log(factor)
        u = t + (math.log(bound) - math.log(v_end)) / slope
        want = max((boost if two else 1.0) * sign * (u - t), half)     # how far, in log s
        step, predicted = min(want, reach), two and want < reach
    s = math.exp(min(t + sign * step, 709.0))               # above CEILING: refused, not overflowed
    return (max(s, floor) if lo is None else s), predicted


def _bracket(value, bound: float, start: float, seeds: tuple, *, grow: bool, floor: float, max_steps: int,
             rtol: float) -> tuple:
    """A bracket ``(lo, v_lo, hi, v_hi, steps)`` (lo rejected, hi accepted, hi / lo at most
    :data:`WIDE_BRACKET` unless no prediction applies), or a final ``(scale, value, steps, reason)``
    when none is found (:func:`smallest_scale`)."""
    lo, v_lo, hi, v_hi = seeds
    recent = [(x, v) for x, v in sorted(((lo, v_lo), (hi, v_hi)), key=lambda p: p[0] is None) if x is not None]
    steps, factor, wide, misses = 0, 2.0, 0, 0
    half = 0.5 * math.log1p(rtol) if rtol > 0.0 else 0.0
    inside = (lo is None or start > lo) and (hi is None or start < hi)
    s, predicted = (start, False) if inside else _next_probe(recent, bound, lo, v_lo, hi, v_hi, factor, half, floor)
    while lo is None or hi is None or hi > WIDE_BRACKET * lo:
        if lo is not None and hi is not None:
            if wide >= 2 or steps >= max_steps or not lo < s < hi:
                break                                  # a wide bracket: close_bracket bisects it
            wide += 1
        elif hi is not None and (steps >= max_steps or hi <= floor):
            why = (f"no rejected scale found within {max_steps} steps" if steps >= max_steps
                   else f"accepted down to {floor:.3g}, below which the audit is not resolved")
            return hi, v_hi, steps, why
        elif hi is None and (steps >= max_steps or s > CEILING):
            top = lo if lo is not None else start
            return math.inf, math.nan, steps, f"no accepted scale up to {top:.6g} within {steps} steps"
        steps += 1
        v = float(value(s))
        recent.append((s, v))
        if v <= bound:
            if lo is None and hi is not None:
                factor = min(factor * factor, _MAX_FACTOR) if grow else factor
                misses = misses + 1 if predicted else 0
            hi, v_hi = s, v
        else:
            if hi is None and lo is not None:
                factor = min(factor * factor, _MAX_FACTOR) if grow else factor
                misses = misses + 1 if predicted else 0
            lo, v_lo = s, v
        s, predicted = _next_probe(recent, bound, lo, v_lo, hi, v_hi, factor, half, floor,
                                   2.0 ** min(misses, _MAX_MISSES + 1))
    return lo, v_lo, hi, v_hi, steps


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


def _check_bracket(value, bound, lo, hi, v_hi, rtol, max_steps, steps, v_lo) -> tuple:
    """The arguments of :func:`close_bracket`, checked (``v_lo`` may be inf: rejected outright)."""
    from pufferfish.checks import function, integer, is_real, real

    function(value, name="value")
    bound = real(bound, name="bound", lo=0.0, lo_open=True)
    lo, hi = real(lo, name="lo", lo=0.0, lo_open=True), real(hi, name="hi", lo=0.0, lo_open=True)
    v_hi, rtol = real(v_hi, name="v_hi"), real(rtol, name="rtol", lo=0.0)
    max_steps, steps = integer(max_steps, name="max_steps", lo=1), integer(steps, name="steps", lo=0)
    if v_lo is not None and not (is_real(v_lo) and float(v_lo) == math.inf):
        v_lo = real(v_lo, name="v_lo")
    return bound, lo, hi, v_hi, rtol, max_steps, steps, v_lo


class _Schedule:
    """The projection of :func:`close_bracket`: the width its bracket must reach and how far each
    step may stray from the midpoint so that it closes within n + :data:`CLOSE_SLACK` steps."""

    def __init__(self, lo: float, hi: float, rtol: float):
        self.half = 0.5 * math.log1p(rtol) if rtol > 0.0 else 0.0
        t_lo, t_hi = math.log(lo), math.log(hi)
        # the width the projection aims at: L less 0.1 % and the rounding of t = log s, exp t (a
        # few ulps of t), or the resolution of t if that is more
        ulps = 8.0 * sys.float_info.epsilon * max(1.0, abs(t_lo), abs(t_hi))
        self.close = max(2.0 * self.half * (1.0 - 1e-3) - ulps, 2.0 * ulps)
        width = t_hi - t_lo
        self.budget = (math.ceil(math.log2(width / self.close)) if width > self.close else 0) + CLOSE_SLACK
        self.widths: list[float] = []              # the width before each step

    def next_t(self, estimate: float, t_lo: float, t_hi: float) -> float:
        """The t = log s of the next step, from the interpolation ``estimate`` (NaN: none)."""
        width, t_mid, half = t_hi - t_lo, 0.5 * (t_lo + t_hi), self.half
        t = estimate
        widths = self.widths
        if len(widths) >= 2 and width > 0.5 * widths[-2] and not min(t - t_lo, t_hi - t) <= 2.0 * half:
            t = math.nan                           # two steps did not halve the bracket: bisect
        if math.isnan(t):                          # (unless the estimate would close it)
            t = t_mid
        # an estimate next to an end: probe half an rtol inside it
        t = min(max(t, t_lo + half), t_hi - half)
        # projection: never more than CLOSE_SLACK steps beyond bisection
        radius = max(0.5 * self.close * 2.0 ** (self.budget - len(widths)) - 0.5 * width, 0.0)
        widths.append(width)
        return min(max(t, t_mid - radius), t_mid + radius)


def close_bracket(value: Callable[[float], float], bound: float, lo: float, hi: float, v_hi: float, *,
                  rtol: float, max_steps: int, steps: int, v_lo: float | None = None
                  ) -> tuple[float, float, int, str]:
    """Shrink the bracket [lo, hi] (``lo`` rejected, ``hi`` accepted) until hi/lo - 1 <= ``rtol``.

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
    2. an estimate within log(1 + rtol) / 2 of an end is moved to that distance from it;
    3. projection towards the midpoint (the "project" step of the ITP method, Oliveira and
       Takahashi, ACM Trans. Math. Softw. 47(1), 2020): step j's t is kept within
       (L/2) 2^(n + CLOSE_SLACK - j) - w_j/2 of the midpoint, L = log(1 + rtol) (less 0.1 %
       and a few ulps of t), w_j the width before step j, n the bisection steps that close
       the first bracket: whatever ``value`` does, the bracket closes within
       n + :data:`CLOSE_SLACK` steps (docs/math/results.md).

    When no float lies strictly between the ends any more (``rtol`` below float resolution)
    the search stops there.

    Parameters
    ----------
    value : callable
        ``value(scale)``, non-increasing in the scale.
    bound : float
        A scale is accepted when its value is at most ``bound`` (> 0).
    lo, hi : float
        The bracket, :math:`0 < lo < hi`: ``lo`` rejected, ``hi`` accepted.
    v_hi, v_lo : float
        ``value(hi)``, and ``value(lo)`` if known (``None``: not known).
    rtol : float
        Close the bracket until ``hi / lo - 1 <= rtol`` (>= 0).
    max_steps, steps : int
        Evaluations allowed in all, and those already spent finding the bracket.

    Returns
    -------
    tuple
        ``(scale, value, steps, reason)`` like :func:`smallest_scale`: the accepted end ``hi``
        (an evaluated scale), or inf with a reason when ``max_steps`` evaluations in all do not
        close the bracket. Deterministic: the same inputs give the same result, bit for bit.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        An argument of the wrong type or out of range (naming it), e.g. ``lo >= hi``.
    """
    bound, lo, hi, v_hi, rtol, max_steps, steps, v_lo = _check_bracket(value, bound, lo, hi, v_hi, rtol,
                                                                       max_steps, steps, v_lo)
    plan = _Schedule(lo, hi, rtol)
    recent = [(math.log(lo), v_lo), (math.log(hi), v_hi)]       # the last (up to) three evaluated points
    while hi / lo - 1.0 > rtol:
        if steps >= max_steps:
            return math.inf, math.nan, steps, f"bracket [{lo:.17g}, {hi:.17g}] not closed within {max_steps} steps"
        t_lo, t_hi = math.log(lo), math.log(hi)
        estimate = _estimate(recent, v_lo, v_hi, bound, t_lo, t_hi) if hi <= WIDE_BRACKET * lo else math.nan
        s = math.exp(plan.next_t(estimate, t_lo, t_hi))
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

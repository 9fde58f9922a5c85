"""The one smallest-scale search (pufferfish.audit.search): bracketing by the strategies "double"
and "gallop", seeded by history, closed by close_bracket (safeguarded interpolation on log s).

Contract checked on every search: ``steps`` is the number of evaluations; the returned scale is
an evaluated, accepted one; an evaluated (or history), rejected scale lies within ``rtol`` below
it (so the answer is within ``rtol`` of the threshold, which every test knows in closed form);
close_bracket takes at most n + CLOSE_SLACK steps, n the bisection steps that close its bracket.
"""
import math
import sys
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

import pufferfish.audit.search as search_module
from pufferfish.audit.search import CLOSE_SLACK, NO_NOISE, close_bracket, smallest_scale
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError

RTOL = 1e-10
#: rounding allowed on a threshold computed in closed form (and on value <= bound near it)
ULP = 1e-15
STRATEGIES = ("double", "gallop")


class Recorded:
    """``f`` with every evaluation recorded as (s, value)."""

    def __init__(self, f):
        self.f, self.calls = f, []

    def __call__(self, s):
        v = self.f(s)
        self.calls.append((s, v))
        return v


def _old_bisect_bracket(value, bound, lo, hi, v_hi, *, rtol, max_steps, steps, v_lo=None):
    """Plain geometric bisection of the bracket: the reference for evaluation counts."""
    while hi / lo - 1.0 > rtol:
        if steps >= max_steps:
            return math.inf, math.nan, steps, "not closed"
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


def run(strategy, f, bound, *, rtol=RTOL, **kw):
    """Run the search on ``f``; returns (result, evaluations, brackets) where brackets are the
    (lo, hi, steps) close_bracket started from."""
    rec = Recorded(f)
    brackets = []

    def spy(value, bound, lo, hi, v_hi, **kws):
        brackets.append((lo, hi, kws["steps"]))
        return close_bracket(value, bound, lo, hi, v_hi, **kws)

    with mock.patch.object(search_module, "close_bracket", spy):
        res = smallest_scale(rec, bound, strategy=strategy, rtol=rtol, **kw)
    return res, rec.calls, brackets


def bisection_steps(strategy, f, bound, *, rtol=RTOL, **kw):
    """The evaluations the same search takes when the bracket is closed by plain bisection."""
    with mock.patch.object(search_module, "close_bracket", _old_bisect_bracket):
        return smallest_scale(f, bound, strategy=strategy, rtol=rtol, **kw)[2]


def projection_bound(lo, hi, rtol):
    """close_bracket's worst case from the bracket [lo, hi]: n + CLOSE_SLACK, n the bisection
    steps to a width of log(1 + rtol) less 0.1 % and 8 ulps of t = log s (its docstring)."""
    t_lo, t_hi = math.log(lo), math.log(hi)
    ulps = 8.0 * sys.float_info.epsilon * max(1.0, abs(t_lo), abs(t_hi))
    close = max(math.log1p(rtol) * (1.0 - 1e-3) - ulps, 2.0 * ulps)
    width = t_hi - t_lo
    return (math.ceil(math.log2(width / close)) if width > close else 0) + CLOSE_SLACK


def check_contract(res, calls, brackets, f, bound, rtol=RTOL, history=()):
    scale, value, steps, reason = res
    assert steps == len(calls)
    assert reason == ""
    assert (scale, value) in list(calls) + list(history), "the returned scale was evaluated"
    assert value <= bound and f(scale) <= bound
    rejected = [s for s, v in list(calls) + list(history) if not v <= bound]
    lo = max(s for s in rejected if s < scale)
    assert scale / lo - 1.0 <= rtol, "a rejected scale within rtol below the answer"
    for lo0, hi0, before in brackets:
        assert steps - before <= projection_bound(lo0, hi0, rtol)


def check_threshold(scale, threshold, rtol=RTOL):
    assert -ULP <= scale / threshold - 1.0 <= rtol + ULP


# ------------------------------------------------------------------ closed-form thresholds
SMOOTH = {
    # name: (value, bound, threshold in closed form)
    "c / s^2": (lambda s: 7.0 / s ** 2, 0.3, math.sqrt(7.0 / 0.3)),
    "exp(-s)": (lambda s: math.exp(-s), 1e-3, -math.log(1e-3)),
    "log1p(1 / s^2)": (lambda s: math.log1p(1.0 / s ** 2), 0.01, 1.0 / math.sqrt(math.expm1(0.01))),
    "(1 - s/3)^2, 0 above 3": (lambda s: max(0.0, 1.0 - s / 3.0) ** 2, 0.04, 2.4),
    "inf below 1.5, 1/s above": (lambda s: math.inf if s < 1.5 else 1.0 / s, 0.5, 2.0),
}
ADVERSARIAL = {
    "step at 3.7": (lambda s: 5.0 if s < 3.7 else 0.5, 1.0, 3.7),
    "inf below 2.5, 1/s above": (lambda s: math.inf if s < 2.5 else 1.0 / s, 0.5, 2.5),
    "flat, then steep": (lambda s: 2.0 if s < 4.0 else 2.0 * (4.0 / s) ** 40, 1.0, 4.0 * 2.0 ** (1.0 / 40.0)),
    "0 above 2.4": (lambda s: 1.0 if s < 2.4 else 0.0, 0.5, 2.4),
}
STARTS = (1e-3, 0.5, 1.0, 3.0, 50.0)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", list(SMOOTH) + list(ADVERSARIAL))
@pytest.mark.parametrize("start", STARTS)
def test_search_meets_the_contract_and_finds_the_closed_form_threshold(strategy, name, start):
    f, bound, threshold = {**SMOOTH, **ADVERSARIAL}[name]
    res, calls, brackets = run(strategy, f, bound, start=start)
    check_contract(res, calls, brackets, f, bound)
    check_threshold(res[0], threshold)
    # never more than CLOSE_SLACK evaluations beyond bisection of the same bracket (+1: the
    # projection aims 0.1 % below log(1 + rtol), which can cost one halving)
    assert res[2] <= bisection_steps(strategy, f, bound, start=start) + CLOSE_SLACK + 1


@pytest.mark.parametrize("name", list(SMOOTH))
def test_smooth_thresholds_take_few_evaluations(name):
    """Starts within a factor 2 of the threshold: the bracketing ends within a factor 2 of it (a
    step of the strategy, or a power-law prediction from two points), and where f(t) = log value
    - log bound is smooth (|f'' / 2f'| of order 1) the secant error obeys e_{k+1} ~ K e_k e_{k-1}:
    the 34 halvings from log 2 to below log(1 + 1e-10) / 2 take about 9 steps, plus a probe across
    the threshold: 15 in all leaves room for the regions of value 0 or inf (bisected)."""
    f, bound, threshold = SMOOTH[name]
    for start in (threshold * 0.6, threshold * 1.3, threshold * 1.9):
        res, calls, brackets = run("double", f, bound, start=start)
        check_contract(res, calls, brackets, f, bound)
        check_threshold(res[0], threshold)
        assert res[2] <= 15


def test_a_power_law_is_found_in_a_few_steps():
    """value = c / s^2 is a straight line in log-log: after one step of the strategy, the power law
    through the last two points meets the bound at the threshold (to rounding), at most a factor
    8 a step away; one probe half an rtol beyond it and one interpolation close the bracket."""
    for c, bound in ((7.0, 0.3), (1e-8, 2.5), (3.0, 1e6)):
        threshold = math.sqrt(c / bound)
        for strategy in STRATEGIES:
            res, calls, brackets = run(strategy, lambda s: c / s ** 2, bound, start=1.0)
            assert res[2] <= 4 + math.ceil(abs(math.log(threshold / 0.5)) / math.log(8.0))
            check_contract(res, calls, brackets, lambda s: c / s ** 2, bound)
            check_threshold(res[0], math.sqrt(c / bound))


@pytest.mark.parametrize("name", ["c / s^2", "exp(-s)", "log1p(1 / s^2)"])
def test_galloping_crosses_orders_of_magnitude_quickly(name):
    """A threshold 2.5 or 1.6 orders of magnitude from the start: galloping (factors 2, 4, 16, 256)
    or a power-law prediction brackets it in a few steps, and interpolation closes it: 15 in all
    (bisection alone of a ratio-2 bracket: 35)."""
    f, bound, threshold = SMOOTH[name]
    for start in (threshold * 3e-3, threshold * 40.0):
        res, calls, brackets = run("gallop", f, bound, start=start)
        check_contract(res, calls, brackets, f, bound)
        check_threshold(res[0], threshold)
        assert res[2] <= 15


def test_galloping_takes_log_log_steps_where_no_prediction_applies():
    """value 1 below the threshold, 0 above (no power law to follow): galloping (factors 2, 4, 16,
    ..., at most 1e30) brackets a threshold 1e60 times the start in 9 evaluations; doubling does
    not reach it in 200."""
    f = lambda s: 1.0 if s < 1e60 else 0.0   # noqa: E731
    res, calls, brackets = run("gallop", f, 0.5, start=1.0, rtol=1e-6)
    # 1, 2, 8, 128, 32768, 2^31, 2^63, 2^127 rejected, 2^127 times 1e30 (the largest factor)
    # accepted: the bracket after 9 evaluations
    expected = [2.0 ** (2 ** k - 1) for k in range(8)] + [2.0 ** 127 * 1e30]
    assert [s for s, _ in calls[:9]] == pytest.approx(expected, rel=1e-12)
    assert brackets[0][2] == 9
    check_threshold(res[0], 1e60, rtol=1e-6)
    res_double = smallest_scale(f, 0.5, start=1.0, strategy="double", rtol=1e-6)
    assert res_double[2] == 200 and math.isinf(res_double[0]) and "within 200 steps" in res_double[3]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("threshold", [1e-290, 1e-150, 1e-20, 1.0, 1e20, 1e150, 1e290])
@pytest.mark.parametrize("start", [1e-295, 1.0, 1e295])
def test_thresholds_across_the_whole_float_range(strategy, threshold, start):
    """value = threshold / s (a divergence of a shift falls like 1/s) from a start up to 1e585 times
    away: found to rtol by galloping within 30 evaluations (factors up to 1e30 a step); by doubling
    (a power-law prediction at most a factor 8 a step) when 190 steps cover the distance, else
    stopped at 200 evaluations with the reason."""
    f = lambda s: threshold / s   # noqa: E731
    bits = abs(math.log2(start) - math.log2(threshold))
    res, calls, brackets = run(strategy, f, 1.0, start=start)
    if strategy == "double" and bits > 3 * 190:
        assert res[3] and res[2] == len(calls) == 200
        return
    check_contract(res, calls, brackets, f, 1.0)
    check_threshold(res[0], threshold)
    assert res[2] <= (30 if strategy == "gallop" else 10 + bits / 3)


def test_close_bracket_without_the_rejected_value_bisects_first():
    rec = Recorded(lambda s: 7.0 / s ** 2)
    scale, value, steps, reason = close_bracket(rec, 0.3, 2.0, 8.0, 7.0 / 64, rtol=RTOL, max_steps=200, steps=5)
    assert rec.calls[0][0] == pytest.approx(4.0, rel=1e-15)
    assert steps == 5 + len(rec.calls) and reason == "" and value <= 0.3
    check_threshold(scale, math.sqrt(7.0 / 0.3))


def test_out_of_steps_gives_inf_with_a_reason():
    rec = Recorded(lambda s: 5.0 if s < 3.7 else 0.5)
    scale, value, steps, reason = close_bracket(rec, 1.0, 2.0, 8.0, 0.5, rtol=RTOL, max_steps=12, steps=4, v_lo=5.0)
    assert math.isinf(scale) and math.isnan(value) and steps == 12 and len(rec.calls) == 8
    assert "not closed within 12 steps" in reason


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_max_steps_is_a_hard_cap(strategy):
    """Every evaluation counts: a step function needs ~36 halvings to rtol 1e-10 from a ratio-2
    bracket; with 10 steps allowed the search stops with inf and a reason after exactly 10."""
    rec = Recorded(lambda s: 5.0 if s < 3.7 else 0.5)
    scale, value, steps, reason = smallest_scale(rec, 1.0, start=1.0, strategy=strategy, rtol=RTOL, max_steps=10)
    assert math.isinf(scale) and math.isnan(value) and steps == 10 == len(rec.calls) and "10 steps" in reason
    # accepted from the start down: the smallest accepted scale found, with a reason
    rec = Recorded(lambda s: 1e-9 * s)                # accepted everywhere (bound 1), never rejected
    scale, value, steps, reason = smallest_scale(rec, 1.0, start=1.0, strategy=strategy, rtol=RTOL, max_steps=6)
    assert steps == 6 == len(rec.calls) and scale == min(s for s, _ in rec.calls) and "no rejected scale" in reason


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_floor_is_never_crossed(strategy):
    """value accepted everywhere: the search stops at the floor (evaluated, accepted) with a reason,
    and evaluates no scale below it; the default floor is 1e-300."""
    rec = Recorded(lambda s: 0.0)
    scale, value, steps, reason = smallest_scale(rec, 1.0, start=1.0, strategy=strategy, floor=1e-9)
    assert scale == 1e-9 and value == 0.0 and "accepted down to 1e-09" in reason
    assert min(s for s, _ in rec.calls) == 1e-9
    rec = Recorded(lambda s: 0.0)
    start = 1e-290 if strategy == "double" else 1.0          # doubling: 33 halvings to 1e-300
    scale, _, _, reason = smallest_scale(rec, 1.0, start=start, strategy=strategy)
    assert scale == 1e-300 and min(s for s, _ in rec.calls) == 1e-300 and "1e-300" in reason


def test_no_accepted_scale_up_to_the_ceiling():
    scale, value, steps, reason = smallest_scale(lambda s: math.inf, 1.0, start=1.0, strategy="gallop")
    assert math.isinf(scale) and math.isnan(value) and "no accepted scale" in reason and steps < 20


def test_at_zero_meeting_the_bound_needs_no_noise_and_no_evaluation():
    rec = Recorded(lambda s: 1.0 / s)
    assert smallest_scale(rec, 0.5, start=1.0, at_zero=0.5) == (0.0, 0.5, 0, NO_NOISE)
    assert rec.calls == []
    # inf (the priors are apart) is a valid noise-free value: the search goes on
    assert smallest_scale(rec, 0.5, start=1.0, at_zero=math.inf)[0] == pytest.approx(2.0, rel=1e-9)


def test_rtol_below_float_resolution_stops_between_neighbouring_floats():
    rec = Recorded(lambda s: 7.0 / s ** 2)
    scale, value, steps, reason = smallest_scale(rec, 0.3, start=1.0, rtol=0.0)
    assert value <= 0.3 and reason == "" and steps == len(rec.calls) < 60
    lo = max(s for s, v in rec.calls if v > 0.3)
    assert lo < scale <= lo * (1.0 + 4e-16)


# ------------------------------------------------------------------ history
def test_history_that_brackets_the_threshold_is_closed_without_bracketing():
    f = lambda s: 3.0 / s   # noqa: E731    threshold 5 for bound 0.6
    history = [(1.0, 3.0), (4.0, 0.75), (6.0, 0.5), (100.0, 0.03)]
    res, calls, brackets = run("double", f, 0.6, start=1e-6, history=history)
    assert brackets == [(4.0, 6.0, 0)], "the tightest bracket of the history, no evaluation spent on it"
    check_contract(res, calls, brackets, f, 0.6, history=history)
    check_threshold(res[0], 5.0)


def test_history_closed_to_rtol_costs_nothing():
    f = lambda s: 3.0 / s   # noqa: E731
    hi = 5.0 * (1 + 1e-11)
    history = [(5.0 * (1 - 1e-11), f(5.0 * (1 - 1e-11))), (hi, f(hi))]
    res, calls, _ = run("gallop", f, 0.6, start=1.0, history=history)
    assert calls == [] and res == (hi, f(hi), 0, "")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_one_sided_history_saves_steps(strategy):
    """Only accepted scales known (an earlier, larger target): the search starts from the smallest
    of them instead of ``start``, and the power law through it predicts the threshold."""
    f = lambda s: 3.0 / s   # noqa: E731
    history = [(10.0, 0.3), (7.5, 0.4)]
    res, calls, brackets = run(strategy, f, 0.6, start=1e6, history=history)
    assert all(s < 7.5 for s, _ in calls) and res[2] <= 4
    check_contract(res, calls, brackets, f, 0.6, history=history)
    check_threshold(res[0], 5.0)
    # and only rejected ones: the search climbs from the largest
    history = [(1.0, 3.0), (2.5, 1.2)]
    res, calls, brackets = run(strategy, f, 0.6, start=1e-6, history=history)
    assert all(s > 2.5 for s, _ in calls) and res[2] <= 5
    check_threshold(res[0], 5.0)


def test_bad_arguments_are_refused_naming_them():
    f = lambda s: 1.0 / s   # noqa: E731
    with pytest.raises(InvalidArgumentError, match="strategy = 'bisect'"):
        smallest_scale(f, 1.0, start=1.0, strategy="bisect")
    with pytest.raises(InvalidArgumentError, match="floor = 0"):
        smallest_scale(f, 1.0, start=1.0, floor=0)
    with pytest.raises(InvalidArgumentError, match=r"history\[1\] scale = -1"):
        smallest_scale(f, 1.0, start=1.0, history=[(1.0, 1.0), (-1, 2.0)])
    with pytest.raises(ArgumentTypeError, match=r"history\[0\]"):
        smallest_scale(f, 1.0, start=1.0, history=[1.0])
    with pytest.raises(InvalidArgumentError, match="history\\[0\\] value = nan"):
        smallest_scale(f, 1.0, start=1.0, history=[(1.0, math.nan)])


# ------------------------------------------------------------------ random monotone functions
class Piecewise:
    """A non-increasing function of s: piecewise on t = log s between sorted ``knots``, piece k
    constant at e^logs[k] or (``linear[k]``) linear in log value up to e^logs[k + 1]; inf below
    the first knot if ``inf_below`` (else e^logs[0]), 0 above the last if ``zero_above``."""

    def __init__(self, knots, logs, linear, inf_below, zero_above):
        self.knots, self.logs, self.linear = knots, logs, linear
        self.inf_below, self.zero_above = inf_below, zero_above

    def __repr__(self):
        return (f"Piecewise({self.knots!r}, {self.logs!r}, {self.linear!r}, "
                f"{self.inf_below!r}, {self.zero_above!r})")

    def __call__(self, s):
        knots, logs = self.knots, self.logs
        t = math.log(s)
        if t < knots[0]:
            return math.inf if self.inf_below else math.exp(logs[0])
        for k in range(len(knots) - 1):
            if t < knots[k + 1]:
                if not self.linear[k]:
                    return math.exp(logs[k])
                w = (t - knots[k]) / (knots[k + 1] - knots[k])
                return math.exp(logs[k] + w * (logs[k + 1] - logs[k]))
        return 0.0 if self.zero_above else math.exp(logs[-1])

    def threshold(self, bound):
        """The smallest s with value <= bound, in closed form (inf when none; NaN when the bound is
        within 1e-9 of a piece's level, where the rounding of exp(log value) decides)."""
        knots, logs = self.knots, self.logs
        if any(abs(math.log(bound) - level) < 1e-9 for level in logs):
            return math.nan
        candidates = []
        if not self.inf_below and math.exp(logs[0]) <= bound:
            return 0.0
        for k in range(len(knots) - 1):
            lo_v, hi_v = math.exp(logs[k]), math.exp(logs[k + 1])
            if not self.linear[k]:
                if lo_v <= bound:
                    candidates.append(math.exp(knots[k]))
            elif hi_v <= bound:
                if lo_v <= bound:
                    candidates.append(math.exp(knots[k]))
                else:   # log value crosses log bound inside the piece
                    w = (math.log(bound) - logs[k]) / (logs[k + 1] - logs[k])
                    candidates.append(math.exp(knots[k] + w * (knots[k + 1] - knots[k])))
        last = 0.0 if self.zero_above else math.exp(logs[-1])
        if last <= bound:
            candidates.append(math.exp(knots[-1]))
        return min(candidates, default=math.inf)


@st.composite
def monotone_functions(draw):
    """A random :class:`Piecewise` function and a bound."""
    n = draw(st.integers(1, 6))
    knots = sorted(set(draw(st.lists(st.floats(-8.0, 8.0), min_size=n, max_size=n))))
    logs = sorted(draw(st.lists(st.floats(-30.0, 30.0), min_size=len(knots), max_size=len(knots))), reverse=True)
    linear = draw(st.lists(st.booleans(), min_size=len(knots), max_size=len(knots)))
    f = Piecewise(knots, logs, linear, draw(st.booleans()), draw(st.booleans()))
    return f, math.exp(draw(st.floats(-40.0, 35.0)))


@settings(deadline=None)
@given(fb=monotone_functions(), strategy=st.sampled_from(STRATEGIES),
       log_start=st.floats(-10.0, 10.0), rtol=st.sampled_from([1e-4, 1e-8, 1e-10, 1e-12]))
def test_random_monotone_functions(fb, strategy, log_start, rtol):
    f, bound = fb
    start = math.exp(log_start)
    res, calls, brackets = run(strategy, f, bound, start=start, rtol=rtol)
    if res[3]:                                        # the search gave up (floor / ceiling / steps)
        assert res[2] == len(calls) <= 200
        return
    check_contract(res, calls, brackets, f, bound, rtol)
    threshold = f.threshold(bound)
    if 0.0 < threshold < math.inf:                    # the answer is within rtol of the threshold
        assert -1e-12 <= res[0] / threshold - 1.0 <= rtol * (1.0 + 1e-6) + 1e-12
    assert res[2] <= bisection_steps(strategy, f, bound, start=start, rtol=rtol) + CLOSE_SLACK + 1
    # deterministic: the same inputs give the same outputs, bit for bit
    again, calls2, _ = run(strategy, f, bound, start=start, rtol=rtol)
    assert again == res and calls2 == calls

"""pufferfish.certified: the directed-rounding arithmetic every certified value goes through.

Expected values are worked out by hand from IEEE 754 binary64 (a float near 1 has spacing 2^-52 above
and 2^-53 below; the smallest subnormal is 2^-1074) or checked in exact rational arithmetic
(:class:`fractions.Fraction`), never with the functions under test.
"""
from __future__ import annotations

import math
import random
import sys
from fractions import Fraction

import flint
import pytest

from pufferfish.certified import CERTIFIED_RTOL, arb_upper_float, lower, quotient_upper, round_down, round_up, upper
from pufferfish.errors import ComputationError

TINY = 2.0 ** -1074
HUGE = sys.float_info.max

ROUNDINGS = [
    # (function, value, steps, expected)
    (round_up, 1.0, 1, 1.0 + 2.0 ** -52),
    (round_up, 1.0, 3, 1.0 + 3 * 2.0 ** -52),
    (round_up, 1.0, 0, 1.0),
    (round_down, 1.0, 1, 1.0 - 2.0 ** -53),
    (round_down, 1.0, 2, 1.0 - 2 * 2.0 ** -53),
    (round_up, 0.0, 1, TINY),
    (round_down, 0.0, 1, -TINY),
    (round_up, -1.0, 1, -1.0 + 2.0 ** -53),
    (round_up, HUGE, 1, math.inf),
    (round_up, math.inf, 1, math.inf),
    (round_down, -math.inf, 1, -math.inf),
    (round_up, 2.0 ** 1000, 1, 2.0 ** 1000 + 2.0 ** 948),
]


@pytest.mark.parametrize(("function", "value", "steps", "expected"), ROUNDINGS)
def test_directed_rounding_by_hand(function, value, steps, expected):
    assert function(value, steps) == expected


ENDS = [
    # (function, value, abs_error, rel_error, expected)
    (upper, 1.0, 0.0, 0.0, 1.0),                        # no error: the value itself
    (upper, 1.0, 2.0 ** -52, 0.0, 1.0 + 2.0 ** -51),    # 1 + 2^-52 exact, then one float up
    (upper, 1.0, 1e-20, 0.0, 1.0 + 2.0 ** -52),         # 1 + 1e-20 rounds to 1, one float up covers it
    (upper, 2.0, 0.0, 0.5, 3.0 + 2.0 ** -51),           # 2 * 0.5 rounded up to 1 + 2^-52; 3 + 2^-52 ties to 3; up
    (upper, 0.0, 0.0, 0.5, 0.0),                        # a relative error of a zero value adds nothing
    (upper, 2.0, 1.0, 0.5, 4.0 + 2.0 ** -50),           # (1 + 2^-52) + 1 = 2 + 2^-52 ties to 2, up: 2 + 2^-51;
                                                        # 4 + 2^-51 ties to 4; one float up
    (upper, 0.0, TINY, 0.0, 2 * TINY),
    (upper, TINY, 0.0, 1e-16, 3 * TINY),               # TINY * 1e-16 underflows to 0: rounded up to TINY; up
    (upper, math.inf, 1.0, 0.0, math.inf),
    (lower, 1.0, 0.0, 0.0, 1.0),
    (lower, 1.0, 2.0 ** -53, 0.0, 1.0 - 2.0 ** -52),    # 1 - 2^-53 exact, then one float down
    (lower, 1.0, 1e-20, 0.0, 1.0 - 2.0 ** -53),
    (lower, -math.inf, 1.0, 0.0, -math.inf),
]


@pytest.mark.parametrize(("function", "value", "abs_error", "rel_error", "expected"), ENDS)
def test_certified_ends_by_hand(function, value, abs_error, rel_error, expected):
    assert function(value, abs_error, rel_error=rel_error) == expected


def _random_float(rng: random.Random) -> float:
    return rng.choice([-1.0, 1.0]) * rng.uniform(1.0, 2.0) * 2.0 ** rng.randint(-1074, 1000)


def test_upper_and_lower_bound_the_exact_sum_over_the_float_range():
    """500 seeded (value, abs_error, rel_error) over 2^-1074 .. 2^1000: checked in exact rationals."""
    rng = random.Random(20261207)
    for _ in range(500):
        value = _random_float(rng)
        abs_error = abs(_random_float(rng)) * rng.choice([0.0, 1.0])
        rel_error = rng.choice([0.0, 1e-16, 1e-12, 1e-9, 0.5])
        exact = Fraction(abs(value)) * Fraction(rel_error) + Fraction(abs_error)
        up, down = upper(value, abs_error, rel_error=rel_error), lower(value, abs_error, rel_error=rel_error)
        if math.isfinite(up):
            assert Fraction(up) >= Fraction(value) + exact
        if math.isfinite(down):
            assert Fraction(down) <= Fraction(value) - exact
        if exact == 0:
            assert up == down == value
        elif math.isfinite(up) and exact < Fraction(abs(value)) / 2 ** 60:
            # a negligible error moves the end by at most two floats
            assert value < up <= round_up(value, 2) and round_down(value, 2) <= down < value


@pytest.mark.parametrize("bad", [math.nan, -math.inf])
def test_upper_refuses_what_is_not_a_number(bad):
    with pytest.raises(ComputationError, match="not a number"):
        upper(bad)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_lower_refuses_what_is_not_a_number(bad):
    with pytest.raises(ComputationError, match="not a number"):
        lower(bad)


@pytest.mark.parametrize(("abs_error", "rel_error"), [(-1e-300, 0.0), (math.inf, 0.0), (math.nan, 0.0),
                                                      (0.0, -0.1), (0.0, math.inf), (0.0, math.nan)])
def test_an_error_bound_must_be_finite_and_non_negative(abs_error, rel_error):
    for function in (upper, lower):
        with pytest.raises(ComputationError, match="error bound"):
            function(1.0, abs_error, rel_error=rel_error)


def test_the_documented_certified_tolerance():
    assert CERTIFIED_RTOL == 1e-9


@pytest.fixture
def precision_200():
    saved = flint.ctx.prec
    flint.ctx.prec = 200
    yield
    flint.ctx.prec = saved


def test_arb_upper_float_is_the_smallest_float_above_the_ball(precision_200):
    third = flint.arb(1) / 3
    # float(1/3) = 0x3FD5555555555555 lies below 1/3; the ball's end is within 2^-190 of 1/3
    assert Fraction(1 / 3) < Fraction(1, 3)
    assert arb_upper_float(third) == math.nextafter(1 / 3, math.inf)
    assert arb_upper_float(flint.arb(0.5)) == 0.5
    assert arb_upper_float(flint.arb(-1)) == -1.0
    assert arb_upper_float(flint.arb(2) ** 2000) == math.inf
    # 10^-400 is below every positive float: its upper end rounds up to the smallest subnormal
    assert arb_upper_float(flint.arb(10) ** -400) == TINY


QUOTIENTS = [
    # (numerator, denominator, expected): 1/3 = 0x3FD5555555555555 + a remainder, so one float up;
    # 1/4 and 3/1 are exact; 1/10 rounds to nearest 0x3FB999999999999A, which lies above 1/10
    (1.0, 3.0, math.nextafter(1 / 3, math.inf)),
    (1.0, 4.0, 0.25),
    (3.0, 1.0, 3.0),
    (1.0, 10.0, 0.1),
    (-1.0, 3.0, -1 / 3),   # -1/3 rounded to nearest lies above -1/3 (towards zero): no step
    (1e308, 1e-10, math.inf),
    (TINY, 2.0, TINY),     # 2^-1075 is below every positive float: up to 2^-1074
]


@pytest.mark.parametrize(("numerator", "denominator", "expected"), QUOTIENTS)
def test_quotient_upper_by_hand(numerator, denominator, expected):
    assert quotient_upper(numerator, denominator) == expected


def test_quotient_upper_decides_a_bound_exactly():
    """200 seeded quotients: the result is >= a / b in exact rationals, and the float below it is < a / b."""
    rng = random.Random(7)
    for _ in range(200):
        a, b = rng.uniform(-10, 10), rng.uniform(1e-3, 10)
        q, exact = quotient_upper(a, b), Fraction(a) / Fraction(b)
        assert Fraction(q) >= exact > Fraction(math.nextafter(q, -math.inf))


@pytest.mark.parametrize(("numerator", "denominator"), [(math.nan, 1.0), (1.0, 0.0), (1.0, -2.0), (math.inf, 1.0),
                                                        (1.0, math.inf)])
def test_quotient_upper_refuses(numerator, denominator):
    with pytest.raises(ComputationError, match="quotient"):
        quotient_upper(numerator, denominator)

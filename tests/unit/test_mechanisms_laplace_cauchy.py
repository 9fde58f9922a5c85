"""The Laplace and Cauchy mechanisms of one shift (:mod:`pufferfish.mechanisms.laplace`, :mod:`.cauchy`).

Every expected number comes from another route: dp-accounting's exact Laplace privacy loss,
scipy quadrature of the divergence integrals, mpmath at 50 digits for extreme inputs, and
closed forms worked by hand.
"""
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, stats

from pufferfish.errors import ArgumentTypeError, InvalidArgumentError
from pufferfish.mechanisms import cauchy_renyi2, cauchy_renyi2_scale, laplace_delta, laplace_scale

EXTREME_SHIFTS = [1e-250, 1e-8, 1.0, 3.0, 1e8, 1e250]


# ------------------------------------------------------------------------------ Laplace
@pytest.mark.parametrize("w", EXTREME_SHIFTS + [0.0])
def test_laplace_scale_is_the_quotient_rounded_up(w):
    # certified (issue 39): at or above w / eps (so eps-DP holds), at most two ulps above it
    eps = np.array([1e-12, 1e-3, 0.5, 1.0, 7.0, 1e3])
    got = laplace_scale(w, epsilons=eps)
    for b, e in zip(got, eps):
        exact = Fraction(w) / Fraction(float(e))
        assert exact <= Fraction(float(b)) <= exact * (1 + Fraction(1, 2 ** 51))


def _laplace_delta_quad(s, b, e):
    """int max(p_s - e^eps p_0, 0) over the line, by quadrature (scipy.stats.laplace)."""
    f = lambda y: max(stats.laplace.pdf(y, s, b) - math.exp(e) * stats.laplace.pdf(y, 0, b), 0.0)
    start = (s + e * b) / 2          # the loss (2y - s)/b exceeds eps beyond this point
    return sum(integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]
               for lo, hi in [(start, s), (s, s + 60 * b)])


@pytest.mark.parametrize("s, b, e", [(1.0, 1.3, 0.5), (3.0, 0.7, 1.0), (40.0, 2.0, 0.3), (2.0, 5.0, 0.1),
                                     (1.0, 1.0, 0.0)])
def test_laplace_delta_against_quadrature(s, b, e):
    assert laplace_delta(s, b, epsilon=e) == pytest.approx(_laplace_delta_quad(s, b, e), rel=1e-10)


@pytest.mark.parametrize("s", EXTREME_SHIFTS)
@pytest.mark.parametrize("ratio", [1e-9, 0.3, 1.0, 30.0, 1e6])
@pytest.mark.parametrize("e", [0.0, 1e-12, 0.5, 2.0, 700.0])
def test_laplace_delta_against_dp_accounting_and_mpmath(s, ratio, e):
    from dp_accounting.pld.privacy_loss_mechanism import LaplacePrivacyLoss

    b = s / ratio
    got = laplace_delta(s, b, epsilon=e)
    with mp.workdps(50):   # by hand: 1 - exp((eps - s/b)/2) below eps = s/b, 0 above
        exact = 1 - mp.e ** ((mp.mpf(e) - mp.mpf(s) / mp.mpf(b)) / 2) if e < mp.mpf(s) / mp.mpf(b) else mp.mpf(0)
        assert exact <= mp.mpf(got) <= exact * (1 + mp.mpf("1e-9")) + mp.mpf(2) ** -1074    # certified
    if 1e-6 <= ratio <= 1e3:   # dp-accounting works with the scale relative to a sensitivity of order 1
        ref = LaplacePrivacyLoss(b / s, sensitivity=1.0).get_delta_for_epsilon(e)
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-15)


def test_laplace_delta_near_its_threshold_has_no_cancellation():
    """Just below eps = s/b, delta = 1 - exp(-x) with x ~ 1e-12: full relative accuracy (expm1)."""
    s, b = 3.0, 1.5
    for gap in [2e-12, 2e-15, 4.440892098500626e-16]:
        e = 2.0 - gap
        with mp.workdps(50):
            exact = -mp.expm1((mp.mpf(e) - 2) / 2)
        assert exact <= laplace_delta(s, b, epsilon=e) <= exact * (1 + 1e-9)      # certified, no cancellation
    assert laplace_delta(s, b, epsilon=2.0) == 0.0


def test_laplace_scale_attains_epsilon_dp_exactly():
    """At b = w / eps the hockey stick at eps is 0 (pure eps-DP) and it is positive just below."""
    for w, e in [(1.0, 0.5), (7.0, 2.0), (1e-9, 1e-4)]:
        b = float(laplace_scale(w, epsilons=[e])[0])
        assert laplace_delta(w, b, epsilon=e) == 0.0
        assert laplace_delta(w, b * (1 - 1e-9), epsilon=e) > 0.0


# ------------------------------------------------------------------------------ Cauchy
def _chi_square_plus_one(s, g):
    """exp(D_2) = int f_s^2 / f_0 of Cauchy(s, g) against Cauchy(0, g), f_s(y) = g / (pi (g^2 + (y - s)^2)),
    by quadrature on y = g tan(t): dy = (g^2 + y^2) / g dt maps the line onto (-pi/2, pi/2), where
    the integrand (g^2 + y^2)^2 / (pi (g^2 + (y - s)^2)^2) is bounded."""
    def integrand(t):
        y = g * math.tan(t)
        return (g * g + y * y) ** 2 / (math.pi * (g * g + (y - s) ** 2) ** 2)
    return integrate.quad(integrand, -math.pi / 2, math.pi / 2, points=[0.0, math.atan(s / g)], epsabs=0,
                          epsrel=1e-12, limit=500)[0]


@pytest.mark.parametrize("s, g", [(1.0, 1.0), (3.0, 0.7), (0.5, 2.0), (10.0, 0.1)])
def test_cauchy_renyi2_against_quadrature(s, g):
    assert cauchy_renyi2(s, g) == pytest.approx(math.log(_chi_square_plus_one(s, g)), rel=1e-9)
    assert cauchy_renyi2(s, g) == pytest.approx(math.log(_chi_square_plus_one(-s, g)), rel=1e-9)   # both orders


# (shift, scale) over the floats: ratios shift / scale from 1e-200 to 1e300 (the squares over- or
# underflow at both ends), every pair with a normal scale
SHIFT_SCALE = [(s, s / r) for s in EXTREME_SHIFTS for r in [1e-200, 1e-9, 1e-3, 1.0, 1e3, 1e100, 1e160, 1e300]
               if 1e-300 < s / r < 1e300] + [(0.0, 1.0), (0.0, 1e-300), (0.0, 1e300)]


@pytest.mark.parametrize("s, g", SHIFT_SCALE)
def test_cauchy_renyi2_against_mpmath_everywhere(s, g):
    got = cauchy_renyi2(s, g)
    with mp.workdps(60):
        exact = mp.log1p(mp.mpf(s) ** 2 / (2 * mp.mpf(g) ** 2))
        assert exact <= mp.mpf(got) <= exact * (1 + mp.mpf("1e-9")) + mp.mpf(2) ** -1074   # certified


@pytest.mark.parametrize("w", EXTREME_SHIFTS)
def test_cauchy_renyi2_scale_solves_d2_equals_epsilon(w):
    eps = np.array([1e-12, 1e-6, 0.1, 1.0, 5.0, 50.0, 300.0])
    if w < 1e-200:
        eps = eps[:-1]        # 1e-250 / sqrt(2 e^300) is subnormal: refused (next test)
    gamma = cauchy_renyi2_scale(w, epsilons=eps)
    for g, e in zip(gamma, eps):
        with mp.workdps(50):   # by hand: gamma = w / sqrt(2 (e^eps - 1))
            exact = mp.mpf(w) / mp.sqrt(2 * mp.expm1(mp.mpf(e)))
            assert exact <= mp.mpf(g) <= exact * (1 + mp.mpf("1e-9"))     # rounded up: D_2 <= eps holds
        assert cauchy_renyi2(w, g) == pytest.approx(e, rel=1e-13)


def test_scales_outside_the_floats_are_refused_not_rounded():
    """gamma = 1e-250 / sqrt(2 e^700) = 1e-402 and b = 1e300 / 1e-12 are not floats: one line, no 0 or inf."""
    with pytest.raises(InvalidArgumentError, match=r"^sensitivity = 1e-250: at epsilon = 700.0 the scale is 0.0"):
        cauchy_renyi2_scale(1e-250, epsilons=[1.0, 700.0])
    with pytest.raises(InvalidArgumentError, match=r"^sensitivity = 1e\+300: at epsilon = 1e-12 the scale is inf"):
        laplace_scale(1e300, epsilons=[1e-12])
    with pytest.raises(InvalidArgumentError, match=r"^sensitivity = 5e-324: at epsilon = 4.0 the scale is 5e-324"):
        laplace_scale(5e-324, epsilons=[4.0])
    with pytest.raises(InvalidArgumentError, match=r"^sensitivity = 1e-250: at epsilon = 300.0 the scale is 5.07"):
        cauchy_renyi2_scale(1e-250, epsilons=[300.0])      # subnormal: digits lost


def test_cauchy_renyi2_scale_is_zero_for_no_shift_and_refuses_bad_input():
    np.testing.assert_array_equal(cauchy_renyi2_scale(0.0, epsilons=[0.5, 1.0]), [0.0, 0.0])
    with pytest.raises(InvalidArgumentError, match=r"^sensitivity = -1.0: must be finite and >= 0$"):
        cauchy_renyi2_scale(-1.0, epsilons=[1.0])
    with pytest.raises(InvalidArgumentError, match=r"^epsilons\[0\] = 0.0"):
        cauchy_renyi2_scale(1.0, epsilons=[0.0])
    with pytest.raises(ArgumentTypeError, match="^scale = '1'"):
        cauchy_renyi2(1.0, "1")
    with pytest.raises(InvalidArgumentError, match=r"^scale = 0.0: must be finite and > 0$"):
        laplace_delta(1.0, 0.0, epsilon=1.0)

"""The Gaussian mechanism of one shift (:mod:`pufferfish.mechanisms.gaussian`).

Every expected number comes from another route: mpmath at 60 digits (the Balle-Wang curve and
its root, the Renyi route's minimum over the order), dp-accounting (its analytic Gaussian
calibration and the Gaussian privacy-loss distribution), scipy quadrature of the hockey-stick
integral, and the closed forms worked by hand. The inputs span the floats: shifts from 1e-250
to 1e250, epsilon from 1e-9 to 700, delta from 1e-300 to 1 - 1e-12.
"""
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import integrate, stats

from pufferfish.errors import InvalidArgumentError
from pufferfish.mechanisms import (analytic_gaussian_sigma, balle_wang_delta, gaussian_rdp_alpha, gaussian_rdp_sigma,
                                   gaussian_rdp_sigma_at)

SHIFTS = [1e-250, 1e-8, 1.0, 3.0, 1e8, 1e250]


def mp_delta(w, s, e):
    """Phi(w/2s - e s/w) - e^e Phi(-w/2s - e s/w) (Balle and Wang 2018, Thm 8) at the working precision."""
    w, s, e = mp.mpf(w), mp.mpf(s), mp.mpf(e)
    return mp.ncdf(w / (2 * s) - e * s / w) - mp.e ** e * mp.ncdf(-w / (2 * s) - e * s / w)


def mp_sigma(w, e, d, guess):
    """The root of mp_delta(w, s, e) = d, on log s with log delta (mpmath findroot, 60 digits)."""
    with mp.workdps(60):
        root = mp.findroot(lambda ls: mp.log(mp_delta(w, mp.e ** ls, e)) - mp.log(mp.mpf(d)), mp.log(guess))
        return mp.e ** root


# ------------------------------------------------------------------------------ the curve
@pytest.mark.parametrize("w", SHIFTS)
def test_balle_wang_delta_against_mpmath_over_the_floats(w):
    """Relative error at most ~1e-15 x (Phi(a) / delta) x (2 + eps + |log Phi(b)|) (the rounding of
    eps + log Phi(b), amplified by the cancellation): the closed form is used where its two terms
    cancel by at most CANCELLATION = 1e-6, the integral beyond."""
    ratios = [1e-3, 0.05, 0.3, 1.0, 3.0, 30.0, 1e3, 1e5, 1e8]
    epsilons = [0.0, 1e-12, 1e-9, 1e-6, 1e-3, 0.5, 1.0, 5.0, 50.0, 500.0]
    with mp.workdps(60):
        for ratio in ratios:
            for e in epsilons:
                s = w * ratio
                got, exact = balle_wang_delta(w, s, epsilon=e), mp_delta(w, s, e)
                if exact < mp.mpf("1e-300"):
                    assert 0.0 <= got <= 1e-300, (w, ratio, e)
                    continue
                first = mp.ncdf(w / (2 * mp.mpf(s)) - e * mp.mpf(s) / w)
                log_phi_b = abs(mp.log(mp.ncdf(-w / (2 * mp.mpf(s)) - e * mp.mpf(s) / w)))
                tol = 1e-14 + 1e-15 * min(first / exact, 1e6) * (2 + e + log_phi_b)
                assert abs(mp.mpf(got) - exact) <= tol * exact, (w, ratio, e, got, exact)


def _hockey_stick_quadrature(d, sigma, eps):
    """int max(phi_d - e^eps phi_0, 0), by quadrature (scipy.stats.norm)."""
    f = lambda y: max(stats.norm.pdf(y, d, sigma) - math.exp(eps) * stats.norm.pdf(y, 0, sigma), 0.0)
    start = d / 2 + eps * sigma ** 2 / d        # the integrand is positive beyond this point
    return integrate.quad(f, start, start + 40 * sigma, epsabs=1e-15, epsrel=1e-12, limit=500)[0]


@pytest.mark.parametrize("d, sigma, eps", [(1.0, 1.3, 0.7), (3.0, 0.7, 1.0), (1.0, 0.2, 0.5), (5.0, 40.0, 0.01),
                                           (2.0, 1.0, 0.0), (1.0, 4.0, 2.0)])
def test_balle_wang_delta_against_quadrature_and_dp_accounting(d, sigma, eps):
    from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss

    got = balle_wang_delta(d, sigma, epsilon=eps)
    assert got == pytest.approx(_hockey_stick_quadrature(d, sigma, eps), rel=1e-8, abs=1e-16)
    assert got == pytest.approx(GaussianPrivacyLoss(sigma / d, sensitivity=1.0).get_delta_for_epsilon(eps),
                                rel=1e-10, abs=1e-16)


def test_balle_wang_delta_heavy_cancellation_is_integrated():
    """sigma / w = 1e5 at eps = 1e-4: Phi(a) ~ 7.6e-24 and delta ~ 7.5e-30 (the two terms agree to 6
    digits); from 1e6 on, the integral keeps every digit (the difference of the closed form would not)."""
    with mp.workdps(60):
        for ratio, e in [(1e5, 1e-4), (1e6, 1e-5), (1e8, 1e-7), (1e7, 3e-6), (1e12, 1e-11)]:
            exact = mp_delta(1.0, ratio, e)
            first = mp.ncdf(1 / (2 * mp.mpf(ratio)) - e * mp.mpf(ratio))
            assert first / exact > 1e6
            assert abs(mp.mpf(balle_wang_delta(1.0, ratio, epsilon=e)) - exact) <= 2e-13 * exact


@settings(deadline=None)
@given(w=st.floats(1e-6, 1e6), s1=st.floats(1e-3, 1e3), grow=st.floats(1.0, 10.0), e=st.floats(0.0, 20.0))
def test_balle_wang_delta_falls_with_the_scale(w, s1, grow, e):
    """N(0, s2^2) = N(0, s1^2) + independent noise (post-processing): delta does not increase."""
    small, large = balle_wang_delta(w, w * s1, epsilon=e), balle_wang_delta(w, w * s1 * grow, epsilon=e)
    assert large <= small * (1 + 1e-12) + 1e-300


# ------------------------------------------------------------------------------ the analytic sigma
@pytest.mark.parametrize("e", [1e-9, 1e-6, 1e-3, 0.1, 1.0, 10.0, 100.0, 700.0])
@pytest.mark.parametrize("d", [1e-300, 1e-50, 1e-5, 0.1, 0.5, 0.999, 1 - 1e-12])
def test_analytic_gaussian_sigma_is_the_root_of_the_exact_curve(e, d):
    sigma = analytic_gaussian_sigma(1.0, epsilon=e, delta=d)
    assert balle_wang_delta(1.0, sigma, epsilon=e) <= d                 # the accepted side, as computed
    with mp.workdps(60):
        if d <= 0.5:
            assert abs(sigma / mp_sigma(1.0, e, d, sigma) - 1) <= 1e-10
        else:
            # 1 - delta has 4 to 16 digits in floats: sigma is the root to the rounding of delta
            assert abs(mp_delta(1.0, sigma, e) - d) <= 2.3e-16


@pytest.mark.parametrize("e", [0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0])
@pytest.mark.parametrize("d", [1e-12, 1e-5, 1e-2, 0.3])
def test_analytic_gaussian_sigma_against_dp_accounting(e, d):
    from dp_accounting.gaussian_mechanism import get_epsilon_gaussian, get_sigma_gaussian

    for w in [1e-200, 7.0]:
        sigma = analytic_gaussian_sigma(w, epsilon=e, delta=d)
        assert sigma / w == pytest.approx(get_sigma_gaussian(e, d, tol=1e-15), rel=1e-10)
        assert get_epsilon_gaussian(sigma / w, d, tol=1e-15) == pytest.approx(e, rel=1e-9)
        assert balle_wang_delta(w, sigma * (1 - 1e-9), epsilon=e) > d           # and no smaller sigma


@pytest.mark.parametrize("w", SHIFTS)
def test_analytic_gaussian_sigma_is_proportional_to_the_shift(w):
    for e, d in [(1.0, 1e-5), (0.05, 1e-10), (5.0, 0.2)]:
        assert analytic_gaussian_sigma(w, epsilon=e, delta=d) / w == pytest.approx(
            analytic_gaussian_sigma(1.0, epsilon=e, delta=d), rel=1e-12)
    assert analytic_gaussian_sigma(0.0, epsilon=1.0, delta=1e-5) == 0.0


def test_scales_outside_the_floats_are_refused():
    with pytest.raises(InvalidArgumentError, match=r"^sensitivity = 1e\+285: with epsilon = 1e-09 the scale"):
        analytic_gaussian_sigma(1e285, epsilon=1e-9, delta=1e-300)       # 3.6e295
    with pytest.raises(InvalidArgumentError, match=r"^sensitivity = 1e-300: with epsilon = 700.0 the scale"):
        gaussian_rdp_sigma(1e-300, epsilon=700.0, delta=0.5)
    with pytest.raises(InvalidArgumentError, match="^sensitivity = 1e\\+290: with epsilon = 1.0 the scale"):
        gaussian_rdp_sigma_at(1e290, epsilon=1.0, delta=1e-5, alpha=[20.0])


# ------------------------------------------------------------------------------ the Renyi route
def _mp_sigma_at(w, e, d, alpha):
    """sigma(alpha)^2 = alpha w^2 / (2 (e - log(1/d) / (alpha - 1))), by hand (Mironov 2017, Prop. 3)."""
    room = mp.mpf(e) - mp.log(1 / mp.mpf(d)) / (mp.mpf(alpha) - 1)
    return mp.mpf(w) * mp.sqrt(mp.mpf(alpha) / (2 * room)) if room > 0 else mp.inf


@pytest.mark.parametrize("e, d", [(1e-8, 1e-300), (1e-3, 1e-5), (0.5, 1e-5), (1.0, 0.5), (3.0, 1e-12),
                                  (700.0, 0.99), (0.1, 1 - 1e-12)])
@pytest.mark.parametrize("w", SHIFTS)
def test_gaussian_rdp_sigma_is_the_minimum_over_the_order(w, e, d):
    """The closed form against mpmath: the order minimising sigma(alpha) (a root of its derivative)."""
    sigma, alpha = gaussian_rdp_sigma(w, epsilon=e, delta=d), gaussian_rdp_alpha(epsilon=e, delta=d)
    with mp.workdps(60):
        f = lambda a: _mp_sigma_at(1, e, d, a)
        best = mp.findroot(lambda a: mp.diff(f, a), mp.mpf(alpha))
        assert abs(alpha / best - 1) <= 1e-12
        assert abs(mp.mpf(sigma) / (w * f(best)) - 1) <= 4e-15
        for a in [alpha * (1 - 1e-3), alpha * (1 + 1e-3), best * 2]:     # a local and a global minimum
            if a > 1 + math.log(1 / d) / e:
                assert w * f(a) > mp.mpf(sigma)


def test_gaussian_rdp_sigma_on_a_dense_grid_of_orders():
    """The RPP of paper 002 (Cor. 3.1) converted by Mironov's Prop. 3 on 200001 orders never beats it."""
    d, delta = 3.0, 1e-5
    big_l = math.log(1 / delta)
    for e in [0.1, 0.5, 1.0, 2.0]:
        s = gaussian_rdp_sigma(d, epsilon=e, delta=delta)
        # by hand: with a = alpha - 1, sigma^2 = d^2 a (a + 1) / (2 (e a - L)) is smallest at
        # a* = (L + sqrt(L^2 + e L)) / e, where sigma^2 = d^2 (2L + e + 2 sqrt(L (L + e))) / (2 e^2)
        assert s ** 2 == pytest.approx(d ** 2 * (2 * big_l + e + 2 * math.sqrt(big_l * (big_l + e))) / (2 * e ** 2),
                                       rel=1e-13)
        alphas = 1 + big_l / e * (1 + np.geomspace(1e-6, 1e4, 200001))
        grid = d * np.sqrt(alphas / (2 * (e - big_l / (alphas - 1))))
        assert s <= grid.min() * (1 + 1e-13) and grid.min() == pytest.approx(s, rel=1e-8)
        alpha = gaussian_rdp_alpha(epsilon=e, delta=delta)
        assert alphas[np.argmin(grid)] == pytest.approx(alpha, rel=1e-3)
        # at alpha*, the RPP of sigma converts exactly to (e, delta)
        assert alpha * d ** 2 / (2 * s ** 2) + big_l / (alpha - 1) == pytest.approx(e, rel=1e-12)
        # the analytic curve of one shift is the exact (e, delta) frontier: never above the RDP route
        assert analytic_gaussian_sigma(d, epsilon=e, delta=delta) < s


@pytest.mark.parametrize("e", [1e-4, 1e-3, 25.0, 300.0])
def test_gaussian_rdp_sigma_at_extreme_epsilons(e):
    """sigma(alpha)^2 = alpha w^2 / (2 (eps - log(1/delta) / (alpha - 1))) in 40-digit mpmath (_mp_sigma_at), at
    orders above the threshold 1 + log(1/delta) / eps, for eps far below and above the usual range."""
    w, d = 3.0, 1e-6
    threshold = 1 + math.log(1 / d) / e
    alphas = np.array([threshold * 1.001, threshold * 2, threshold * 50])
    got = gaussian_rdp_sigma_at(w, epsilon=e, delta=d, alpha=alphas)
    with mp.workdps(40):
        for a, s in zip(alphas, got):
            assert abs(mp.mpf(s) / _mp_sigma_at(w, e, d, a) - 1) <= 1e-12


def test_gaussian_rdp_sigma_at_by_hand():
    w, e, d = 2.0, 1.0, 1e-5
    threshold = 1 + math.log(1 / d) / e
    alphas = np.array([[1.5, threshold], [threshold * 1.01, 64.0]])
    got = gaussian_rdp_sigma_at(w, epsilon=e, delta=d, alpha=alphas)
    assert got.shape == (2, 2) and got[0, 0] == math.inf and got[0, 1] == math.inf
    with mp.workdps(40):
        for a, s in [(alphas[1, 0], got[1, 0]), (alphas[1, 1], got[1, 1])]:
            assert abs(mp.mpf(s) / _mp_sigma_at(w, e, d, a) - 1) <= 1e-12
    best = gaussian_rdp_alpha(epsilon=e, delta=d)
    assert float(gaussian_rdp_sigma_at(w, epsilon=e, delta=d, alpha=best)) == pytest.approx(
        gaussian_rdp_sigma(w, epsilon=e, delta=d), rel=1e-14)

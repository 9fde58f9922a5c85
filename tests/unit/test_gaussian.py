"""Theorem 1, Remark 1, Corollary 1 and tau*(delta) of paper 004 (pufferfish.gaussian.methods).

Expected values are worked out by hand from the paper's equations or come from scipy
(norm.isf, lambertw) used as an independent oracle.
"""

import math

import numpy as np
import pytest
from scipy.special import lambertw
from scipy.stats import norm

from pufferfish.errors import ConfigError
from pufferfish.gaussian.methods import (corollary1_identical, corollary1a, corollary1b, remark1, tau_lambertw, tau_star,
                                 theorem1)

#: Q^{-1}(0.15), the 85 % standard-normal quantile (printed tables: z_0.85 = 1.0364). The full
#: double is checked independently of scipy in test_q_inv_015_is_the_root below (math.erfc).
Q_INV_015 = 1.0364333894937898
DELTAS = np.array([0.001, 0.01, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999])


# ----------------------------------------------------------------------------- tau*
def test_q_inv_015_is_the_root():
    # Q(t) = erfc(t / sqrt 2) / 2 = 0.15 at the constant, and not one ulp-scale step away from it
    assert 0.5 * math.erfc(Q_INV_015 / math.sqrt(2)) == pytest.approx(0.15, rel=1e-15)
    assert 0.5 * math.erfc(1.0364 / math.sqrt(2)) == pytest.approx(0.15, rel=1e-4)


def test_tau_star_hand_value():
    assert tau_star(0.3) == pytest.approx(Q_INV_015, abs=1e-15)


def test_tau_star_is_q_inverse_of_half_delta():
    tau = tau_star(DELTAS)
    np.testing.assert_allclose(norm.sf(tau), DELTAS / 2, rtol=1e-12)   # Q(tau) = delta / 2, eq. (20)
    # scipy.stats' own isf, raised by at most a few floats until Q(tau) <= delta / 2 (certified), into the far tail
    deep = np.concatenate([DELTAS, 10.0 ** -np.arange(1.0, 300.0, 7.0)])
    ours, theirs = tau_star(deep), norm.isf(deep / 2)
    assert np.all(ours >= theirs) and np.all(ours <= theirs * (1 + 8 * 2.0 ** -52))


def test_tau_star_decreasing_and_positive():
    tau = tau_star(np.linspace(0.001, 0.999, 999))
    assert np.all(np.diff(tau) < 0) and np.all(tau > 0)


def test_tau_lambertw_root_of_eq23():
    tau = tau_lambertw(DELTAS)
    # tau^2 e^{tau^2} = 2 / (pi delta^2)  (eq. 23 squared back)
    np.testing.assert_allclose(tau ** 2 * np.exp(tau ** 2), 2 / (math.pi * DELTAS ** 2), rtol=1e-12)
    # the positive root of eq. (22) with equality: tau^2 = 2 W0(tau / (sqrt(2 pi) delta))
    rhs = 2 * np.real(lambertw(tau / (math.sqrt(2 * math.pi) * DELTAS)))
    np.testing.assert_allclose(tau ** 2, rhs, rtol=1e-12)
    assert np.all(tau > 0)  # tau = 0 also satisfies (22); the bound is the positive root


@pytest.mark.parametrize("tau", [1.0, 1.5, 2.0])
def test_tau_lambertw_hand_values(tau):
    # choose delta so that the root is tau: tau^2 e^{tau^2} = 2/(pi delta^2)
    delta = math.sqrt(2.0 / (math.pi * tau ** 2 * math.exp(tau ** 2)))
    assert tau_lambertw(delta) == pytest.approx(tau, rel=1e-13)


def test_tau_lambertw_is_an_upper_bound_and_meets_the_tail_bound():
    grid = np.linspace(0.001, 0.999, 999)
    lam, q = tau_lambertw(grid), tau_star(grid)
    assert np.all(lam >= q)
    # at tau_lambertw the tail bound (21) equals delta/2 and the true tail is below it
    np.testing.assert_allclose(norm.pdf(lam) / lam, grid / 2, rtol=1e-12)
    assert np.all(norm.sf(lam) <= grid / 2)


# ----------------------------------------------------------------------------- Theorem 1
def test_theorem1_hand_value():
    # |0 - 1| + |1 - 2| Q^{-1}(0.15), over epsilon = 1 and 2
    assert theorem1(0, 1, 1, 2, epsilon=1, delta=0.3) == pytest.approx(1 + Q_INV_015, rel=1e-15)
    assert theorem1(0, 1, 1, 2, epsilon=2, delta=0.3) == pytest.approx((1 + Q_INV_015) / 2, rel=1e-15)


def test_theorem1_vectorized_over_epsilon_and_symmetric():
    eps = np.array([0.1, 0.5, 1.0, 3.0])
    b = theorem1(2.0, 1.5, -1.0, 0.5, epsilon=eps, delta=0.1)
    assert isinstance(b, np.ndarray) and b.shape == eps.shape
    for e, v in zip(eps, b):
        assert v == pytest.approx(theorem1(-1.0, 0.5, 2.0, 1.5, epsilon=float(e), delta=0.1), rel=1e-15)
        assert v == pytest.approx((3.0 + 1.0 * norm.isf(0.05)) / e, rel=1e-14)


@pytest.mark.parametrize("delta", [0.01, 0.3, 0.9])
def test_theorem1_equal_variances_is_remark1(delta):
    # sigma_i = sigma_j: the tau* term vanishes, eq. (5) becomes eq. (6)
    assert theorem1(3.0, 2.0, 5.5, 2.0, epsilon=0.7, delta=delta) == pytest.approx(2.5 / 0.7, rel=1e-15)
    assert remark1(3.0, 5.5, epsilon=0.7) == pytest.approx(2.5 / 0.7, rel=1e-15)


def test_theorem1_point_masses_is_l1_sensitivity():
    # deterministic X (sigma = 0): the l1-sensitivity method of DP, |f(D) - f(D')| / epsilon
    assert theorem1(10.0, 0.0, 7.0, 0.0, epsilon=0.5, delta=0.2) == pytest.approx(6.0, rel=1e-15)


# ----------------------------------------------------------------------------- Corollary 1
def test_corollary1a_hand_value_two_users():
    tau = Q_INV_015
    # user 1: |1| + (sqrt(1 + 4) - sqrt(1)) tau; user 2: |3| + (sqrt(4 + 1) - sqrt(4)) tau
    expected = max(1 + (math.sqrt(5) - 1) * tau, 3 + (math.sqrt(5) - 2) * tau)
    assert corollary1a([1.0, 3.0], [2.0, 1.0], epsilon=1.0, delta=0.3) == pytest.approx(expected, rel=1e-14)


def test_corollary1a_is_theorem1_on_absent_vs_present():
    mus, sds = np.array([0.5, -2.0, 1.0]), np.array([1.0, 0.3, 2.0])
    best = 0.0
    for k in range(3):
        rest = [i for i in range(3) if i != k]
        absent = (mus[rest].sum(), math.sqrt((sds[rest] ** 2).sum()))
        present = (mus.sum(), math.sqrt((sds ** 2).sum()))
        best = max(best, theorem1(*absent, *present, epsilon=0.4, delta=0.05))
    assert corollary1a(mus, sds, epsilon=0.4, delta=0.05) == pytest.approx(best, rel=1e-13)


@pytest.mark.parametrize("K", [1, 2, 5, 100])
def test_eq11_equals_eq9_for_identical_users(K):
    assert corollary1_identical(1.0, 3.0, K, epsilon=1.0, delta=0.3) == pytest.approx(
        corollary1a([1.0] * K, [3.0] * K, epsilon=1.0, delta=0.3), rel=1e-13)


def test_eq11_hand_values():
    # K = 1: |mu| + sigma tau; K = 2: |mu| + (sqrt 2 - 1) sigma tau (Fig. 2 with sigma^2 = 1)
    assert corollary1_identical(1.0, 1.0, 1, epsilon=1, delta=0.3) == pytest.approx(1 + Q_INV_015, rel=1e-15)
    assert corollary1_identical(1.0, 1.0, 2, epsilon=1, delta=0.3) == pytest.approx(
        1 + (math.sqrt(2) - 1) * Q_INV_015, rel=1e-14)
    ks = np.arange(1, 101)
    b = corollary1_identical(1.0, 5.0, ks, epsilon=1, delta=0.3)
    assert b.shape == (100,) and np.all(np.diff(b) < 0) and b[-1] > 1.0  # -> |mu|/epsilon as K grows


def test_corollary1b():
    assert corollary1b(4, 1, epsilon=0.5) == pytest.approx(6.0)


# ----------------------------------------------------------------------------- bad input
def _one_line(excinfo):
    text = str(excinfo.value)
    assert text and "\n" not in text
    return text


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_delta_outside_open_interval(delta):
    for call in (lambda: tau_star(delta), lambda: tau_lambertw(delta),
                 lambda: theorem1(0, 1, 1, 2, epsilon=1, delta=delta),
                 lambda: corollary1_identical(1, 1, 3, epsilon=1, delta=delta)):
        with pytest.raises(ConfigError) as excinfo:
            call()
        assert "delta" in _one_line(excinfo) and repr(float(delta)) in str(excinfo.value)


@pytest.mark.parametrize("epsilon", [0.0, -1.0, float("inf"), float("nan")])
def test_bad_epsilon(epsilon):
    for call in (lambda: theorem1(0, 1, 1, 2, epsilon=epsilon, delta=0.3), lambda: remark1(0, 1, epsilon=epsilon),
                 lambda: corollary1b(0, 1, epsilon=epsilon),
                 lambda: theorem1(0, 1, 1, 2, epsilon=[1.0, epsilon], delta=0.3)):
        with pytest.raises(ConfigError) as excinfo:
            call()
        assert "epsilon" in _one_line(excinfo)


def test_bad_std_and_k():
    with pytest.raises(ConfigError) as excinfo:
        theorem1(0, -1, 1, 2, epsilon=1, delta=0.3)
    assert "sigma_i" in _one_line(excinfo)
    for K in (0, 1.5):
        with pytest.raises(ConfigError) as excinfo:
            corollary1_identical(1, 1, K, epsilon=1, delta=0.3)
        assert "K" in _one_line(excinfo)

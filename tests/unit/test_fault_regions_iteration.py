"""The regions of the iteration's exact computations that no fast test checked (issue 41, tests/faults): T >= 1e4,
T = 1, the delta and epsilon extremes of the conversions and calibrations.

Every expected value is computed here from the paper's closed form in mpmath at 40 digits (docs/math/iteration.md;
paper 002 Sec. 5; Balle and Wang 2018, Thm 8; Canonne, Kamath and Steinke 2020, Prop. 12), never by the code under
test; the tolerances (1e-9 relative and tighter) are far below the 1e-6 a fault of the harness adds.
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from pufferfish.iteration.accountants import rdp_delta
from pufferfish.iteration.calibrate import sigma_for_epsilon_delta, sigma_for_renyi
from pufferfish.iteration.equal_correlation import EqualCorrelation
from pufferfish.iteration.every_secret import all_secrets_audit, hockey_stick
from pufferfish.iteration.exact import ExactAudit, exact_audit
from pufferfish.iteration.geometric import noise_gain
from pufferfish.iteration.minorant import minimal_costs


@pytest.fixture(autouse=True)
def _forty_digits():
    """mpmath at 40 digits in this module's tests only (mpmath's precision is global: other modules set theirs)."""
    with mp.workdps(40):
        yield

RTOL = 1e-9


def _phi(x):
    return mp.ncdf(x)


def _bw_delta(mu, eps):
    """Balle and Wang's delta(eps) of N(mu, 1) against N(0, 1), mu > 0."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return _phi(mu / 2 - eps / mu) - mp.exp(eps) * _phi(-mu / 2 - eps / mu)


def _equal_correlation_fields(size, rho, v, k, eta, diameter):
    """(Delta, eta^2 Var(q^T x | x_k), sum q_t^2) of the equal-correlation prior, q_t = (1 - eta)^(T - t)."""
    size, rho, v, eta, diameter = int(size), mp.mpf(rho), mp.mpf(v), mp.mpf(eta), mp.mpf(diameter)
    r = 1 - eta
    s1 = (1 - r ** size) / (1 - r)
    s2 = (1 - r ** (2 * size)) / (1 - r ** 2)
    qk = r ** (size - k)
    cross = v * ((1 - rho) * qk + rho * s1)           # q^T Sigma_{.k}
    total = v * ((1 - rho) * s2 + rho * s1 ** 2)      # q^T Sigma q
    return eta * diameter * cross / v, eta ** 2 * (total - cross ** 2 / v), s2


# ------------------------------------------------------------------------------ T >= 1e4
@pytest.mark.parametrize("size, eta", [(10_000, 1e-3), (200_000, 1e-5)])
def test_noise_gain_at_T_above_1e4_is_the_geometric_sum(size, eta):
    r = 1 - mp.mpf(eta)
    expected = (1 - r ** (2 * size)) / (1 - r ** 2)
    assert noise_gain(size, eta) == pytest.approx(float(expected), rel=1e-12, abs=0)


def test_exact_audit_at_T_1e4_has_the_closed_form_fields():
    size, rho, v, k, eta, sigma, diameter = 10_000, 0.3, 2.0, 5_000, 1e-3, 0.5, 1.5
    audit = exact_audit(EqualCorrelation(size, rho, v), secret_index=k, eta=eta, sigma=sigma, diameter=diameter)
    gap, data, gain = _equal_correlation_fields(size, rho, v, k, eta, diameter)
    assert audit.mean_gap == pytest.approx(float(gap), rel=RTOL, abs=0)
    assert audit.data_variance == pytest.approx(float(data), rel=RTOL, abs=0)
    assert audit.gain == pytest.approx(float(gain), rel=RTOL, abs=0)
    variance = sigma ** 2 * gain + data
    assert audit.renyi(alpha=3.0) == pytest.approx(float(3 * gap ** 2 / (2 * variance)), rel=RTOL, abs=0)


def test_all_secrets_audit_at_T_1e4_has_the_closed_form_fields():
    size, rho, v, eta, sigma, diameter = 10_000, 0.2, 1.0, 2e-3, 0.3, 1.0
    audit = all_secrets_audit(EqualCorrelation(size, rho, v), eta=eta, sigma=sigma, diameter=diameter)
    for k in (1, 4_321, size):
        gap, data, gain = _equal_correlation_fields(size, rho, v, k, eta, diameter)
        assert audit.mean_gap[k - 1] == pytest.approx(float(gap), rel=RTOL, abs=0)
        assert audit.data_variance[k - 1] == pytest.approx(float(data), rel=RTOL, abs=0)
    assert audit.gain == pytest.approx(float(gain), rel=RTOL, abs=0)


def test_minimal_costs_at_T_1e4():
    """One shift at t = 1, T = 1e4: the minorant is one segment from (0, 0) to (P_T, c^(T-1)), cost c^(2(T-1)) / P_T
    with P_T = sum_u c^(2(T-u)) (1 / T at c = 1); increasing shifts s_t = t: the diagram is convex, cost sum t^2."""
    size, c = 10_000, 0.9999
    first = np.zeros(size)
    first[0] = 1.0
    cm = mp.mpf(c)
    p_t = (1 - cm ** (2 * size)) / (1 - cm ** 2)
    paper, contracted = minimal_costs(first, contractions=(1.0, c))
    assert paper == pytest.approx(1.0 / size, rel=1e-12, abs=0)
    assert contracted == pytest.approx(float(cm ** (2 * (size - 1)) / p_t), rel=RTOL, abs=0)
    ramp = np.arange(1.0, size + 1.0)
    (cost,) = minimal_costs(ramp, contractions=(1.0,))
    assert cost == pytest.approx(size * (size + 1) * (2 * size + 1) / 6, rel=1e-12, abs=0)


def test_minimal_costs_at_T_1_is_the_square_of_the_shift():
    """T = 1: a_1 = s_1 whatever the contraction (z_1 = s_1 - a_1 = 0)."""
    assert minimal_costs([3.0], contractions=(1.0, 0.5, 0.0)) == pytest.approx((9.0, 9.0, 9.0), rel=1e-15, abs=0)


# ------------------------------------------------------------------------------ ExactAudit.epsilon, every delta
@pytest.mark.parametrize("delta", [1e-12, 1e-3, 0.3])
def test_exact_audit_epsilon_is_the_root_of_the_hockey_stick(delta):
    audit = ExactAudit(mean_gap=2.0, gain=1.0, data_variance=0.0, sigma=1.0)      # mu = 2
    expected = mp.findroot(lambda e: _bw_delta(2, e) - delta, (mp.mpf("1e-6"), mp.mpf(40)), solver="illinois",
                           tol=mp.mpf(10) ** -70, maxsteps=400)
    assert abs(_bw_delta(2, expected) - delta) < mp.mpf(delta) * mp.mpf("1e-30")
    assert audit.epsilon(delta=delta) == pytest.approx(float(expected), rel=RTOL, abs=0)


# ------------------------------------------------------------------------------ every secret's hockey stick
@pytest.mark.parametrize("epsilon", [0.0, 1e-4, 6.0, 12.0])
def test_every_secret_hockey_stick_at_small_and_large_epsilon(epsilon):
    gaps, std = np.array([0.5, 5.0, 9.0]), 1.0
    got = hockey_stick(gaps, std, epsilon=epsilon)
    for gap, value in zip(gaps, got):
        expected = _bw_delta(gap, epsilon)
        assert expected > 1e-300
        assert value == pytest.approx(float(expected), rel=RTOL, abs=0)


# ------------------------------------------------------------------------------ conversions and calibrations
def test_rdp_delta_at_epsilon_above_5():
    """log delta = min over the orders of min(log(1 - e^-r) / 2, (a - 1)(r - eps + log(1 - 1/a)) - log a)."""
    orders, divergences, epsilon = [2.0, 8.0, 32.0], [0.2, 0.8, 3.2], 6.0

    def log_delta(a, r):
        a, r = mp.mpf(a), mp.mpf(r)
        return min(mp.log(1 - mp.exp(-r)) / 2, (a - 1) * (r - epsilon + mp.log(1 - 1 / a)) - mp.log(a))

    values = [log_delta(a, r) for a, r in zip(orders, divergences)]
    best = int(np.argmin([float(x) for x in values]))
    delta, order = rdp_delta(orders, divergences, epsilon=epsilon)
    assert delta == pytest.approx(float(mp.exp(values[best])), rel=RTOL, abs=0)
    assert order == orders[best]


@pytest.mark.parametrize("alpha", [1.05, 50.0])
def test_sigma_for_renyi_at_alpha_near_1_and_large(alpha):
    """sqrt(alpha X / (2 eps)), claimed with the relative margin 2^-40."""
    cost, epsilon = 2.0, 0.3
    expected = mp.sqrt(mp.mpf(alpha) * cost / (2 * mp.mpf(epsilon)))
    assert sigma_for_renyi(cost, alpha=alpha, epsilon=epsilon) == pytest.approx(float(expected), rel=1e-11, abs=0)


@pytest.mark.parametrize("epsilon, delta, branch", [(1.0, 0.5, "ckd"), (0.01, 0.9, "kl")])
def test_sigma_for_epsilon_delta_at_delta_above_0_1(epsilon, delta, branch):
    """One order a = 2: sigma = min(sqrt(a X / (2 r)), sqrt(a X / (2 k))),
    r = eps - log(1 - 1/a) + log(delta a) / (a - 1) (Canonne, Kamath, Steinke, Prop. 12) and k = -log(1 - delta^2)
    (the KL branch)."""
    cost, a = 3.0, mp.mpf(2)
    room = epsilon - mp.log(1 - 1 / a) + mp.log(mp.mpf(delta) * a) / (a - 1)
    kl_room = -mp.log(1 - mp.mpf(delta) ** 2)
    ckd, kl = mp.sqrt(a * cost / (2 * room)), mp.sqrt(a * cost / (2 * kl_room))
    assert (ckd < kl) == (branch == "ckd")
    got = sigma_for_epsilon_delta(cost, epsilon=epsilon, delta=delta, orders=[2.0])
    assert got == pytest.approx(float(min(ckd, kl)), rel=1e-12, abs=0)

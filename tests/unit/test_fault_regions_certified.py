"""Regions of the certified computations added since issue 35 (tests/faults/catalog_certified.py) that need a test
knowing the answer: paper 003's hockey stick at every epsilon band (the log form above 700), pure epsilon and the
f-divergences of Table I, the iteration audit's smallest sigma (one record and every record), the certified Gaussian
delta's Mills-ratio tail, and the accountants' epsilon of a cost.

Every expected value is computed here in mpmath at 40 digits from the definition (paper 003 Def. 1 and 11, Table I;
Balle and Wang 2018, Thm 8; Canonne, Kamath and Steinke 2020, Prop. 12); tolerances 1e-9 relative and tighter.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish.distp.divergences import distp_delta, f_divergence, hockey_stick, pure_epsilon
from pufferfish.iteration.accountants import epsilon_of_cost
from pufferfish.iteration.equal_correlation import EqualCorrelation
from pufferfish.iteration.every_secret import all_secrets_audit
from pufferfish.iteration.every_secret import hockey_stick as gaussian_hockey_stick
from pufferfish.iteration.exact import ExactAudit


@pytest.fixture(autouse=True)
def _forty_digits():
    """mpmath at 40 digits in this module's tests only (mpmath's precision is global: other modules set theirs)."""
    with mp.workdps(40):
        yield

RTOL = 1e-9
P0 = [0.5, 0.3, 0.15, 0.05]
P1 = [0.2, 0.2, 0.35, 0.25]


def _hockey(p, q, eps):
    big = mp.exp(mp.mpf(eps))
    return sum(max(mp.mpf(a) - big * mp.mpf(b), 0) for a, b in zip(p, q))


# ------------------------------------------------------------------------------ paper 003: divergences
@pytest.mark.parametrize("epsilon", [0.0, 5e-4, 0.4, 1.2])
def test_distp_hockey_stick_small_and_typical_epsilon(epsilon):
    expected = _hockey(P0, P1, epsilon)
    assert hockey_stick(P0, P1, epsilon=epsilon) == pytest.approx(float(expected), rel=RTOL, abs=0)
    both = max(expected, _hockey(P1, P0, epsilon))
    assert distp_delta(P0, P1, epsilon=epsilon) == pytest.approx(float(both), rel=RTOL, abs=0)


@pytest.mark.parametrize("epsilon, tiny", [(6.0, 1e-4), (40.0, 1e-19), (701.0, 1e-306)])
def test_distp_hockey_stick_large_epsilon(epsilon, tiny):
    """eps > 5 and eps > 700 (e^eps P1 formed in logarithms): P1 = (tiny, 1 - tiny) with e^eps tiny < 0.9."""
    p, q = [0.9, 0.1], [tiny, 1.0 - tiny]
    expected = _hockey(p, q, epsilon)
    assert 0 < expected < 0.9
    assert hockey_stick(p, q, epsilon=epsilon) == pytest.approx(float(expected), rel=RTOL, abs=0)


def test_distp_pure_epsilon_is_the_largest_log_ratio():
    expected = max(abs(mp.log(mp.mpf(a) / mp.mpf(b))) for a, b in zip(P0, P1))
    assert pure_epsilon(P0, P1) == pytest.approx(float(expected), rel=1e-12, abs=0)


@pytest.mark.parametrize("name", ["kl", "reverse_kl", "total_variation", "chi2", "hellinger"])
def test_f_divergences_of_table_1(name):
    f = {"kl": lambda t: t * mp.log(t), "reverse_kl": lambda t: -mp.log(t), "total_variation": lambda t: abs(t - 1) / 2,
         "chi2": lambda t: (t - 1) ** 2, "hellinger": lambda t: (mp.sqrt(t) - 1) ** 2}[name]
    expected = sum(mp.mpf(b) * f(mp.mpf(a) / mp.mpf(b)) for a, b in zip(P0, P1))
    assert f_divergence(P0, P1, name) == pytest.approx(float(expected), rel=RTOL, abs=0)


# ------------------------------------------------------------------------------ the iteration's smallest sigma
def _bw_delta(mu, eps):
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def _mu_star(epsilon, delta):
    """The mu with delta(eps) = delta (delta(eps) increases in mu)."""
    return mp.findroot(lambda m: _bw_delta(m, epsilon) - delta, (mp.mpf("0.01"), mp.mpf(60)), solver="illinois",
                       tol=mp.mpf(10) ** -60, maxsteps=400)


def test_exact_audit_smallest_sigma_renyi_and_epsilon_delta():
    audit = ExactAudit(mean_gap=1.5, gain=2.0, data_variance=0.1, sigma=1.0)
    gap, gain, data = mp.mpf(1.5), mp.mpf(2), mp.mpf("0.1")
    renyi = mp.sqrt((3 * gap ** 2 / (2 * mp.mpf("0.4")) - data) / gain)          # alpha 3, D_alpha <= 0.4
    assert audit.smallest_sigma(epsilon=0.4, alpha=3.0) == pytest.approx(float(renyi), rel=RTOL, abs=0)
    mu = _mu_star(1.0, 1e-5)
    approx = mp.sqrt(((gap / mu) ** 2 - data) / gain)
    assert audit.smallest_sigma(epsilon=1.0, delta=1e-5) == pytest.approx(float(approx), rel=RTOL, abs=0)


def test_every_record_smallest_sigma_renyi_and_epsilon_delta():
    size, rho, eta, diameter = 3, 0.5, 0.4, 2.0
    audit = all_secrets_audit(EqualCorrelation(size, rho, 1.0), eta=eta, sigma=1.0, diameter=diameter)
    r, e = 1 - mp.mpf(eta), mp.mpf(eta)
    q = [r ** (size - t) for t in range(1, size + 1)]
    s1, s2 = sum(q), sum(x * x for x in q)
    mu = _mu_star(0.5, 1e-3)
    renyi, approx = audit.smallest_sigma(epsilon=0.2, alpha=2.0), audit.smallest_sigma(epsilon=0.5, delta=1e-3)
    for k in range(1, size + 1):
        cross = (1 - rho) * q[k - 1] + rho * s1
        gap, data = e * diameter * cross, e ** 2 * ((1 - rho) * s2 + rho * s1 ** 2 - cross ** 2)
        assert renyi[k - 1] == pytest.approx(float(mp.sqrt((2 * gap ** 2 / (2 * mp.mpf("0.2")) - data) / s2)), rel=RTOL, abs=0)
        assert approx[k - 1] == pytest.approx(float(mp.sqrt(((gap / mu) ** 2 - data) / s2)), rel=RTOL, abs=0)


# ------------------------------------------------------------------------------ certified Gaussian delta, conversions
@pytest.mark.parametrize("gap, epsilon", [(1.0, 9.0), (3.0, 40.0), (0.2, 2.0)])
def test_certified_delta_in_the_mills_ratio_tail(gap, epsilon):
    """a = gap / 2 - eps / gap <= -8: the Mills-ratio series route (or arb)."""
    assert gap / 2 - epsilon / gap <= -8.0
    expected = _bw_delta(gap, epsilon)
    assert expected > 1e-300
    got = gaussian_hockey_stick(np.array([gap]), 1.0, epsilon=epsilon)[0]
    assert got == pytest.approx(float(expected), rel=RTOL, abs=0)


def test_epsilon_of_cost_is_the_best_order_of_the_conversion():
    """D_alpha <= alpha X / (2 sigma^2) = alpha rho; eps = min_a rho a + log(1 - 1/a) - log(delta a) / (a - 1)."""
    cost, sigma, delta, orders = 2.0, 3.0, 1e-6, [2.0, 5.0, 10.0, 20.0, 40.0]
    rho = mp.mpf(cost) / (2 * mp.mpf(sigma) ** 2)
    values = [rho * a + mp.log(1 - 1 / mp.mpf(a)) - mp.log(mp.mpf(delta) * a) / (a - 1) for a in orders]
    expected = min(values)
    assert math.isfinite(float(expected)) and expected > 0
    got = epsilon_of_cost(cost, sigma=sigma, delta=delta, orders=orders)
    assert got == pytest.approx(float(expected), rel=RTOL, abs=0)


# ------------------------------------------------------------------------------ paper 003: exact laws in balls
def _rr_laws(m, eps_a, p0, p1):
    """RR(eps_A) on m values: keep = e^eps_A / (e^eps_A + m - 1), other = 1 / (e^eps_A + m - 1) (paper 003, Sec. II)."""
    big = mp.exp(mp.mpf(eps_a))
    keep, other = big / (big + m - 1), 1 / (big + m - 1)
    return [[other + (keep - other) * mp.mpf(v) for v in law] for law in (p0, p1)]


def _geometric_laws(domain, eps_a, p0, p1):
    """The clamped geometric mechanism, r = e^-eps_A: interior outputs (1 - r) / (1 + r) r^|y - x|, the two ends
    r^|y - x| / (1 + r)."""
    r = mp.exp(-mp.mpf(eps_a))
    low, high = domain[0], domain[-1]
    out = []
    for law in (p0, p1):
        out.append([sum(mp.mpf(m) * ((1 if y in (low, high) else 1 - r) / (1 + r)) * r ** abs(y - x)
                        for x, m in zip(domain, law)) for y in range(low, high + 1)])
    return out


@pytest.mark.parametrize("epsilon", [2e-4, 0.5, 6.0])
def test_ball_hockey_sticks_of_randomized_response(epsilon):
    from pufferfish.distp.exact_laws import base_hockey_sticks
    from pufferfish.mechanisms import RandomizedResponse

    p0, p1, eps_a = [0.7, 0.3, 0.0], [0.0, 0.4, 0.6], 9.0
    mu0, mu1 = _rr_laws(3, eps_a, p0, p1)
    forward, backward = base_hockey_sticks(RandomizedResponse(3, eps_a), p0, p1, epsilon=epsilon)
    assert _hockey(mu0, mu1, epsilon) > 0 and _hockey(mu1, mu0, epsilon) > 0
    assert forward == pytest.approx(float(_hockey(mu0, mu1, epsilon)), rel=RTOL, abs=0)
    assert backward == pytest.approx(float(_hockey(mu1, mu0, epsilon)), rel=RTOL, abs=0)


@pytest.mark.parametrize("epsilon", [5e-4, 0.3, 5.5])
def test_ball_hockey_sticks_of_the_clamped_geometric_mechanism(epsilon):
    from pufferfish.distp.exact_laws import base_hockey_sticks
    from pufferfish.mechanisms import ClampedGeometric

    domain, p0, p1, eps_a = (0, 1, 2, 3), [0.6, 0.4, 0.0, 0.0], [0.0, 0.0, 0.4, 0.6], 4.0
    mu0, mu1 = _geometric_laws(domain, eps_a, p0, p1)
    assert abs(sum(mu0) - 1) < 1e-30 and _hockey(mu0, mu1, epsilon) > 0 and _hockey(mu1, mu0, epsilon) > 0
    forward, backward = base_hockey_sticks(ClampedGeometric(domain, eps_a), p0, p1, epsilon=epsilon)
    assert forward == pytest.approx(float(_hockey(mu0, mu1, epsilon)), rel=RTOL, abs=0)
    assert backward == pytest.approx(float(_hockey(mu1, mu0, epsilon)), rel=RTOL, abs=0)


@pytest.mark.parametrize("n, theta", [(1, 0.3), (5, 0.8), (40, 2.0)])
def test_chernoff_bound_is_the_moment_generating_function_bound(n, theta):
    """E[S^+] <= M(theta)^n / (e theta), M(theta) = sum_j nu_j e^(theta w_j) (sup_s s e^(-theta s) = 1 / (e theta))."""
    from pufferfish.distp.grid import chernoff_bound

    w, nu = np.array([-1.0, 0.25, 0.5]), np.array([0.6, 0.3, 0.1])
    m = sum(mp.mpf(p) * mp.exp(mp.mpf(theta) * x) for x, p in zip(w, nu))
    expected = m ** n / (mp.e * theta)
    got = chernoff_bound(w, nu, n, theta)
    assert got >= expected
    assert got == pytest.approx(float(expected), rel=RTOL, abs=0)

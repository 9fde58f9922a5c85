"""pufferfish.iteration: PABI accountants for noisy gradient descent on correlated records (paper 002,
Sections 5 and 6.4, Appendix F.5), the exact linear-Gaussian audit, calibration and experiments.

Oracles: scipy.optimize (SLSQP) for the best allocation, a monotone-chain lower hull written
here, dp-accounting (RdpAccountant, compute_epsilon / compute_delta) for the RDP conversion and
the composition, dense O(T^2) matrix products for the FFT paths, a Monte Carlo run of the
noisy iteration for the exact law of w_T, numerical integration for the hockey stick, and
numbers worked by hand from the closed forms of the paper (Thm 23 of Feldman et al. via Lemma
F.1, Prop. F.2).
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.errors import ArgumentTypeError, ConfigError, InvalidArgumentError
from pufferfish.iteration import (ACCOUNTANTS, ORDERS, DenseCovariance, EqualCorrelation, StationaryCovariance,
                                  account_quadratic_model, accountant_cost, audit_sigma, biased_autocovariance,
                                  carried_shift, composition, contraction_bound, decaying_correlation, dp_assumption,
                                  epsilon_of_cost, exact_audit, exact_sigma, minimal_cost, noise_gain,
                                  optimal_allocation, paper_bound, rdp_delta, rdp_epsilon, shifts_from_column,
                                  sigma_for_epsilon_delta, sigma_for_renyi, step_shifts, step_weights)


# ------------------------------------------------------------------------------ oracles written here
def hull_cost(shifts, c):
    """min sum a^2 by a monotone-chain lower hull of (P_t, R_t), rise^2/run summed (independent of the package)."""
    s = [float(v) for v in shifts]
    T = len(s)
    q = [c ** (T - u) for u in range(1, T + 1)]
    P, R = [0.0], [0.0]
    for qu, su in zip(q, s):
        P.append(P[-1] + qu * qu)
        R.append(R[-1] + qu * su)
    hull = [0]
    for i in range(1, T + 1):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # b is not below the chord a -> i: drop it
            if (R[b] - R[a]) * (P[i] - P[a]) >= (R[i] - R[a]) * (P[b] - P[a]):
                hull.pop()
            else:
                break
        hull.append(i)
    return sum((R[j] - R[i]) ** 2 / (P[j] - P[i]) for i, j in zip(hull, hull[1:]))


def slsqp_cost(shifts, c):
    """min sum a^2 s.t. z_t = c z_{t-1} + s_t - a_t >= 0, z_T = 0, by scipy's generic SLSQP solver."""
    from scipy.optimize import minimize

    s = np.asarray(shifts, dtype=float)
    T = s.size
    L = np.array([[c ** (t - u) if u <= t else 0.0 for u in range(T)] for t in range(T)])   # z = L (s - a)
    cons = [{"type": "ineq", "fun": lambda a: L[:-1] @ (s - a), "jac": lambda a: -L[:-1]}] if T > 1 else []
    cons.append({"type": "eq", "fun": lambda a: L[-1:] @ (s - a), "jac": lambda a: -L[-1:]})
    res = minimize(lambda a: a @ a, s.copy(), jac=lambda a: 2 * a, constraints=cons, method="SLSQP",
                   options={"ftol": 1e-13, "maxiter": 1000})
    assert res.success, res.message
    return float(res.fun)


def random_cov(rng, T):
    A = rng.normal(size=(T, T))
    return A @ A.T + 1e-3 * np.eye(T)


# ------------------------------------------------------------------------------ the best allocation
@pytest.mark.parametrize("c", [1.0, 0.9, 0.5, 0.1])
def test_minorant_matches_generic_solver_on_random_shifts(c):
    rng = np.random.default_rng(7)
    for trial in range(12):
        T = int(rng.integers(1, 9))
        s = rng.random(T) * rng.choice([0.0, 1.0, 3.0], size=T)          # non-monotone, with zeros
        ours = optimal_allocation(s, contraction=c)
        theirs = slsqp_cost(s, c)
        assert ours.cost == pytest.approx(theirs, rel=1e-7, abs=1e-12)
        assert ours.cost <= theirs * (1 + 1e-9) + 1e-15                     # the optimum: never above a solver
        z = carried_shift(s, ours.allocation, contraction=c)                # and feasible
        assert (z[:-1] >= -1e-12).all() and abs(z[-1]) <= 1e-12 * max(1.0, s.sum())
        assert (ours.allocation >= 0).all()
        assert ours.cost == pytest.approx(float(ours.allocation @ ours.allocation), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("c", [1.0, 0.97, 0.6])
def test_minorant_matches_monotone_chain(c):
    rng = np.random.default_rng(11)
    for T in (1, 2, 3, 17, 200):
        for shape in ("uniform", "spiky", "increasing", "decreasing"):
            s = rng.random(T)
            if shape == "spiky":
                s = s * (rng.random(T) < 0.2) * 10
            elif shape == "increasing":
                s = np.sort(s)
            elif shape == "decreasing":
                s = np.sort(s)[::-1]
            assert minimal_cost(s, contraction=c) == pytest.approx(hull_cost(s, c), rel=1e-12, abs=1e-300)


def test_minorant_vertices_touch_the_points():
    """By hand: S_t = 0, 0, 3, 3, 3, 4, 5, 10 (t = 0..7). From (0, 0) the smallest slope is 0, to (1, 0);
    from (1, 0) it is 1, reached at t = 4, 5, 6 (collinear; the farthest is 6); then 5 to (7, 10).
    Cost 0 + 5^2 / 5 + 5^2 / 1 = 30, allocation (0, 1, 1, 1, 1, 1, 5)."""
    s = np.array([0.0, 3.0, 0.0, 0.0, 1.0, 1.0, 5.0])
    alloc = optimal_allocation(s)
    assert alloc.cost == pytest.approx(30.0, rel=1e-15)
    assert set(alloc.vertices.tolist()) >= {0, 1, 6, 7}
    np.testing.assert_allclose(alloc.allocation, [0, 1, 1, 1, 1, 1, 5], rtol=1e-15)


def test_contraction_zero_pays_the_last_shift():
    s = [4.0, 2.0, 3.0]
    alloc = optimal_allocation(s, contraction=0.0)
    assert alloc.cost == 9.0 and alloc.allocation.tolist() == [0.0, 0.0, 3.0]
    assert minimal_cost(s, contraction=1e-12) == pytest.approx(9.0, rel=1e-9)   # continuous at c -> 0


def test_contraction_never_above_paper_and_composition():
    rng = np.random.default_rng(3)
    for _ in range(50):
        s = rng.random(int(rng.integers(1, 40))) * rng.choice([0, 1], 1)[0]
        p = minimal_cost(s)
        for c in (0.99, 0.5, 0.0):
            assert minimal_cost(s, contraction=c) <= p * (1 + 1e-12) + 1e-300
        assert p <= float(s @ s) * (1 + 1e-12) + 1e-300


def test_long_run_with_underflowing_weights_keeps_early_shifts():
    # c^(T-u) underflows for the first ~3500 steps at c = 0.9; a shift there must still be paid
    # if nothing later carries it away: here only s_1 > 0 -> exact value s_1^2 c^(2(T-1)) / sum c^(2(T-u)),
    # which is 0 in float64 (c^(2*9999) = 1e-915): the result must be >= 0 and tiny, not NaN
    s = np.zeros(10_000)
    s[0] = 1.0
    assert minimal_cost(s, contraction=0.9) == 0.0
    # a shift just inside the kept window: cost = (s Q_u)^2 / sum_{v >= u} Q_v^2 (one segment), by hand
    s = np.zeros(10_000)
    s[-10] = 2.0
    c = 0.9
    expected = (2.0 * c ** 9) ** 2 / sum(c ** (2 * j) for j in range(10))
    assert minimal_cost(s, contraction=c) == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------------------ special cases, 1e-12
@pytest.mark.parametrize("T, k", [(1, 1), (10, 1), (10, 3), (10, 10), (1000, 999)])
def test_independent_records_amplify_over_the_remaining_steps(T, k):
    s = np.zeros(T)
    s[k - 1] = 0.3
    for c in (1.0,):
        expected = 2.5 * 0.3 ** 2 / (2 * 0.7 ** 2 * (T - k + 1))
        assert paper_bound(s, sigma=0.7, alpha=2.5) == pytest.approx(expected, rel=1e-12)
        assert dp_assumption(s, secret_index=k, sigma=0.7, alpha=2.5) == pytest.approx(expected, rel=1e-12)


def test_feldman_theorem_23_from_the_gradient_bound():
    """Lemma F.1 / Feldman et al. (2018) Thm 23: s_k = 2 eta L gives 2 alpha eta^2 L^2 / (sigma^2 (T - k + 1)).

    Hand: eta = 0.1, L = 0.5, alpha = 2, sigma = 1, T = 10, k = 3: 2*2*0.01*0.25/8 = 0.00125.
    Feldman's own convention (noise eta N(0, sigma_F^2) inside the step, sigma = eta sigma_F):
    2 alpha L^2 / (sigma_F^2 (T - k + 1)) with sigma_F = 10 is the same 0.00125.
    """
    column = np.zeros(10)
    column[2] = 4.0                    # independent records: only Sigma_kk != 0
    s = shifts_from_column(column, secret_index=3, eta=0.1, diameter=100.0, lipschitz=1.0, gradient_bound=0.5)
    assert s.tolist() == [0, 0, 0.1, 0, 0, 0, 0, 0, 0, 0]              # min(K D, 2 L) = 2 L = 1, times eta
    assert paper_bound(s, sigma=1.0, alpha=2.0) == pytest.approx(0.00125, rel=1e-12)
    assert 2 * 2 * 0.5 ** 2 / (10.0 ** 2 * 8) == pytest.approx(0.00125, rel=1e-15)


def test_proposition_f2_non_increasing_shifts():
    """Prop. F.2: non-increasing shifts give alpha S_T^2 / (2 sigma^2 T) (the minorant is the chord).

    Hand: decaying correlations rho = 0.5, secret at record 1, eta = 0.1, D = 1, T = 10:
    s_t = 0.1 * 0.5^(t-1), S_10 = 0.2 (1 - 2^-10) = 0.1998046875, bound = 2 S^2 / (2 * 10)
    = 0.0039921913146972656.
    """
    cov = decaying_correlation(10, 0.5)
    s = step_shifts(cov, secret_index=1, eta=0.1, diameter=1.0)
    assert paper_bound(s, sigma=1.0, alpha=2.0) == pytest.approx(0.0039921913146972656, rel=1e-12)
    rng = np.random.default_rng(5)
    for _ in range(20):
        s = np.sort(rng.random(int(rng.integers(1, 300))))[::-1]
        assert paper_bound(s, sigma=1.3, alpha=3.0) == pytest.approx(3.0 * s.sum() ** 2 / (2 * 1.69 * s.size),
                                                                     rel=1e-12)


def test_equal_shifts_give_composition():
    for T in (1, 7, 1000):
        s = np.full(T, 0.25)
        assert paper_bound(s, sigma=2.0, alpha=4.0) == pytest.approx(4.0 * T * 0.0625 / 8.0, rel=1e-12)
        assert composition(s, sigma=2.0, alpha=4.0) == pytest.approx(4.0 * T * 0.0625 / 8.0, rel=1e-12)


def test_contraction_independent_closed_form():
    """Only s_k > 0, c < 1: one segment from (P_{k-1}, 0) to (P_T, s_k Q_k): (s_k c^(T-k))^2 / sum_{u>=k} c^(2(T-u))."""
    T, k, c, sk = 12, 4, 0.8, 0.5
    s = np.zeros(T)
    s[k - 1] = sk
    expected = (sk * c ** (T - k)) ** 2 / sum(c ** (2 * (T - u)) for u in range(k, T + 1))
    assert contraction_bound(s, contraction=c, sigma=1.0, alpha=2.0) == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------------------ exact audit
def test_exact_closed_forms_on_an_independent_prior():
    """Identity covariance, secret k: Delta = eta D (1 - eta)^(T-k), V = (sigma^2 + eta^2) sum q^2 - eta^2 q_k^2."""
    T, k, eta, sigma, D = 6, 2, 0.3, 0.8, 1.5
    audit = exact_audit(DenseCovariance(np.eye(T)), secret_index=k, eta=eta, sigma=sigma, diameter=D)
    q = [(1 - eta) ** (T - t) for t in range(1, T + 1)]
    gap = eta * D * q[k - 1]
    var = sigma ** 2 * sum(x * x for x in q) + eta ** 2 * (sum(x * x for x in q) - q[k - 1] ** 2)
    assert audit.mean_gap == pytest.approx(gap, rel=1e-14)
    assert audit.variance == pytest.approx(var, rel=1e-14)
    assert audit.renyi(alpha=3.0) == pytest.approx(3.0 * gap ** 2 / (2 * var), rel=1e-14)


def test_exact_law_by_monte_carlo_of_the_noisy_iteration():
    """Run w_t = (1 - eta) w_{t-1} + eta x_t + Z_t from w_0 = 0 with x drawn from the prior conditioned
    on x_k = a and on x_k = b; the means differ by Delta and the variance is V (5 standard errors)."""
    rng = np.random.default_rng(20240507)
    T, k, eta, sigma, a, b = 5, 2, 0.3, 0.7, 1.0, -1.0
    Sigma = random_cov(np.random.default_rng(1), T)
    audit = exact_audit(DenseCovariance(Sigma), secret_index=k, eta=eta, sigma=sigma, diameter=abs(a - b))
    n = 200_000
    outs = []
    for value in (a, b):
        x = rng.multivariate_normal(np.zeros(T), Sigma, size=n)
        x += np.outer(value - x[:, k - 1], Sigma[:, k - 1] / Sigma[k - 1, k - 1])   # exact conditioning
        w = np.zeros(n)
        for t in range(T):
            w = (1 - eta) * w + eta * x[:, t] + sigma * rng.normal(size=n)
        outs.append(w)
    V = audit.variance
    se_mean = math.sqrt(2 * V / n)
    assert abs(abs(outs[0].mean() - outs[1].mean()) - audit.mean_gap) < 5 * se_mean
    se_var = V * math.sqrt(2 / (n - 1))
    for w in outs:
        assert abs(w.var(ddof=1) - V) < 5 * se_var


def test_exact_hockey_stick_by_integration():
    from scipy.integrate import quad
    from scipy.stats import norm

    """delta(eps) = integral over {p > e^eps q} of p - e^eps q, p = N(Delta, V), q = N(0, V): the set is
    y > y* = Delta / 2 + eps V / Delta (log p/q is linear in y), integrated numerically from y*."""
    audit = exact_audit(EqualCorrelation(8, 0.3), secret_index=1, eta=0.2, sigma=0.5, diameter=2.0)
    sd, gap = math.sqrt(audit.variance), audit.mean_gap
    for eps in (0.0, 0.3, 1.0):
        start = gap / 2 + eps * audit.variance / gap
        integrand = lambda y: norm.pdf(y, gap, sd) - math.exp(eps) * norm.pdf(y, 0.0, sd)
        value = quad(integrand, start, start + 40 * sd, epsabs=1e-15, epsrel=1e-13, limit=200)[0]
        assert audit.delta(epsilon=eps) == pytest.approx(value, rel=1e-9, abs=1e-15)
    delta = audit.delta(epsilon=0.4)
    assert audit.epsilon(delta=delta) == pytest.approx(0.4, rel=1e-10)


@settings(deadline=None)
@given(st.integers(1, 8), st.integers(0, 10_000), st.floats(0.01, 1.0), st.floats(0.05, 20.0), st.floats(0.01, 10.0),
       st.floats(1.01, 50.0))
def test_every_valid_bound_is_at_least_the_exact_divergence(T, seed, eta, sigma, D, alpha):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, T + 1))
    cov = DenseCovariance(random_cov(rng, T))
    account = account_quadratic_model(cov, secret_index=k, eta=eta, diameter=D, sigma=sigma)
    values = account.renyi(sigma=sigma, alpha=alpha)
    for name in ("paper_bound", "contraction_bound", "composition"):
        assert values[name] >= values["exact"] * (1 - 1e-10)
    assert values["contraction_bound"] <= values["paper_bound"] * (1 + 1e-12)


def test_dp_assumption_is_below_the_exact_divergence_under_correlation():
    """Secret at the last record, every record correlated 0.5 with it: the exact D_alpha exceeds what a
    DP accountant reports (the secret's own shift only), so dp_assumption is not a bound here."""
    account = account_quadratic_model(EqualCorrelation(50, 0.5), secret_index=50, eta=0.1, diameter=1.0)
    values = account.renyi(sigma=1.0, alpha=2.0)
    assert values["dp_assumption"] == pytest.approx(2 * 0.01 / 2, rel=1e-12)   # alpha s_k^2 / 2, T - k + 1 = 1
    assert values["exact"] > 2 * values["dp_assumption"]


def test_paper_claim_no_better_than_group_privacy_is_an_artifact_of_c_equal_1():
    """Paper 002, Sec. 6.4: under strong equal correlations the PABI bound is 'no better than group
    privacy' (it grows linearly in T). With the contraction of the quadratic loss the exact D_alpha is
    bounded in T, and so is our contraction bound: the paper's statement is about its accountant, not
    about the privacy of the iteration."""
    rows = {T: account_quadratic_model(EqualCorrelation(T, 0.5), secret_index=1, eta=0.1, diameter=1.0)
            .renyi(sigma=1.0, alpha=2.0) for T in (100, 1000)}
    assert rows[1000]["paper_bound"] > 9 * rows[100]["paper_bound"]                     # ~ linear in T
    assert rows[1000]["exact"] == pytest.approx(rows[100]["exact"], rel=1e-3)            # bounded
    assert rows[1000]["contraction_bound"] == pytest.approx(rows[100]["contraction_bound"], rel=1e-3)
    assert rows[1000]["contraction_bound"] < rows[1000]["paper_bound"] / 50


# ------------------------------------------------------------------------------ covariances, FFT
def test_stationary_quadratic_by_fft_matches_the_dense_product():
    rng = np.random.default_rng(2)
    x = rng.normal(size=300).cumsum()
    gamma = biased_autocovariance(x)
    n = x.size
    y = x - x.mean()
    direct = np.array([np.dot(y[: n - h], y[h:]) / n for h in range(n)])
    np.testing.assert_allclose(gamma, direct, rtol=1e-10, atol=1e-12 * direct[0])
    dense = gamma[np.abs(np.subtract.outer(np.arange(n), np.arange(n)))]
    assert np.linalg.eigvalsh(dense).min() > -1e-9 * gamma[0]                           # biased: PSD
    q = rng.normal(size=n)
    assert StationaryCovariance(gamma).quadratic(q) == pytest.approx(q @ dense @ q, rel=1e-10)
    for k in (1, 150, 300):
        np.testing.assert_array_equal(StationaryCovariance(gamma).column(k), dense[:, k - 1])
        cq = StationaryCovariance(gamma).conditional_quadratic(q, k)
        expect = q @ (dense - np.outer(dense[:, k - 1], dense[k - 1]) / dense[k - 1, k - 1]) @ q
        assert cq == pytest.approx(expect, rel=1e-8)


@pytest.mark.parametrize("size", [2, 3, 17, 1000, 45211])
def test_stationary_quadratic_is_scipy_fftconvolve_bit_for_bit(size):
    """The autocorrelation by scipy.fft is the one scipy.signal.fftconvolve computes, to the last bit."""
    from scipy.signal import fftconvolve

    rng = np.random.default_rng(size)
    gamma, q = np.sort(rng.random(size))[::-1], rng.normal(size=size)
    lags = fftconvolve(q, q[::-1], mode="full")[size:]
    assert StationaryCovariance(gamma).quadratic(q) == float(gamma[0] * np.dot(q, q) + 2.0 * np.dot(gamma[1:], lags))


def test_equal_and_decaying_families_match_dense():
    T = 40
    q = step_weights(T, 0.1)
    for rho in (0.0, 0.3, 1.0):
        dense = (1 - rho) * np.eye(T) + rho * np.ones((T, T))
        assert EqualCorrelation(T, rho).quadratic(q) == pytest.approx(q @ dense @ q, rel=1e-13)
    for rho in (0.0, 0.5, 0.99):
        dense = rho ** np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
        assert decaying_correlation(T, rho).quadratic(q) == pytest.approx(q @ dense @ q, rel=1e-11)
    assert noise_gain(T, 0.1) == pytest.approx(float(q @ q), rel=1e-14)
    assert noise_gain(5, 1.0) == 1.0 and step_weights(3, 1.0).tolist() == [0.0, 0.0, 1.0]


# ------------------------------------------------------------------------------ RDP conversion vs dp-accounting
def test_conversion_matches_dp_accounting():
    from dp_accounting.rdp.rdp_privacy_accountant import compute_delta, compute_epsilon

    rng = np.random.default_rng(9)
    orders = np.concatenate([[1.0, 1.005, 1.5], rng.uniform(1.01, 300, size=40)])
    for _ in range(30):
        rdp = rng.exponential(rng.choice([1e-6, 0.01, 1.0, 30.0]), size=orders.size)
        for delta in (1e-12, 1e-5, 0.3):
            e1, o1 = compute_epsilon(orders, rdp, delta)
            e2, o2 = rdp_epsilon(orders, rdp, delta=delta)
            assert e2 == pytest.approx(e1, rel=1e-12, abs=1e-15)
        for eps in (0.0, 0.5, 5.0):
            d1, _ = compute_delta(orders, rdp, eps)
            d2, _ = rdp_delta(orders, rdp, epsilon=eps)
            # dp-accounting takes log(1 - e^-r) as log1p(-exp(-r)), which loses digits ~ 1e-16 / r for
            # small r; ours uses expm1: equal to 1e-8 relative here, ours the more accurate
            assert d2 == pytest.approx(d1, rel=1e-8, abs=1e-300)


def test_composition_against_dp_accounting_rdp_accountant():
    """T Gaussian mechanisms of sensitivities s_t and noise sigma = noise multipliers sigma / s_t."""
    import dp_accounting

    rng = np.random.default_rng(4)
    s = rng.random(25) * 0.3
    sigma = 0.9
    accountant = dp_accounting.rdp.RdpAccountant(ORDERS)
    for st_ in s:
        accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier=sigma / st_))
    cost = accountant_cost("composition", s)
    ours = np.array([composition(s, sigma=sigma, alpha=a) for a in ORDERS])
    np.testing.assert_allclose(ours, accountant.rdp, rtol=1e-12)
    for delta in (1e-5, 1e-9):
        expected = accountant.get_epsilon(delta)
        assert epsilon_of_cost(cost, sigma=sigma, delta=delta) == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------------------ calibration
@pytest.mark.parametrize("cost", [1e-8, 0.37, 250.0])
@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-5), (1.0, 1e-5), (8.0, 1e-10)])
def test_sigma_for_epsilon_delta_is_the_smallest_the_conversion_accepts(cost, epsilon, delta):
    from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

    sigma = sigma_for_epsilon_delta(cost, epsilon=epsilon, delta=delta)
    at = compute_epsilon(ORDERS, ORDERS * cost / (2 * sigma ** 2), delta)[0]
    below = compute_epsilon(ORDERS, ORDERS * cost / (2 * (sigma * (1 - 1e-9)) ** 2), delta)[0]
    assert at <= epsilon * (1 + 1e-12) and below > epsilon


def test_sigma_for_renyi_closed_form():
    # the accountant's claimed sigma: the closed form raised by CLAIM_MARGIN = 2^-40
    assert sigma_for_renyi(0.5, alpha=2.0, epsilon=0.25) == pytest.approx(math.sqrt(2 * 0.5 / 0.5), rel=1e-12)
    assert sigma_for_renyi(0.5, alpha=2.0, epsilon=0.25) > math.sqrt(2 * 0.5 / 0.5)
    assert paper_bound([0.5, 0.5], sigma=sigma_for_renyi(0.5, alpha=2.0, epsilon=0.25), alpha=2.0) == \
        pytest.approx(0.25, rel=1e-14)


def test_exact_sigma_meets_the_target_and_no_less():
    audit = exact_audit(decaying_correlation(200, 0.9), secret_index=100, eta=0.05, sigma=1.0, diameter=10.0)
    for eps in (0.02, 0.1):
        sigma = exact_sigma(audit, epsilon=eps, delta=1e-5)
        assert sigma > 0
        assert audit.at(sigma).delta(epsilon=eps) == pytest.approx(1e-5, rel=1e-8)
        assert audit_sigma(audit, sigma, epsilon=eps, delta=1e-5).meets
        assert not audit_sigma(audit, sigma * 0.999, epsilon=eps, delta=1e-5).meets
    for eps in (1e-3, 1e-2):
        sigma_r = exact_sigma(audit, epsilon=eps, alpha=2.0)
        assert audit.at(sigma_r).renyi(alpha=2.0) == pytest.approx(eps, rel=1e-12)
    # the data's own conditional variance already gives D_2 = 0.0165 < 0.1: no noise needed
    assert audit.at(0.0).renyi(alpha=2.0) < 0.1 and exact_sigma(audit, epsilon=0.1, alpha=2.0) == 0.0


def test_calibrated_valid_accountants_pass_and_dp_assumption_fails_the_exact_audit():
    account = account_quadratic_model(EqualCorrelation(50, 0.5), secret_index=50, eta=0.1, diameter=1.0)
    for name in ACCOUNTANTS:
        sigma = sigma_for_epsilon_delta(account.costs[name], epsilon=0.5, delta=1e-5)
        verdict = audit_sigma(account.audit, sigma, epsilon=0.5, delta=1e-5)
        assert verdict.meets == (name != "dp_assumption"), name


# ------------------------------------------------------------------------------ the whole input range
def test_extreme_inputs():
    s = np.array([0.2])            # a claimed bound is its float value raised by CLAIM_MARGIN = 2^-40 (9.1e-13)
    assert paper_bound(s, sigma=1.0, alpha=2.0) == pytest.approx(0.04, rel=1e-12)                   # T = 1
    assert paper_bound(s, sigma=1e150, alpha=2.0) == pytest.approx(0.04e-300, rel=1e-12)            # huge sigma
    assert paper_bound(s, sigma=1e-100, alpha=2.0) == pytest.approx(0.04e200, rel=1e-12)            # tiny sigma
    with pytest.raises(InvalidArgumentError, match="sigma"):
        paper_bound(s, sigma=1e-200, alpha=2.0)                                                     # overflows
    assert paper_bound(s, sigma=1.0, alpha=1 + 1e-12) == pytest.approx(0.02 * (1 + 1e-12), rel=1e-12)
    assert paper_bound(s, sigma=1.0, alpha=1e6) == pytest.approx(0.02e6, rel=1e-12)
    assert paper_bound([0.0, 0.0], sigma=1.0, alpha=2.0) == 0.0
    assert paper_bound([1e-300, 1e-300], sigma=1.0, alpha=2.0) == 0.0                                # underflow, no NaN
    assert paper_bound([1e150, 1e150], sigma=1e150, alpha=2.0) == pytest.approx(2.0, rel=1e-12)     # rescaled


def test_a_million_steps():
    T = 1_000_000
    cov = decaying_correlation(T, 0.999)
    k = T - 100
    account = account_quadratic_model(cov, secret_index=k, eta=0.01, diameter=1.0)
    values = account.renyi(sigma=1.0, alpha=2.0)
    assert values["composition"] >= values["paper_bound"] >= values["contraction_bound"] >= values["exact"] > 0
    # composition in closed form: alpha / 2 * eta^2 sum_t rho^(2|t-k|), two geometric sums (lags 1..k-1 and 1..100)
    r2 = 0.999 ** 2
    lags = 1 + r2 * (1 - r2 ** (k - 1)) / (1 - r2) + r2 * (1 - r2 ** 100) / (1 - r2)
    assert values["composition"] == pytest.approx(1e-4 * lags, rel=1e-9)


@pytest.mark.parametrize("call, name, error", [
    (lambda: paper_bound([0.1, float("nan")], sigma=1.0, alpha=2.0), "shifts", InvalidArgumentError),
    (lambda: paper_bound([0.1, float("inf")], sigma=1.0, alpha=2.0), "shifts", InvalidArgumentError),
    (lambda: paper_bound([0.1, -0.1], sigma=1.0, alpha=2.0), "shifts", InvalidArgumentError),
    (lambda: paper_bound([], sigma=1.0, alpha=2.0), "shifts", InvalidArgumentError),
    (lambda: paper_bound("abc", sigma=1.0, alpha=2.0), "shifts", ArgumentTypeError),
    (lambda: paper_bound([[0.1]], sigma=1.0, alpha=2.0), "shifts", InvalidArgumentError),
    (lambda: paper_bound([0.1], sigma=0.0, alpha=2.0), "sigma", InvalidArgumentError),
    (lambda: paper_bound([0.1], sigma="1", alpha=2.0), "sigma", ArgumentTypeError),
    (lambda: paper_bound([0.1], sigma=1.0, alpha=1.0), "alpha", InvalidArgumentError),
    (lambda: paper_bound([0.1], sigma=1.0, alpha=True), "alpha", ArgumentTypeError),
    (lambda: contraction_bound([0.1], contraction=1.5, sigma=1.0, alpha=2.0), "contraction", InvalidArgumentError),
    (lambda: dp_assumption([0.1], secret_index=2, sigma=1.0, alpha=2.0), "secret_index", InvalidArgumentError),
    (lambda: dp_assumption([0.1], secret_index=None, sigma=1.0, alpha=2.0), "secret_index", InvalidArgumentError),
    (lambda: accountant_cost("nope", [0.1]), "accountant", InvalidArgumentError),
    (lambda: rdp_epsilon([2.0], [0.1], delta=0.0), "delta", InvalidArgumentError),
    (lambda: rdp_epsilon([0.5], [0.1], delta=1e-5), "orders", InvalidArgumentError),
    (lambda: sigma_for_epsilon_delta(1.0, epsilon=-1.0, delta=1e-5), "epsilon", InvalidArgumentError),
    (lambda: EqualCorrelation(5, 1.5), "rho", InvalidArgumentError),
    (lambda: decaying_correlation(0, 0.5), "size", InvalidArgumentError),
    (lambda: DenseCovariance(np.array([[1.0, 2.0], [2.0, 1.0]])), "matrix", InvalidArgumentError),
    (lambda: DenseCovariance(np.array([[1.0, 0.5], [0.4, 1.0]])), "matrix", InvalidArgumentError),
    (lambda: StationaryCovariance([1.0, 1.5]), "autocovariance", InvalidArgumentError),
    (lambda: biased_autocovariance([3.0, 3.0, 3.0]), "values", InvalidArgumentError),
    (lambda: exact_audit(np.eye(2), secret_index=1, eta=0.1, sigma=1.0, diameter=1.0), "covariance",
     ArgumentTypeError),
    (lambda: exact_audit(EqualCorrelation(3, 0.2), secret_index=4, eta=0.1, sigma=1.0, diameter=1.0),
     "secret_index", InvalidArgumentError),
    (lambda: exact_audit(EqualCorrelation(3, 0.2), secret_index=1, eta=1.5, sigma=1.0, diameter=1.0), "eta",
     InvalidArgumentError),
    (lambda: exact_audit(EqualCorrelation(3, 1.0), secret_index=1, eta=0.5, sigma=0.0, diameter=1.0), "sigma",
     InvalidArgumentError),
    (lambda: shifts_from_column([1.0, 0.5], secret_index=1, eta=0.1, diameter=1.0, gradient_bound=-1),
     "gradient_bound", InvalidArgumentError),
])
def test_bad_input_is_one_line_naming_the_argument(call, name, error):
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert name in message and "\n" not in message


# ------------------------------------------------------------------------------ settings and experiments
FIG6 = {"eta": 0.1, "sigma": 1.0, "diameter": 1.0, "alpha": 2, "secret_index": 1, "steps": [1, 10, 100],
        "equal": [0, 0.5], "decaying": [0.5]}
SERIES = {"dataset": "toy", "column": "v", "order": "file", "etas": [0.05], "sigma": 1.0, "alpha": 2,
          "secret_every": 40, "epsilons": {"start": 0.5, "stop": 1.0, "step": 0.5}, "delta": 1e-5}


def test_settings_from_config_and_refusals():
    from pufferfish.iteration.settings import Fig6Settings, IterationSettings, SeriesSettings

    s = IterationSettings.from_config({"fig6": FIG6, "series": {"toy": SERIES}})
    assert s.fig6.steps == (1, 10, 100) and s.series["toy"].epsilons == (0.5, 1.0)
    assert s.series["toy"].secret_indices(100) == (1, 40, 80, 100)
    with pytest.raises(ConfigError, match="iteration.fig6.colour"):
        Fig6Settings.from_config({**FIG6, "colour": 1})
    with pytest.raises(ConfigError, match="iteration.fig6.eta"):
        Fig6Settings.from_config({k: v for k, v in FIG6.items() if k != "eta"})
    with pytest.raises(ConfigError, match="iteration.fig6.decaying"):
        Fig6Settings.from_config({**FIG6, "decaying": [1.0]})
    with pytest.raises(ConfigError, match="iteration.series.toy.etas"):
        SeriesSettings.from_config("toy", {**SERIES, "etas": []})


def test_fig6_table_audit_and_reproduction_items(tmp_path):
    import pandas as pd
    import yaml

    from pufferfish.audit.verdict import AUDIT_COLUMNS
    from pufferfish.iteration.experiments import FIG6_COLUMNS, fig6_audit, fig6_table
    from pufferfish.iteration.settings import Fig6Settings
    from pufferfish.pipeline.report import audit_summary, reproduction_table

    settings = Fig6Settings.from_config({**FIG6, "steps": [1, 10, 100, 1000], "equal": [0, 0.5, 1],
                                         "decaying": [0.5, 0.9]})
    table = fig6_table(settings)
    assert list(table.columns) == FIG6_COLUMNS and len(table) == 5 * 4
    audit = fig6_audit(settings)
    assert list(audit.columns) == AUDIT_COLUMNS
    summary = audit_summary([audit]).set_index("method")
    # every valid accountant holds everywhere; the DP assumption fails wherever the records are correlated
    for name in ("paper_bound", "contraction_bound", "composition"):
        assert summary.loc[name, "violations"].sum() == 0
    # the baseline's failures are counted apart (baseline_failures), not as the project's violations
    assert summary.loc["dp_assumption", "violations"].sum() == 0
    assert summary.loc["dp_assumption", "baseline_failures"].sum() > 0
    # `claimed`: only the DP-assumption baseline is unclaimed, and every violation is one of its rows
    assert audit.claimed.dtype == bool
    assert (audit.claimed == (audit.method != "dp_assumption")).all()
    assert not audit[audit.claimed].violation.any() and audit[~audit.claimed].violation.any()
    # at rho = 0 the records are independent: the baseline is the exact-case bound and holds there
    independent = audit[~audit.claimed & audit.panel.str.startswith("equal rho=0 ")]
    assert len(independent) == 4 and not independent.violation.any()
    (tmp_path / "results" / "theta").mkdir(parents=True)
    table.to_csv(tmp_path / "results" / "theta" / "iteration_fig6.csv", index=False)
    from pathlib import Path
    from pufferfish.papers import get
    items = yaml.safe_load(get("iteration").path("paper_values", Path(__file__).parents[2]).read_text())
    ours = [item for item in items["items"] if item["ours"]["file"] == "results/theta/iteration_fig6.csv"]
    assert len(ours) == 5  # Thm 23 (two T), Prop. F.2 (two rho), group privacy at rho = 1
    result = reproduction_table(ours, root=tmp_path)
    assert (result.status == "match").all(), result.to_string()


def test_series_experiment_on_a_small_file(tmp_path):
    import pandas as pd

    from pufferfish.iteration.experiments import (CALIBRATION_COLUMNS, SERIES_COLUMNS, calibration_table,
                                                  read_series, series_audit, series_table)
    from pufferfish.iteration.settings import SeriesSettings

    rng = np.random.default_rng(0)
    v = 40 + rng.normal(size=120).cumsum()
    pd.DataFrame({"v": v, "other": rng.random(120)}).to_csv(tmp_path / "toy.csv", index=False)
    settings = SeriesSettings.from_config("toy", SERIES)
    values = read_series(tmp_path / "toy.csv", settings)
    np.testing.assert_array_equal(values, v)
    bounds = series_table(values, settings)
    assert list(bounds.columns) == SERIES_COLUMNS
    assert bounds.secret_index.tolist() == [1, 40, 80, 120] and (bounds.D == v.max() - v.min()).all()
    for name in ("paper_bound", "contraction_bound", "composition"):
        assert (bounds[name] >= bounds.exact * (1 - 1e-10)).all()
    sigmas = calibration_table(values, settings)
    assert list(sigmas.columns) == CALIBRATION_COLUMNS
    assert sigmas[sigmas.accountant != "dp_assumption"].meets_target.all()
    audit = series_audit(values, settings)
    assert set(audit.guarantee) == {"epsilon_delta", "renyi"}
    assert not audit[audit.method != "dp_assumption"].violation.any()
    assert (audit.claimed == (audit.method != "dp_assumption")).all()
    assert set(audit.method) == {"paper_bound", "contraction_bound", "dp_assumption", "composition", "exact"}
    with pytest.raises(Exception, match="no column 'w'"):
        read_series(tmp_path / "toy.csv", SeriesSettings.from_config("toy", {**SERIES, "column": "w"}))


def test_runs_write_tables_and_figures(tmp_path):
    import pandas as pd

    from pufferfish.iteration.experiments import run_fig6, run_series
    from pufferfish.iteration.settings import Fig6Settings, SeriesSettings

    out = {name: tmp_path / name for name in ("t.csv", "a.csv", "f.png", "f.pdf", "f.csv")}
    frame = run_fig6(Fig6Settings.from_config(FIG6), theta_csv=out["t.csv"], audit_csv=out["a.csv"],
                     figure_png=out["f.png"], figure_pdf=out["f.pdf"], figure_csv=out["f.csv"])
    assert pd.read_csv(out["f.csv"]).equals(pd.read_csv(out["t.csv"])) and len(frame) == 9
    assert out["f.png"].stat().st_size > 0 and out["f.pdf"].stat().st_size > 0
    rng = np.random.default_rng(1)
    pd.DataFrame({"v": 40 + rng.normal(size=90).cumsum()}).to_csv(tmp_path / "toy.csv", index=False)
    names = ["b.csv", "s.csv", "ba.csv", "b.png", "b.pdf", "bf.csv", "s.png", "s.pdf", "sf.csv"]
    paths = [tmp_path / n for n in names]
    run_series(SeriesSettings.from_config("toy", SERIES), data_csv=tmp_path / "toy.csv", theta_csv=paths[0],
               sigma_csv=paths[1], audit_csv=paths[2], figure_png=paths[3], figure_pdf=paths[4], figure_csv=paths[5],
               sigma_png=paths[6], sigma_pdf=paths[7], sigma_figure_csv=paths[8])
    assert all(p.stat().st_size > 0 for p in paths)
    figure = pd.read_csv(paths[8])
    everyone = figure[figure.panel == "all_secrets"]
    sigmas = pd.read_csv(paths[1])
    # "protect every secret" = the largest per-secret sigma, for each accountant and epsilon
    largest = sigmas.groupby(["accountant", "epsilon"]).sigma.max()
    drawn = everyone.set_index(["accountant", "epsilon"]).sigma
    assert (drawn == largest.loc[drawn.index]).all()


def test_rejection_summary_counts_the_exact_audit_verdicts(tmp_path):
    """The sigma figure's caption: per accountant (first-seen order), rows with meets_target False."""
    from pufferfish.iteration.captions import rejection_summary
    from pufferfish.iteration.experiments import CALIBRATION_COLUMNS

    rows = [("paper_bound", True), ("dp_assumption", False), ("paper_bound", True), ("dp_assumption", True),
            ("dp_assumption", False), ("exact", True)]
    lines = [",".join(CALIBRATION_COLUMNS)] + [f"{name},0.01,1,0.5,1e-05,2.0,1e-06,{flag}" for name, flag in rows]
    (tmp_path / "s.csv").write_text("\n".join(lines) + "\n")
    assert rejection_summary(tmp_path / "s.csv") == ("paper_bound: 0 of 2 rejected; dp_assumption: 2 of 3 rejected; "
                                                     "exact: 0 of 1 rejected")


def test_documentation_examples_run():
    """docs/math/iteration.md: its >>> examples are doctests and must stay true."""
    import doctest
    from pathlib import Path

    page = Path(__file__).parents[2] / "docs" / "math" / "iteration.md"
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10 and result.failed == 0

"""pufferfish.iteration.geometric and the step sums of the covariances: closed forms of the step
weights q_t = (1 - eta)^(T-t), and the exact audit of every record at once (every_secret).

Oracles: mpmath at 40 digits (powers, lag sums, the discounted recurrence), direct sums
(numpy's correlate of the weights, dense matrix products q^T Sigma q and q^T Sigma), the FFT
route of StationaryCovariance.quadratic, and the per-secret exact audit (exact_audit) for the
every-record route; the pooled minorant against the monotone-chain hull of test_iteration.
"""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.errors import ArgumentTypeError, InvalidArgumentError
from pufferfish.iteration import (DenseCovariance, EqualCorrelation, StationaryCovariance,
                                  accountant_cost, accountant_costs, all_secrets_audit, biased_autocovariance,
                                  contraction_powers, decaying_correlation, discounted_cumsum, exact_audit, geometric_sums,
                                  exact_sigma, lag_sums, minimal_cost, noise_gain, significant_lags, step_weights,
                                  weight_sum)
from pufferfish.iteration.every_secret import hockey_stick

U = 2.0 ** -52
ETAS = st.one_of(st.sampled_from([1.0, 1e-12, 1e-300, 0.5, 1 - 2 ** -40]), st.floats(1e-9, 1.0))


def exact_c(eta):
    """c = 1 - eta in 40 digits (eta as the float it is)."""
    mpmath.mp.dps = 40
    return 1 - mpmath.mpf(eta)


def dense_stationary(gamma):
    return gamma[np.abs(np.subtract.outer(np.arange(gamma.size), np.arange(gamma.size)))]


def random_prior(rng, size):
    """A stationary prior from a random walk's biased sample autocovariance (positive semi-definite)."""
    if size == 1:
        return StationaryCovariance([0.5 + rng.random()])
    walk = rng.normal(size=size + 1).cumsum()[:size] + rng.normal(size=size)
    return StationaryCovariance(biased_autocovariance(walk))


# ------------------------------------------------------------------------------ powers and the sums of q
@settings(deadline=None)
@given(ETAS, st.integers(0, 5000), st.integers(1, 3000))
def test_powers_within_their_stated_accuracy(eta, start, count):
    """c^h to (h |log c| + 3) u against mpmath wherever c^h is a normal float."""
    p = contraction_powers(eta, count, start=start)
    c, lc = exact_c(eta), abs(math.log1p(-eta)) if eta < 1 else math.inf
    for i in sorted({0, 1, count // 2, count - 1, count // 3 + 7}):
        if i >= count:
            continue
        h = start + i
        ref = c ** h
        if ref < 2.3e-308:
            assert p[i] < 2.3e-300
            continue
        bound = ((h * lc if h else 0.0) + 3) * U
        assert abs(mpmath.mpf(p[i]) - ref) <= bound * ref, (h, p[i], ref)


def test_powers_are_more_accurate_than_numpy_power_of_a_rounded_base():
    """np.power(1 - eta, h) carries the rounding of 1 - eta to the power h; the blocked exp does not."""
    eta, h = 1e-9, np.arange(0, 10 ** 6, 99_991)
    ours, theirs = contraction_powers(eta, 10 ** 6)[h], np.power(1 - eta, h.astype(float))
    ref = np.array([float(exact_c(eta) ** int(k)) for k in h])
    assert np.max(np.abs(ours / ref - 1)) < 1e-14 < np.max(np.abs(theirs / ref - 1))


@pytest.mark.parametrize("size, eta", [(1, 0.3), (2, 0.3), (1, 1.0), (2, 1.0), (5, 1.0), (3, 1e-300), (300, 0.01)])
def test_sums_of_the_weights_in_closed_form(size, eta):
    """sum q, sum q^2, A_h by hand at T = 1, 2 and c = 0; against mpmath otherwise."""
    c = exact_c(eta)
    q = [c ** (size - t) for t in range(1, size + 1)]
    assert weight_sum(size, eta) == pytest.approx(float(sum(q)), rel=4 * U)
    assert noise_gain(size, eta) == pytest.approx(float(sum(x * x for x in q)), rel=4 * U)
    a = lag_sums(size, eta)
    ref = [float(sum(q[t] * q[t + h] for t in range(size - h))) for h in range(size)]
    np.testing.assert_allclose(a, ref, rtol=(size * abs(math.log1p(-eta)) if eta < 1 else 0) * U + 16 * U, atol=0)
    if size == 2 and eta < 1:
        assert a.tolist() == pytest.approx([1 + (1 - eta) ** 2, 1 - eta], rel=4 * U)
    if eta == 1.0:
        assert a.tolist() == [1.0] + [0.0] * (size - 1)
        assert step_weights(size, eta).tolist() == [0.0] * (size - 1) + [1.0]


@settings(deadline=None)
@given(st.integers(1, 400), ETAS)
def test_lag_sums_against_the_direct_sum(size, eta):
    """A_h = sum_t q_t q_{t+h} (numpy's correlate of the weights, O(T^2)) on random sizes."""
    q = step_weights(size, eta)
    direct = np.correlate(q, q, mode="full")[size - 1:]
    a = lag_sums(size, eta)
    lc = abs(math.log1p(-eta)) if eta < 1 else 0.0
    h = np.arange(size)
    bound = (2 * (h + size) * lc + 16 + 2 * size) * U        # both sides' powers and the direct sum's rounding
    assert (np.abs(a - direct) <= bound * direct + 1e-290).all()
    assert a[0] == pytest.approx(noise_gain(size, eta), rel=16 * U)
    count = significant_lags(size, eta)
    np.testing.assert_array_equal(lag_sums(size, eta, count=count), a[:count])


def test_lag_sums_stay_accurate_where_the_plain_formula_cancels():
    """eta = 1e-12, T = 10^4: (c^h - c^(2T-h)) / (1 - c^2) in float loses 8 digits; the closed form keeps them."""
    size, eta = 10_000, 1e-12
    a = lag_sums(size, eta)
    c = exact_c(eta)
    for h in (0, 1, 5000, 9998, 9999):
        ref = c ** h * (1 - c ** (2 * (size - h))) / (1 - c ** 2)
        assert abs(mpmath.mpf(a[h]) / ref - 1) < 1e-14
        naive = ((1 - eta) ** h - (1 - eta) ** (2 * size - h)) / (1 - (1 - eta) ** 2)
        assert abs(mpmath.mpf(naive) / ref - 1) > 1e-9


@settings(deadline=None)
@given(st.integers(1, 400), ETAS, st.integers(0, 2 ** 31))
def test_discounted_cumsum_is_the_recurrence(size, eta, seed):
    """F_m = c F_{m-1} + x_m, evaluated in mpmath, to a few u of sum_j c^(m-j) |x_j|."""
    x = np.random.default_rng(seed).normal(size=size)
    f = discounted_cumsum(x, eta)
    c = exact_c(eta)
    acc, mass = mpmath.mpf(0), mpmath.mpf(0)
    for m, v in enumerate(x):
        acc, mass = c * acc + mpmath.mpf(v), c * mass + abs(mpmath.mpf(v))
        assert abs(mpmath.mpf(f[m]) - acc) <= 64 * U * mass + 1e-300, m


# ------------------------------------------------------------------------------ the covariances' step sums
@settings(deadline=None)
@given(st.integers(1, 300), ETAS, st.integers(0, 2 ** 31))
def test_stationary_step_sums_against_fft_and_dense(size, eta, seed):
    """q^T Sigma q by the lag sums = the FFT route = the dense product; q^T Sigma_{.k} likewise, every k."""
    rng = np.random.default_rng(seed)
    cov = random_prior(rng, size)
    dense = dense_stationary(cov.autocovariance)
    q = step_weights(size, eta)
    scale = float(np.abs(q) @ np.abs(dense) @ np.abs(q))
    total = cov.step_variance(eta)
    assert total == pytest.approx(cov.quadratic(q), rel=1e-12, abs=1e-12 * scale)
    assert total == pytest.approx(q @ dense @ q, rel=1e-12, abs=1e-12 * scale)
    every = cov.step_covariances(eta)
    expected = q @ dense
    bound = 1e-12 * (np.abs(q) @ np.abs(dense)) + 1e-300
    assert (np.abs(every - expected) <= bound).all()
    for k in sorted({1, size, (size + 1) // 2}):
        assert abs(cov.step_covariance(eta, k) - expected[k - 1]) <= bound[k - 1]
        assert cov.record_variance(k) == dense[k - 1, k - 1]
    np.testing.assert_array_equal(cov.record_variances(), np.diag(dense))


@pytest.mark.parametrize("eta", [1.0, 0.5, 0.01, 1e-12])
def test_equal_correlation_and_dense_step_sums(eta):
    for rho in (0.0, 0.4, 1.0):
        cov, size = EqualCorrelation(50, rho, variance=2.5), 50
        dense = DenseCovariance(2.5 * ((1 - rho) * np.eye(size) + rho * np.ones((size, size))))
        q = step_weights(size, eta)
        expected = dense.matrix @ q
        assert cov.step_variance(eta) == pytest.approx(q @ dense.matrix @ q, rel=1e-13)
        assert dense.step_variance(eta) == pytest.approx(q @ dense.matrix @ q, rel=1e-15)
        np.testing.assert_allclose(cov.step_covariances(eta), expected, rtol=1e-13)
        np.testing.assert_allclose(dense.step_covariances(eta), expected, rtol=1e-13)
        for k in (1, 17, 50):
            assert cov.step_covariance(eta, k) == pytest.approx(expected[k - 1], rel=1e-13)
            assert cov.record_variance(k) == dense.record_variance(k) == 2.5
        np.testing.assert_array_equal(cov.record_variances(), np.full(size, 2.5))


def test_a_decaying_prior_of_a_million_steps_in_closed_form():
    """T = 10^6, rho = 0.9, eta = 0.01: the sums by hand (geometric series), memory O(T)."""
    size, rho, eta = 10 ** 6, 0.9, 0.01
    cov = decaying_correlation(size, rho)
    c = 1 - eta
    # q^T Sigma q = sum_h rho^|h| A_h with A_h = c^h / (1 - c^2) for T -> inf: 1/(1-c^2) (1 + 2 rho c / (1 - rho c))
    assert cov.step_variance(eta) == pytest.approx((1 + 2 * rho * c / (1 - rho * c)) / (1 - c * c), rel=1e-12)
    # q^T Sigma_{.T} = sum_j c^j rho^j = 1 / (1 - rho c)
    assert cov.step_covariance(eta, size) == pytest.approx(1 / (1 - rho * c), rel=1e-13)


# ------------------------------------------------------------------------------ every record at once
@settings(deadline=None)
@given(st.integers(1, 70), st.sampled_from([1.0, 0.3, 0.05, 1e-6]), st.integers(0, 2 ** 31),
       st.floats(0.1, 10.0), st.floats(0.1, 5.0))
def test_every_record_matches_the_per_secret_audit(size, eta, seed, sigma, diameter):
    cov = random_prior(np.random.default_rng(seed), size)
    every = all_secrets_audit(cov, eta=eta, sigma=sigma, diameter=diameter)
    renyi, delta = every.renyi(alpha=2.0), every.delta(epsilon=0.5)
    dense = all_secrets_audit(DenseCovariance(dense_stationary(cov.autocovariance)), eta=eta, sigma=sigma,
                              diameter=diameter)
    scale = eta * diameter * np.abs(step_weights(size, eta)) @ np.abs(dense_stationary(cov.autocovariance))
    for k in range(1, size + 1):
        one = exact_audit(cov, secret_index=k, eta=eta, sigma=sigma, diameter=diameter)
        assert every.mean_gap[k - 1] == pytest.approx(one.mean_gap, rel=1e-11, abs=1e-12 * scale[k - 1])
        assert dense.mean_gap[k - 1] == pytest.approx(one.mean_gap, rel=1e-11, abs=1e-12 * scale[k - 1])
        assert every.data_variance[k - 1] == pytest.approx(one.data_variance, rel=1e-9, abs=1e-12 * one.variance)
        assert renyi[k - 1] == pytest.approx(one.renyi(alpha=2.0), rel=1e-9, abs=1e-24)
        assert delta[k - 1] == pytest.approx(one.delta(epsilon=0.5), rel=1e-8, abs=1e-15)
    assert renyi[every.most_exposed() - 1] == renyi.max()


def test_every_record_exact_sigma_meets_the_target_and_matches_the_per_secret_one():
    rng = np.random.default_rng(7)
    cov = random_prior(rng, 80)
    every = all_secrets_audit(cov, eta=0.05, sigma=1.0, diameter=3.0)
    for target in ({"delta": 1e-5}, {"alpha": 2.0}):
        sigmas = every.smallest_sigma(epsilon=0.5, **target)
        for k in (1, 40, 80):
            one = exact_audit(cov, secret_index=k, eta=0.05, sigma=1.0, diameter=3.0)
            assert sigmas[k - 1] == pytest.approx(exact_sigma(one, epsilon=0.5, **target), rel=1e-9)
        if "delta" in target:
            assert (every.at(1.0).delta(epsilon=0.5) >= 0).all()
            met = [every.audit(k).at(s).delta(epsilon=0.5) <= 1e-5 for k, s in enumerate(sigmas, 1) if s > 0]
            assert all(met)


def test_hockey_stick_is_balle_wang_elementwise():
    from pufferfish.mechanisms.gaussian import balle_wang_delta

    gaps, stds = np.array([0.0, 1e-300, 0.3, 2.0, 40.0]), np.array([1.0, 1.0, 0.7, 1.5, 0.5])
    ours = hockey_stick(gaps, stds, epsilon=0.8)   # certified: above the exact value by at most 1e-9 relative
    for g, s, d in zip(gaps, stds, ours):
        assert d == pytest.approx(max(0.0, balle_wang_delta(g, s, epsilon=0.8)), rel=1e-9, abs=1e-300)


def test_equal_correlation_every_record_by_hand():
    """rho = 1 (identical records): every record gives the same Delta = eta D sum q and no data variance."""
    every = all_secrets_audit(EqualCorrelation(30, 1.0), eta=0.1, sigma=2.0, diameter=1.0)
    gap = 0.1 * (1 - 0.9 ** 30) / 0.1
    assert (every.mean_gap >= gap * (1 - 1e-16)).all()       # certified: rounded up, by kappa(30) = 94 u at most
    np.testing.assert_allclose(every.mean_gap, gap, rtol=1e-13)
    np.testing.assert_allclose(every.data_variance, 0.0, atol=1e-15)
    gain = (1 - 0.81 ** 30) / (1 - 0.81)
    np.testing.assert_allclose(every.renyi(alpha=3.0), 3.0 * gap ** 2 / (2 * 4.0 * gain), rtol=1e-13)


# ------------------------------------------------------------------------------ rho -> 1: the conditional variance
def conditional_reference(entry, size, eta):
    """(q^T Sigma q, [Var(q^T x | x_k) for every k]) at 40 digits, Sigma_tu = entry(t, u) (mpmath), O(T^2)."""
    mpmath.mp.dps = 40
    c = 1 - mpmath.mpf(eta)
    q = [c ** (size - t) for t in range(1, size + 1)]
    q_sigma = [mpmath.fsum(q[t] * entry(t, u) for t in range(size)) for u in range(size)]
    total = mpmath.fsum(q_sigma[u] * q[u] for u in range(size))
    return total, [total - q_sigma[k] ** 2 / entry(k, k) for k in range(size)]


def family_entry(family, rho, size):
    """Sigma_tu of the family, exactly: rho itself (equal) or rho^|t-u| (decaying) in mpmath."""
    mpmath.mp.dps = 40
    r = mpmath.mpf(rho)
    if family == "equal":
        return lambda t, u: mpmath.mpf(1) if t == u else r
    powers = [r ** h for h in range(size)]
    return lambda t, u: powers[abs(t - u)]


@pytest.mark.parametrize("family", ["equal", "decaying"])
@pytest.mark.parametrize("rho, eta", [(1 - 1e-10, 0.1), (1 - 1e-10, 0.999), (1 - 1e-10, 1e-9), (1 - 1e-6, 1.0),
                                      (0.99, 0.1), (0.3, 0.999), (0.0, 0.1)])
def test_conditional_variance_keeps_its_digits_as_rho_tends_to_1(family, rho, eta):
    """T = 20, sigma = 1e-4 (the data's own variance then weighs in V): the data variance of every record
    to a relative 1e-14 against 40 digits, and D_2 of the audit to 1e-14; the difference
    q^T Sigma q - (q^T Sigma_k)^2 / Sigma_kk lost up to 6 digits of the first at rho = 1 - 1e-10."""
    size, sigma = 20, 1e-4
    cov = EqualCorrelation(size, rho) if family == "equal" else decaying_correlation(size, rho)
    _, reference = conditional_reference(family_entry(family, rho, size), size, eta)
    every = all_secrets_audit(cov, eta=eta, sigma=sigma, diameter=1.0)
    for k in range(1, size + 1):
        ref = eta * eta * reference[k - 1]
        one = exact_audit(cov, secret_index=k, eta=eta, sigma=sigma, diameter=1.0)
        for got in (one.data_variance, every.data_variance[k - 1]):   # certified: rounded down, by kappa(T) at most
            assert ref * (1 - 1e-13) - 1e-300 <= got <= ref, (k, got, ref)
        gap = one.mean_gap
        exact = mpmath.mpf(2) * mpmath.mpf(gap) ** 2 / (2 * (mpmath.mpf(sigma) ** 2 * mpmath.mpf(one.gain) + ref))
        assert exact <= one.renyi(alpha=2.0) <= exact * (1 + 1e-13)


def test_decaying_conditional_variance_past_the_significant_weights():
    """T = 120, eta = 0.9999: only the last 75 weights are significant (c^h < e^-690 before): the records
    before them get their future's sum in closed form, rho^m B_first; every record to 1e-14."""
    for rho in (0.999, 0.5, 1 - 1e-9):
        size, eta = 120, 0.9999
        cov = decaying_correlation(size, rho)
        first = size - significant_lags(size, eta) + 1
        assert first == 46
        _, reference = conditional_reference(family_entry("decaying", rho, size), size, eta)
        every = cov.every_conditional_moments(eta)[1]
        for k in (1, 20, first - 2, first - 1, first, first + 1, 100, size - 1, size):
            ref = reference[k - 1]
            assert abs(every[k - 1] - ref) <= 1e-14 * ref
            assert abs(cov.conditional_moments(eta, k)[1] - ref) <= 1e-14 * ref


@pytest.mark.parametrize("rho, eta", [(1 - 1e-10, 0.1), (1 - 1e-6, 0.999), (0.9, 1e-8)])
def test_generic_conditional_variance_within_its_stated_accuracy(rho, eta):
    """A dense and a stationary prior without structure (the difference of conditional_variance): the absolute
    error stays within the stated 16 u q^T Sigma q (docs/math/iteration.md), so relative to V within
    16 u eta^2 q^T Sigma q / V."""
    from pufferfish.iteration.covariance import Covariance

    size = 40
    matrix = decaying_correlation(size, rho).autocovariance[np.abs(np.subtract.outer(np.arange(size), np.arange(size)))]
    total, reference = conditional_reference(lambda t, u: mpmath.mpf(matrix[t, u]), size, eta)
    for cov in (DenseCovariance(matrix), StationaryCovariance(matrix[0])):
        every = Covariance.every_conditional_moments(cov, eta)[1]
        for k in range(1, size + 1):
            for got in (cov.conditional_moments(eta, k)[1], every[k - 1]):
                assert abs(got - reference[k - 1]) <= 16 * U * total


@pytest.mark.parametrize("eta", [1e-12, 1e-100, 1e-280, 1e-289, 3e-291])
@pytest.mark.parametrize("size", [1, 7, 10 ** 6, 10 ** 15])
def test_noise_gain_for_tiny_eta(eta, size):
    """The expm1 route of noise_gain (and weight_sum, geometric_sums) against mpmath at 50 digits:
    sum_t c^(2(T-t)) = (1 - c^(2T)) / (1 - c^2) with 1 - c^2 = eta (2 - eta) exactly; below eta ~ 1e-290
    c^2 is 1 to double precision and the sum is T."""
    mpmath.mp.dps = 50
    e = mpmath.mpf(eta)
    gain = -mpmath.expm1(2 * size * mpmath.log1p(-e)) / (e * (2 - e))
    linear = -mpmath.expm1(size * mpmath.log1p(-e)) / e
    assert abs(noise_gain(size, eta) - gain) <= 4 * U * gain
    assert abs(weight_sum(size, eta) - linear) <= 4 * U * linear
    sums = geometric_sums([0, size], eta, power=2)
    assert sums[0] == 0.0 and abs(sums[1] - gain) <= 4 * U * gain


@pytest.mark.parametrize("call, name, error", [
    (lambda: contraction_powers(0.0, 3), "eta", InvalidArgumentError),
    (lambda: contraction_powers(0.5, -1), "count", InvalidArgumentError),
    (lambda: lag_sums(0, 0.5), "size", InvalidArgumentError),
    (lambda: lag_sums(5, 0.5, count=6), "count", InvalidArgumentError),
    (lambda: discounted_cumsum([1.0, float("nan")], 0.5), "values", InvalidArgumentError),
    (lambda: discounted_cumsum([[1.0]], 0.5), "values", InvalidArgumentError),
    (lambda: all_secrets_audit(np.eye(3), eta=0.1, sigma=1.0, diameter=1.0), "covariance", ArgumentTypeError),
    (lambda: all_secrets_audit(EqualCorrelation(3, 1.0), eta=0.1, sigma=0.0, diameter=1.0), "sigma",
     InvalidArgumentError),
    (lambda: all_secrets_audit(EqualCorrelation(3, 0.5), eta=0.1, sigma=1.0, diameter=-1.0), "diameter",
     InvalidArgumentError),
    (lambda: all_secrets_audit(EqualCorrelation(3, 0.5), eta=0.1, sigma=1.0, diameter=1.0).renyi(alpha=1.0),
     "alpha", InvalidArgumentError),
    (lambda: all_secrets_audit(EqualCorrelation(3, 0.5), eta=0.1, sigma=1.0, diameter=1.0).audit(4),
     "secret_index", InvalidArgumentError),
    (lambda: hockey_stick([1.0], [0.0], epsilon=1.0), "std", InvalidArgumentError),
    (lambda: accountant_costs([0.1, 0.2], contraction=0.9, secret_index=3), "secret_index", InvalidArgumentError),
])
def test_bad_input_is_one_line_naming_the_argument(call, name, error):
    with pytest.raises(error) as info:
        call()
    assert name in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------------------------ accountants at T = 10^7 sizes
def test_accountant_costs_are_the_single_costs_bit_for_bit():
    s = np.abs(np.random.default_rng(3).normal(size=3000))
    costs = accountant_costs(s, contraction=0.95, secret_index=17)
    assert list(costs) == ["paper_bound", "contraction_bound", "dp_assumption", "composition"]
    for name, value in costs.items():
        assert value == accountant_cost(name, s, contraction=0.95, secret_index=17)


@pytest.mark.parametrize("c", [1.0, 0.999, 0.9])
def test_pooled_zero_runs_leave_the_minorant_unchanged(c, monkeypatch):
    """Sparse shifts (runs of zeros pooled) against the monotone-chain hull, and against no pooling."""
    from pufferfish.iteration import minorant

    from tests.unit.test_iteration import hull_cost

    rng = np.random.default_rng(int(c * 1000))
    s = np.zeros(6000)
    s[rng.choice(6000, 300, replace=False)] = rng.random(300)
    s[:5] = 0.0
    pooled = minimal_cost(s, contraction=c)
    assert pooled == pytest.approx(hull_cost(s, c), rel=1e-10)
    monkeypatch.setattr(minorant, "COMPRESS_MIN", 10 ** 9)
    assert minimal_cost(s, contraction=c) == pytest.approx(pooled, rel=4e-16)   # the same sums, in another order

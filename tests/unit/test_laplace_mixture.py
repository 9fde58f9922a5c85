"""Exact audit of Laplace noise on Gaussian-mixture priors (pufferfish.audit.laplace_mixture).

Oracles: numerical convolution and ``scipy.integrate.quad`` (with break points at sign
changes found independently on a dense grid and refined by brentq), closed forms for
Laplace shifts (hockey stick 1 - e^{(eps - Delta/b)/2}, privacy loss Delta/b) and for the
tail limits of the log ratio (Gaussian moment generating functions).
"""

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.stats import norm

from pufferfish.errors import ConfigError
from pufferfish.gaussian.methods import theorem1
from pufferfish.audit.laplace_mixture import (_emg_cdf as emg_cdf, _emg_sf as emg_sf, _log_ratio as log_ratio, b_min,
                                             delta_achieved, emg_pdf, epsilon_achieved, hockey_stick,
                                             prior_epsilon_achieved, prior_hockey_stick, tail_log_ratios)
from pufferfish.gaussian.methods import gaussian_noise_max_log_ratio
from pufferfish.gaussian.gmm import corollary2, theorem2
from pufferfish.mixture import GMM


def random_gmm(rng, k):
    return GMM(rng.dirichlet(np.ones(k)), rng.normal(0, 3, k), rng.uniform(0.05, 3, k))


def laplace_pdf(y, mu, b):
    return np.exp(-np.abs(np.asarray(y) - mu) / b) / (2 * b)


# ----------------------------------------------------------------------------- oracles
def conv_pdf(y, g: GMM, b):
    """Density of X + Laplace(b) by numerical convolution (quad)."""
    total = 0.0
    for w, m, s in zip(g.weights, g.means, g.stds):
        if s == 0:
            total += w * float(laplace_pdf(y, m, b))
            continue
        f = lambda x: norm.pdf(x, m, s) * math.exp(-abs(y - x) / b) / (2 * b)  # noqa: E731
        lo, hi = m - 12 * s, m + 12 * s
        pts = [y] if lo < y < hi else None
        total += w * quad(f, lo, hi, points=pts, epsabs=1e-15, epsrel=1e-13, limit=200)[0]
    return total


def quad_hockey(p, q, eps, lo=-150.0, hi=150.0, n=400_001):
    """integral of [p - e^eps q]_+ by quad, split at sign changes found on a dense grid."""
    x = np.linspace(lo, hi, n)
    d = p(x) - math.exp(eps) * q(x)
    idx = np.flatnonzero(np.sign(d[:-1]) * np.sign(d[1:]) < 0)
    roots = [brentq(lambda t: float(p(np.array([t]))[0] - math.exp(eps) * q(np.array([t]))[0]), x[k], x[k + 1],
                    xtol=1e-14) for k in idx]
    edges = [lo, *roots, hi]
    total = 0.0
    for a, c in zip(edges[:-1], edges[1:]):
        mid = 0.5 * (a + c)
        if p(np.array([mid]))[0] - math.exp(eps) * q(np.array([mid]))[0] <= 0:
            continue
        sub = np.linspace(a, c, 9)
        for u, v in zip(sub[:-1], sub[1:]):
            total += quad(lambda t: float(p(np.array([t]))[0] - math.exp(eps) * q(np.array([t]))[0]), u, v,
                          epsabs=1e-15, epsrel=1e-13, limit=200)[0]
    return total


# ----------------------------------------------------------------------------- densities
@pytest.mark.parametrize("seed", range(3))
def test_emg_pdf_matches_numerical_convolution(seed):
    rng = np.random.default_rng(seed)
    g, b = random_gmm(rng, 3), float(rng.uniform(0.3, 3))
    for y in (-6.0, -1.0, 0.3, 2.0, 9.0):
        assert emg_pdf(y, g, b)[0] == pytest.approx(conv_pdf(y, g, b), rel=1e-9, abs=1e-15)


def test_emg_cdf_and_sf_match_quad():
    g, b = GMM([0.3, 0.7], [-1.0, 2.0], [0.5, 1.5]), 1.2
    for y in (-8.0, -1.0, 0.5, 3.0, 10.0):
        left = quad(lambda t: emg_pdf(t, g, b)[0], -80, y, epsabs=1e-15, epsrel=1e-13, limit=200,
                    points=[-1.0, 2.0] if y > 2 else None)[0]
        assert emg_cdf(y, g, b)[0] == pytest.approx(left, abs=1e-12)
        assert emg_cdf(y, g, b)[0] + emg_sf(y, g, b)[0] == pytest.approx(1.0, abs=1e-15)
    # far right tail: the survival function keeps its relative accuracy
    tail = quad(lambda t: emg_pdf(t, g, b)[0], 40, 200, epsabs=0, epsrel=1e-12)[0]
    assert emg_sf(40.0, g, b)[0] == pytest.approx(tail, rel=1e-9)


def test_point_mass_is_laplace():
    g, b = GMM.gaussian(2.0, 0.0), 1.5
    y = np.array([-3.0, 1.0, 2.0, 2.5, 9.0])
    np.testing.assert_allclose(emg_pdf(y, g, b), laplace_pdf(y, 2.0, b), rtol=1e-14)
    cdf = np.where(y < 2.0, 0.5 * np.exp((y - 2.0) / b), 1 - 0.5 * np.exp(-(y - 2.0) / b))
    np.testing.assert_allclose(emg_cdf(y, g, b), cdf, rtol=1e-14)


# ----------------------------------------------------------------------------- delta_achieved
@pytest.mark.parametrize("seed", range(10))
def test_delta_achieved_matches_quad(seed):
    rng = np.random.default_rng(1000 + seed)
    gi, gj = random_gmm(rng, int(rng.integers(1, 4))), random_gmm(rng, int(rng.integers(1, 4)))
    b, eps = float(rng.uniform(0.2, 3.0)), float(rng.uniform(0.05, 1.5))
    hs = hockey_stick(gi, gj, epsilon=eps, b=b)
    p = lambda y: emg_pdf(y, gi, b)  # noqa: E731
    q = lambda y: emg_pdf(y, gj, b)  # noqa: E731
    assert hs.forward == pytest.approx(quad_hockey(p, q, eps), abs=1e-8)
    assert hs.backward == pytest.approx(quad_hockey(q, p, eps), abs=1e-8)
    assert hs.delta == max(hs.forward, hs.backward)
    assert hs.error_bound < 1e-12


def test_positive_set_end_points_are_brentq_roots():
    gi, gj = GMM([0.3, 0.7], [-2.0, 1.0], [0.4, 1.2]), GMM([0.5, 0.5], [0.0, 2.5], [1.0, 0.3])
    b, eps = 0.6, 0.4
    hs = hockey_stick(gi, gj, epsilon=eps, b=b)
    r = lambda y: float(log_ratio([y], gi, gj, b=b)[0])  # noqa: E731
    x = np.linspace(-60, 60, 240_001)
    rx = log_ratio(x, gi, gj, b=b)
    for level, runs in ((eps, hs.forward_set), (-eps, hs.backward_set)):
        idx = np.flatnonzero(np.sign(rx[:-1] - level) * np.sign(rx[1:] - level) < 0)
        roots = [brentq(lambda t: r(t) - level, x[k], x[k + 1], xtol=1e-14) for k in idx]
        ends = sorted(v for run in runs for v in run if math.isfinite(v))
        assert len(ends) == len(roots) > 0
        np.testing.assert_allclose(ends, roots, atol=1e-10)


@pytest.mark.parametrize("delta_mu,b,eps", [(3.0, 2.0, 0.5), (10.0, 5.0, 1.0), (1.0, 4.0, 0.1)])
def test_laplace_shift_closed_form(delta_mu, b, eps):
    # point masses at 0 and Delta: log ratio = Delta/b for y <= 0, (Delta - 2y)/b between, -Delta/b beyond;
    # H_eps = 1 - exp((eps - Delta/b) / 2) when eps < Delta/b, 0 otherwise; pure loss = Delta/b
    gi, gj = GMM.gaussian(0.0, 0.0), GMM.gaussian(delta_mu, 0.0)
    expected = max(0.0, 1 - math.exp((eps - delta_mu / b) / 2))
    hs = hockey_stick(gi, gj, epsilon=eps, b=b)
    assert hs.forward == pytest.approx(expected, abs=1e-14)
    assert hs.backward == pytest.approx(expected, abs=1e-14)
    assert epsilon_achieved(gi, gj, b=b) == pytest.approx(delta_mu / b, rel=1e-12)


def test_remark1_translation_priors_are_pure_epsilon():
    # equal variances (Remark 1, eq. 6): b = |mu_i - mu_j| / eps gives epsilon-pufferfish privacy
    gi, gj = GMM.gaussian(0.0, 1.5), GMM.gaussian(2.0, 1.5)
    b = theorem1(0.0, 1.5, 2.0, 1.5, epsilon=0.8, delta=0.3)
    assert epsilon_achieved(gi, gj, b=b) <= 0.8 * (1 + 1e-12)
    assert delta_achieved(gi, gj, epsilon=0.8, b=b) == 0.0


def test_delta_achieved_non_increasing_in_b():
    gi, gj = GMM([0.4, 0.6], [0.0, 3.0], [0.5, 1.0]), GMM([0.7, 0.3], [1.0, 4.0], [1.5, 0.2])
    values = [delta_achieved(gi, gj, epsilon=0.3, b=b) for b in np.geomspace(0.05, 20, 40)]
    assert np.all(np.diff(values) <= 1e-13)
    assert values[-1] < values[0] <= prior_hockey_stick(gi, gj, epsilon=0.3).delta + 1e-13


def test_prior_hockey_stick_matches_quad():
    gi, gj = GMM([0.4, 0.6], [0.0, 3.0], [0.5, 1.0]), GMM([0.7, 0.3], [1.0, 4.0], [1.5, 0.2])
    hs = prior_hockey_stick(gi, gj, epsilon=0.3)
    p = lambda x: 0.4 * norm.pdf(x, 0, 0.5) + 0.6 * norm.pdf(x, 3, 1.0)  # noqa: E731
    q = lambda x: 0.7 * norm.pdf(x, 1, 1.5) + 0.3 * norm.pdf(x, 4, 0.2)  # noqa: E731
    assert hs.forward == pytest.approx(quad_hockey(p, q, 0.3, lo=-30, hi=30), abs=1e-8)
    assert hs.backward == pytest.approx(quad_hockey(q, p, 0.3, lo=-30, hi=30), abs=1e-8)
    # it bounds delta_achieved for every b (data processing) and is its b -> 0 limit
    assert delta_achieved(gi, gj, epsilon=0.3, b=1e-4) <= hs.delta + 1e-12
    assert delta_achieved(gi, gj, epsilon=0.3, b=1e-4) == pytest.approx(hs.delta, abs=1e-3)


# ----------------------------------------------------------------------------- epsilon_achieved
def test_tail_limits_are_mgf_ratios():
    # single Gaussians: log M(t) = mu t + sigma^2 t^2 / 2
    mi, si, mj, sj, b = 0.0, 1.0, 1.0, 2.0, 4.0
    lo, hi = tail_log_ratios((mi, si), (mj, sj), b=b)
    assert hi == pytest.approx((mi - mj) / b + (si ** 2 - sj ** 2) / (2 * b * b), rel=1e-14)   # -0.34375
    assert lo == pytest.approx(-(mi - mj) / b + (si ** 2 - sj ** 2) / (2 * b * b), rel=1e-14)  # 0.15625
    assert log_ratio([60.0], (mi, si), (mj, sj), b=b)[0] == pytest.approx(hi, abs=1e-12)
    assert log_ratio([-60.0], (mi, si), (mj, sj), b=b)[0] == pytest.approx(lo, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_epsilon_achieved_against_dense_grid(seed):
    rng = np.random.default_rng(2000 + seed)
    gi, gj = random_gmm(rng, int(rng.integers(1, 4))), random_gmm(rng, int(rng.integers(1, 4)))
    b = float(rng.uniform(0.3, 3.0))
    y = np.linspace(-100, 100, 400_001)
    grid = float(np.max(np.abs(log_ratio(y, gi, gj, b=b))))
    value = epsilon_achieved(gi, gj, b=b)
    assert value >= grid - 1e-12                 # never below the dense grid
    assert value <= grid + 1e-6                  # and the grid (step 5e-4) is close to the sup
    window = epsilon_achieved(gi, gj, b=b, window=(-5.0, 5.0))
    inner = float(np.max(np.abs(log_ratio(np.linspace(-5, 5, 100_001), gi, gj, b=b))))
    assert inner - 1e-12 <= window <= inner + 1e-7


def test_fig1_values():
    # G(0, 1) vs G(1, 2^2) with Laplace(4): the sup is the right-tail limit 11/32
    value = epsilon_achieved((0.0, 1.0), (1.0, 2.0), b=4.0)
    assert value == pytest.approx(0.34375, abs=1e-12)
    # Gaussian noise of variance 32: a quadratic log ratio, max at the window's end
    ratio = lambda y: norm.logpdf(y, 0, math.sqrt(33)) - norm.logpdf(y, 1, math.sqrt(36))  # noqa: E731
    expected = float(np.max(np.abs(ratio(np.linspace(-20, 20, 400_001)))))
    got = gaussian_noise_max_log_ratio(0.0, 1.0, 1.0, 2.0, noise_sd=math.sqrt(32), window=(-20, 20))
    assert got == pytest.approx(expected, abs=1e-9)
    assert math.isinf(gaussian_noise_max_log_ratio(0.0, 1.0, 1.0, 2.0, noise_sd=math.sqrt(32)))


def test_prior_epsilon_achieved():
    g = GMM([0.5, 0.5], [0.0, 3.0], [1.0, 2.0])
    assert prior_epsilon_achieved(g, g) == 0.0
    assert math.isinf(prior_epsilon_achieved((0.0, 1.0), (0.0, 2.0)))   # variances differ
    assert math.isinf(prior_epsilon_achieved((0.0, 1.0), (1.0, 1.0)))   # linear log ratio
    assert math.isinf(prior_epsilon_achieved((0.0, 0.0), (0.0, 1.0)))   # atom vs density


# ----------------------------------------------------------------------------- b_min
@pytest.mark.parametrize("eps,delta", [(0.5, 0.1), (1.0, 0.3), (0.2, 0.05)])
def test_b_min_laplace_shift_closed_form(eps, delta):
    # delta = 1 - exp((eps - Delta/b)/2)  <=>  b = Delta / (eps - 2 log(1 - delta))
    gi, gj = GMM.gaussian(0.0, 0.0), GMM.gaussian(3.0, 0.0)
    result = b_min(gi, gj, epsilon=eps, delta=delta, rtol=1e-12)
    assert result.b == pytest.approx(3.0 / (eps - 2 * math.log(1 - delta)), rel=1e-10)
    pure = b_min(gi, gj, epsilon=eps, delta=0.0, rtol=1e-12)
    assert pure.b == pytest.approx(3.0 / eps, rel=1e-10)


def test_b_min_brackets_the_target():
    gi, gj = GMM([0.4, 0.6], [0.0, 3.0], [0.5, 1.0]), GMM([0.7, 0.3], [1.0, 4.0], [1.5, 0.2])
    previous = math.inf
    for delta in (0.02, 0.05, 0.1, 0.2):
        result = b_min(gi, gj, epsilon=0.3, delta=delta, rtol=1e-10)
        assert 0 < result.b < previous             # monotone in delta
        previous = result.b
        assert delta_achieved(gi, gj, epsilon=0.3, b=result.b) <= delta
        assert delta_achieved(gi, gj, epsilon=0.3, b=result.b * (1 - 1e-6)) > delta
        assert result.b / result.b_rejected - 1 <= 1e-10 * 1.01
    pure = b_min(gi, gj, epsilon=0.5, delta=0.0, rtol=1e-10)
    assert epsilon_achieved(gi, gj, b=pure.b) <= 0.5
    assert epsilon_achieved(gi, gj, b=pure.b * (1 - 1e-6)) > 0.5


def test_b_min_zero_when_the_priors_suffice():
    result = b_min((1.0, 1.0), (2.0, math.sqrt(2.0)), epsilon=1.0, delta=0.3)
    assert result.b == 0.0 and "no noise" in result.reason
    assert result.achieved == pytest.approx(prior_hockey_stick((1.0, 1.0), (2.0, math.sqrt(2.0)), epsilon=1.0).delta)
    assert result.achieved <= 0.3
    same = b_min((0.0, 1.0), (0.0, 1.0), epsilon=0.5, delta=0.1)
    assert same.b == 0.0


def test_b_min_never_hangs():
    result = b_min((0.0, 0.0), (3.0, 0.0), epsilon=0.5, delta=0.1, max_steps=3)
    assert math.isinf(result.b) and result.reason


# ----------------------------------------------------------------------------- the paper's sufficient conditions
def test_theorem1_is_sufficient_on_examples():
    for (mi, si, mj, sj) in [(0.0, 1.0, 1.0, 2.0), (0.0, 0.0, 1.0, 1.0), (99.0, 9.95, 100.0, 10.0)]:
        for eps, delta in [(1.0, 0.3), (0.5, 0.1)]:
            b = theorem1(mi, si, mj, sj, epsilon=eps, delta=delta)
            assert delta_achieved((mi, si), (mj, sj), epsilon=eps, b=b) <= delta


def test_theorem2_and_corollary2_counterexample():
    # A finding, not a bug of ours: eq. (13) averages the per-component shifts with w*, while
    # the proof (Appendix C, steps (25)-(28)) needs them per component. Two point-mass mixtures
    # 0.5 d_0 + 0.5 d_100 vs 0.5 d_0 + 0.5 d_110 (shared weights and stds: Corollary 2 applies).
    gi, gj = GMM([0.5, 0.5], [0.0, 100.0], [0.0, 0.0]), GMM([0.5, 0.5], [0.0, 110.0], [0.0, 0.0])
    b = theorem2(gi, gj, epsilon=1.0, delta=0.01)
    assert b == pytest.approx(5.0) and corollary2(gi, gj, epsilon=1.0) == pytest.approx(5.0)
    # the 100 vs 110 halves are a Laplace shift of 10 with b = 5 (overlap with the atoms at 0 is
    # e^-20): delta = 0.5 (1 - e^{(1 - 2)/2}), far above 0.01, and the pure loss is 10/5 = 2 > 1
    assert delta_achieved(gi, gj, epsilon=1.0, b=b) == pytest.approx(0.5 * (1 - math.exp(-0.5)), abs=1e-7)
    assert epsilon_achieved(gi, gj, b=b) == pytest.approx(2.0, abs=1e-7)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("b", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_scale(b):
    for call in (lambda: delta_achieved((0, 1), (1, 1), epsilon=1.0, b=b),
                 lambda: epsilon_achieved((0, 1), (1, 1), b=b), lambda: emg_pdf([0.0], (0, 1), b)):
        with pytest.raises(ConfigError) as excinfo:
            call()
        text = str(excinfo.value)
        assert "\n" not in text and text.startswith("b = ")


def test_bad_epsilon_and_delta():
    with pytest.raises(ConfigError) as excinfo:
        delta_achieved((0, 1), (1, 1), epsilon=0.0, b=1.0)
    assert "epsilon" in str(excinfo.value) and "\n" not in str(excinfo.value)
    with pytest.raises(ConfigError) as excinfo:
        b_min((0, 1), (1, 1), epsilon=1.0, delta=1.0)
    assert "delta" in str(excinfo.value) and "\n" not in str(excinfo.value)

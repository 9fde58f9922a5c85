"""Exact audits of Laplace, Gaussian and Cauchy noise on lattice priors: hockey stick and Renyi.

Oracles: closed forms for one shift (Laplace: 1 - exp((eps - D/b)/2); Gaussian: Balle and
Wang 2018; Renyi: alpha D^2 / (2 sigma^2), Cauchy at alpha = 2: log(1 + D^2 / (2 gamma^2))),
Google's dp-accounting privacy-loss distributions, and dense quadrature (scipy.integrate.quad
between roots located on a fine grid and refined by brentq).
"""
import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import integrate, optimize, stats
from scipy.special import logsumexp

from pufferfish.audit import Target, lattice_auditor
from pufferfish.audit.cauchy_lattice import CauchyLatticeAuditor, cauchy_renyi
from pufferfish.audit.gaussian_lattice import GaussianLatticeAuditor, gaussian_hockey_stick, gaussian_renyi
from pufferfish.audit.laplace_lattice import LaplaceLatticeAuditor, laplace_hockey_stick, mgf_tail_loss, theta_min
from pufferfish.audit.zero_noise import (zero_noise_directions, zero_noise_hockey_stick, zero_noise_loss,
                                         zero_noise_renyi)
from pufferfish.errors import ConfigError
from pufferfish.lattice.distances import wasserstein_inf, wasserstein_p
from pufferfish.lattice.pmf import LatticePMF
from tests.helpers import certified, random_pmf


# ------------------------------------------------------------------------ oracles
def mixture_pdf(pmf, kernel):
    """y (a float or an array) -> sum_x P(x) kernel(y - x)."""
    xs, ws = pmf.support.astype(float), pmf.probs[pmf.support - pmf.lo]
    return lambda y: kernel(np.asarray(y, dtype=float)[..., None] - xs) @ ws


def quad_hockey(p, q, epsilon, kernel, reach, per_unit=64):
    """integral of [p_Y - e^eps q_Y]_+ by quadrature: sign changes on a grid of step 1/per_unit
    over the hull +- reach, refined by brentq; quad on every piece between them and the lattice
    points (where a Laplace density has a kink) on which the difference is positive; the tails
    beyond the grid by quad to +-inf."""
    fp, fq = mixture_pdf(p, kernel), mixture_pdf(q, kernel)
    c = math.exp(epsilon)
    d = lambda y: fp(y) - c * fq(y)
    lo, hi = min(p.lo, q.lo) - reach, max(p.hi, q.hi) + reach
    grid = np.linspace(lo, hi, int((hi - lo) * per_unit) + 1)
    vals = d(grid)
    cuts = [lo] + grid[vals == 0].tolist() + list(range(math.ceil(lo), math.floor(hi) + 1))   # kinks
    for k in np.flatnonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) < 0):
        cuts.append(optimize.brentq(lambda y: float(d(y)), grid[k], grid[k + 1], xtol=1e-15, rtol=1e-15))
    cuts = sorted(cuts + [hi])
    total = 0.0
    for a, b in zip(cuts[:-1], cuts[1:]):
        if b > a and max(d(a + (b - a) / 3), d(a + 2 * (b - a) / 3)) > 0:
            total += integrate.quad(lambda y: float(d(y)), a, b, epsabs=1e-15, epsrel=1e-13, limit=200)[0]
    for a, b in ((-np.inf, lo), (hi, np.inf)):
        total += max(0.0, integrate.quad(lambda y: float(d(y)), a, b, epsabs=1e-16, limit=200)[0])
    return total


def laplace_kernel(b):
    return lambda z: np.exp(-np.abs(z) / b) / (2 * b)


def small_pair(seed):
    rng = np.random.default_rng(seed)
    return (random_pmf(rng, size=int(rng.integers(1, 5)), lo=int(rng.integers(-3, 4))),
            random_pmf(rng, size=int(rng.integers(1, 5)), lo=int(rng.integers(-3, 4))))


# ------------------------------------------------------------------------ Laplace, (eps, delta)
@pytest.mark.parametrize("shift, b, eps", [(1, 1.3, 0.5), (3, 0.7, 1.0), (40, 2.0, 0.3), (2, 5.0, 0.1), (1000, 150.0, 6.0),
                                           (9, 1.0, 8.5), (10 ** 6, 1e4, 1e-3)])
def test_laplace_one_shift_closed_form(shift, b, eps):
    """P = delta_0, Q = delta_D: delta = 1 - exp((eps - D/b)/2) for eps < D/b, both directions."""
    fwd, bwd = laplace_hockey_stick(LatticePMF.point(0), LatticePMF.point(shift), epsilon=eps, scale=b)
    expected = -math.expm1((eps - shift / b) / 2)
    assert fwd == certified(expected) and bwd == certified(expected)          # issue 39: certified upper ends


@pytest.mark.parametrize("theta", [0.01, 0.1, 1.0, 300.0, 1e5])
def test_mgf_tail_loss_closed_form(theta):
    """A = 0.3 delta_0 + 0.7 delta_1 against B = delta_0: the limits log M_A(+-1/theta) - log M_B(+-1/theta) =
    log(0.3 + 0.7 e^{+-1/theta}), in 30-digit mpmath."""
    mpmath.mp.dps = 30
    a, b = LatticePMF.from_values([0, 1], [0.3, 0.7]), LatticePMF.point(0)
    expected = [float(mpmath.log(mpmath.mpf(0.3) + mpmath.mpf(0.7) * mpmath.exp(sign / mpmath.mpf(theta))))
                for sign in (1, -1)]
    got = mgf_tail_loss(a, b, theta)
    assert got == pytest.approx(expected, rel=1e-14)


ZERO_P, ZERO_Q = [0.001, 0.199, 0.8], [0.9, 0.0995, 0.0005]


@pytest.mark.parametrize("eps", [0.0, 0.004, 1.0, 6.0])
def test_zero_noise_hockey_stick_by_hand(eps):
    """P = (0.001, 0.199, 0.8), Q = (0.9, 0.0995, 0.0005) on {0, 1, 2}: sum_x [P(x) - e^eps Q(x)]_+ in mpmath."""
    mpmath.mp.dps = 30
    c = mpmath.exp(eps)
    expected = [float(sum(max(mpmath.mpf(u) - c * mpmath.mpf(v), 0) for u, v in zip(a, b)))
                for a, b in ((ZERO_P, ZERO_Q), (ZERO_Q, ZERO_P))]
    got = zero_noise_hockey_stick(LatticePMF.from_values([0, 1, 2], ZERO_P), LatticePMF.from_values([0, 1, 2], ZERO_Q),
                                  epsilon=eps)
    assert got == pytest.approx(expected, rel=1e-14)
    assert min(got) > 0.4                                # eps = 6 is not vacuous: ratios 1600 and 900


@pytest.mark.parametrize("alpha", [1.0001, 1.05, 2.0, 30.0, 500.0])
def test_zero_noise_renyi_and_loss_by_hand(alpha):
    """D_alpha = log sum_x P^alpha Q^(1 - alpha) / (alpha - 1) in mpmath; the loss max |log P/Q| = log 1600."""
    mpmath.mp.dps = 30
    p, q = LatticePMF.from_values([0, 1, 2], ZERO_P), LatticePMF.from_values([0, 1, 2], ZERO_Q)
    a = mpmath.mpf(alpha)
    expected = [float(mpmath.log(sum(mpmath.mpf(u) ** a * mpmath.mpf(v) ** (1 - a) for u, v in zip(x, y))) / (a - 1))
                for x, y in ((ZERO_P, ZERO_Q), (ZERO_Q, ZERO_P))]
    assert zero_noise_renyi(p, q, alpha=alpha) == (certified(expected[0]), certified(expected[1]))   # issue 39
    assert zero_noise_loss(p, q) == pytest.approx(math.log(1600), rel=1e-15)
    assert zero_noise_directions(p, q) == pytest.approx((math.log(1600), math.log(900)), rel=1e-15)


def test_laplace_one_shift_above_its_epsilon_is_zero():
    """eps >= D/b: the Laplace mechanism is pure eps-DP, delta = 0."""
    assert laplace_hockey_stick(LatticePMF.point(0), LatticePMF.point(2), epsilon=1.2, scale=2.0) == (0.0, 0.0)


def test_laplace_one_shift_against_dp_accounting():
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    b, shift, eps = 1.3, 2, 0.4
    ref = pld.from_laplace_mechanism(b, sensitivity=shift, value_discretization_interval=1e-4)
    fwd, bwd = laplace_hockey_stick(LatticePMF.point(0), LatticePMF.point(shift), epsilon=eps, scale=b)
    # dp-accounting's pessimistic discretized estimate (interval 1e-4) is 8e-14 above the exact value here
    assert fwd == pytest.approx(ref.get_delta_for_epsilon(eps), abs=1e-11)
    assert bwd == pytest.approx(ref.get_delta_for_epsilon(eps), abs=1e-11)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), b=st.floats(0.15, 6.0), eps=st.floats(0.0, 2.0))
def test_laplace_hockey_stick_against_quadrature(seed, b, eps):
    p, q = small_pair(seed)
    fwd, bwd = laplace_hockey_stick(p, q, epsilon=eps, scale=b)
    kernel = laplace_kernel(b)
    assert fwd == pytest.approx(quad_hockey(p, q, eps, kernel, 40 * b), abs=1e-11)
    assert bwd == pytest.approx(quad_hockey(q, p, eps, kernel, 40 * b), abs=1e-11)


def test_laplace_hockey_stick_by_hand_two_atoms():
    """P = delta_0, Q = (delta_0 + delta_1)/2, b = 1, eps = 0: total variation by hand.

    p - q = (1/2)(e^{-|y|} - e^{-|y-1|}) / 2, positive for y < 1/2: TV = (1/2)(P_Y(y<1/2) - P_1(y<1/2))
    = (1/2)((1 - e^{-1/2}/2) - e^{-1/2}/2) = (1 - e^{-1/2})/2.
    """
    p, q = LatticePMF.point(0), LatticePMF.from_values([0, 1], [0.5, 0.5])
    fwd, bwd = laplace_hockey_stick(p, q, epsilon=0.0, scale=1.0)
    assert fwd == pytest.approx(-math.expm1(-0.5) / 2, rel=1e-14)
    assert bwd == pytest.approx(fwd, rel=1e-14)             # eps = 0: both directions are TV


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), b1=st.floats(0.05, 10.0), ratio=st.floats(1.0, 4.0),
       eps=st.floats(0.0, 1.5))
def test_laplace_hockey_stick_does_not_increase_with_the_scale(seed, b1, ratio, eps):
    p, q = small_pair(seed)
    small = laplace_hockey_stick(p, q, epsilon=eps, scale=b1)
    large = laplace_hockey_stick(p, q, epsilon=eps, scale=b1 * ratio)
    zero = zero_noise_hockey_stick(p, q, epsilon=eps)
    tol = 1e-14 * (1 + math.exp(eps))
    for k in range(2):                               # certified values: each within 1e-9 relative above the truth
        tol = max(tol, 2e-9 * max(small[k], zero[k]))
        assert large[k] <= small[k] + tol and small[k] <= zero[k] + tol


def test_laplace_pure_epsilon_scale_has_delta_zero(table2, p4, q4):
    """Where the pure-epsilon audit accepts theta (p_Y <= e^eps q_Y everywhere), delta is 0; just
    below theta_min it rejects, and some y has p_Y > e^eps q_Y: delta > 0."""
    from pufferfish.lattice.sums import sum_of_users
    rest = sum_of_users(table2)
    p, q = sum_of_users([rest, p4]), sum_of_users([rest, q4])
    eps = 0.7
    tmin = theta_min(p, q, eps).theta
    assert max(laplace_hockey_stick(p, q, epsilon=eps, scale=tmin)) <= 1e-15
    assert max(laplace_hockey_stick(p, q, epsilon=eps, scale=tmin * 0.9)) > 1e-6


@pytest.mark.parametrize("shift, eps, delta", [(1, 0.5, 0.1), (4, 1.0, 1e-5), (2, 0.1, 0.3)])
def test_laplace_smallest_scale_for_eps_delta_one_shift(shift, eps, delta):
    """1 - exp((eps - D/b)/2) = delta  <=>  b = D / (eps - 2 log(1 - delta))."""
    aud = lattice_auditor("laplace", "epsilon_delta", LatticePMF.point(0), LatticePMF.point(shift))
    best = aud.smallest_scale(Target(eps, delta=delta))
    assert best.scale == pytest.approx(shift / (eps - 2 * math.log1p(-delta)), rel=1e-9)
    assert best.value <= delta
    got = aud.achieved(best.scale, Target(eps, delta=delta))
    assert got.meets() and got.forward == pytest.approx(delta, rel=1e-8)


def test_laplace_smallest_scale_zero_when_the_priors_meet_the_target():
    p = LatticePMF.from_values([0, 1], [0.5, 0.5])
    q = LatticePMF.from_values([0, 1], [0.45, 0.55])
    # sum_x [P - e^0.2 Q]_+ = 0 and sum_x [Q - e^0.2 P]_+ = 0: no noise needed
    best = LaplaceLatticeAuditor(p, q).smallest_scale(Target(0.2, delta=1e-6))
    assert best.scale == 0.0 and "no noise" in best.reason
    # with eps = 0.05 the priors alone leave [0.55 - e^0.05 0.5]_+ = 0.02436...
    assert zero_noise_hockey_stick(p, q, epsilon=0.05)[1] == pytest.approx(0.55 - math.exp(0.05) * 0.5, rel=1e-14)
    assert LaplaceLatticeAuditor(p, q).smallest_scale(Target(0.05, delta=1e-6)).scale > 0


def test_laplace_hockey_stick_refuses_bad_input():
    p = LatticePMF.point(0)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ConfigError, match="^scale = "):   # names the argument (was "theta")
            laplace_hockey_stick(p, p, epsilon=1.0, scale=bad)
    with pytest.raises(ConfigError, match="epsilon"):
        laplace_hockey_stick(p, p, epsilon=-0.1, scale=1.0)
    with pytest.raises(ConfigError, match="renyi"):
        LaplaceLatticeAuditor(p, p).achieved(1.0, Target(1.0, alpha=2.0))


# ------------------------------------------------------------------------ Gaussian, (eps, delta)
def gauss_kernel(s):
    return lambda z: np.exp(-0.5 * (z / s) ** 2) / (s * math.sqrt(2 * math.pi))


def balle_wang(shift, s, eps):
    """delta(eps) of one Gaussian shift (Balle and Wang 2018, Thm 8)."""
    return stats.norm.cdf(shift / (2 * s) - eps * s / shift) - math.exp(eps) * stats.norm.cdf(-shift / (2 * s) - eps * s / shift)


@pytest.mark.parametrize("shift, s, eps", [(1, 1.3, 0.7), (3, 0.7, 1.0), (1, 0.2, 0.5), (5, 40.0, 0.01), (2, 1.0, 0.0),
                                           (1, 4.0, 2.0)])
def test_gaussian_one_shift_closed_form(shift, s, eps):
    fwd, bwd = gaussian_hockey_stick(LatticePMF.point(0), LatticePMF.point(shift), epsilon=eps, sigma=s)
    expected = balle_wang(shift, s, eps)
    assert fwd == pytest.approx(expected, rel=1e-12, abs=1e-17)
    assert bwd == pytest.approx(expected, rel=1e-12, abs=1e-17)


def test_gaussian_one_shift_against_dp_accounting():
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    s, shift, eps = 1.3, 1, 0.7
    ref = pld.from_gaussian_mechanism(s, sensitivity=shift, value_discretization_interval=1e-4)
    fwd, bwd = gaussian_hockey_stick(LatticePMF.point(0), LatticePMF.point(shift), epsilon=eps, sigma=s)
    assert fwd == pytest.approx(ref.get_delta_for_epsilon(eps), abs=1e-11)    # 1.4e-14 apart here
    assert bwd == pytest.approx(ref.get_delta_for_epsilon(eps), abs=1e-11)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), s=st.floats(0.2, 5.0), eps=st.floats(0.0, 2.0))
def test_gaussian_hockey_stick_against_quadrature(seed, s, eps):
    p, q = small_pair(seed)
    fwd, bwd = gaussian_hockey_stick(p, q, epsilon=eps, sigma=s)
    kernel = gauss_kernel(s)
    assert fwd == pytest.approx(quad_hockey(p, q, eps, kernel, 40 * s), abs=1e-11)
    assert bwd == pytest.approx(quad_hockey(q, p, eps, kernel, 40 * s), abs=1e-11)


#: dp-accounting finds the cut-off of its mixture privacy loss by a binary search to this precision (its default)
DPA_PRECISION = 1e-6


@pytest.mark.parametrize("sigma", [0.05, 0.3, 1.0, 3.0])
def test_gaussian_hockey_stick_on_a_mixture_prior_against_dp_accounting(sigma):
    """P = 0.2 delta_-3 + 0.3 delta_-1 + 0.5 delta_0 against Q = delta_0 is dp-accounting's
    MixtureGaussianPrivacyLoss (sensitivities 0, 1, 3): REMOVE gives H(P_Y || Q_Y), ADD H(Q_Y || P_Y).
    Its cut-off x is off by at most DPA_PRECISION = h, where delta(x) is stationary, so its delta is off by at
    most h^2 / 2 max |p_Y' - e^eps q_Y'| <= h^2 / 2 (1 + e^eps) phi(1) / sigma^2."""
    from dp_accounting.pld.privacy_loss_mechanism import AdjacencyType, MixtureGaussianPrivacyLoss

    epsilons = [0.0, 0.01, 0.5, 2.0, 4.0, 6.0]
    probs, sens = [0.5, 0.3, 0.2], [0.0, 1.0, 3.0]
    p, q = LatticePMF.from_values([-3, -1, 0], [0.2, 0.3, 0.5]), LatticePMF.point(0)
    remove, add = (MixtureGaussianPrivacyLoss(sigma, sens, probs, adjacency_type=kind).get_delta_for_epsilon(epsilons)
                   for kind in (AdjacencyType.REMOVE, AdjacencyType.ADD))
    for eps, fwd_ref, bwd_ref in zip(epsilons, remove, add):
        tol = DPA_PRECISION ** 2 / 2 * (1 + math.exp(eps)) * stats.norm.pdf(1.0) / sigma ** 2 + 1e-15
        fwd, bwd = gaussian_hockey_stick(p, q, epsilon=eps, sigma=sigma)
        assert fwd == pytest.approx(fwd_ref, abs=tol)
        assert bwd == pytest.approx(bwd_ref, abs=tol)
    assert remove[2] > 1e-3 and add[1] > 1e-2          # not vacuous at eps = 0.5 (forward) and 0.01 (backward)


@pytest.mark.parametrize("sigma", [1e-6, 1e-3])
@pytest.mark.parametrize("eps", [0.0, 0.005, 0.3, 6.0])
def test_gaussian_hockey_stick_at_tiny_sigma_is_the_priors_own(sigma, eps):
    """Atoms 1 apart, sigma <= 1e-3: the densities overlap only beyond 500 sigma (mass < 1e-54), so the
    hockey sticks are the priors' own: sum_x [P(x) - e^eps Q(x)]_+ = 0.2 + 0.3 + [0.5 - e^eps]_+ and
    [1 - 0.5 e^eps]_+."""
    p, q = LatticePMF.from_values([-3, -1, 0], [0.2, 0.3, 0.5]), LatticePMF.point(0)
    fwd, bwd = gaussian_hockey_stick(p, q, epsilon=eps, sigma=sigma)
    assert fwd == pytest.approx(0.5 + max(0.5 - math.exp(eps), 0.0), rel=1e-14)
    assert bwd == pytest.approx(max(1 - 0.5 * math.exp(eps), 0.0), rel=1e-14, abs=1e-300)


@pytest.mark.parametrize("sigma", [1e-3, 0.05, 0.3, 1.0, 3.0, 30.0])
@pytest.mark.parametrize("alpha", [2, 3, 5])
def test_gaussian_renyi_of_a_mixture_against_its_closed_form(sigma, alpha):
    """P = sum_i w_i delta_{a_i} against Q = delta_0 under N(0, sigma^2), integer alpha: int p^alpha q^{1-alpha}
    = E exp(sum_{k<l} A_k A_l / sigma^2) over alpha independent atoms A ~ w (Gaussian integral of the product of
    the alpha shifted densities over phi^{alpha-1}), a log-sum-exp of 3^alpha terms (error <= 3^alpha ulps)."""
    a, w = np.array([-3.0, -1.0, 0.0]), np.array([0.2, 0.3, 0.5])
    terms = []
    for idx in itertools.product(range(a.size), repeat=alpha):
        atoms = a[list(idx)]
        pairs = sum(atoms[k] * atoms[m] for k in range(alpha) for m in range(k + 1, alpha))
        terms.append(float(np.sum(np.log(w[list(idx)]))) + pairs / sigma ** 2)
    expected = float(logsumexp(terms)) / (alpha - 1)
    fwd, _ = gaussian_renyi(LatticePMF.from_values([-3, -1, 0], [0.2, 0.3, 0.5]), LatticePMF.point(0),
                            alpha=alpha, sigma=sigma)
    assert fwd == pytest.approx(expected, rel=1e-14, abs=3 ** alpha * 2.3e-16 / (alpha - 1))


def test_gaussian_hockey_stick_by_hand_total_variation():
    """eps = 0, P = delta_0, Q = (delta_0 + delta_2)/2: p - q = (phi(y) - phi(y - 2))/2 > 0 for y < 1,
    TV = (Phi(1) - Phi(-1))/2."""
    p, q = LatticePMF.point(0), LatticePMF.from_values([0, 2], [0.5, 0.5])
    fwd, bwd = gaussian_hockey_stick(p, q, epsilon=0.0, sigma=1.0)
    assert fwd == pytest.approx((stats.norm.cdf(1) - stats.norm.cdf(-1)) / 2, rel=1e-14)
    assert bwd == pytest.approx(fwd, rel=1e-14)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), s1=st.floats(0.1, 8.0), ratio=st.floats(1.0, 4.0), eps=st.floats(0.0, 1.5))
def test_gaussian_hockey_stick_does_not_increase_with_sigma(seed, s1, ratio, eps):
    p, q = small_pair(seed)
    small = gaussian_hockey_stick(p, q, epsilon=eps, sigma=s1)
    large = gaussian_hockey_stick(p, q, epsilon=eps, sigma=s1 * ratio)
    zero = zero_noise_hockey_stick(p, q, epsilon=eps)
    tol = 1e-14 * (1 + math.exp(eps))
    for k in range(2):                               # certified values: each within 1e-9 relative above the truth
        tol = max(tol, 2e-9 * max(small[k], zero[k]))
        assert large[k] <= small[k] + tol and small[k] <= zero[k] + tol


@pytest.mark.parametrize("shift, eps, delta", [(1, 1.0, 1e-5), (3, 0.5, 1e-3), (2, 2.0, 0.1)])
def test_gaussian_smallest_sigma_for_eps_delta_one_shift(shift, eps, delta):
    """The root of the Balle-Wang curve (brentq on the closed form) is the smallest sigma."""
    expected = optimize.brentq(lambda s: balle_wang(shift, s, eps) - delta, 1e-3, 1e3, xtol=1e-14, rtol=1e-14)
    aud = lattice_auditor("gaussian", "epsilon_delta", LatticePMF.point(0), LatticePMF.point(shift))
    best = aud.smallest_scale(Target(eps, delta=delta))
    assert best.scale == pytest.approx(expected, rel=1e-9) and best.value <= delta


# ------------------------------------------------------------------------ Gaussian, Renyi
@pytest.mark.parametrize("shift, s, alpha", [(1, 1.3, 2.0), (3, 0.7, 5.0), (1, 100.0, 2.0), (1, 1e4, 3.0),
                                             (2, 0.3, 1.5), (1, 1.0, 30.0), (4, 2.0, 1.01)])
def test_gaussian_renyi_one_shift_closed_form(shift, s, alpha):
    """D_alpha(N(0, s^2) || N(D, s^2)) = alpha D^2 / (2 s^2), to 1e-10 relative even at 1.5e-8."""
    fwd, bwd = gaussian_renyi(LatticePMF.point(0), LatticePMF.point(shift), alpha=alpha, sigma=s)
    expected = alpha * shift ** 2 / (2 * s ** 2)
    assert fwd == pytest.approx(expected, rel=1e-10) and bwd == pytest.approx(expected, rel=1e-10)


def log_mixture(pmf, s):
    """y -> log sum_x P(x) phi_s(y - x), by a plain log-sum-exp (scalar y, in Python floats: quad calls
    it one point at a time, where NumPy's per-call cost on a few atoms is most of the time)."""
    atoms = [(float(x), math.log(w)) for x, w in zip(pmf.support, pmf.probs[pmf.support - pmf.lo])]
    const = math.log(s * math.sqrt(2 * math.pi))

    def f(y):
        t = [w - 0.5 * ((y - x) / s) ** 2 for x, w in atoms]
        top = max(t)
        return top + math.log(math.fsum(math.exp(v - top) for v in t)) - const
    return f


def quad_renyi(p, q, alpha, log_p, log_q, lo, hi, pieces=60):
    """(1/(alpha - 1)) log integral exp(alpha log p + (1 - alpha) log q) by quad on ``pieces`` pieces of
    [lo, hi] (far enough that the rest is negligible), the integrand scaled by its maximum on a grid."""
    log_f = lambda y: alpha * log_p(y) + (1 - alpha) * log_q(y)
    edges = np.linspace(lo, hi, pieces + 1)
    shift = max(log_f(y) for y in np.linspace(lo, hi, 20 * pieces + 1))
    f = lambda y: math.exp(log_f(y) - shift)
    total = math.fsum(integrate.quad(f, a, b, epsabs=0, epsrel=1e-13, limit=200)[0] for a, b in zip(edges[:-1], edges[1:]))
    return (shift + math.log(total)) / (alpha - 1)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), s=st.floats(0.3, 5.0), alpha=st.floats(1.1, 6.0))
def test_gaussian_renyi_against_quadrature(seed, s, alpha):
    rng = np.random.default_rng(seed)
    p, q = (random_pmf(rng, size=int(rng.integers(1, 5)), lo=int(rng.integers(-3, 4)), zero_prob=0.0) for _ in range(2))
    lo = min(p.lo, q.lo) - 3 * alpha * 8 - 40 * s
    hi = max(p.hi, q.hi) + 3 * alpha * 8 + 40 * s
    fwd, bwd = gaussian_renyi(p, q, alpha=alpha, sigma=s)
    ref_f = quad_renyi(p, q, alpha, log_mixture(p, s), log_mixture(q, s), lo, hi)
    ref_b = quad_renyi(q, p, alpha, log_mixture(q, s), log_mixture(p, s), lo, hi)
    # quad's log(integral) is accurate to ~1e-13 absolute, so compare D relative where it is not tiny
    assert fwd == pytest.approx(ref_f, rel=1e-8, abs=1e-11)
    assert bwd == pytest.approx(ref_b, rel=1e-8, abs=1e-11)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), s1=st.floats(0.1, 8.0), ratio=st.floats(1.0, 4.0), alpha=st.floats(1.05, 8.0))
def test_gaussian_renyi_does_not_increase_with_sigma(seed, s1, ratio, alpha):
    p, q = small_pair(seed)
    small = gaussian_renyi(p, q, alpha=alpha, sigma=s1)
    large = gaussian_renyi(p, q, alpha=alpha, sigma=s1 * ratio)
    zero = zero_noise_renyi(p, q, alpha=alpha)
    for k in range(2):
        assert large[k] <= small[k] * (1 + 1e-9) + 1e-300 and small[k] <= zero[k] * (1 + 1e-9)


@pytest.mark.parametrize("shift, eps, alpha", [(1, 0.5, 2.0), (3, 0.1, 10.0)])
def test_gaussian_smallest_sigma_for_renyi_one_shift(shift, eps, alpha):
    """alpha D^2 / (2 s^2) = eps: s = D sqrt(alpha / (2 eps)) (paper 002, Cor. 3.1 is tight for one shift)."""
    aud = lattice_auditor("gaussian", "renyi", LatticePMF.point(0), LatticePMF.point(shift))
    best = aud.smallest_scale(Target(eps, alpha=alpha))
    assert best.scale == pytest.approx(shift * math.sqrt(alpha / (2 * eps)), rel=1e-9) and best.value <= eps


def test_gaussian_no_noise_needed_and_refusals():
    p = LatticePMF.from_values([0, 1], [0.5, 0.5])
    q = LatticePMF.from_values([0, 1], [0.45, 0.55])
    aud = GaussianLatticeAuditor(p, q)
    # D_2(P || Q) = log(.25/.45 + .25/.55) = log(1.0101...) < 0.02: no noise
    assert zero_noise_renyi(p, q, alpha=2.0)[0] == pytest.approx(math.log(0.25 / 0.45 + 0.25 / 0.55), rel=1e-14)
    assert aud.smallest_scale(Target(0.02, alpha=2.0)).scale == 0.0
    assert aud.smallest_scale(Target(0.2, delta=1e-6)).scale == 0.0
    with pytest.raises(ConfigError, match="not epsilon"):
        aud.achieved(1.0, Target(1.0))
    with pytest.raises(ConfigError, match="sigma"):
        gaussian_hockey_stick(p, q, epsilon=1.0, sigma=0.0)
    with pytest.raises(ConfigError, match="alpha"):
        gaussian_renyi(p, q, alpha=1.0, sigma=1.0)
    with pytest.raises(ConfigError, match="epsilon"):
        gaussian_hockey_stick(p, q, epsilon=math.nan, sigma=1.0)


# ------------------------------------------------------------------------ Cauchy, Renyi
@pytest.mark.parametrize("shift, g", [(1, 1.0), (3, 0.7), (1, 100.0), (1, 1e4), (2, 0.05), (10, 0.3), (1, 1e-4), (3, 1e-6)])
def test_cauchy_renyi_two_one_shift_closed_form(shift, g):
    """D_2(Cauchy(0, g) || Cauchy(D, g)) = log(1 + D^2 / (2 g^2)), to 1e-10 relative (5e-9 at g = 1e4)."""
    fwd, bwd = cauchy_renyi(LatticePMF.point(0), LatticePMF.point(shift), alpha=2.0, gamma=g)
    expected = math.log1p(shift ** 2 / (2 * g ** 2))
    assert fwd == pytest.approx(expected, rel=1e-10) and bwd == pytest.approx(expected, rel=1e-10)


def cauchy_renyi_by_quad(p, q, alpha, g):
    """(1/(alpha - 1)) log integral p^alpha q^(1-alpha) by quad: the real line cut at the atoms, tails to +-inf."""
    fp, fq = mixture_pdf(p, lambda z: g / (math.pi * (g * g + z * z))), mixture_pdf(q, lambda z: g / (math.pi * (g * g + z * z)))
    f = lambda y: float(fp(y)) ** alpha * float(fq(y)) ** (1 - alpha)
    cuts = np.arange(min(p.lo, q.lo) - 1, max(p.hi, q.hi) + 2, dtype=float)
    parts = [integrate.quad(f, a, b, epsabs=0, epsrel=1e-13, limit=200)[0] for a, b in zip(cuts[:-1], cuts[1:])]
    parts += [integrate.quad(f, -np.inf, cuts[0], epsabs=0, epsrel=1e-13, limit=200)[0],
              integrate.quad(f, cuts[-1], np.inf, epsabs=0, epsrel=1e-13, limit=200)[0]]
    return math.log(math.fsum(parts)) / (alpha - 1)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), g=st.floats(0.3, 4.0), alpha=st.floats(1.2, 5.0))
def test_cauchy_renyi_against_quadrature(seed, g, alpha):
    p, q = small_pair(seed)
    fwd, bwd = cauchy_renyi(p, q, alpha=alpha, gamma=g)
    assert fwd == pytest.approx(cauchy_renyi_by_quad(p, q, alpha, g), rel=1e-8, abs=1e-12)
    assert bwd == pytest.approx(cauchy_renyi_by_quad(q, p, alpha, g), rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("alpha", [1.02, 1.08, 25.0, 32.0])
def test_cauchy_renyi_at_extreme_orders_against_quadrature(alpha):
    """alpha near 1 and large: quad to 1e-13 per piece leaves the log well inside 1e-8 of D_alpha (alpha - 1)."""
    p, q = small_pair(3)
    fwd, bwd = cauchy_renyi(p, q, alpha=alpha, gamma=0.7)
    assert fwd == pytest.approx(cauchy_renyi_by_quad(p, q, alpha, 0.7), rel=1e-8, abs=1e-12)
    assert bwd == pytest.approx(cauchy_renyi_by_quad(q, p, alpha, 0.7), rel=1e-8, abs=1e-12)
    assert min(fwd, bwd) > 1e-3


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), g1=st.floats(0.05, 8.0), ratio=st.floats(1.0, 4.0), alpha=st.floats(1.05, 6.0))
def test_cauchy_renyi_does_not_increase_with_gamma(seed, g1, ratio, alpha):
    p, q = small_pair(seed)
    small = cauchy_renyi(p, q, alpha=alpha, gamma=g1)
    large = cauchy_renyi(p, q, alpha=alpha, gamma=g1 * ratio)
    zero = zero_noise_renyi(p, q, alpha=alpha)
    for k in range(2):
        assert large[k] <= small[k] * (1 + 1e-9) + 1e-300 and small[k] <= zero[k] * (1 + 1e-9)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), eps=st.floats(0.05, 3.0))
def test_cauchy_corollary_4_1_scale_meets_its_target(seed, eps):
    """Paper 002, Cor. 4.1 at alpha = 2: gamma = W_2 / sqrt(2 (e^eps - 1)) gives (2, eps)-RPP; the audit
    confirms it, and the smallest gamma is at most that."""
    p, q = small_pair(seed)
    w2 = wasserstein_p(p, q, 2)
    if w2 == 0:
        return
    gamma = w2 / math.sqrt(2 * math.expm1(eps))
    aud = lattice_auditor("cauchy", "renyi", p, q)
    assert aud.achieved(gamma, Target(eps, alpha=2.0)).value <= eps * (1 + 1e-10)
    assert aud.smallest_scale(Target(eps, alpha=2.0)).scale <= gamma * (1 + 1e-9)


def test_cauchy_smallest_gamma_one_shift_is_corollary_4_1():
    """For one shift D_2 = log(1 + D^2 / (2 g^2)) = eps exactly at g = D / sqrt(2 (e^eps - 1))."""
    best = CauchyLatticeAuditor(LatticePMF.point(0), LatticePMF.point(3)).smallest_scale(Target(0.5, alpha=2.0))
    assert best.scale == pytest.approx(3 / math.sqrt(2 * math.expm1(0.5)), rel=1e-9) and best.value <= 0.5


def test_cauchy_refusals_and_no_noise():
    p = LatticePMF.from_values([0, 1], [0.5, 0.5])
    q = LatticePMF.from_values([0, 1], [0.45, 0.55])
    aud = CauchyLatticeAuditor(p, q)
    assert aud.smallest_scale(Target(0.02, alpha=2.0)).scale == 0.0
    with pytest.raises(ConfigError, match="audits renyi, not epsilon_delta"):
        aud.achieved(1.0, Target(1.0, delta=1e-3))
    with pytest.raises(ConfigError, match="gamma"):
        cauchy_renyi(p, q, alpha=2.0, gamma=-1.0)
    with pytest.raises(ConfigError, match="alpha"):
        cauchy_renyi(p, q, alpha=0.5, gamma=1.0)
    with pytest.raises(ValueError, match="^noise = 'cauchy', guarantee = 'epsilon': no lattice auditor"):
        lattice_auditor("cauchy", "epsilon", p, q)


def test_cauchy_refuses_scales_it_cannot_resolve():
    p, q = LatticePMF.point(0), LatticePMF.from_values([0, 1], [0.5, 0.5])
    with pytest.raises(ConfigError, match="smallest Cauchy scale"):
        cauchy_renyi(p, q, alpha=2.0, gamma=1e-12)


def test_identical_priors_have_zero_divergence():
    p = LatticePMF.from_values([-2, 0, 3], [0.2, 0.5, 0.3])
    assert gaussian_renyi(p, p, alpha=2.0, sigma=1.0) == (0.0, 0.0)
    assert cauchy_renyi(p, p, alpha=3.0, gamma=0.5) == (0.0, 0.0)
    assert gaussian_hockey_stick(p, p, epsilon=0.0, sigma=0.7) == (0.0, 0.0)
    assert laplace_hockey_stick(p, p, epsilon=0.0, scale=0.7) == (0.0, 0.0)


def test_gaussian_renyi_of_thousands_converges():
    """Far-apart priors and a small sigma: the log integrand is ~5e4, rounded to ~1e-11 relative; the
    quadrature must settle at that noise floor (it used to refine without end) and match the closed
    form's order: two point masses 6 apart give alpha 36 / (2 sigma^2)."""
    fwd, bwd = gaussian_renyi(LatticePMF.point(-3), LatticePMF.point(3), alpha=9.3, sigma=0.17)
    expected = 9.3 * 36 / (2 * 0.17 ** 2)
    assert fwd == pytest.approx(expected, rel=1e-10) and bwd == pytest.approx(expected, rel=1e-10)

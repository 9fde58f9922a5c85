"""The exact lattice audit L(theta) and the tight calibration theta_min."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.audit.laplace_lattice import lattice_privacy_loss, log_density_at_lattice, theta_min
from pufferfish.audit.zero_noise import zero_noise_loss
from pufferfish.errors import ConfigError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import sum_of_users
from pufferfish.multiuser.methods import kantorovich, lemma5, lemma6, theorem1, theorem2, theorem3_brent, theorem3_max, theorem4
from tests.helpers import certified, random_pmf


def brute_force(p, q, theta, per_unit=2000):
    """sup over a dense y grid (step 1/per_unit, lattice points included), densities summed directly."""
    lo, hi = min(p.lo, q.lo) - 3, max(p.hi, q.hi) + 3
    y = lo + np.arange((hi - lo) * per_unit + 1) / per_unit
    def dens(m):
        return (m.probs[None, :] * np.exp(-np.abs(y[:, None] - m.values[None, :]) / theta)).sum(1) / (2 * theta)
    d = np.log(dens(p)) - np.log(dens(q))
    return d.max(), -d.min()


def test_point_masses_lose_their_distance_over_theta():
    """Laplace mechanism: |log ratio| of a vs b is |a - b| / theta, attained beyond the atoms."""
    loss = lattice_privacy_loss(LatticePMF.point(5), LatticePMF.point(3), 0.7)
    assert loss.forward == pytest.approx(2 / 0.7, rel=1e-14)
    assert loss.backward == pytest.approx(2 / 0.7, rel=1e-14)


def test_nonnegative_user_vs_absent_is_log_mgf(table2, p4):
    """(s_P, s_perp) with D >= 0: sup_y log p_P/p_perp = log E[e^{D/theta}] (reached as y -> +inf)."""
    rest = sum_of_users(table2)
    theta = 2.5
    loss = lattice_privacy_loss(sum_of_users([rest, p4]), rest, theta)
    assert loss.forward == pytest.approx(p4.log_mgf(1 / theta), rel=1e-13)
    # the other direction is -log E[e^{-D/theta}] (reached as y -> -inf)
    assert loss.backward == pytest.approx(-p4.log_mgf(-1 / theta), rel=1e-13)


def test_theorem3_brent_is_exactly_tight_for_nonnegative_users(table2, p4):
    """So eq. (13) is the smallest theta: the audit's bisection must land on Brent's root."""
    rest = sum_of_users(table2)
    eps = np.array([0.1, 0.37, 1.0])
    brent = theorem3_brent(p4, epsilons=eps)
    tight = [theta_min(sum_of_users([rest, p4]), rest, e).theta for e in eps]
    np.testing.assert_allclose(tight, brent, rtol=1e-10)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), theta=st.floats(0.2, 20.0))
def test_audit_agrees_with_dense_grid(seed, theta):
    rng = np.random.default_rng(seed)
    p, q = random_pmf(rng, zero_prob=0.0), random_pmf(rng, zero_prob=0.0)
    loss = lattice_privacy_loss(p, q, theta)
    fwd, bwd = brute_force(p, q, theta)
    # the grid contains every lattice point, so it reaches the exact sup up to rounding
    assert loss.forward == pytest.approx(fwd, rel=1e-9, abs=1e-12)
    assert loss.backward == pytest.approx(bwd, rel=1e-9, abs=1e-12)


def test_log_density_matches_direct_sum():
    rng = np.random.default_rng(3)
    probs = rng.random(30)
    probs /= probs.sum()
    for theta in (0.05, 1.0, 40.0):
        k = np.arange(30)
        direct = (probs[None, :] * np.exp(-np.abs(k[:, None] - k[None, :]) / theta)).sum(1) / (2 * theta)
        np.testing.assert_allclose(log_density_at_lattice(probs, theta), np.log(direct), rtol=1e-13)


@pytest.mark.parametrize("theta", [1e-3, 0.3, 1e4])
def test_huge_support_neither_overflows_nor_underflows(theta):
    """A translation by 1 of a 10^5-point prior costs exactly 1/theta (eps down to 1e-4)."""
    n = 100_000
    base = np.full(n, 1.0 / n)
    p, q = LatticePMF(0, base), LatticePMF(1, base)
    loss = lattice_privacy_loss(p, q, theta)
    assert loss.forward == pytest.approx(1 / theta, rel=1e-9)
    assert loss.backward == pytest.approx(1 / theta, rel=1e-9)


def test_loss_is_non_increasing_in_theta(table2, p4, q4):
    rest = sum_of_users(table2)
    p, q = sum_of_users([rest, p4]), sum_of_users([rest, q4])
    losses = [lattice_privacy_loss(p, q, t).epsilon for t in np.geomspace(0.05, 50, 200)]
    assert all(b <= a * (1 + 1e-12) for a, b in zip(losses, losses[1:]))


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_property_kantorovich_and_theorems_never_violate_and_tight_is_tight(seed):
    rng = np.random.default_rng(seed)
    rest = sum_of_users([random_pmf(rng, lo=0, zero_prob=0.0) for _ in range(int(rng.integers(0, 3)))])
    a, b = random_pmf(rng, lo=int(rng.integers(0, 3))), random_pmf(rng, lo=int(rng.integers(0, 3)))
    eps = np.array([0.05, 0.3, 1.0, 2.0])
    pa, pb = sum_of_users([rest, a]), sum_of_users([rest, b])
    checks = {
        "kantorovich": (kantorovich(pa, pb, epsilons=eps), pa, pb),
        "theorem4": (theorem4(a, b, epsilons=eps), pa, pb),
        "theorem3_max": (theorem3_max(a, epsilons=eps), pa, rest),
        "theorem3_brent": (theorem3_brent(a, epsilons=eps), pa, rest),
    }
    for method, (thetas, p, q) in checks.items():
        for theta, e in zip(thetas, eps):
            if theta > 0:
                assert lattice_privacy_loss(p, q, theta).epsilon <= e * (1 + 1e-9), method
    previous = 0.0
    for e in eps[::-1]:  # theta_min is non-increasing in epsilon
        res = theta_min(pa, pb, float(e))
        if res.theta > 0:
            assert res.loss <= e and res.loss >= e * (1 - 1e-9)
            assert lattice_privacy_loss(pa, pb, res.theta * (1 - 1e-9)).epsilon > e
        assert res.theta >= previous
        previous = res.theta


def test_zero_noise_when_priors_are_close():
    p = LatticePMF.from_values([0, 1], [0.7, 0.3])
    q = LatticePMF.from_values([0, 1], [0.8, 0.2])
    assert zero_noise_loss(p, q) == pytest.approx(math.log(1.5))
    res = theta_min(p, q, 0.5)
    assert res.theta == 0.0 and "no noise" in res.reason
    assert theta_min(p, q, 0.3).theta > 0


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_bad_scale_refused(bad):
    with pytest.raises(ConfigError, match="theta"):
        lattice_privacy_loss(LatticePMF.point(0), LatticePMF.point(1), bad)


def test_bisection_is_bounded():
    p, q = LatticePMF.from_values([0, 1, 2], [0.2, 0.5, 0.3]), LatticePMF.from_values([0, 1], [0.6, 0.4])
    res = theta_min(p, q, 0.5, rtol=1e-15, max_steps=3)
    assert res.steps <= 3 and math.isinf(res.theta) and "within 3 steps" in res.reason


def test_an_rtol_no_float_bracket_can_reach_is_refused():
    """hi/lo - 1 >= 2.2e-16 for distinct floats: rtol = 1e-300 could never close (it returned inf)."""
    with pytest.raises(ConfigError, match=r"^rtol = 1e-300: must be finite and >= 8\.88178e-16"):
        theta_min(LatticePMF.point(0), LatticePMF.point(1), 0.5, rtol=1e-300)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.floats(0.01, 0.99), q=st.floats(0.01, 0.99))
def test_property_lemma5_lemma6_never_violate_for_bernoulli_users(seed, p, q):
    """Lemmas 5 and 6 (eqs. 18, 21) are sufficient conditions: the exact loss is at most epsilon."""
    if abs(p - q) < 1e-3:
        return
    rng = np.random.default_rng(seed)
    rest = sum_of_users([random_pmf(rng, lo=0, zero_prob=0.0) for _ in range(int(rng.integers(0, 4)))])
    bern_p, bern_q = LatticePMF(0, np.array([1 - p, p])), LatticePMF(0, np.array([1 - q, q]))
    pa, pb = sum_of_users([rest, bern_p]), sum_of_users([rest, bern_q])
    eps = np.array([0.01, 0.1, 0.5, 1.0, 3.0])
    for method, thetas in {"lemma5": lemma5(bern_p, bern_q, epsilons=eps),
                           "lemma6": lemma6(bern_p, bern_q, rest, epsilons=eps)}.items():
        for theta, e in zip(thetas, eps):
            assert lattice_privacy_loss(pa, pb, theta).epsilon <= e * (1 + 1e-9), (method, e)
    # both are upper bounds of the tight scale, and Lemma 6 (relaxed) never exceeds Lemma 5's 1/epsilon
    assert np.all(lemma6(bern_p, bern_q, rest, epsilons=eps) <= lemma5(bern_p, bern_q, epsilons=eps) * (1 + 1e-12))


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), a=st.integers(-6, 6), b=st.integers(-6, 6))
def test_property_theorems_1_2_never_violate(seed, a, b):
    """Theorem 1 (eq. 10, reports a vs b) and Theorem 2 (eq. 12, reports a vs absent) for any rest."""
    rng = np.random.default_rng(seed)
    rest = sum_of_users([random_pmf(rng, zero_prob=0.0) for _ in range(int(rng.integers(1, 4)))])
    eps = np.array([0.05, 0.5, 2.0])
    at_a, at_b = sum_of_users([rest, LatticePMF(a, np.array([1.0]))]), sum_of_users([rest, LatticePMF(b, np.array([1.0]))])
    for theta, e in zip(theorem1(a, b, epsilons=eps), eps):
        if a != b:
            assert lattice_privacy_loss(at_a, at_b, theta).epsilon <= e * (1 + 1e-9)
    for theta, e in zip(theorem2(a, epsilons=eps), eps):
        if a != 0:
            assert lattice_privacy_loss(at_a, rest, theta).epsilon <= e * (1 + 1e-9)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_property_theorem3_brent_never_above_theorem3_max(seed):
    """eq. (13) solved exactly is never larger than its bound eq. (14) (E e^{|t|/theta} <= e^{max|t|/theta})."""
    rng = np.random.default_rng(seed)
    pmf = random_pmf(rng)
    eps = np.array([0.01, 0.1, 0.5, 1.0, 2.0])
    assert np.all(theorem3_brent(pmf, epsilons=eps) <= theorem3_max(pmf, epsilons=eps) * (1 + 1e-9))


def test_the_loss_at_tiny_scales_is_the_priors_own():
    """theta <= 1.25e-3 (1/theta >= 800): the loss is computed from each lattice point's nearest atoms
    with the common factor e^(-d/theta) cancelled, so even theta = 1e-250 gives the divergence of the
    priors, max |log P/Q| (and a shift d apart d/theta)."""
    p = LatticePMF.from_values([-2, -1, 0], [0.3, 0.3, 0.4])
    q = LatticePMF.from_values([-2, -1, 0], [0.5, 0.25, 0.25])
    want = (math.log(0.4 / 0.25), math.log(0.5 / 0.3))
    for theta in (1e-3, 1e-10, 1e-100, 1e-250):
        loss = lattice_privacy_loss(p, q, theta)
        assert (loss.forward, loss.backward) == (certified(want[0]), certified(want[1]))     # issue 39
    assert lattice_privacy_loss(LatticePMF.point(0), LatticePMF.point(3), 1e-250).epsilon == certified(3e250)


def test_the_hockey_stick_at_tiny_scales_is_the_priors_own():
    """theta <= 1.25e-3: every Laplace bump puts below e^-800 of its mass beyond the next lattice
    point, so delta is sum_x [P(x) - e^eps Q(x)]_+ to double precision (worked out by hand)."""
    from pufferfish.audit.laplace_lattice import laplace_hockey_stick

    p = LatticePMF.from_values([-2, -1, 0], [0.3, 0.3, 0.4])
    q = LatticePMF.from_values([-2, -1, 0], [0.5, 0.25, 0.25])
    c = math.exp(0.3)
    want = (max(0.3 - c * 0.5, 0) + max(0.3 - c * 0.25, 0) + max(0.4 - c * 0.25, 0),
            max(0.5 - c * 0.3, 0) + max(0.25 - c * 0.3, 0) + max(0.25 - c * 0.4, 0))
    for theta in (1e-3, 1e-10, 1e-100, 1e-250):
        assert laplace_hockey_stick(p, q, epsilon=0.3, scale=theta) == pytest.approx(want, rel=1e-14)

"""W_p, W_inf, the near mass and Delta_delta (paper 002, Def. 4.2) against hand values, scipy and linprog."""
import math
from fractions import Fraction

import numpy as np
import ot
import pytest
from hypothesis import assume, given, settings, strategies as st
from scipy import optimize, stats

from pufferfish.errors import ConfigError
from pufferfish.lattice.distances import delta_near, near_mass, wasserstein_inf, wasserstein_p
from pufferfish.lattice.pmf import LatticePMF
from tests.helpers import random_pmf

F = Fraction


def lp_near_mass(p, q, distance):
    """max sum_{|x - x'| <= distance} pi(x, x') over couplings pi of p and q (scipy's HiGHS LP)."""
    xs, ys = p.support, q.support
    a, b = p.probs[xs - p.lo], q.probs[ys - q.lo]
    n, m = xs.size, ys.size
    near = (np.abs(xs[:, None] - ys[None, :]) <= distance).ravel()
    eq = np.zeros((n + m, n * m))
    for i in range(n):
        eq[i, i * m:(i + 1) * m] = 1.0
    for j in range(m):
        eq[n + j, j::m] = 1.0
    res = optimize.linprog(-near.astype(float), A_eq=eq, b_eq=np.concatenate((a, b)), bounds=(0, None),
                           method="highs")
    assert res.status == 0
    return -res.fun


def lp_candidates(p, q):
    """Every distance |x - x'| between atoms with the LP near mass there, increasing."""
    ds = np.unique(np.abs(p.support[:, None] - q.support[None, :]))
    return ds, np.array([lp_near_mass(p, q, d) for d in ds])


# ------------------------------------------------------------------------ W_p and W_inf
def test_w2_and_winf_by_hand():
    # quantile coupling: [0, 1/4) 0 -> 0, [1/4, 1/2) 0 -> 1, [1/2, 1) 2 -> 4
    # W_2^2 = 1/4 * 0 + 1/4 * 1 + 1/2 * 4 = 9/4, W_1 = 1/4 + 1 = 5/4, W_inf = 2
    p = LatticePMF.from_values([0, 2], [0.5, 0.5])
    q = LatticePMF.from_values([0, 1, 4], [0.25, 0.25, 0.5])
    assert wasserstein_p(p, q, 2) == 1.5
    assert wasserstein_p(p, q, 1) == 1.25
    assert wasserstein_p(p, q, 3) == pytest.approx((0.25 + 0.5 * 8) ** (1 / 3), rel=1e-15)
    assert wasserstein_inf(p, q) == 2 and wasserstein_p(p, q, math.inf) == 2.0


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_w1_matches_scipy_and_w2_matches_pot(seed):
    rng = np.random.default_rng(seed)
    p, q = random_pmf(rng), random_pmf(rng)
    w1 = stats.wasserstein_distance(p.values, q.values, p.probs, q.probs)
    assert wasserstein_p(p, q, 1) == pytest.approx(w1, rel=1e-12, abs=1e-14)
    cost = (p.values[:, None] - q.values[None, :]).astype(float) ** 2
    w2sq = ot.emd2(p.probs / p.probs.sum(), q.probs / q.probs.sum(), cost)
    assert wasserstein_p(p, q, 2) == pytest.approx(math.sqrt(w2sq), rel=1e-9, abs=1e-12)


def test_wp_refuses_order_below_one():
    p = LatticePMF.point(0)
    with pytest.raises(ConfigError, match="order"):
        wasserstein_p(p, p, 0.5)
    with pytest.raises(TypeError, match="LatticePMF"):
        wasserstein_inf(p, [1.0])


# ------------------------------------------------------------------------ near mass, Delta_delta
def test_the_issue_example():
    """P = {0, 10}, Q = {10, 20} uniform: the monotone coupling needs 10, pairing 10 with 10 needs 0."""
    p = LatticePMF.from_values([0, 10], [0.5, 0.5])
    q = LatticePMF.from_values([10, 20], [0.5, 0.5])
    assert near_mass(p, q, 0) == 0.5 and near_mass(p, q, 9.99) == 0.5 and near_mass(p, q, 10) == 1.0
    assert delta_near(p, q, 0.5) == 0
    assert delta_near(p, q, 0.49) == 10
    assert delta_near(p, q, 0) == 10 == wasserstein_inf(p, q)
    # the same pair without exact fractions
    pf, qf = LatticePMF(0, p.probs), LatticePMF(10, q.probs)
    assert pf.exact is None and delta_near(pf, qf, 0.5) == 0 and delta_near(pf, qf, 0.49) == 10


def test_near_mass_by_hand_with_an_unmatched_middle():
    """P uniform on {0, 1, 2}, Q uniform on {0, 3, 6}.

    D = 0, 1: at most two of the pairs (0,0), (1,0), (2,3) at once: 1/3 (D = 0), 2/3 (D = 1:
    0 -> 0, 2 -> 3); D = 2, 3: y = 6 is still out of reach of every x <= 2: 2/3; D = 4: 2 -> 6: 1.
    """
    third = F(1, 3)
    p = LatticePMF.from_values([0, 1, 2], [third] * 3)
    q = LatticePMF.from_values([0, 3, 6], [third] * 3)
    assert [near_mass(p, q, d) for d in range(6)] == [1 / 3, 2 / 3, 2 / 3, 2 / 3, 1.0, 1.0]
    assert delta_near(p, q, 0) == 4 == wasserstein_inf(p, q)
    assert delta_near(p, q, F(1, 3)) == 1                  # exactly 1 - 1/3 = 2/3 is enough
    assert delta_near(p, q, 0.33) == 4
    assert delta_near(p, q, 0.5) == 1 and delta_near(p, q, F(2, 3)) == 0


def test_delta_is_read_as_written():
    """Masses 0.1 / 0.9 are read as 1/10, 9/10, and delta = 0.1 as 1/10: the tie is met."""
    p = LatticePMF.from_values([0, 5], [0.9, 0.1])
    q = LatticePMF.point(0)
    assert delta_near(p, q, 0.1) == 0 and delta_near(p, q, 0.0999) == 5


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), distance=st.integers(0, 8))
def test_near_mass_matches_linprog(seed, distance):
    rng = np.random.default_rng(seed)
    p, q = random_pmf(rng, lo=int(rng.integers(-6, 7))), random_pmf(rng, lo=int(rng.integers(-6, 7)))
    assert near_mass(p, q, distance) == pytest.approx(lp_near_mass(p, q, distance), abs=1e-9)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), delta=st.floats(0.0, 0.95))
def test_delta_near_matches_linprog(seed, delta):
    rng = np.random.default_rng(seed)
    p, q = random_pmf(rng, lo=int(rng.integers(-6, 7))), random_pmf(rng, lo=int(rng.integers(-6, 7)))
    ds, masses = lp_candidates(p, q)
    assume(np.all(np.abs(masses - (1 - delta)) > 1e-7))     # no tie the LP's tolerance could decide
    expected = int(ds[np.argmax(masses >= 1 - delta)])    # the smallest accepted candidate distance
    assert delta_near(p, q, delta) == expected


def test_exact_fraction_priors_match_linprog():
    """Paper 000's Table 4 pair (exact fractions): every Delta_delta against the LP's."""
    p = LatticePMF.from_values(range(1, 6), [0.2, 0.225, 0.5, 0.075, 0.0])
    q = LatticePMF.from_values(range(1, 6), [0.0, 0.075, 0.5, 0.225, 0.2])
    ds, masses = lp_candidates(p, q)
    for d, m in zip(ds, masses):
        assert near_mass(p, q, d) == pytest.approx(m, abs=1e-12)
    # by hand: D = 0 keeps sum_x min(P(x), Q(x)) = .075 + .5 + .075 = .65; D = 2 = W_inf keeps everything
    assert near_mass(p, q, 0) == 0.65
    assert delta_near(p, q, 0.35) == 0 and delta_near(p, q, 0.3499) > 0
    assert delta_near(p, q, 0) == 2 == wasserstein_inf(p, q)


@pytest.mark.parametrize("bad, error, fragment", [
    (-0.1, ConfigError, "delta = -0.1"), (1.0, ConfigError, "delta = 1.0"), (math.nan, ConfigError, "delta"),
    ("0.1", TypeError, "delta"), (True, TypeError, "delta"),
])
def test_delta_near_refuses_bad_delta(bad, error, fragment):
    p = LatticePMF.point(0)
    with pytest.raises(error, match=fragment):
        delta_near(p, p, bad)


@pytest.mark.parametrize("bad, error", [(-1, ConfigError), (math.nan, ConfigError), (None, TypeError)])
def test_near_mass_refuses_bad_distance(bad, error):
    p = LatticePMF.point(0)
    with pytest.raises(error, match="distance"):
        near_mass(p, p, bad)


def test_large_float_priors_by_hand():
    """Uniform on 0..999 against uniform on 500..1499 (floats): only x >= 500 - D reach a y, and
    x -> x + D reaches all of 500..999 + D, so near(D) = (500 + D) / 1000 and Delta_delta = 500 - 1000 delta."""
    p = LatticePMF(0, np.full(1000, 1e-3))
    q = LatticePMF(500, np.full(1000, 1e-3))
    assert [near_mass(p, q, d) for d in (0, 1, 137, 499, 500)] == [0.5, 0.501, 0.637, 0.999, 1.0]
    assert delta_near(p, q, 0.25) == 250 and delta_near(p, q, 0.251) == 249 and delta_near(p, q, 0.2509) == 250 and delta_near(p, q, 0.0) == 500
    # a wide bell with tails down to 1e-300 and its shift by 3: Delta_0 is W_inf
    k = np.arange(2000)
    probs = np.exp(-0.5 * ((k - 1000) / 40.0) ** 2)
    probs[probs < 1e-300] = 0.0
    bell = LatticePMF(0, probs / probs.sum())
    assert delta_near(bell, bell.shift(3), 0) == 3 == wasserstein_inf(bell, bell.shift(3))

"""The tupling mechanism (pufferfish.distp.tupling) against brute force over ordered tuples.

The oracle builds the law of the released tuple from the mechanism's description alone: the
real value (drawn from lambda_b A) at each of the n = k + 1 positions with probability 1/n,
dummies i.i.d. nu elsewhere, tuples enumerated with itertools.product; delta is then the
hockey stick over all tuples (fsum), pure eps the largest log ratio. Small cases: m <= 5
outputs, k <= 4 dummies, random pmfs from hypothesis.
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.distp import Tupling, certified_positive_part, distp_delta, pure_epsilon, tupling_over
from pufferfish.errors import InvalidArgumentError
from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse


def brute_force_laws(channel, nu, k, lambdas):
    """The laws of the released tuple, from the description: position i of the real value, dummies elsewhere."""
    size, n = channel.shape[1], k + 1
    laws = []
    for lam in lambdas:
        mu = np.asarray(lam) @ channel
        law = {}
        for place in range(n):
            for t in itertools.product(range(size), repeat=n):
                mass = mu[t[place]] / n
                for j in range(n):
                    if j != place:
                        mass *= nu[t[j]]
                law[t] = law.get(t, 0.0) + mass
        laws.append(law)
    return laws


def brute_force_delta(law0, law1, eps):
    """The hockey stick over all tuples; its own rounding is at most about 8 u (1 + e^eps) (see slack)."""
    big = math.exp(eps)
    return max(math.fsum(max(law0[t] - big * law1[t], 0.0) for t in law0),
               math.fsum(max(law1[t] - big * law0[t], 0.0) for t in law0))


def slack(eps):
    """The brute force's absolute error: each term P0 - e^eps P1 is exact to 2 ulps of P0 + e^eps P1, summed over t."""
    return 8 * 2.0 ** -53 * (1 + math.exp(eps))


pmf = st.integers(2, 5).flatmap(lambda m: st.lists(st.floats(0.01, 1), min_size=m, max_size=m))


def normalise(values):
    a = np.array(values, dtype=float)
    return a / a.sum()


@settings(deadline=None)
@given(st.integers(2, 4), st.integers(0, 3), st.floats(0.05, 4), st.data())
def test_exact_route_against_brute_force(m, k, eps_a, data):
    draw = lambda: normalise(data.draw(st.lists(st.floats(0.01, 1), min_size=m, max_size=m)))  # noqa: E731
    lam0, lam1, marginal = draw(), draw(), draw()
    mechanism = tupling_over(RandomizedResponse(m, eps_a), dummies=k, dummy_distribution="marginal",
                             marginal=marginal)
    law0, law1 = brute_force_laws(mechanism.channel, mechanism.dummy_law, k, (lam0, lam1))
    assert np.allclose(mechanism.tuple_law(lam0 @ mechanism.channel),
                       np.array([law0[t] for t in sorted(law0)]).reshape((m,) * (k + 1)), rtol=1e-13, atol=0)
    pure = max(abs(math.log(law0[t] / law1[t])) for t in law0)
    assert mechanism.pure_epsilon(lam0, lam1) == pytest.approx(pure, rel=1e-12, abs=1e-15)
    for eps in (0.0, 0.3 * pure, 0.8 * pure):
        got = mechanism.delta(lam0, lam1, epsilon=eps)
        # a certified interval, about 1e-12 relative wide
        assert got.method in ("exact", "zero") and got.delta <= got.delta_upper <= got.delta * (1 + 1e-9) + 1e-300
        assert got.delta_upper == pytest.approx(brute_force_delta(law0, law1, eps), rel=1e-12, abs=slack(eps))


@pytest.mark.parametrize("k", [0, 1, 3, 4])
def test_geometric_base_on_a_domain_with_gaps(k):
    # domain {1, 3, 4}: outputs 1..4, the uniform nu covers the output 2 that no input holds
    base = ClampedGeometric((1, 3, 4), 0.8)
    lam0, lam1 = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.2, 0.6])
    mechanism = tupling_over(base, dummies=k)
    law0, law1 = brute_force_laws(mechanism.channel, mechanism.dummy_law, k, (lam0, lam1))
    for eps in (0.0, 0.4, 1.1):
        assert mechanism.delta(lam0, lam1, epsilon=eps).delta == pytest.approx(
            brute_force_delta(law0, law1, eps), rel=1e-12, abs=slack(eps))
    with pytest.raises(InvalidArgumentError, match="no mass on output 1, which the base mechanism reports"):
        tupling_over(base, dummies=k, dummy_distribution="marginal", marginal=[0.5, 0.25, 0.25])


@settings(deadline=None)
@given(st.integers(2, 5), st.floats(0.1, 6), st.data())
def test_consequences_k0_is_the_base_pure_eps_constant_delta_non_increasing(m, eps_a, data):
    draw = lambda: normalise(data.draw(st.lists(st.floats(0.01, 1), min_size=m, max_size=m)))  # noqa: E731
    lam0, lam1 = draw(), draw()
    rr = RandomizedResponse(m, eps_a)
    mu0, mu1 = rr.output_law(lam0), rr.output_law(lam1)
    base_pure = pure_epsilon(mu0, mu1)
    for eps in (0.0, 0.25 * base_pure, 0.6 * base_pure):
        deltas = [tupling_over(rr, dummies=k).delta(lam0, lam1, epsilon=eps).delta for k in range(7)]
        assert deltas[0] == pytest.approx(distp_delta(mu0, mu1, epsilon=eps), rel=1e-13, abs=slack(eps))
        assert all(b <= a * (1 + 1e-12) + 1e-17 for a, b in zip(deltas, deltas[1:])), deltas
    for k in (0, 3, 50):
        assert tupling_over(rr, dummies=k).pure_epsilon(lam0, lam1) == pytest.approx(base_pure, rel=1e-12, abs=1e-15)


@settings(deadline=None)
@given(st.integers(2, 4), st.integers(1, 4), st.floats(0.2, 5), st.data())
def test_certified_route_contains_brute_force(m, k, eps_a, data):
    draw = lambda: normalise(data.draw(st.lists(st.floats(0.01, 1), min_size=m, max_size=m)))  # noqa: E731
    lam0, lam1, nu = draw(), draw(), draw()
    mechanism = Tupling(RandomizedResponse(m, eps_a).matrix(), k, nu)
    law0, law1 = brute_force_laws(mechanism.channel, nu, k, (lam0, lam1))
    mu0, mu1 = lam0 @ mechanism.channel, lam1 @ mechanism.channel
    eps = 0.3 * pure_epsilon(mu0, mu1)
    exact = brute_force_delta(law0, law1, eps)
    n = k + 1
    ends = [certified_positive_part(w, w, nu, n, rtol=1e-6) for w in ((mu0 - math.exp(eps) * mu1) / nu,
                                                                       (mu1 - math.exp(eps) * mu0) / nu)]
    lower, upper = max(e.lower for e in ends) / n, max(e.upper for e in ends) / n
    assert lower - slack(eps) <= exact <= upper + slack(eps)
    assert upper <= lower * (1 + 1e-6) + 1e-300


def test_exact_and_certified_routes_agree_where_both_apply():
    # m = 3 outputs, k = 150: C(153, 2) = 11,628 count vectors (exact) against the grid
    rng = np.random.default_rng(11)
    lam0, lam1 = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))
    mechanism = tupling_over(RandomizedResponse(3, 3.0), dummies=150)
    mu0, mu1 = mechanism.output_laws(lam0, lam1)
    for eps in (0.0, 0.05, 0.2):
        exact = mechanism.delta(lam0, lam1, epsilon=eps)
        assert exact.method == "exact"
        certified = [certified_positive_part(w, w, mechanism.dummy_law, 151, rtol=1e-7, atol=1e-15 * 151)
                     for w in ((mu0 - math.exp(eps) * mu1) * 3, (mu1 - math.exp(eps) * mu0) * 3)]
        lower, upper = max(c.lower for c in certified) / 151, max(c.upper for c in certified) / 151
        # the two certified intervals overlap (the count vectors' is about 1e-11 relative wide)
        assert lower <= exact.delta_upper and exact.delta <= upper
        assert exact.delta_upper <= exact.delta * (1 + 1e-9)
        assert upper <= lower * (1 + 1e-7) + 1e-15


def test_the_grid_route_of_the_mechanism_meets_its_tolerance():
    rng = np.random.default_rng(4)
    lam0, lam1 = rng.dirichlet(np.ones(8)), rng.dirichlet(np.ones(8))
    mechanism = tupling_over(RandomizedResponse(8, 2.0), dummies=30)
    result = mechanism.delta(lam0, lam1, epsilon=0.1, rtol=1e-4)
    assert result.method == "grid" and result.within_tolerance
    assert 0 < result.delta <= result.delta_upper <= result.delta * (1 + 1e-4) + 1e-15
    smaller = tupling_over(RandomizedResponse(8, 2.0), dummies=5).delta(lam0, lam1, epsilon=0.1)
    assert smaller.method == "exact" and smaller.delta >= result.delta       # fewer dummies, more delta


def test_eps_at_or_beyond_the_pure_eps_gives_zero():
    rr = RandomizedResponse(4, 1.0)
    lam0, lam1 = [0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]
    mechanism = tupling_over(rr, dummies=500)
    pure = mechanism.pure_epsilon(lam0, lam1)
    beyond = mechanism.delta(lam0, lam1, epsilon=pure * (1 + 1e-9))
    assert (beyond.delta, beyond.delta_upper, beyond.method) == (0.0, 0.0, "zero")
    at = mechanism.delta(lam0, lam1, epsilon=pure)          # e^eps known to 4 ulps: 0 within the tolerance
    assert at.delta_upper <= 1e-15 and at.within_tolerance


@pytest.mark.parametrize("call, text", [
    (lambda: Tupling(np.eye(2), 1, [1.0, 0.0]), "dummy_law: no mass on output 1"),
    (lambda: Tupling(np.eye(2), -1, [0.5, 0.5]), "dummies = -1"),
    (lambda: Tupling(np.eye(2), 1, [0.5, 0.25, 0.25]), "dummy_law: 3 masses for 2 outputs"),
    (lambda: Tupling([0.5, 0.5], 1, [0.5, 0.5]), "channel: shape (2,)"),
    (lambda: tupling_over(RandomizedResponse(3, 1.0), dummies=2, dummy_distribution="zipf"),
     "dummy_distribution = 'zipf'"),
    (lambda: tupling_over(RandomizedResponse(3, 1.0), dummies=2, dummy_distribution="marginal"), "marginal:"),
    (lambda: tupling_over(RandomizedResponse(3, 1.0), dummies=2).delta([1, 0, 0], [0, 1, 0], epsilon=701),
     "epsilon = 701"),
    (lambda: tupling_over(RandomizedResponse(3, 1.0), dummies=2).delta([1, 0], [0, 1, 0], epsilon=1),
     "lambda0: 2 masses, must be 3"),
])
def test_bad_input_is_one_line(call, text):
    with pytest.raises(InvalidArgumentError) as caught:
        call()
    assert text in str(caught.value) and "\n" not in str(caught.value)

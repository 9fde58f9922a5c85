"""Weak dependence (Prop. 6.1), parallel composition (Prop. E.1) and the scales fed to the GWM methods.

Weak dependence: a worked two-record example (the monotone couplings written out), the
independent case (the bound is exact), and the triangle inequality on random joints.
Parallel composition: the Renyi divergence of the joint output computed directly on the
product of the parts' output laws. Scales: against closed forms and 40-digit mpmath (the
Balle-Wang delta solved for sigma, the Cauchy Renyi-2 divergence by quadrature), w from 1e-8 to 1e8.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError, NotApplicableError
from pufferfish.mechanisms.gaussian import ANALYTIC_RTOL
from pufferfish.sensitivity.composition import RenyiGuarantee, parallel_composition
from pufferfish.sensitivity.scales import scales_from_sensitivity
from pufferfish.sensitivity.weak_dependence import (JointLatticePrior, RecordSecret, product_of_marginals, query_given,
                                                    weak_dependence_bound)

PAIR = [(RecordSecret(0, 0), RecordSecret(0, 1))]


# ------------------------------------------------------------------------------ Prop. 6.1
def test_weak_dependence_worked_example():
    # two binary records, theta = [[0.4, 0.1], [0.1, 0.4]], F = x0 + x1, secret x0 = 0 vs 1.
    # theta:     F | x0=0 = {0: .8, 1: .2},  F | x0=1 = {1: .2, 2: .8}
    #            monotone coupling: (0,1) .2, (0,2) .6, (1,2) .2 -> exact W_inf = 2
    # theta_bar: x1 ~ (.5, .5): F | x0=0 = {0: .5, 1: .5}, F | x0=1 = {1: .5, 2: .5} -> Delta = 1
    # dependence: {0: .8, 1: .2} vs {0: .5, 1: .5}: (0,0) .5, (0,1) .3, (1,1) .2 -> 1 (same for x0 = 1)
    # bound = 1 + 2 * 1 = 3 >= 2
    prior = JointLatticePrior(((0, 1), (0, 1)), [[0.4, 0.1], [0.1, 0.4]])
    got = weak_dependence_bound(prior, PAIR)
    assert (got.independent, got.dependence, got.bound, got.exact) == (1, 1, 3, 2)
    law = query_given(prior, RecordSecret(0, 1))
    assert law.lo == 1 and law.probs == pytest.approx([0.2, 0.8])


def test_independent_records_make_the_bound_exact():
    # theta = theta_bar: the dependence term is 0 and the bound is the exact sensitivity
    prior = product_of_marginals(JointLatticePrior(((0, 1, 2), (0, 3)), [[0.1, 0.2], [0.3, 0.1], [0.2, 0.1]]))
    got = weak_dependence_bound(prior, [(RecordSecret(0, 0), RecordSecret(0, 2)), (RecordSecret(1, 0), RecordSecret(1, 3))])
    assert got.dependence == 0 and got.bound == got.independent == got.exact == 3
    # product_of_marginals keeps the marginals
    joint = JointLatticePrior(((0, 1, 2), (0, 3)), [[0.1, 0.2], [0.3, 0.1], [0.2, 0.1]])
    bar = product_of_marginals(joint)
    for k in range(2):
        assert list(bar.marginal(k)) == list(joint.marginal(k))   # exact fractions


@pytest.mark.parametrize("seed", range(6))
def test_bound_holds_on_random_joints(seed):
    rng = np.random.default_rng(seed)
    values = ((0, 1, 2), (0, 2), (1, 4, 5))
    probs = rng.dirichlet(np.ones(18)).reshape(3, 2, 3)
    prior = JointLatticePrior(values, probs)
    pairs = [(RecordSecret(0, 0), RecordSecret(0, 2)), (RecordSecret(2, 1), RecordSecret(2, 5))]
    for weights in (None, [1, -2, 3]):
        got = weak_dependence_bound(prior, pairs, weights=weights)
        assert got.exact <= got.bound == got.independent + 2 * got.dependence


def test_weak_dependence_validation():
    with pytest.raises(InvalidDistributionError, match="total mass"):
        JointLatticePrior(((0, 1),), [0.5, 0.6])
    with pytest.raises(InvalidDistributionError):
        JointLatticePrior(((0, 1),), [1.5, -0.5])
    with pytest.raises(InvalidArgumentError, match="shape"):
        JointLatticePrior(((0, 1), (0, 1)), [0.5, 0.5])
    with pytest.raises(InvalidArgumentError, match="repeated"):
        JointLatticePrior(((0, 0),), [0.5, 0.5])
    with pytest.raises(InvalidArgumentError, match="values"):
        JointLatticePrior(((0, 1.5),), [0.5, 0.5])
    prior = JointLatticePrior(((0, 1), (0, 1)), [[0.5, 0.0], [0.0, 0.5]])
    with pytest.raises(InvalidArgumentError, match="probability 0"):
        query_given(JointLatticePrior(((0, 1), (0, 1)), [[1.0, 0.0], [0.0, 0.0]]), RecordSecret(0, 1))
    with pytest.raises(InvalidArgumentError, match="takes the values"):
        query_given(prior, RecordSecret(0, 7))
    with pytest.raises(InvalidArgumentError, match="record"):
        query_given(prior, RecordSecret(2, 0))
    with pytest.raises(ArgumentTypeError, match="RecordSecret"):
        query_given(prior, (0, 1))
    with pytest.raises(InvalidArgumentError, match="pairs"):
        weak_dependence_bound(prior, [])
    with pytest.raises(InvalidArgumentError, match="weights"):
        weak_dependence_bound(prior, PAIR, weights=[1])


# ------------------------------------------------------------------------------ Prop. E.1
@pytest.mark.parametrize("epsilons, alpha, expected", [
    ([0.5], 2, 0.5), ([0.1, 0.7, 0.3], 2, 0.7), ([2.0, 2.0], 10, 2.0), ([0.0, 1e-12], 1.5, 1e-12),
    ([1e6, 3.0], math.inf, 1e6),
])
def test_parallel_composition_table(epsilons, alpha, expected):
    assert parallel_composition(epsilons, alpha=alpha) == RenyiGuarantee(float(alpha), expected)


def _renyi(p, q, alpha):
    return math.log(np.sum(p ** alpha * q ** (1 - alpha))) / (alpha - 1)


def test_parallel_composition_against_the_joint_renyi_divergence():
    # part 1: randomized response on a bit, P1 = (3/4, 1/4), Q1 = (1/4, 3/4) (secret of part 1);
    # part 2: a 3-output mechanism on an independent part, P2 = (.5, .3, .2) vs Q2 = (.2, .3, .5).
    # A secret of part k leaves the other part's output law R unchanged (it is independent):
    # the joint output laws are P_k x R and Q_k x R, and D_alpha of the product is D_alpha(P_k || Q_k).
    parts = [(np.array([0.75, 0.25]), np.array([0.25, 0.75])),
             (np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5]))]
    for alpha in (1.5, 2.0, 7.0):
        eps = [max(_renyi(p, q, alpha), _renyi(q, p, alpha)) for p, q in parts]
        guarantee = parallel_composition(eps, alpha=alpha)
        for k, (p, q) in enumerate(parts):
            other = parts[1 - k][0]                    # any law of the other part, the same under both secrets
            joint_p, joint_q = np.multiply.outer(p, other).ravel(), np.multiply.outer(q, other).ravel()
            loss = max(_renyi(joint_p, joint_q, alpha), _renyi(joint_q, joint_p, alpha))
            assert loss == pytest.approx(eps[k], rel=1e-12)
            assert loss <= guarantee.epsilon * (1 + 1e-12)
        assert guarantee.epsilon == pytest.approx(max(eps))
        # a secret that moved both parts would pay the sum (sequential), more than the max
        both = max(_renyi(np.multiply.outer(parts[0][0], parts[1][0]).ravel(),
                          np.multiply.outer(parts[0][1], parts[1][1]).ravel(), alpha), 0)
        assert both == pytest.approx(_renyi(*parts[0], alpha) + _renyi(*parts[1], alpha), rel=1e-12)
        assert both > guarantee.epsilon


@pytest.mark.parametrize("epsilons, alpha, err", [
    ([], 2, InvalidArgumentError), ([-0.1], 2, InvalidArgumentError), ([math.nan], 2, InvalidArgumentError),
    ([math.inf], 2, InvalidArgumentError), ("0.5", 2, ArgumentTypeError), ([0.5], 1.0, InvalidArgumentError),
    ([0.5], 0.5, InvalidArgumentError), ([0.5], "2", ArgumentTypeError), (["a"], 2, ArgumentTypeError),
    ([0.5], True, ArgumentTypeError),
])
def test_parallel_composition_validation(epsilons, alpha, err):
    with pytest.raises(err):
        parallel_composition(epsilons, alpha=alpha)


# ------------------------------------------------------------------------------ scales fed to the GWM methods
def _balle_wang_delta(w, sigma, eps):
    """delta of one shift w under N(0, sigma^2) at eps (Balle & Wang 2018, Thm. 8), in 40-digit mpmath."""
    w, sigma, eps = mp.mpf(w), mp.mpf(sigma), mp.mpf(eps)
    return mp.ncdf(w / (2 * sigma) - eps * sigma / w) - mp.exp(eps) * mp.ncdf(-w / (2 * sigma) - eps * sigma / w)


def _cauchy_renyi2(w, gamma):
    """D_2(C(w, gamma) || C(0, gamma)) = log int p^2 / q, by mpmath quadrature of the two densities."""
    p = lambda x: gamma / (mp.pi * (gamma ** 2 + (x - w) ** 2))  # noqa: E731
    q = lambda x: gamma / (mp.pi * (gamma ** 2 + x ** 2))  # noqa: E731
    return mp.log(mp.quad(lambda x: p(x) ** 2 / q(x), [-mp.inf, 0, w, mp.inf]))


@pytest.mark.parametrize("w", [1e-8, 1.0, 7.0, 250.0, 1e8])
def test_scales_from_sensitivity_against_independent_oracles(w):
    """gwm_laplace: b = w / eps (Cor. 3.1); gwm_gaussian_analytic: the root of the Balle-Wang delta(sigma)
    = delta, solved in mpmath (brentq on log sigma stops within 4 ANALYTIC_RTOL |log sigma| of it, the 1e-15
    nudges aside: twice that is allowed), and delta(sigma) <= delta up to its float evaluation (1e-12);
    dagwm_cauchy: the Renyi-2 divergence of the two Cauchy laws at gamma, by mpmath quadrature, is eps."""
    mp.mp.dps = 40
    epsilons, delta = [1e-3, 0.1, 1.0, 5.0, 20.0], 1e-5
    laplace = scales_from_sensitivity("gwm_laplace", w_inf=w, w_2=w, epsilons=epsilons)
    np.testing.assert_allclose(laplace, [w / e for e in epsilons], rtol=1e-15)
    gauss = scales_from_sensitivity("gwm_gaussian_analytic", w_inf=w, w_2=w, epsilons=epsilons, delta=delta)
    cauchy = scales_from_sensitivity("dagwm_cauchy", w_inf=w, w_2=w, epsilons=epsilons, alpha=2)
    for e, sigma, gamma in zip(epsilons, gauss, cauchy):
        root = mp.findroot(lambda x: _balle_wang_delta(w, x, e) - mp.mpf(delta), (sigma * 0.99, sigma * 1.01),
                           solver="anderson")
        assert abs(float(sigma / root) - 1) <= 8 * ANALYTIC_RTOL * max(1.0, abs(math.log(sigma)))
        assert float(_balle_wang_delta(w, sigma, e)) <= delta * (1 + 1e-12)
        assert float(_cauchy_renyi2(w, mp.mpf(gamma))) == pytest.approx(e, rel=1e-13)


def test_scales_validation():
    with pytest.raises(InvalidArgumentError, match="method"):
        scales_from_sensitivity("tight_laplace", w_inf=1, w_2=1, epsilons=[1.0])
    with pytest.raises(NotApplicableError, match="alpha"):
        scales_from_sensitivity("dagwm_cauchy", w_inf=1, w_2=1, epsilons=[1.0], alpha=3)
    with pytest.raises(InvalidArgumentError, match="delta"):
        scales_from_sensitivity("gwm_gaussian_analytic", w_inf=1, w_2=1, epsilons=[1.0], delta=1.0)
    with pytest.raises(InvalidArgumentError, match="w_inf"):
        scales_from_sensitivity("gwm_laplace", w_inf=-1, w_2=1, epsilons=[1.0])
    with pytest.raises(InvalidArgumentError, match="epsilons"):
        scales_from_sensitivity("gwm_laplace", w_inf=1, w_2=1, epsilons=[0.0])

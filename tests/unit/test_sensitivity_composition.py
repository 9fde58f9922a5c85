"""Weak dependence (Prop. 6.1), parallel composition (Prop. E.1) and the scales fed to the GWM methods.

Every reference is computed here by a second method: weak dependence on a worked two-record
example (the monotone couplings written out), the independent case (the bound is exact), and
random joints whose laws and W_inf are enumerated in exact fractions; parallel composition
against by-hand Renyi divergences, checked on the joint output laws in 40-digit arithmetic; the
scales against their defining equations (b = w / eps; Balle and Wang's hockey stick with scipy;
the Cauchy D_2 by quadrature), from 1e-6 to 1e6.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from fractions import Fraction
from itertools import accumulate

import mpmath
import numpy as np
import pytest

from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError, NotApplicableError
from pufferfish.sensitivity.composition import RenyiGuarantee, parallel_composition
from pufferfish.sensitivity.scales import GWM_METHODS, scales_from_sensitivity
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


def _law(values, probs, record, value, weights):
    """The law of F = sum_k w_k x_k given x_record = value, by enumerating the joint in exact fractions
    (test reference)."""
    law: dict[int, Fraction] = {}
    for index in np.ndindex(probs.shape):
        x = [values[k][i] for k, i in enumerate(index)]
        if x[record] == value and probs[index] > 0:
            f = sum(w * xk for w, xk in zip(weights, x))
            law[f] = law.get(f, Fraction(0)) + probs[index]
    total = sum(law.values())
    return {f: p / total for f, p in law.items()}


def _w_inf(p, q):
    """W_inf of two finite laws on the integers (exact fractions): the largest gap of their quantile
    functions, at the midpoint of every stretch between the merged cumulative masses (test reference)."""
    xs, ys = sorted(p), sorted(q)
    cp, cq = list(accumulate(p[x] for x in xs)), list(accumulate(q[y] for y in ys))
    cuts = [Fraction(0), *sorted(set(cp[:-1]) | set(cq[:-1])), Fraction(1)]
    return max(abs(xs[bisect_left(cp, (a + b) / 2)] - ys[bisect_left(cq, (a + b) / 2)])
               for a, b in zip(cuts, cuts[1:]) if a < b)


@pytest.mark.parametrize("seed", range(6))
def test_bound_holds_on_random_joints(seed):
    # exact and Delta recomputed here by enumeration of the joint and W_inf from quantile functions;
    # the bound (Prop. 6.1) holds above the exact sensitivity
    rng = np.random.default_rng(seed)
    values = ((0, 1, 2), (0, 2), (1, 4, 5))
    probs = rng.dirichlet(np.ones(18)).reshape(3, 2, 3)
    prior = JointLatticePrior(values, probs)
    exact_probs = np.vectorize(Fraction, otypes=[object])(probs)
    bar = np.multiply.outer(np.multiply.outer(exact_probs.sum((1, 2)), exact_probs.sum((0, 2))),
                            exact_probs.sum((0, 1)))
    probs = exact_probs
    pairs = [(RecordSecret(0, 0), RecordSecret(0, 2)), (RecordSecret(2, 1), RecordSecret(2, 5))]
    for weights in (None, [1, -2, 3]):
        w = [1, 1, 1] if weights is None else weights
        got = weak_dependence_bound(prior, pairs, weights=weights)
        exact = max(_w_inf(_law(values, probs, a.record, a.value, w), _law(values, probs, b.record, b.value, w))
                    for a, b in pairs)
        independent = max(_w_inf(_law(values, bar, a.record, a.value, w), _law(values, bar, b.record, b.value, w))
                          for a, b in pairs)
        dependence = max(_w_inf(_law(values, probs, s.record, s.value, w), _law(values, bar, s.record, s.value, w))
                         for pair in pairs for s in pair)
        assert (got.exact, got.independent, got.dependence) == (exact, independent, dependence)
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
    """D_alpha(P || Q) of two finite laws, in 40-digit arithmetic (mpmath: a second method)."""
    with mpmath.workdps(40):
        total = mpmath.fsum(mpmath.mpf(a) ** alpha * mpmath.mpf(b) ** (1 - alpha) for a, b in zip(p, q))
        return mpmath.log(total) / (alpha - 1)


#: D_alpha of the two parts below, by hand: sum_x p^alpha q^(1-alpha), both orders (each pair is a
#: mirror image, so both orders agree). Randomized response (3/4, 1/4) vs (1/4, 3/4): alpha = 2:
#: (9/16)/(1/4) + (1/16)/(3/4) = 7/3; alpha = 3: (27/64)/(1/16) + (1/64)/(9/16) = 27/4 + 1/36 = 61/9.
#: (.5, .3, .2) vs (.2, .3, .5): alpha = 2: .25/.2 + .09/.3 + .04/.5 = 1.63; alpha = 3:
#: .125/.04 + .027/.09 + .008/.25 = 3.457.
with mpmath.workdps(40):
    PARTS = [((mpmath.mpf(3) / 4, mpmath.mpf(1) / 4), (mpmath.mpf(1) / 4, mpmath.mpf(3) / 4)),
             ((mpmath.mpf("0.5"), mpmath.mpf("0.3"), mpmath.mpf("0.2")),
              (mpmath.mpf("0.2"), mpmath.mpf("0.3"), mpmath.mpf("0.5")))]
    BY_HAND = {2: (mpmath.log(mpmath.mpf(7) / 3), mpmath.log(mpmath.mpf("1.63"))),
               3: (mpmath.log(mpmath.mpf(61) / 9) / 2, mpmath.log(mpmath.mpf("3.457")) / 2)}


@pytest.mark.parametrize("alpha", [2, 3])
def test_parallel_composition_against_the_joint_renyi_divergence(alpha):
    # A secret of part k leaves the other part's output law R unchanged (it is independent): the
    # joint output laws are P_k x R and Q_k x R, whose D_alpha (40 digits, from the joint) is part k's
    # by-hand value; the composed guarantee is the larger of the two, log(7/3) at alpha 2 and
    # log(61/9) / 2 at alpha 3
    eps = [float(e) for e in BY_HAND[alpha]]
    guarantee = parallel_composition(eps, alpha=alpha)
    assert guarantee == RenyiGuarantee(float(alpha), float(BY_HAND[alpha][0]))
    with mpmath.workdps(40):
        _check_parts(alpha, guarantee)


def _check_parts(alpha, guarantee):
    for k, (p, q) in enumerate(PARTS):
        other = PARTS[1 - k][0]                        # any law of the other part, the same under both secrets
        joint_p = [a * c for a in p for c in other]
        joint_q = [b * c for b in q for c in other]
        for loss in (_renyi(joint_p, joint_q, alpha), _renyi(joint_q, joint_p, alpha)):
            assert abs(loss - BY_HAND[alpha][k]) < mpmath.mpf(10) ** -30
            assert float(loss) <= guarantee.epsilon * (1 + 1e-15)
    # a secret that moved both parts would pay the sum (sequential composition), more than the max
    both = _renyi([a * c for a in PARTS[0][0] for c in PARTS[1][0]], [b * c for b in PARTS[0][1] for c in PARTS[1][1]],
                  alpha)
    assert abs(both - sum(BY_HAND[alpha])) < mpmath.mpf(10) ** -30 and both > guarantee.epsilon


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
W = [1e-6, 1.0, 7.0, 250.0, 1e6]
EPSILONS = [0.01, 1.0, 5.0]


@pytest.mark.parametrize("w", W)
def test_laplace_scale_is_the_sensitivity_over_epsilon(w):
    # GWM, Cor. 3.1: b = W_inf / eps, whatever W_2
    got = scales_from_sensitivity("gwm_laplace", w_inf=w, w_2=3 * w, epsilons=EPSILONS)
    assert got == pytest.approx([w / e for e in EPSILONS], rel=1e-15)


@pytest.mark.parametrize("w", W)
def test_analytic_gaussian_scale_attains_delta_by_balle_and_wang(w):
    # Balle and Wang's exact hockey stick of a shift w at sigma, computed here with scipy:
    # Phi(w / (2 sigma) - eps sigma / w) - e^eps Phi(-w / (2 sigma) - eps sigma / w); the returned sigma
    # attains delta (it is the smallest such sigma: 0.1 % less gives more than delta)
    from scipy.stats import norm

    def hockey(sigma, eps):
        a, c = w / (2 * sigma), eps * sigma / w
        return norm.cdf(a - c) - math.exp(eps) * norm.cdf(-a - c)

    got = scales_from_sensitivity("gwm_gaussian_analytic", w_inf=w, w_2=w / 3, epsilons=EPSILONS, delta=1e-5)
    for sigma, eps in zip(got, EPSILONS):
        assert hockey(sigma, eps) == pytest.approx(1e-5, rel=1e-6)
        assert hockey(sigma * (1 - 1e-3), eps) > 1e-5


@pytest.mark.parametrize("w", W)
def test_cauchy_scale_attains_epsilon_by_quadrature(w):
    # DAGWM, Cor. 4.1, alpha = 2: D_2 of Cauchy(0, gamma) against Cauchy(W_2, gamma), computed here by
    # quadrature of p^2 / q (a function of W_2 / gamma only: integrated at gamma = 1), equals eps
    from scipy import integrate

    got = scales_from_sensitivity("dagwm_cauchy", w_inf=3 * w, w_2=w, epsilons=EPSILONS, alpha=2)
    for gamma, eps in zip(got, EPSILONS):
        s = w / gamma
        ratio = lambda x: (x - s) ** 2 / math.pi / (x * x + 1) ** 2 + 1 / math.pi / (x * x + 1) ** 2  # noqa: E731
        value = sum(integrate.quad(ratio, lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
                    for lo, hi in ((-math.inf, s / 2), (s / 2, math.inf)))
        assert math.log(value) == pytest.approx(eps, rel=1e-9)


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

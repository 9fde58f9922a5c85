"""Calibration methods of paper 000, against hand values and closed forms."""
import decimal
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.errors import ConfigError, NotApplicableError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import sum_of_users
from pufferfish.multiuser.methods import (bernoulli_eq15, kantorovich, lemma5, lemma6, lemma6_psi, theorem1, theorem2,
                                          theorem3_brent, theorem3_max, theorem4)
from pufferfish.registry import calibrate
from pufferfish.lattice.system import Absent, Draws, Reports, SecretPair, User
from pufferfish.lattice.transport import kantorovich_plan

EPS = np.round(np.arange(1, 11) / 10, 10)


def test_theorem1_and_2_hand_values():
    np.testing.assert_allclose(theorem1(5, 3, epsilons=EPS), 2 / EPS, rtol=0)   # Fig. 1: 2/eps
    np.testing.assert_allclose(theorem2(5, epsilons=EPS), 5 / EPS, rtol=0)      # Fig. 2: 5/eps
    assert theorem1([5, 1], [3, 4], epsilons=[1.0])[0] == 3.0                   # max over users


def test_theorem3_max_is_largest_atom_over_epsilon(p4):
    np.testing.assert_allclose(theorem3_max(p4, epsilons=EPS), 5 / EPS, rtol=0)  # Fig. 3: 5/eps
    neg = LatticePMF.from_values([-7, 2], [0.5, 0.5])
    assert theorem3_max(neg, epsilons=[1.0])[0] == 7.0


def test_theorem3_brent_solves_eq13(p4):
    theta = theorem3_brent(p4, epsilons=EPS)
    for t, e in zip(theta, EPS):
        lhs = 0.4 * math.exp(1 / t) + 0.1 * math.exp(2 / t) + 0.1 * math.exp(4 / t) + 0.4 * math.exp(5 / t)
        assert lhs == pytest.approx(math.exp(e), rel=1e-10)
    assert np.all(theta <= theorem3_max(p4, epsilons=EPS))


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5, 0.9, 0.99])
def test_theorem3_brent_is_eq15_for_bernoulli(p):
    eps = np.array([1e-3, 0.01, 0.1, 0.5, 1.0, 3.0])
    expected = np.array([_eq15_decimal(p, e) for e in eps])   # eq. (15), written out here in 700 digits
    np.testing.assert_allclose(theorem3_brent(LatticePMF.bernoulli(p), epsilons=eps), expected, rtol=1e-12)
    np.testing.assert_allclose(bernoulli_eq15(p, epsilons=eps), expected, rtol=4e-16)


def _eq15_decimal(p, eps) -> float:
    """1 / log((e^eps - (1 - p)) / p) in 700-digit decimal arithmetic (an oracle for eq. 15)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 700  # eps = 1e-300 needs more than 300 digits
        P, E = decimal.Decimal(p), decimal.Decimal(eps)
        return float(1 / ((E.exp() - (1 - P)) / P).ln())


@pytest.mark.parametrize("p, eps", [(0.3, 1e-300), (0.3, 1e-20), (0.5, 800.0), (1e-320, 0.1), (1.0, 2.0), (0.7, 1e-9)])
def test_eq15_at_extreme_epsilons_and_p(p, eps):
    """No overflow to theta = 0 (eps = 800, p subnormal) and no loss of every digit (eps = 1e-300: the
    printed quotient rounds to 1 + 2^-52 and would give theta = 4.5e15 instead of 3e299)."""
    assert bernoulli_eq15(p, epsilons=[eps])[0] == pytest.approx(_eq15_decimal(p, eps), rel=1e-15)


def test_theorem3_brent_degenerate_cases():
    assert theorem3_brent(LatticePMF.point(0), epsilons=[0.5])[0] == 0.0          # nothing to hide
    assert theorem3_brent(LatticePMF.point(4), epsilons=[0.5])[0] == pytest.approx(8.0, rel=1e-15)


def test_theorem4_for_p4_q4(p4, q4):
    np.testing.assert_allclose(theorem4(p4, q4, epsilons=EPS), 2 / EPS, rtol=0)    # sup Delta* = 2


def test_lemma5_and_lemma6_bernoulli_closed_form(table2):
    b2, b9 = LatticePMF.bernoulli(0.2), LatticePMF.bernoulli(0.9)
    rest = sum_of_users(table2)
    eps = np.round(np.arange(1, 41) / 1000, 10)   # Fig. 8 axis
    np.testing.assert_allclose(lemma5(b2, b9, epsilons=eps), 1 / eps, rtol=0)
    # p < q: min psi = p / (q - p) = 0.2 / 0.7, reached one above the largest sum of the rest
    expected = 1.0 / np.log(np.exp(eps) + (np.exp(eps) - 1) * (0.2 / 0.7))
    got = lemma6(b2, b9, rest, epsilons=eps)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert np.all(got < 1 / eps)
    # p > q: min psi = (1 - p) / (p - q) = 0.1 / 0.7 (the derived formula, not the printed one)
    expected_rev = 1.0 / np.log(np.exp(eps) + (np.exp(eps) - 1) * (0.1 / 0.7))
    np.testing.assert_allclose(lemma6(b9, b2, rest, epsilons=eps), expected_rev, rtol=1e-12)


@pytest.mark.parametrize("p, q", [(0.2, 0.9), (0.9, 0.2), (0.3, 0.35), (0.7, 0.1)])
def test_lemma6_psi_equals_the_plan_ratio(p, q, table2):
    """psi(x) is pi*(x', x') / pi*(x' -+ 1, x') of the actual monotone plan (Lemma 6's proof)."""
    rest = sum_of_users(table2)
    bp, bq = LatticePMF.bernoulli(p), LatticePMF.bernoulli(q)
    plan = kantorovich_plan(sum_of_users([rest, bp]), sum_of_users([rest, bq]))
    mass = {(int(a), int(b)): m for a, b, m in zip(plan.x, plan.x_prime, plan.exact_mass)}
    step = -1 if p < q else 1   # the shifted entry of column x' comes from x' - 1 (p < q) or x' + 1 (p > q)
    xs, psi = lemma6_psi(bp, bq, rest)
    for x, value in zip(xs.tolist(), psi):
        shifted = mass.get((x + step, x), 0)
        if shifted == 0:
            assert value == math.inf
        else:
            assert value == pytest.approx(float(mass.get((x, x), 0) / shifted), rel=1e-14)


@settings(max_examples=40, deadline=None)
@given(p=st.floats(0.01, 0.99), q=st.floats(0.01, 0.99), seed=st.integers(0, 10**6))
def test_lemma6_does_not_depend_on_the_rest(p, q, seed):
    if abs(p - q) < 1e-6:
        return
    rng = np.random.default_rng(seed)
    rests = [sum_of_users([LatticePMF(0, w / w.sum()) for w in rng.random((k, 3))]) for k in (1, 3)]
    rests.append(LatticePMF.point(0))
    bp, bq = LatticePMF.bernoulli(p), LatticePMF.bernoulli(q)
    values = [lemma6(bp, bq, r, epsilons=[0.05, 0.5]) for r in rests]
    for v in values[1:]:
        np.testing.assert_allclose(v, values[0], rtol=1e-12)
    assert np.all(values[0] <= lemma5(bp, bq, epsilons=[0.05, 0.5]) * (1 + 1e-12))


def test_bernoulli_methods_refuse_other_priors(p4, q4):
    with pytest.raises(NotApplicableError, match=r"lemma5 needs Bernoulli users.*\[1, 2, 4, 5\]"):
        lemma5(p4, q4, epsilons=[1.0])
    with pytest.raises(NotApplicableError, match="lemma6 needs Bernoulli"):
        lemma6(p4, LatticePMF.bernoulli(0.5), LatticePMF.point(0), epsilons=[1.0])


@pytest.mark.parametrize("bad", [0.0, -0.1, math.inf, math.nan])
def test_bad_epsilon_refused(bad, p4):
    with pytest.raises(ConfigError, match="epsilon"):
        theorem3_max(p4, epsilons=[0.1, bad])


def test_calibrate_dispatch_and_applicability(table2, p4, q4):
    rest = [User(p) for p in table2]
    pair = SecretPair.of(Draws(p4, "P4"), Draws(q4, "Q4"), rest)
    np.testing.assert_allclose(calibrate("kantorovich", pair, epsilons=EPS), 2 / EPS)  # Fig. 6: sup = 2
    np.testing.assert_allclose(calibrate("theorem4", pair, epsilons=EPS), 2 / EPS)
    with pytest.raises(NotApplicableError, match="theorem1"):
        calibrate("theorem1", pair, epsilons=EPS)
    pair3 = SecretPair.of(Absent(), Draws(p4), rest)   # order of the pair does not matter
    np.testing.assert_allclose(calibrate("theorem3_max", pair3, epsilons=EPS), 5 / EPS)
    pair1 = SecretPair.of(Reports(5), Reports(3), rest)
    np.testing.assert_allclose(calibrate("kantorovich", pair1, epsilons=EPS), 2 / EPS)


def test_kantorovich_is_never_below_theorem4_bound(table2, p4, q4):
    rest = sum_of_users(table2)
    k = kantorovich(sum_of_users([rest, p4]), sum_of_users([rest, q4]), epsilons=EPS)
    assert np.all(k <= theorem4(p4, q4, epsilons=EPS))  # W_inf(R+P, R+Q) <= W_inf(P, Q)


@pytest.mark.parametrize("probs", [[0.63728731, 0.0, 0.36271269], [0.5, 0.0, 0.5], [0.9, 0.0, 0.1]])
def test_theorem3_brent_when_abs_d_is_constant(probs):
    """D in {-1, 1}: E exp(|D|/theta) = exp(1/theta), so eq. (13) gives theta = 1/epsilon exactly
    (found by hypothesis: rounding left no sign change in the bracket)."""
    pmf = LatticePMF(-1, np.array(probs) / np.sum(probs))
    eps = np.array([0.1, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(theorem3_brent(pmf, epsilons=eps), 1.0 / eps, rtol=1e-14)

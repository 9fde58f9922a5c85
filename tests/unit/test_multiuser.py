"""Calibration methods of paper 000, against hand values and closed forms."""
import decimal
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from pufferfish.errors import ConfigError, NotApplicableError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import sum_of_users
from pufferfish.audit import lattice_privacy_loss
from pufferfish.multiuser.methods import (LEMMA6_GROUPINGS, bernoulli_eq15, kantorovich, lemma5, lemma6,
                                          lemma6_best_grouping, lemma6_psi, theorem1, theorem2, theorem3_brent,
                                          theorem3_max, theorem4)
from pufferfish.registry import calibrate
from pufferfish.lattice.system import Absent, Draws, Reports, SecretPair, User
from pufferfish.lattice.transport import kantorovich_plan
from tests.helpers import assert_rounded_up, random_pmf

EPS = np.round(np.arange(1, 11) / 10, 10)


def test_theorem1_and_2_hand_values():
    assert_rounded_up(theorem1(5, 3, epsilons=EPS), 2, EPS)   # Fig. 1: 2/eps, rounded upward (a scale)
    assert_rounded_up(theorem2(5, epsilons=EPS), 5, EPS)      # Fig. 2: 5/eps
    assert theorem1([5, 1], [3, 4], epsilons=[1.0])[0] == 3.0                   # max over users


def test_theorem3_max_is_largest_atom_over_epsilon(p4):
    assert_rounded_up(theorem3_max(p4, epsilons=EPS), 5, EPS)  # Fig. 3: 5/eps
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
    assert_rounded_up(theorem4(p4, q4, epsilons=EPS), 2, EPS)    # sup Delta* = 2


def test_lemma5_and_lemma6_bernoulli_closed_form(table2):
    b2, b9 = LatticePMF.bernoulli(0.2), LatticePMF.bernoulli(0.9)
    rest = sum_of_users(table2)
    eps = np.round(np.arange(1, 41) / 1000, 10)   # Fig. 8 axis
    assert_rounded_up(lemma5(b2, b9, epsilons=eps), 1, eps)
    # p < q: min psi = p / (q - p) = 0.2 / 0.7, reached one above the largest sum of the rest
    expected = 1.0 / np.log(np.exp(eps) + (np.exp(eps) - 1) * (0.2 / 0.7))
    got = lemma6(b2, b9, rest, epsilons=eps)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert np.all(got < 1 / eps)   # Fig. 8: "smaller than theta = 1/eps for all eps"
    # p > q, as printed: min psi = q / (p - q) = 0.2 / 0.7, reached at the smallest sum of the rest
    np.testing.assert_allclose(lemma6(b9, b2, rest, epsilons=eps), expected, rtol=1e-12)
    # Fig. 8's pair has p + q = 1.1 >= 1: the printed grouping is the better one, the two methods agree
    np.testing.assert_array_equal(lemma6_best_grouping(b2, b9, rest, epsilons=eps), got)
    np.testing.assert_array_equal(lemma6_best_grouping(b9, b2, rest, epsilons=eps), got)


# A p > q case by hand: the rest is one user uniform on {0, 1} (r(0) = r(1) = 1/2), p = 1/2, q = 1/4.
#   P_X = (1/4, 1/2, 1/4), Q_X = (3/8, 1/2, 1/8) on x = 0, 1, 2; the monotone plan moves
#   pi*(0,0) = 1/4, pi*(1,0) = 1/8, pi*(1,1) = 3/8, pi*(2,1) = 1/8, pi*(2,2) = 1/8.
#   columns x' = 0, 1, 2: stay / shift = (1/4)/(1/8), (3/8)/(1/8), no shift  = 2, 3, inf
#   rows    x  = 0, 1, 2: no shift, (3/8)/(1/8), (1/8)/(1/8)                   = inf, 3, 1
#   printed psi(x) = [(1-p) r(x)/r(x-1) + q] / (p - q): x=1: (1/2 + 1/4)/(1/4) = 3, x=2: (0 + 1/4)/(1/4) = 1
HALF, QUARTER = Fraction(1, 2), Fraction(1, 4)
HAND_REST = LatticePMF.from_values([0, 1], [HALF, HALF])
HAND_P = LatticePMF.from_values([0, 1], [1 - HALF, HALF])
HAND_Q = LatticePMF.from_values([0, 1], [1 - QUARTER, QUARTER])
HAND_PSI = {"columns": [2.0, 3.0, math.inf], "rows": [math.inf, 3.0, 1.0], "printed": [math.inf, 3.0, 1.0]}


@pytest.mark.parametrize("grouping", LEMMA6_GROUPINGS)
def test_lemma6_psi_by_hand_for_p_above_q(grouping):
    xs, psi = lemma6_psi(HAND_P, HAND_Q, HAND_REST, grouping=grouping)
    assert xs.tolist() == [0, 1, 2]
    assert psi.tolist() == HAND_PSI[grouping]


def test_lemma6_printed_closed_form_for_p_above_q():
    eps = np.array([0.01, 0.1, 0.5, 1.0, 2.0])
    # printed (rows): min psi = q / (p - q) = 1, theta = 1 / log(e^eps + (e^eps - 1)) = 1 / log(2 e^eps - 1)
    np.testing.assert_allclose(lemma6(HAND_P, HAND_Q, HAND_REST, epsilons=eps), 1 / np.log(2 * np.exp(eps) - 1),
                               rtol=1e-13)
    # columns: min psi = (1 - p) / (p - q) = 2, theta = 1 / log(3 e^eps - 2); p + q < 1, so this is the better one
    best = 1 / np.log(3 * np.exp(eps) - 2)
    np.testing.assert_allclose(lemma6_best_grouping(HAND_P, HAND_Q, HAND_REST, epsilons=eps), best, rtol=1e-13)
    # exchanging the secrets transposes pi* (columns <-> rows): neither value moves
    np.testing.assert_allclose(lemma6(HAND_Q, HAND_P, HAND_REST, epsilons=eps), 1 / np.log(2 * np.exp(eps) - 1),
                               rtol=1e-13)
    np.testing.assert_allclose(lemma6_best_grouping(HAND_Q, HAND_P, HAND_REST, epsilons=eps), best, rtol=1e-13)
    assert lemma6_psi(HAND_Q, HAND_P, HAND_REST, grouping="rows")[1].tolist() == HAND_PSI["columns"]


@pytest.mark.parametrize("grouping", LEMMA6_GROUPINGS)
@pytest.mark.parametrize("p, q", [(0.2, 0.9), (0.9, 0.2), (0.3, 0.35), (0.7, 0.1)])
def test_lemma6_psi_equals_the_plan_ratio(p, q, grouping, table2):
    """psi is pi*(x, x) / (shifted mass of the column or row) of the actual monotone plan (Lemma 6's proof)."""
    rest = sum_of_users(table2)
    bp, bq = LatticePMF.bernoulli(p), LatticePMF.bernoulli(q)
    plan = kantorovich_plan(sum_of_users([rest, bp]), sum_of_users([rest, bq]))
    mass = {(int(a), int(b)): m for a, b, m in zip(plan.x, plan.x_prime, plan.exact_mass)}
    assert all(abs(a - b) <= 1 for a, b in mass)   # pi* moves mass at most one step
    step = -1 if p < q else 1   # column x' receives from x' + step; row x sends to x - step
    by_columns = grouping == "columns" or (grouping == "printed" and p < q)   # the paper: columns iff p < q
    xs, psi = lemma6_psi(bp, bq, rest, grouping=grouping)
    for x, value in zip(xs.tolist(), psi):
        shifted = mass.get((x + step, x) if by_columns else (x, x - step), 0)
        if shifted == 0:
            assert value == math.inf
        else:
            assert value == pytest.approx(float(mass.get((x, x), 0) / shifted), rel=1e-14)


@settings(deadline=None)
@given(p=st.floats(0.01, 0.99), q=st.floats(0.01, 0.99), seed=st.integers(0, 10**6))
def test_lemma6_does_not_depend_on_the_rest(p, q, seed):
    if abs(p - q) < 1e-6:
        return
    rng = np.random.default_rng(seed)
    rests = [sum_of_users([LatticePMF(0, w / w.sum()) for w in rng.random((k, 3))]) for k in (1, 3)]
    rests.append(LatticePMF.point(0))
    bp, bq = LatticePMF.bernoulli(p), LatticePMF.bernoulli(q)
    eps = np.array([0.05, 0.5])
    for method in (lemma6, lemma6_best_grouping):
        values = [method(bp, bq, r, epsilons=eps) for r in rests]
        for v in values[1:]:
            np.testing.assert_allclose(v, values[0], rtol=1e-12)
        # symmetric in the two secrets
        np.testing.assert_allclose(method(bq, bp, rests[0], epsilons=eps), values[0], rtol=1e-12)
    assert np.all(lemma6(bp, bq, rests[0], epsilons=eps) <= lemma5(bp, bq, epsilons=eps) * (1 + 1e-12))


@settings(deadline=None)
@given(p=st.floats(0.01, 0.99), q=st.floats(0.01, 0.99), seed=st.integers(0, 10**6))
def test_lemma6_best_grouping_is_never_above_lemma6(p, q, seed):
    """psi_min: min(p, q) / |p - q| as printed, max(min(p, q), 1 - max(p, q)) / |p - q| for the better
    grouping (the issue's table, written out here): equal exactly when p + q >= 1."""
    if abs(p - q) < 1e-6:
        return
    rng = np.random.default_rng(seed)
    rest = sum_of_users([LatticePMF(0, w / w.sum()) for w in rng.random((2, 3))])
    bp, bq = LatticePMF.bernoulli(p), LatticePMF.bernoulli(q)
    eps = np.array([0.001, 0.05, 0.5, 3.0])
    printed, best = lemma6(bp, bq, rest, epsilons=eps), lemma6_best_grouping(bp, bq, rest, epsilons=eps)
    assert np.all(best <= printed)
    gap = abs(p - q)
    def theta(psi):
        return 1 / np.log(np.exp(eps) + np.expm1(eps) * psi)
    np.testing.assert_allclose(printed, theta(min(p, q) / gap), rtol=1e-9)
    np.testing.assert_allclose(best, theta(max(min(p, q), 1 - max(p, q)) / gap), rtol=1e-9)
    if p + q >= 1:   # the printed grouping is the better one (up to the rounding of p and q)
        np.testing.assert_allclose(best, printed, rtol=1e-12)
    elif p + q < 1 - 1e-9:
        assert np.all(best < printed)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), low=st.floats(0.01, 0.98), gap=st.floats(1e-3, 0.98), p_above_q=st.booleans())
def test_property_each_grouping_attains_epsilon_both_ways(seed, low, gap, p_above_q):
    """Eq. (21) with psi from the rows, from the columns and from the better one: the exact audit
    (both directions, sup over all y) never exceeds epsilon, for random rests and both orders of p, q."""
    high = min(low + gap, 0.99)
    assume(high - low >= 1e-3)
    p, q = (high, low) if p_above_q else (low, high)
    rng = np.random.default_rng(seed)
    rest = sum_of_users([random_pmf(rng, lo=0, zero_prob=0.2) for _ in range(int(rng.integers(0, 4)))])
    bp, bq = LatticePMF.bernoulli(p), LatticePMF.bernoulli(q)
    prior_p, prior_q = sum_of_users([rest, bp]), sum_of_users([rest, bq])
    eps = np.array([0.01, 0.1, 0.5, 1.0, 3.0])
    thetas = {g: 1 / np.log(np.exp(eps) + np.expm1(eps) * np.min(lemma6_psi(bp, bq, rest, grouping=g)[1]))
              for g in ("rows", "columns")}
    thetas["best"] = lemma6_best_grouping(bp, bq, rest, epsilons=eps)
    for name, values in thetas.items():
        for theta, e in zip(values, eps):
            loss = lattice_privacy_loss(prior_p, prior_q, float(theta))
            assert loss.forward <= e * (1 + 1e-9) and loss.backward <= e * (1 + 1e-9), (name, e, loss)


def test_lemma6_psi_refuses_an_unknown_grouping():
    with pytest.raises(ConfigError, match="grouping = 'diagonal': must be one of printed, columns, rows"):
        lemma6_psi(HAND_P, HAND_Q, HAND_REST, grouping="diagonal")


def test_bernoulli_methods_refuse_other_priors(p4, q4):
    with pytest.raises(NotApplicableError, match=r"lemma5 needs Bernoulli users.*\[1, 2, 4, 5\]"):
        lemma5(p4, q4, epsilons=[1.0])
    with pytest.raises(NotApplicableError, match="lemma6 needs Bernoulli"):
        lemma6(p4, LatticePMF.bernoulli(0.5), LatticePMF.point(0), epsilons=[1.0])
    with pytest.raises(NotApplicableError, match=r"lemma6_best_grouping needs Bernoulli users, but Q_i"):
        lemma6_best_grouping(LatticePMF.bernoulli(0.5), q4, LatticePMF.point(0), epsilons=[1.0])


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

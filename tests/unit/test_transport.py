"""The monotone plan pi* (eq. 6) and Delta* (Lemma 7 / eq. 25), against the paper and POT."""
from fractions import Fraction

import numpy as np
import ot
import pytest
from hypothesis import given, settings, strategies as st
from scipy import optimize, stats

from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import sum_of_users
from pufferfish.lattice.transport import delta_star, kantorovich_plan, plan_span
from tests.helpers import delta_star_reference, random_pmf

F = Fraction

# Appendix A, Table 4
TABLE4_I = [0.2, 0.225, 0.5, 0.075, 0.0]
TABLE4_J = [0.0, 0.075, 0.5, 0.225, 0.2]
# Appendix A, Table 6 (rows x = 1..5, columns x' = 1..5), as printed
TABLE6 = [[0, 0.075, 0.125, 0, 0],
          [0, 0, 0.225, 0, 0],
          [0, 0, 0.15, 0.225, 0.125],
          [0, 0, 0, 0, 0.075],
          [0, 0, 0, 0, 0]]


@pytest.fixture
def table4():
    return (LatticePMF.from_values(range(1, 6), TABLE4_I), LatticePMF.from_values(range(1, 6), TABLE4_J))


def test_table6_exactly(table4):
    plan = kantorovich_plan(*table4)
    got = {(int(x), int(xp)): m for x, xp, m in zip(plan.x, plan.x_prime, plan.exact_mass)}
    expected = {(i + 1, j + 1): F(str(v)) for i, row in enumerate(TABLE6) for j, v in enumerate(row) if v}
    assert got == expected
    assert plan.span == 2


def test_table5_cdfs_with_the_two_misprints_corrected(table4):
    """Table 5 prints F_i(2) = 0.42 and F_j(4) = 0.925; the sums of Table 4 are 0.425 and 0.8."""
    p, q = table4
    np.testing.assert_array_equal(p.cdf_on(1, 5), [0.2, 0.425, 0.925, 1.0, 1.0])
    np.testing.assert_array_equal(q.cdf_on(1, 5), [0.0, 0.075, 0.575, 0.8, 1.0])


def _exact(pmf):
    """The same pmf with exact decimal fractions (the exact code paths)."""
    return LatticePMF.from_values(pmf.values, [F(str(v)) for v in pmf.probs])


#: the linear-time Delta* of the package and the binary-search reference of the tests, on
#: floats and on exact fractions: all four must give the hand-computed values
IMPLEMENTATIONS = {"linear": delta_star, "reference": delta_star_reference,
                   "linear_exact": lambda p, q: delta_star(_exact(p), _exact(q)),
                   "reference_exact": lambda p, q: delta_star_reference(_exact(p), _exact(q))}


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_appendix_a_delta_star_by_hand(table4, impl):
    # x=1: F_i=.2 > F_j=0, first x' with F_j >= .2 is 3 -> 2;  x=2: .425 -> F_j(3)=.575 -> 1
    # x=3: .925 -> F_j(5)=1 -> 2;  x=4: 1 -> F_j(5) -> 1;  x=5: equal -> 0
    xs, delta = IMPLEMENTATIONS[impl](*table4)
    assert xs.tolist() == [1, 2, 3, 4, 5] and delta.tolist() == [2, 1, 2, 1, 0]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_theorem4_delta_star_sequence_for_p4_q4(p4, q4, impl):
    # F_P4 = .4 .5 .5 .6 1 ; F_Q4 = 0 .05 .95 1 1
    # t=1: .4 -> F_Q(3)=.95 -> 2; t=2: .5 -> 1; t=3: .5 < .95, last F_Q <= .5 is t=2 -> 1;
    # t=4: .6 < 1, last F_Q <= .6 is t=2 -> 2; t=5: equal -> 0
    xs, delta = IMPLEMENTATIONS[impl](p4, q4)
    assert xs.tolist() == [1, 2, 3, 4, 5] and delta.tolist() == [2, 1, 1, 2, 0]


@pytest.mark.parametrize("figure, expected", [("fig1", 2), ("fig2", 5), ("fig3", 5), ("fig6", 2), ("fig7", 1)])
def test_the_papers_sups(figure, expected, table2, p4, q4):
    """sup over supp(pi*) |x - x'| printed under Figs. 1, 2, 3, 6 and 7 of paper 000."""
    rest = sum_of_users(table2)
    pairs = {
        "fig1": (rest.shift(5), rest.shift(3)),
        "fig2": (rest.shift(5), rest),
        "fig3": (sum_of_users([rest, p4]), rest),
        "fig6": (sum_of_users([rest, p4]), sum_of_users([rest, q4])),
        "fig7": (sum_of_users([rest, LatticePMF.bernoulli(0.2)]), sum_of_users([rest, LatticePMF.bernoulli(0.9)])),
    }
    p, q = pairs[figure]
    assert kantorovich_plan(p, q).span == expected
    assert plan_span(p, q) == expected


def _dense(plan, lo, hi):
    return plan.as_matrix(lo, hi)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_plan_is_pot_emd_1d_and_span_is_sup_delta_star(seed):
    """POT's ot.emd_1d (monotone) is the oracle for pi*; Lemma 7 on random pairs, both code paths."""
    rng = np.random.default_rng(seed)
    p, q = random_pmf(rng), random_pmf(rng)
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    xs = np.arange(lo, hi + 1, dtype=float)
    oracle = ot.emd_1d(xs, xs, p.pmf_on(lo, hi), q.pmf_on(lo, hi), metric="cityblock")
    plan = kantorovich_plan(p, q)
    np.testing.assert_allclose(_dense(plan, lo, hi), oracle, atol=1e-12)
    assert plan.span == int(np.max(delta_star(p, q)[1]))
    # the exact path on the same masses (as fractions) gives the same support
    pe = LatticePMF.from_values(p.values, [F(v) for v in p.probs])
    qe = LatticePMF.from_values(q.values, [F(v) for v in q.probs])
    exact = kantorovich_plan(pe, qe)
    assert exact.span == plan.span == int(np.max(delta_star(pe, qe)[1]))


def test_plan_is_w1_optimal_but_an_lp_may_span_further(p4, q4):
    """Every optimal LP plan has the W1 cost of pi*, but not necessarily its span."""
    lo, hi = 1, 5
    xs = np.arange(lo, hi + 1)
    plan = kantorovich_plan(p4, q4)
    cost = float(np.sum(plan.mass * np.abs(plan.x - plan.x_prime)))
    w1 = stats.wasserstein_distance(xs, xs, p4.pmf_on(lo, hi), q4.pmf_on(lo, hi))
    assert cost == pytest.approx(w1, abs=1e-14)
    # an LP with cost |x - x'| finds the same optimal cost
    n = xs.size
    c = np.abs(xs[:, None] - xs[None, :]).ravel().astype(float)
    a_eq = np.vstack([np.kron(np.eye(n), np.ones(n)), np.kron(np.ones(n), np.eye(n))])
    res = optimize.linprog(c, A_eq=a_eq, b_eq=np.concatenate([p4.pmf_on(lo, hi), q4.pmf_on(lo, hi)]), method="highs")
    assert res.fun == pytest.approx(w1, abs=1e-12)


def test_float_path_ignores_rounding_ties():
    """0.1 + 0.2 != 0.3 in floats: the float path must not invent an entry at that tie."""
    p = LatticePMF(0, np.array([0.1, 0.2, 0.7]))
    q = LatticePMF(0, np.array([0.3, 0.7]))
    plan = kantorovich_plan(p, q)
    assert sorted(zip(plan.x.tolist(), plan.x_prime.tolist())) == [(0, 0), (1, 0), (2, 1)]
    assert plan.span == 1 == int(np.max(delta_star(p, q)[1]))

"""Lattice pmfs, sums of users and presence probabilities (paper 000, Section 3)."""
import math
from fractions import Fraction

import numpy as np
import pytest

from pufferfish.errors import InvalidDistributionError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import convolve, sum_of_users
from pufferfish.lattice.system import Absent, Draws, Reports, SecretPair, User, query_prior


def test_decimals_are_read_as_the_decimal_fraction():
    pmf = LatticePMF.from_values([1, 2], [0.1, 0.9])
    assert pmf.exact == (Fraction(1, 10), Fraction(9, 10))


def test_zero_end_atoms_are_trimmed_interior_zero_kept():
    pmf = LatticePMF.from_values([1, 2, 3, 4, 5], [0.0, 0.05, 0.9, 0.05, 0.0])  # Q4 of Table 3
    assert (pmf.lo, pmf.hi) == (2, 4)
    p4 = LatticePMF.from_values([1, 2, 3, 4, 5], [0.4, 0.1, 0.0, 0.1, 0.4])
    assert p4.support.tolist() == [1, 2, 4, 5] and p4.values.tolist() == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("probs, fragment", [
    ([0.5, -0.1, 0.6], "must be finite and >= 0"),
    ([0.5, 0.6, 0.0], "sum to 1.1"),
    ([0.5, float("nan"), 0.5], "must be finite"),
])
def test_invalid_pmfs_name_the_problem(probs, fragment):
    with pytest.raises(InvalidDistributionError, match=fragment) as info:
        LatticePMF.from_values([0, 1, 2], probs, name="users.X")
    assert "users.X" in str(info.value) and "\n" not in str(info.value)


def test_sum_within_tolerance_is_renormalized_exactly():
    pmf = LatticePMF.from_values([0, 1], [0.5, 0.5 + 5e-10])
    assert sum(pmf.exact) == 1


def test_repeated_or_fractional_values_refused():
    with pytest.raises(InvalidDistributionError, match="repeated"):
        LatticePMF.from_values([1, 1], [0.5, 0.5])
    with pytest.raises(InvalidDistributionError, match="not an integer"):
        LatticePMF.from_values([1, 1.5], [0.5, 0.5])


def test_convolution_of_two_fair_coins():
    coin = LatticePMF.bernoulli(0.5)
    both = convolve(coin, coin)
    assert both.exact == (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))


def test_sum_of_table2_users_by_hand(table2):
    total = sum_of_users(table2)
    assert (total.lo, total.hi) == (3, 15)
    # Pr(X = 3) = 0.01 * 0.7 * 0.2 and Pr(X = 15) = 0.65 * 0.01 * 0.2
    assert total.exact[0] == Fraction(14, 10000)
    assert total.exact[-1] == Fraction(13, 10000)
    # means add up: 4.44 + 1.46 + 3 = 8.9
    assert total.mean() == pytest.approx(8.9, abs=1e-15)
    assert sum(total.exact) == 1


def test_fft_and_direct_convolution_agree():
    rng = np.random.default_rng(0)
    users = [LatticePMF(0, w / w.sum()) for w in rng.random((40, 5))]
    direct = sum_of_users(users, method="direct")
    fft = sum_of_users(users, method="fft")
    # plain FFT round-off is about 1e-16 of the largest mass: 1e-9 relative holds above 1e-6 of it
    fft_on_hull = fft.pmf_on(direct.lo, direct.hi)
    big = direct.probs > 1e-6 * direct.probs.max()
    assert big.sum() > 50
    np.testing.assert_allclose(fft_on_hull[big], direct.probs[big], rtol=1e-9)
    np.testing.assert_allclose(fft_on_hull, direct.probs, rtol=0, atol=1e-15)


def test_empty_system_is_point_mass_at_zero():
    assert sum_of_users([]).exact == (Fraction(1),)
    assert query_prior(Absent(), []).pmf.exact == (Fraction(1),)


def test_query_priors_of_the_three_secrets(table2, p4):
    rest = [User(p, 0.9, f"D{k}") for k, p in enumerate(table2, start=1)]
    base = sum_of_users(table2)
    assert query_prior(Reports(5), rest).pmf.lo == base.lo + 5              # eq. (7): shift by a
    assert query_prior(Absent(), rest).pmf.exact == base.exact              # eq. (8)
    assert query_prior(Draws(p4), rest).pmf.exact == convolve(base, p4).exact  # eq. (9)
    assert query_prior(Absent(), rest).weight == pytest.approx(0.9 ** 3)   # prod_{j != i} zeta_j


def test_presence_cancels_in_the_pair(table2, p4):
    """zeta_j multiplies both priors of a pair (eqs. 7-9): the normalized priors do not move."""
    full = SecretPair.of(Draws(p4), Absent(), [User(p) for p in table2])
    rare = SecretPair.of(Draws(p4), Absent(), [User(p, 0.05) for p in table2])
    assert rare.weight == pytest.approx(0.05 ** 3)
    assert full.prior_i.exact == rare.prior_i.exact and full.prior_j.exact == rare.prior_j.exact


def test_presence_out_of_range_refused(p4):
    with pytest.raises(InvalidDistributionError, match="presence"):
        User(p4, 0.0, "u")


def test_log_mgf_matches_direct_sum(p4):
    assert p4.log_mgf(0.3) == pytest.approx(np.log(0.4 * np.exp(0.3) + 0.1 * np.exp(0.6) + 0.1 * np.exp(1.2)
                                                    + 0.4 * np.exp(1.5)), rel=1e-15)


# ------------------------------------------------------------------ users as (prior, count) groups or a 2-D array
def test_groups_are_the_expanded_list_exactly(table2):
    """10 copies each of users 1-3 of Table 2, as groups: the same exact fractions as the list."""
    grouped = sum_of_users([(u, 10) for u in table2])
    listed = sum_of_users([u for u in table2 for _ in range(10)])
    assert grouped.exact is not None and grouped.exact == listed.exact
    assert sum_of_users([(table2[0], 0), (table2[1], 1)]).exact == table2[1].exact


def test_bernoulli_group_is_the_binomial_by_hand():
    """(Bernoulli(1/4), 40): Pr(X = k) = C(40, k) 3^(40-k) / 4^40 exactly."""
    total = sum_of_users([(LatticePMF.bernoulli(0.25), 40)])
    assert total.exact == tuple(Fraction(math.comb(40, k) * 3 ** (40 - k), 4 ** 40) for k in range(41))


def test_direct_binary_power_agrees_with_the_direct_tree():
    rng = np.random.default_rng(5)
    user = LatticePMF(-1, rng.dirichlet(np.ones(4)))
    powered = sum_of_users([(user, 300)], method="direct")
    tree = sum_of_users([user] * 300, method="direct")          # a list is not grouped for method="direct"
    assert (powered.lo, powered.hi) == (tree.lo, tree.hi) == (-300, 600)
    big = tree.probs > 1e-300
    np.testing.assert_allclose(powered.probs[big], tree.probs[big], rtol=1e-12, atol=0)


def test_rows_are_users_on_zero_to_m_minus_one():
    rng = np.random.default_rng(6)
    rows = rng.dirichlet(np.ones(4), size=200)
    rows[:20, 0] = 0.0                                    # leading zeros: those users start at 1
    rows[:20] /= rows[:20].sum(axis=1, keepdims=True)
    listed = [LatticePMF(0, r) for r in rows]
    for method in ("direct", "auto"):
        got, ref = sum_of_users(rows, method=method), sum_of_users(listed, method=method)
        assert (got.lo, got.hi) == (ref.lo, ref.hi) == (20, 600)
        np.testing.assert_allclose(got.probs, ref.probs, rtol=1e-12, atol=0)
    small = sum_of_users(rows[:5])                           # at most 64 rows: the pairwise tree, as a list
    np.testing.assert_array_equal(small.probs, sum_of_users(listed[:5]).probs)


@pytest.mark.parametrize("rows, fragment", [
    (np.array([[0.5, 0.5], [0.2, 0.7]]), "row 1 sums to 0.9"),
    (np.array([[0.5, 0.5], [1.2, -0.2]]), "row 1 has a negative or non-finite probability"),
    (np.array([[0.5, np.nan]]), "row 0 has a negative or non-finite"),
    (np.array([0.5, 0.5]), "2-D array"),
    (np.zeros((0, 3)), "2-D array"),
])
def test_bad_rows_are_refused_with_the_row(rows, fragment):
    with pytest.raises(InvalidDistributionError, match=fragment) as info:
        sum_of_users(rows)
    assert "\n" not in str(info.value)


def test_bad_items_and_counts_are_refused_with_their_index(p4):
    with pytest.raises(TypeError, match=r"users\[1\] = \[0.5, 0.5\]: must be a LatticePMF or a \(LatticePMF, count\) pair, not list"):
        sum_of_users([p4, [0.5, 0.5]])
    for count in (-1, 2.5, True):
        with pytest.raises(ValueError, match=r"users\[0\]: the count of a \(prior, count\) group must be an integer"):
            sum_of_users([(p4, count)])
    with pytest.raises(TypeError, match="real probabilities"):
        sum_of_users(np.array([["a", "b"]]))
    with pytest.raises(ValueError, match="^method = 'exact': must be one of auto, direct, fft, tilted"):
        sum_of_users([p4], method="exact")

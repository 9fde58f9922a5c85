"""Attribute privacy with Gaussian data (paper 002, Prop. 6.2 / F.1): beta and the GWM sensitivity.

Second routes: hand-worked 2x2 and 3x3 covariances (the regression coefficients written
out below), the precision matrix (E[x_-S | s] = mu_-S - Lambda_-S,-S^-1 Lambda_-S,S
(s - mu_S), a different formula for the same conditional), Monte Carlo conditional means
and variances, and the project's exact lattice W_1 / W_inf of the discretised conditionals.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr

from pufferfish.errors import ArgumentTypeError, DataError, InvalidArgumentError
from pufferfish.lattice.distances import wasserstein_inf, wasserstein_p
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.sensitivity.attribute import (GaussianRecord, attribute_coefficients, conditional_query_law,
                                              gaussian_attribute_sensitivity, two_column_sensitivity)


# ------------------------------------------------------------------------------ hand-worked
def test_two_by_two_beta_is_cov_over_var():
    # Sigma = [[4, 2], [2, 9]], released r = 0, protected j = 1: beta = Sigma_10 / Sigma_11 = 2/9
    cov = [[4.0, 2.0], [2.0, 9.0]]
    assert attribute_coefficients(cov, [1, 0], [1]) == pytest.approx([2 / 9], rel=1e-15)
    # width 3: sensitivity 2/9 * 3 = 2/3
    assert gaussian_attribute_sensitivity(cov, [1, 0], [1], [3.0]) == pytest.approx(2 / 3, rel=1e-15)
    # q = x0 + x1: beta = a_S + Sigma_SS^-1 Sigma_S,-S a_-S = 1 + (1/9) 2 = 11/9
    assert attribute_coefficients(cov, [1, 1], [1]) == pytest.approx([11 / 9], rel=1e-15)
    # protecting the released attribute itself: beta = a_S = 1 (the shift is s - s')
    assert attribute_coefficients(cov, [1, 0], [0]) == pytest.approx([1.0])


def test_three_by_three_two_protected():
    # Sigma = [[2,1,0],[1,2,1],[0,1,2]], S = {0, 1}, q = x2.
    # Sigma_SS^-1 = (1/3) [[2, -1], [-1, 2]], Sigma_S,-S = (0, 1)^T, so
    # beta = (1/3) (2*0 - 1*1, -1*0 + 2*1) = (-1/3, 2/3)
    cov = [[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]
    assert attribute_coefficients(cov, [0, 0, 1], [0, 1]) == pytest.approx([-1 / 3, 2 / 3], rel=1e-14)
    # widths (3, 6): 1/3 * 3 + 2/3 * 6 = 5
    assert gaussian_attribute_sensitivity(cov, [0, 0, 1], [0, 1], [3.0, 6.0]) == pytest.approx(5.0, rel=1e-14)
    # q = x0 + x2, S = {1}: E[x0 + x2 | x1] = (1/2 + 1/2) x1, beta = 1
    assert attribute_coefficients(cov, [1, 0, 1], [1]) == pytest.approx([1.0], rel=1e-14)
    # order of `protected` is the order of beta
    assert attribute_coefficients(cov, [0, 0, 1], [1, 0]) == pytest.approx([2 / 3, -1 / 3], rel=1e-14)


def test_conditional_law_hand_worked():
    # Sigma = [[25, 6], [6, 4]], mu = (10, 0): q = x0 | x1 = s ~ N(10 + 1.5 s, 25 - 36/4 = 16)
    record = GaussianRecord([10.0, 0.0], [[25.0, 6.0], [6.0, 4.0]])
    mean, var = conditional_query_law(record, [1, 0], [1], [2.0])
    assert mean == pytest.approx(13.0) and var == pytest.approx(16.0)
    assert conditional_query_law(record, [1, 0], [1], [-2.0])[1] == pytest.approx(16.0)  # variance unchanged


# ------------------------------------------------------------------------------ second routes
def _random_cov(rng, d):
    m = rng.normal(size=(d, d))
    return m @ m.T + 0.5 * np.eye(d)


@pytest.mark.parametrize("d, protected", [(3, [0]), (4, [1, 3]), (5, [0, 2, 4]), (6, [5])])
def test_beta_matches_the_precision_matrix_route(d, protected):
    # E[x_-S | s] = mu_-S - Lambda_-S,-S^-1 Lambda_-S,S (s - mu_S), Lambda = Sigma^-1, so the
    # mean of a . x moves by (a_S - Lambda_S,-S Lambda_-S,-S^-1 a_-S) . (s - s')
    rng = np.random.default_rng(d)
    cov = _random_cov(rng, d)
    a = rng.normal(size=d)
    s = np.array(protected)
    rest = np.setdiff1d(np.arange(d), s)
    lam = np.linalg.inv(cov)
    expected = a[s] - lam[np.ix_(s, rest)] @ np.linalg.solve(lam[np.ix_(rest, rest)], a[rest])
    assert attribute_coefficients(cov, a, protected) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_beta_is_scale_free_across_magnitudes(scale):
    # Sigma -> c Sigma leaves beta unchanged (a ratio of covariances); the check holds for tiny and huge Sigma
    cov = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]) * scale
    assert attribute_coefficients(cov, [0, 0, 1], [0, 1]) == pytest.approx([-1 / 3, 2 / 3], rel=1e-12)


def test_monte_carlo_conditional_means_and_variances():
    # 3 attributes, q = x0 + 2 x2, protected x1. Condition by a thin window around s and s'
    # and compare the difference of the empirical means of q with beta (s - s'); the
    # empirical variances agree with each other (variance independent of s).
    rng = np.random.default_rng(7)
    cov = np.array([[3.0, 1.2, 0.4], [1.2, 2.0, -0.7], [0.4, -0.7, 1.5]])
    mu = np.array([1.0, -0.5, 2.0])
    a = np.array([1.0, 0.0, 2.0])
    x = rng.multivariate_normal(mu, cov, size=1_500_000)
    q = x @ a
    beta = attribute_coefficients(cov, a, [1])[0]  # (1.2 + 2 (-0.7)) / 2 = -0.1
    assert beta == pytest.approx(-0.1, rel=1e-12)
    width = 0.02
    s, s2 = -2.0, 1.5
    near = np.abs(x[:, 1] - s) < width
    near2 = np.abs(x[:, 1] - s2) < width
    diff = q[near].mean() - q[near2].mean()
    se = math.sqrt(q[near].var() / near.sum() + q[near2].var() / near2.sum())
    assert abs(diff - beta * (s - s2)) < 4 * se + abs(beta) * width   # the window biases by at most |beta| width
    _, var = conditional_query_law(GaussianRecord(mu, cov), a, [1], [s])
    for mask in (near, near2):
        assert q[mask].var() == pytest.approx(var, rel=0.05)


def _rounded_gaussian(mean, sd, *, name):
    """N(mean, sd^2) rounded to the nearest integer, on mean +- 12 sd (cells whole)."""
    lo, hi = math.floor(mean - 12 * sd), math.ceil(mean + 12 * sd)
    xs = np.arange(lo, hi + 1)
    probs = ndtr((xs + 0.5 - mean) / sd) - ndtr((xs - 0.5 - mean) / sd)
    return LatticePMF.from_values(xs.tolist(), probs.tolist(), name=name, normalize=True)


@pytest.mark.parametrize("width", [4.3, 4.0, 0.1, 30.7])
def test_closed_form_against_lattice_distances_of_discretised_conditionals(width):
    # Sigma = [[25, 6], [6, 4]]: beta = 1.5, conditional sd 4. s, s' = -+ width/2: the two
    # conditionals of x0 are N(m, 16) and N(m + d, 16), d = 1.5 width (the closed form).
    # Rounded to the lattice, they stay stochastically ordered with means m and m + d (to
    # e^(-2 pi^2 sd^2), Poisson summation), so the lattice W_1 is d; the coupling X -> X + d
    # moves every rounded point by floor(d) or ceil(d), and W_inf >= W_1 = d, so the lattice
    # W_inf is ceil(d).
    record = GaussianRecord([10.0, 0.0], [[25.0, 6.0], [6.0, 4.0]])
    d = gaussian_attribute_sensitivity(record.covariance, [1, 0], [1], [width])
    assert d == pytest.approx(1.5 * width, rel=1e-14)
    m1, v1 = conditional_query_law(record, [1, 0], [1], [-width / 2])
    m2, v2 = conditional_query_law(record, [1, 0], [1], [width / 2])
    assert m2 - m1 == pytest.approx(d, rel=1e-14) and v1 == pytest.approx(v2)
    p = _rounded_gaussian(m1, math.sqrt(v1), name="p")
    q = _rounded_gaussian(m2, math.sqrt(v2), name="q")
    assert wasserstein_p(p, q, 1) == pytest.approx(d, rel=1e-9)
    assert wasserstein_inf(p, q) == math.ceil(d - 1e-12)


# ------------------------------------------------------------------------------ data fit
def test_two_column_fit_hand_worked():
    # r = (0, 1, 2, 3), j = (0, 0, 1, 1): cov = 2/3, var(j) = 1/3 (both with n - 1), beta = 2, range(j) = 1
    fit = two_column_sensitivity([0, 1, 2, 3], [0, 0, 1, 1])
    assert fit.rows == 4 and fit.beta == pytest.approx(2.0) and fit.width == 1.0
    assert fit.sensitivity == pytest.approx(2.0)
    # a negative correlation gives the same sensitivity (|beta|)
    assert two_column_sensitivity([3, 2, 1, 0], [0, 0, 1, 1]).sensitivity == pytest.approx(2.0)
    # equals Prop. 6.2 on the sample covariance
    r, j = np.array([5.0, 1, 4, 4, 2, 9]), np.array([1.0, 0, 1, 2, 0, 3])
    cov = np.cov(r, j)
    assert two_column_sensitivity(r, j).sensitivity == pytest.approx(
        gaussian_attribute_sensitivity(cov, [1, 0], [1], [3.0]), rel=1e-13)


# ------------------------------------------------------------------------------ validation
@pytest.mark.parametrize("cov, err", [
    ([[1.0, 2.0], [0.0, 1.0]], InvalidArgumentError),        # not symmetric
    ([[1.0, 2.0], [2.0, 1.0]], InvalidArgumentError),        # not PSD (eigenvalue -1)
    ([[1.0, math.nan], [math.nan, 1.0]], InvalidArgumentError),
    ([[1.0, 0.0, 0.0]], InvalidArgumentError),               # not square
    ("abc", ArgumentTypeError),
])
def test_bad_covariances_are_refused(cov, err):
    with pytest.raises(err, match="covariance"):
        attribute_coefficients(cov, [1, 0], [1])


def test_bad_arguments_are_refused():
    cov = [[4.0, 2.0], [2.0, 9.0]]
    with pytest.raises(InvalidArgumentError, match="protected"):
        attribute_coefficients(cov, [1, 0], [2])
    with pytest.raises(InvalidArgumentError, match="protected"):
        attribute_coefficients(cov, [1, 0], [])
    with pytest.raises(InvalidArgumentError, match="repeated"):
        attribute_coefficients(cov, [1, 0], [1, 1])
    with pytest.raises(ArgumentTypeError, match="protected"):
        attribute_coefficients(cov, [1, 0], [True])
    with pytest.raises(InvalidArgumentError, match="weights"):
        attribute_coefficients(cov, [1, 0, 0], [1])
    with pytest.raises(InvalidArgumentError, match="weights"):
        attribute_coefficients(cov, [1, math.inf], [1])
    with pytest.raises(InvalidArgumentError, match="singular"):
        attribute_coefficients([[1.0, 0.0], [0.0, 0.0]], [1, 0], [1])
    with pytest.raises(InvalidArgumentError, match="widths"):
        gaussian_attribute_sensitivity(cov, [1, 0], [1], [-1.0])
    with pytest.raises(InvalidArgumentError, match="widths"):
        gaussian_attribute_sensitivity(cov, [1, 0], [1], [1.0, 2.0])
    with pytest.raises(DataError, match="single value"):
        two_column_sensitivity([1, 2, 3], [4, 4, 4])
    with pytest.raises(DataError, match="missing"):
        two_column_sensitivity([1, 2, math.nan], [4, 5, 4])
    with pytest.raises(InvalidArgumentError, match="shapes"):
        two_column_sensitivity([1, 2, 3], [4, 5])
    with pytest.raises(ArgumentTypeError, match="record"):
        conditional_query_law("x", [1, 0], [1], [0.0])

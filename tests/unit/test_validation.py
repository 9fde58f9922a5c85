"""Issue 13: no silent wrong number from the public API.

Every public constructor and function refuses what it cannot honour at the boundary, with
one line naming the argument and the value: a ValueError (the project's
InvalidArgumentError / InvalidDistributionError) for a bad value, a TypeError
(ArgumentTypeError) for a wrong type; never inf, NaN or a number for such input, and no
allocation of a lattice beyond MAX_LATTICE_POINTS. The expected values below are worked
out by hand or in closed form (see each test).
"""
from __future__ import annotations

import math
import re
import tracemalloc
import warnings
from fractions import Fraction

import numpy as np
import pytest

from pufferfish import (Absent, Draws, LatticePMF, Reports, SecretPair, Target, User, calibrate, convolve,
                        lattice_privacy_loss, query_prior, sum_of_users, theta_min, tight)
from pufferfish.audit.laplace_lattice import LaplaceLatticeAuditor
from pufferfish.audit.zero_noise import zero_noise_loss
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError, PufferfishError
from pufferfish.grids import check_deltas, check_epsilons, expand_grid
from pufferfish.lattice.pmf import MAX_LATTICE_POINTS, PMF_ATOL
from pufferfish.multiuser.methods import bernoulli_eq15

REST = [User(LatticePMF.from_values([1, 2, 3], [0.2, 0.5, 0.3]))]

#: wrong types where a real number goes, and values no real-valued argument can take
NOT_NUMBERS = ["0.5", True, False, None, [0.5], 1 + 0j]
NOT_FINITE = [math.nan, math.inf, -math.inf]


def one_line(excinfo) -> str:
    text = str(excinfo.value)
    assert text and "\n" not in text
    return text


# ------------------------------------------------------------------------------ the cases
def test_unnormalized_pmf_is_refused_not_calibrated():
    """Issue case 1: masses summing to 0.3 gave theorem3_brent 0.804 instead of 2.287."""
    with pytest.raises(InvalidDistributionError) as info:
        LatticePMF(0, np.array([0.1, 0.1, 0.1]))
    text = one_line(info)
    assert "probs" in text and "0.3" in text and f"{PMF_ATOL:g}" in text and "normalize=True" in text


def test_normalize_on_request_gives_the_closed_form_of_eq13():
    """Uniform on {0, 1, 2} vs absent, eq. (13): (1 + u + u^2)/3 = e^eps with u = e^{1/theta}, so
    u = (-1 + sqrt(12 e^eps - 3))/2 and theta = 1/log u = 2.28698... at eps = 0.5 (the issue's 2.287)."""
    pmf = LatticePMF(0, np.array([0.1, 0.1, 0.1]), normalize=True)
    assert pmf.probs.tolist() == pytest.approx([1 / 3] * 3, rel=1e-15)
    u = (-1 + math.sqrt(12 * math.exp(0.5) - 3)) / 2
    theta = calibrate("theorem3_brent", SecretPair.of(Draws(pmf), Absent(), REST), epsilons=[0.5])
    assert theta[0] == pytest.approx(1 / math.log(u), rel=1e-12)
    assert 1 / math.log(u) == pytest.approx(2.28698, abs=5e-6)
    # the same by from_values: 1 : 1 : 1 normalized on request, exact thirds
    assert LatticePMF.from_values([0, 1, 2], [1, 1, 1], normalize=True).exact == (Fraction(1, 3),) * 3


def test_from_values_refuses_a_sum_beyond_the_tolerance_unless_asked():
    with pytest.raises(InvalidDistributionError, match=r"u: probabilities sum to 0\.3.*normalize=True"):
        LatticePMF.from_values([0, 1, 2], [0.1, 0.1, 0.1], name="u")
    # within PMF_ATOL: accepted and rescaled to exactly 1 (as config decimals are)
    assert sum(LatticePMF.from_values([0, 1], [0.5, 0.5 + PMF_ATOL / 2]).exact) == 1


@pytest.mark.parametrize("p", [1.5, -0.5, *NOT_FINITE])
def test_bernoulli_eq15_refuses_p_outside_0_1(p):
    """Issue case 1: p = 1.5 gave 2.78, p = -0.5 gave NaN with a RuntimeWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidArgumentError) as info:
            bernoulli_eq15(p, epsilons=[0.5])
    assert one_line(info).startswith("p = ") and "[0, 1]" in str(info.value)


@pytest.mark.parametrize("p", NOT_NUMBERS)
def test_bernoulli_eq15_refuses_non_numbers(p):
    with pytest.raises(TypeError, match="^p = "):
        bernoulli_eq15(p, epsilons=[0.5])


def test_bernoulli_eq15_at_the_ends_of_0_1():
    """p = 0: D = 0 always, the absent user's law: no noise. p = 1: D = 1, eq. (15) is 1/eps."""
    assert bernoulli_eq15(0, epsilons=[0.5, 2.0]).tolist() == [0.0, 0.0]
    assert bernoulli_eq15(1, epsilons=[0.5, 2.0]).tolist() == pytest.approx([2.0, 0.5], rel=1e-15)


def test_draws_of_a_list_and_rest_of_pmfs_are_type_errors():
    """Issue case 6: AttributeError: 'list' object has no attribute 'support' / 'LatticePMF' has no 'pmf'."""
    with pytest.raises(TypeError) as info:
        Draws([0.5, 0.5])
    assert one_line(info).startswith("Draws.pmf = [0.5, 0.5]: must be a LatticePMF, not list")
    pmf = REST[0].pmf
    with pytest.raises(TypeError) as info:
        SecretPair.of(Draws(pmf), Absent(), [pmf])
    assert one_line(info).startswith("rest[0] = ") and "User(pmf)" in str(info.value)
    with pytest.raises(TypeError, match=r"rest\[1\]"):
        query_prior(Absent(), [REST[0], pmf])


@pytest.mark.parametrize("epsilons, fragment", [
    ([], "epsilons = []: must not be empty"),
    ([0.5, math.nan], "epsilons[1] = nan: must be finite"),
    ([math.inf], "epsilons[0] = inf: must be finite"),
    ([0.5, 0.0], "epsilons[1] = 0.0: must be finite and > 0"),
    ([-0.1], "epsilons[0] = -0.1: must be finite and > 0"),
    ([[0.5]], "epsilons: must be one-dimensional"),
])
def test_calibrate_refuses_bad_epsilon_grids(epsilons, fragment):
    """Issue case 6: calibrate(..., epsilons=[]) returned an empty array."""
    pair = SecretPair.of(Reports(1), Reports(3), REST)
    with pytest.raises(ValueError) as info:
        calibrate("theorem1", pair, epsilons=epsilons)
    assert one_line(info).startswith(fragment)


@pytest.mark.parametrize("epsilons", [["0.5"], [True], [None], "0.5", None, {"start": 0.1}, {0.5}])
def test_calibrate_refuses_epsilons_that_are_not_numbers(epsilons):
    pair = SecretPair.of(Reports(1), Reports(3), REST)
    with pytest.raises(TypeError, match="^epsilons"):
        calibrate("theorem1", pair, epsilons=epsilons)
    with pytest.raises(TypeError, match="^epsilons"):
        check_epsilons(np.array([True, False]))


def test_calibrate_accepts_one_number_and_int_arrays():
    """Theorem 1, eq. (10): |1 - 3| / eps."""
    pair = SecretPair.of(Reports(1), Reports(3), REST)
    assert calibrate("theorem1", pair, epsilons=0.5).tolist() == [4.0]
    assert calibrate("theorem1", pair, epsilons=np.array([1, 2])).tolist() == [2.0, 1.0]


def test_calibrate_refuses_what_is_not_a_secret_pair():
    with pytest.raises(TypeError, match=r"^pair = \(1, 2\): must be a SecretPair"):
        calibrate("kantorovich", (1, 2), epsilons=[1.0])


def _peak_bytes(call) -> int:
    tracemalloc.start()
    try:
        call()
    except ValueError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_huge_lattices_are_refused_before_allocating():
    """Issue case 6: from_values([0, 10**9]) and 2,000 users of span 10^6 ended in a bare MemoryError (14.9 GiB)."""
    with pytest.raises(InvalidArgumentError) as info:
        LatticePMF.from_values([0, 10**9], [0.5, 0.5])
    assert "1000000001 lattice points" in one_line(info) and f"{MAX_LATTICE_POINTS}" in str(info.value)
    ends = np.zeros(10**6 + 1)
    ends[[0, -1]] = 0.5
    users = [LatticePMF(0, ends)] * 2000                 # 2,000 users on {0, 10^6}
    with pytest.raises(InvalidArgumentError) as info:
        sum_of_users(users)
    # the tilted engine would allocate the width it resolves, 2 x 40 sd + 2 span + 1 points: each user has
    # variance (10^6 / 2)^2, so sd = 5e5 sqrt(2000); far below the hull (2 x 10^9 + 1) but far above the limit
    width = math.ceil(80 * 5e5 * math.sqrt(2000) + 2 * 10**6 + 1)
    assert f"{width} lattice points" in one_line(info) and width == 1790854383
    with pytest.raises(InvalidArgumentError) as info:
        sum_of_users(users, method="direct")               # the direct path allocates the whole hull
    assert "2000000001 lattice points" in one_line(info)
    # refused before anything of that size exists: the peak stays far below one float per point
    assert _peak_bytes(lambda: LatticePMF.from_values([0, 10**9], [0.5, 0.5])) < 10**6
    assert _peak_bytes(lambda: sum_of_users(users)) < 10**6
    with pytest.raises(InvalidArgumentError, match=f"{MAX_LATTICE_POINTS + 1} lattice points"):
        half = np.zeros(MAX_LATTICE_POINTS // 2 + 1)
        half[[0, -1]] = 0.5
        convolve(LatticePMF(0, half), LatticePMF(0, half))  # two hulls of L/2 + 1 points: a sum of L + 1


def test_a_pair_whose_priors_lie_far_apart_is_refused_before_any_prior_is_built():
    """Reports 0 vs reports 10^9: each prior is one point, their common hull 10^9 + 1 (the transport
    plan and the audit would allocate it)."""
    with pytest.raises(InvalidArgumentError) as info:
        SecretPair.of(Reports(0), Reports(10**9), [])
    assert "1000000001 lattice points" in one_line(info)
    with pytest.raises(InvalidArgumentError, match="1000000001 lattice points"):
        lattice_privacy_loss(LatticePMF.point(0), LatticePMF.point(10**9), 1.0)
    with pytest.raises(InvalidArgumentError, match="1000000001 lattice points"):
        theta_min(LatticePMF.point(0), LatticePMF.point(10**9), 1.0)
    assert _peak_bytes(lambda: SecretPair.of(Reports(0), Reports(10**9), [])) < 10**6


# ------------------------------------------------------------------------------ LatticePMF
@pytest.mark.parametrize("probs, error, fragment", [
    ([0.5, -0.1, 0.6], InvalidDistributionError, "probs[1] = "),
    ([0.5, math.nan, 0.5], InvalidDistributionError, "probs[1] = "),
    ([math.inf], InvalidDistributionError, "probs[0] = "),
    ([], InvalidDistributionError, "probs = []"),
    ([0.0, 0.0], InvalidDistributionError, "no positive mass"),
    ([1e308, 1e308], InvalidDistributionError, "probs: the masses sum to inf (overflow)"),
    (np.ones((2, 2)) / 4, InvalidDistributionError, "1-D"),
    (["0.5", "0.5"], ArgumentTypeError, "probs[0] = '0.5'"),
    ([True, False], ArgumentTypeError, "probs[0] = True"),
    ([0.5, None, 0.5], ArgumentTypeError, "probs[1] = None"),
    (np.array([True, False]), ArgumentTypeError, "probs: must hold real numbers"),
    ("ab", ArgumentTypeError, "probs = 'ab'"),
    (None, ArgumentTypeError, "probs = None"),
    (0.5, ArgumentTypeError, "probs = 0.5"),
])
def test_lattice_pmf_refuses_bad_masses(probs, error, fragment):
    with pytest.raises(error) as info:
        LatticePMF(0, probs)
    assert fragment in one_line(info)


@pytest.mark.parametrize("offset, error", [(0.5, InvalidArgumentError), (math.nan, InvalidArgumentError),
                                           ("0", ArgumentTypeError), (True, ArgumentTypeError),
                                           (None, ArgumentTypeError)])
def test_lattice_pmf_refuses_an_offset_that_is_not_an_integer(offset, error):
    with pytest.raises(error, match="^offset = "):
        LatticePMF(offset, [1.0])


def test_lattice_pmf_keeps_its_masses_when_they_sum_to_one():
    pmf = LatticePMF(2.0, [0.0, 0.25, 0.75, 0.0])  # an integral float offset is an integer
    assert (pmf.lo, pmf.hi, pmf.probs.tolist()) == (3, 4, [0.25, 0.75])
    with pytest.raises(InvalidDistributionError, match=r"exact\[0\]"):
        LatticePMF(0, [0.5, 0.5], (Fraction(1, 3), Fraction(2, 3)))
    with pytest.raises(TypeError, match="^normalize"):
        LatticePMF(0, [0.5, 0.5], normalize="yes")


@pytest.mark.parametrize("values, probabilities, error, fragment", [
    ([0, 1.5], [0.5, 0.5], InvalidDistributionError, "value 1.5 is not an integer"),
    ([True, 2], [0.5, 0.5], InvalidDistributionError, "value True is not an integer"),
    (["0", "1"], [0.5, 0.5], InvalidDistributionError, "value '0' is not an integer"),
    ([0, math.nan], [0.5, 0.5], InvalidDistributionError, "value nan is not an integer"),
    ([0, 1], ["0.5", "0.5"], InvalidDistributionError, "probability of value 0 is '0.5'"),
    ([0, 1], [True, False], InvalidDistributionError, "probability of value 0 is True"),
    ([0, 1], [0.5], InvalidDistributionError, "got 2 and 1"),
    ([], [], InvalidDistributionError, "non-empty"),
    ([0, 0], [0.5, 0.5], InvalidDistributionError, "value 0 is repeated"),
    ({0: 1}, [1.0], ArgumentTypeError, "values = {0: 1}"),
    ([0, 1], "ab", ArgumentTypeError, "probabilities = 'ab'"),
    ([0, 1], [0.0, 0.0], InvalidDistributionError, "every probability is 0"),
])
def test_from_values_refuses_and_names_the_problem(values, probabilities, error, fragment):
    with pytest.raises(error) as info:
        LatticePMF.from_values(values, probabilities, name="users.X")
    assert fragment in one_line(info) and "users.X" in str(info.value)


@pytest.mark.parametrize("counts", [[1, 2.5], [1, True], [1, -1], [0, 0], [1, "2"]])
def test_from_counts_refuses_counts_that_are_not_counts(counts):
    with pytest.raises(InvalidDistributionError, match="counts"):
        LatticePMF.from_counts([0, 1], counts, name="c")


@pytest.mark.parametrize("p, error", [(1.5, InvalidDistributionError), (-0.1, InvalidDistributionError),
                                      (math.nan, InvalidDistributionError), ("0.3", ArgumentTypeError),
                                      (True, ArgumentTypeError)])
def test_bernoulli_pmf_refuses_p_outside_0_1(p, error):
    with pytest.raises(error, match="Bernoulli probability p"):
        LatticePMF.bernoulli(p)


def test_point_shift_and_windows_take_integers():
    with pytest.raises(InvalidArgumentError, match="^value = 1.5"):
        LatticePMF.point(1.5)
    pmf = LatticePMF.from_values([1, 2, 3], [0.2, 0.5, 0.3])
    with pytest.raises(InvalidArgumentError, match="^a = 0.5"):
        pmf.shift(0.5)
    with pytest.raises(InvalidArgumentError, match="^hi = 0: must be >= lo = 2"):
        pmf.pmf_on(2, 0)
    with pytest.raises(InvalidArgumentError, match="lattice points"):
        pmf.cdf_on(0, 10**9)
    with pytest.raises(TypeError, match="^t = "):
        pmf.log_mgf("1")


def test_cdf_far_from_the_support_needs_no_long_array():
    """F = 0 left of the support and 1 right of it (exact thirds-free masses 0.2, 0.5, 0.3), whatever the distance."""
    pmf = LatticePMF.from_values([1, 2, 3], [0.2, 0.5, 0.3])
    floats = LatticePMF(1, [0.2, 0.5, 0.3])
    for p in (pmf, floats):
        assert p.cdf_on(10**9, 10**9 + 2).tolist() == [1.0, 1.0, 1.0]
        assert p.cdf_on(-10**9, -10**9 + 1).tolist() == [0.0, 0.0]
        assert p.cdf_on(0, 5).tolist() == pytest.approx([0.0, 0.2, 0.7, 1.0, 1.0, 1.0], abs=1e-15)
        assert p.cdf_on(2, 2).tolist() == pytest.approx([0.7], abs=1e-15)
    assert _peak_bytes(lambda: pmf.cdf_on(5 * 10**6, 5 * 10**6 + 3)) < 10**6


# ------------------------------------------------------------------------------ users, secrets, pairs
@pytest.mark.parametrize("presence, error", [(0.0, InvalidDistributionError), (1.5, InvalidDistributionError),
                                             (math.nan, InvalidDistributionError), (True, ArgumentTypeError),
                                             ("0.5", ArgumentTypeError), (None, ArgumentTypeError)])
def test_user_presence_is_a_probability_in_0_1(presence, error):
    with pytest.raises(error, match=r"^User u\.presence = "):
        User(REST[0].pmf, presence, "u")


def test_users_and_secrets_check_their_fields():
    with pytest.raises(TypeError, match=r"^User\.pmf = \[0\.5, 0\.5\]: must be a LatticePMF"):
        User([0.5, 0.5])
    with pytest.raises(TypeError, match=r"^User\.name = 3"):
        User(REST[0].pmf, 1.0, 3)
    with pytest.raises(InvalidArgumentError, match=r"^Reports\.value = 2\.5: must be an integer"):
        Reports(2.5)
    with pytest.raises(TypeError, match=r"^Reports\.value = True"):
        Reports(True)
    with pytest.raises(TypeError, match=r"^Reports\.value = '3'"):
        Reports("3")
    assert Reports(3.0).value == 3 and isinstance(Reports(3.0).value, int)
    with pytest.raises(TypeError, match=r"^Draws\.name = 1"):
        Draws(REST[0].pmf, 1)


def test_secret_pairs_check_their_secrets_and_rest():
    with pytest.raises(TypeError, match="^first = 'absent': must be a Reports or Absent or Draws"):
        SecretPair.of("absent", Absent(), REST)
    with pytest.raises(TypeError, match="^rest = None"):
        SecretPair.of(Reports(1), Absent(), None)
    with pytest.raises(TypeError, match="^rest = "):
        SecretPair.of(Reports(1), Absent(), REST[0])
    with pytest.raises(InvalidArgumentError, match="^second = Absent\\(\\): the same secret as first"):
        SecretPair.of(Absent(), Absent(), REST)
    with pytest.raises(TypeError, match="^rest_sum = "):
        SecretPair(Reports(1), Absent(), [0.5, 0.5])
    with pytest.raises(InvalidArgumentError, match="^weight = 1.5"):
        SecretPair(Reports(1), Absent(), REST[0].pmf, 1.5)
    with pytest.raises(TypeError, match="^secret = "):
        query_prior(None, REST)


def test_sums_check_their_users():
    with pytest.raises(TypeError, match="^users = LatticePMF"):
        sum_of_users(REST[0].pmf)
    with pytest.raises(TypeError, match=r"^users\[0\] = User.*pass user\.pmf"):
        sum_of_users(REST)
    with pytest.raises(TypeError, match=r"^q = \[1\]: must be a LatticePMF"):   # named as the argument (was "convolve(p, q)[1]")
        convolve(REST[0].pmf, [1])
    # a generator is read once: the sum of two point masses at 1 and 2 is the point mass at 3
    assert sum_of_users(LatticePMF.point(k) for k in (1, 2)).lo == 3


# ------------------------------------------------------------------------------ audits and targets
P, Q = LatticePMF.from_values([0, 1], [0.7, 0.3]), LatticePMF.from_values([0, 1], [0.8, 0.2])


@pytest.mark.parametrize("theta", NOT_NUMBERS)
def test_a_laplace_scale_is_a_number(theta):
    with pytest.raises(TypeError, match="^theta = "):
        lattice_privacy_loss(P, Q, theta)


@pytest.mark.parametrize("theta", [0.0, -1.0, *NOT_FINITE])
def test_a_laplace_scale_is_finite_and_positive(theta):
    with pytest.raises(InvalidArgumentError, match="^theta = .*: must be finite and > 0"):
        lattice_privacy_loss(P, Q, theta)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"epsilon": math.nan}, "epsilon = nan"), ({"epsilon": 0.0}, "epsilon = 0.0"),
    ({"epsilon": 0.5, "rtol": 0.0}, "rtol = 0.0"), ({"epsilon": 0.5, "rtol": math.nan}, "rtol = nan"),
    ({"epsilon": 0.5, "max_steps": 0}, "max_steps = 0"), ({"epsilon": 0.5, "max_steps": 2.5}, "max_steps = 2.5"),
])
def test_theta_min_refuses_bad_arguments(kwargs, fragment):
    with pytest.raises(InvalidArgumentError) as info:
        theta_min(P, Q, **kwargs)
    assert one_line(info).startswith(fragment)


@pytest.mark.parametrize("kwargs", [{"epsilon": "0.5"}, {"epsilon": True}, {"epsilon": 0.5, "max_steps": True}])
def test_theta_min_refuses_wrong_types(kwargs):
    with pytest.raises(TypeError):
        theta_min(P, Q, **kwargs)


def test_audits_refuse_priors_that_are_not_pmfs():
    for call in (lambda: lattice_privacy_loss([1.0], Q, 1.0), lambda: theta_min(P, "q", 0.5),
                 lambda: zero_noise_loss(P, None), lambda: LaplaceLatticeAuditor([0.7, 0.3], Q)):
        with pytest.raises(TypeError, match="^[pq] = "):
            call()


def test_tight_raises_instead_of_returning_inf():
    """theta_min that cannot close its bracket reports theta = inf with a reason; tight(), which
    returns bare numbers, names the epsilon instead of returning inf."""
    p, q = LatticePMF.from_values([0, 1, 2], [0.2, 0.5, 0.3]), LatticePMF.from_values([0, 1], [0.6, 0.4])
    with pytest.raises(InvalidArgumentError) as info:
        tight(p, q, epsilons=[0.5], rtol=1e-15, max_steps=2)
    assert re.match(r"epsilons\[0\] = 0.5: no tight scale: bracket \[[0-9.e+-]+, [0-9.e+-]+\] not closed within 2 steps$",
                    one_line(info))
    with pytest.raises(InvalidArgumentError, match=r"^epsilons = \[\]"):
        tight(P, Q, epsilons=[])
    # and where it closes: point masses at 0 and 1, L(theta) = 1/theta exactly, so theta_min = 1/eps
    assert tight(LatticePMF.point(0), LatticePMF.point(1), epsilons=[0.5])[0] == pytest.approx(2.0, rel=1e-11)


@pytest.mark.parametrize("epsilon", ["0.5", True, None])
def test_targets_refuse_strings_and_bools(epsilon):
    with pytest.raises(TypeError, match="^epsilon = "):
        Target(epsilon)
    with pytest.raises(TypeError, match="^delta = "):
        Target(1.0, delta=epsilon if epsilon is not None else "x")


# ------------------------------------------------------------------------------ grids
@pytest.mark.parametrize("spec, error, fragment", [
    ([0.1, "0.2"], ArgumentTypeError, "g[1] = '0.2'"),
    ([0.1, True], ArgumentTypeError, "g[1] = True"),
    ([], InvalidArgumentError, "g = []"),
    ({"start": "a", "stop": 1, "step": 0.1}, ArgumentTypeError, "g.start = 'a'"),
    ({"start": 0.1, "stop": math.nan, "step": 0.1}, InvalidArgumentError, "g.stop = nan"),
    ({"start": 0.1, "stop": 1.0}, InvalidArgumentError, "g: missing key 'step'"),
    ("0.1", ArgumentTypeError, "g = '0.1'"),
])
def test_grid_specs_are_checked(spec, error, fragment):
    with pytest.raises(error) as info:
        expand_grid(spec, name="g")
    assert one_line(info).startswith(fragment)


def test_deltas_are_in_the_open_unit_interval():
    for bad in ([0.0], [1.0], [math.nan], []):
        with pytest.raises(InvalidArgumentError, match="^deltas"):
            check_deltas(bad)
    assert check_deltas([0.25, 0.5]).tolist() == [0.25, 0.5]


def test_every_refusal_is_a_pufferfish_error():
    """User mistakes are PufferfishError (the workflow turns them into one line), and still ValueError/TypeError."""
    for call, base in ((lambda: LatticePMF(0, [0.3]), ValueError), (lambda: Draws([1]), TypeError),
                       (lambda: check_epsilons([]), ValueError), (lambda: Reports("1"), TypeError)):
        with pytest.raises(base) as info:
            call()
        assert isinstance(info.value, PufferfishError)


# ==============================================================================================
# The pipeline: no config mistake reaches a job, provenance that never lies, one line per fault
# ==============================================================================================
import copy  # noqa: E402
import errno  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from pufferfish.errors import ConfigError, DataError, OutputError  # noqa: E402
from pufferfish import files  # noqa: E402
from pufferfish.pipeline import jobs  # noqa: E402
from pufferfish.pipeline.config import check_duplicate_keys, validate_config  # noqa: E402
from pufferfish.pipeline.data_checks import check_data  # noqa: E402
from pufferfish.data_priors import condition  # noqa: E402
from pufferfish.pipeline.report import (NOT_COMPUTED, file_sha256, provenance,  # noqa: E402
                                        reproduction_table)

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------ duplicate keys
def _line_of(text: str, needle: str, start: int = 0) -> int:
    """1-based line number of the first line at or after line ``start`` that contains ``needle``."""
    lines = text.splitlines()
    return next(k + 1 for k in range(start, len(lines)) if needle in lines[k])


def test_a_second_user_of_the_same_name_is_refused_with_both_lines(tmp_path):
    """Issue case 2: a second `D1:` under multiuser.users silently replaced the first."""
    text = (ROOT / "config.yaml").read_text(encoding="utf-8")
    first = _line_of(text, "    D1: {")
    text = text.replace("    D2: {", "    D1: {values: [1], probabilities: [1.0]}\n    D2: {", 1)
    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    second = _line_of(text, "    D1: {", first)
    assert second == first + 1
    with pytest.raises(ConfigError) as info:
        check_duplicate_keys(tmp_path / "config.yaml")
    assert one_line(info) == (f"config: multiuser.users.D1: key 'D1' appears twice in config.yaml (lines {first} and "
                              f"{second}); the second would silently replace the first")


def test_a_second_experiment_of_the_same_name_is_refused(tmp_path):
    text = (ROOT / "config.yaml").read_text(encoding="utf-8")
    block = text[text.index("    fig4:\n"):text.index("    fig5:\n")]
    text = text.replace("    fig5:\n", block + "    fig5:\n", 1)
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    first = _line_of(text, "    fig4:")
    second = _line_of(text, "    fig4:", first)
    with pytest.raises(ConfigError, match=rf"^config: multiuser.experiments.fig4: key 'fig4' appears twice in c.yaml "
                                          rf"\(lines {first} and {second}\)"):
        check_duplicate_keys(tmp_path / "c.yaml")


@pytest.mark.parametrize("text, fragment", [
    ("a: 1\nb:\n  c: 2\n  c: 3\n", "config: b.c: key 'c' appears twice in f.yaml (lines 3 and 4)"),
    ("a:\n  - {x: 1, x: 2}\n", "config: a[0].x: key 'x' appears twice in f.yaml (lines 2 and 2)"),
    ("a: 1\na: 1\n", "config: a: key 'a' appears twice in f.yaml (lines 1 and 2)"),
])
def test_duplicates_anywhere_are_refused(tmp_path, text, fragment):
    (tmp_path / "f.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        check_duplicate_keys(tmp_path / "f.yaml")
    assert one_line(info).startswith(fragment)


def test_distinct_keys_merges_and_the_shipped_config_pass(tmp_path):
    (tmp_path / "f.yaml").write_text("base: &b {x: 1, y: 2}\nover:\n  <<: *b\n  x: 3\n'1': a\n1: b\n", encoding="utf-8")
    check_duplicate_keys(tmp_path / "f.yaml")  # an override of a merged key, and "1" vs 1, are not duplicates
    check_duplicate_keys(ROOT / "config.yaml")
    (tmp_path / "f.json").write_text('{"a": {"b": 1, "b": 2}}', encoding="utf-8")
    with pytest.raises(ConfigError, match="key 'b' appears twice"):
        check_duplicate_keys(tmp_path / "f.json")


# ------------------------------------------------------------------------------ values a job could not honour
@pytest.mark.parametrize("edit, fragment", [
    (lambda c: c["audit"].update(bisection_rtol=1e-300),
     "config: audit.bisection_rtol = 1e-300: must be >= 8.881784197001252e-16"),
    (lambda c: c["multiuser"]["users"].update(big={"values": [0, 10**9], "probabilities": [0.5, 0.5]}),
     "config: multiuser.users.big.values: span 1000000001 lattice points (from 0 to 1000000000)"),
    # reports 10^8 vs absent, rest D1-D3 (1..5 each): priors from 3 to 15 and from 10^8 + 3 to 10^8 + 15
    (lambda c: c["multiuser"]["experiments"]["fig2"].update(secrets=[{"value": 10**8}, "absent"]),
     "config: multiuser.experiments.fig2: the two query priors span 100000013 lattice points (from 3 to 100000015)"),
])
def test_values_no_job_could_honour_are_refused_at_load(edit, fragment):
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    edit(cfg)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert one_line(info).startswith(fragment)


# ------------------------------------------------------------------------------ load-time data checks
HEART_SPEC = {"source": "archive", "url": "https://archive.ics.uci.edu/static/public/45/heart+disease.zip",
              "member": "processed.hungarian.data", "sha256": "ab" * 32, "rows": 6, "columns": ["age", "sex", "chol"],
              "read_csv": {"header": None, "names": ["age", "sex", "chol"], "na_values": ["?"]}}
BANK_SPEC = {"source": "ucimlrepo", "uci_id": 222, "rows": 6, "columns": ["job", "loan"]}


def _data_config(tmp_path, cache=True) -> dict:
    """A valid config reading two small cached tables (data/raw/*.csv and their records under tmp_path)."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    cfg["datasets"] = {"hungarian_heart": copy.deepcopy(HEART_SPEC), "bank_marketing": copy.deepcopy(BANK_SPEC)}
    mu = cfg["multiuser"]
    mu["data_users"] = {"loan_blue": {"dataset": "bank_marketing", "attribute": "loan", "given": {"job": "blue-collar"},
                                      "encoding": {"indicator": ["yes"]}}}
    mu["experiments"] = {"fig4": mu["experiments"]["fig4"]}
    gauss = cfg["gaussian"]
    gauss["fig4"]["missing_values"] = [0]
    gauss["gmm"]["components"] = 2
    del gauss["fig3"]
    for section in ("wasserstein", "comparison", "iteration", "sensitivity", "distp"):  # their datasets are not in this small config
        cfg.pop(section, None)
    validate_config(cfg)
    raw = tmp_path / "data" / "raw"
    raw.mkdir(parents=True)
    if cache:
        tables = {"hungarian_heart": pd.DataFrame({"age": [40, 50, 60, 45, 55, 65], "sex": [0, 0, 0, 1, 1, 1],
                                                   "chol": [200, 0, 250, 180, 220, 300]}),
                  "bank_marketing": pd.DataFrame({"job": ["blue-collar", "management", None, "blue-collar",
                                                          "management", "blue-collar"],
                                                  "loan": ["yes", "no", "no", "no", "yes", "yes"]})}
        for name, frame in tables.items():
            spec = cfg["datasets"][name]
            frame.to_csv(raw / f"{name}.csv", index=False)
            record = {"dataset": name, "source": spec["source"], "uci_id": spec.get("uci_id"), "url": spec.get("url"),
                      "member": spec.get("member"), "read_csv": spec.get("read_csv", {}), "rows": 6,
                      "sha256_expected": spec.get("sha256"), "columns": list(frame.columns)}
            (raw / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")
    return cfg


def test_the_data_checks_pass_on_a_good_config(tmp_path):
    check_data(_data_config(tmp_path), tmp_path / "data" / "raw")


@pytest.mark.parametrize("path, value, fragment", [
    # issue case 3/4: no such column (the cached table's columns are listed)
    (["gaussian", "fig4", "attribute"], "cholesterol",
     "config: gaussian.fig4.attribute: no column 'cholesterol' in dataset hungarian_heart (columns: age, sex, chol)"),
    # a conditioning value that matches no row
    (["gaussian", "fig4", "secrets", 0, "given"], {"sex": 7},
     "config: gaussian.fig4.secrets[0]: dataset hungarian_heart: no row has sex = 7 (values present: 0, 1)"),
    (["multiuser", "data_users", "loan_blue", "given"], {"job": "blue-colar"},
     "config: multiuser.data_users.loan_blue: dataset bank_marketing: no row has job = 'blue-colar'"),
    (["multiuser", "data_users", "loan_blue", "given"], {"jobb": "blue-collar"},
     "config: multiuser.data_users.loan_blue.given.jobb: no column 'jobb' in dataset bank_marketing"),
    (["multiuser", "data_users", "loan_blue", "encoding"], {"indicator": ["Yes"]},
     "config: multiuser.data_users.loan_blue: indicator value 'Yes' never occurs"),
    (["multiuser", "data_users", "loan_blue", "encoding"], {"codes": ["no"]},
     "config: multiuser.data_users.loan_blue: value(s) 'yes' not in encoding codes"),
    (["multiuser", "data_users", "loan_blue", "encoding"], "numeric",
     "config: multiuser.data_users.loan_blue: encoding 'numeric' needs integer values"),
    # female rows with chol: 200, 250 (0 is missing): 2 values, fewer than 3 components
    (["gaussian", "gmm", "components"], 3, "config: gaussian.fig4.secrets[0]: 2 distinct value(s) in 2 row(s)"),
    (["datasets", "bank_marketing", "columns"], ["job", "loan", "age"],
     "config: datasets.bank_marketing.columns[2] = 'age': not a column of the cached"),
])
def test_data_mistakes_are_named_before_any_job(tmp_path, path, value, fragment):
    cfg = _data_config(tmp_path)
    node = cfg
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(ConfigError) as info:
        check_data(cfg, tmp_path / "data" / "raw")
    assert one_line(info).startswith(fragment)


def test_check_data_checks_a_new_papers_requests_without_knowing_the_paper(tmp_path, monkeypatch):
    """A paper declares what it reads (the ``data_requests`` of its declaration, each naming the
    function its job reads the rows with); check_data names a missing column at its own key and a
    refusal of the reader at the request's entry, as for the papers it has."""
    from pufferfish import papers
    from pufferfish.data_priors import condition
    from pufferfish.settings import DataRequest

    def requests(config):
        where = "newpaper.items.a"
        return [DataRequest(where=where, dataset="hungarian_heart", low_memory=False, label=where,
                            columns=((f"{where}.released", config["newpaper"]["column"]), (f"{where}.given.sex", "sex")),
                            reader=condition,
                            arguments={"attribute": config["newpaper"]["column"], "given": {"sex": config["newpaper"]["sex"]},
                                       "dataset": "hungarian_heart"})]

    paper = papers.Paper(key="newpaper", title="A new paper", settings=lambda section, config: section,
                         schema=tmp_path / "unused.yaml", check_references=lambda config: None, rules="unused.smk",
                         report="unused.rst", data_requests=requests)
    monkeypatch.setattr(papers, "declared", lambda: (paper,))
    cfg = _data_config(tmp_path)
    raw = tmp_path / "data" / "raw"
    cfg["newpaper"] = {"column": "chol", "sex": 1}
    check_data(cfg, raw)
    cfg["newpaper"]["sex"] = 7
    with pytest.raises(ConfigError) as info:
        check_data(cfg, raw)
    assert one_line(info) == "config: newpaper.items.a: dataset hungarian_heart: no row has sex = 7 (values present: 0, 1)"
    cfg["newpaper"]["column"] = "cholesterol"
    with pytest.raises(ConfigError) as info:
        check_data(cfg, raw)
    assert one_line(info) == ("config: newpaper.items.a.released: no column 'cholesterol' in dataset hungarian_heart "
                              "(columns: age, sex, chol)")


def test_every_shipped_data_request_has_a_reader_it_can_call():
    """A request holds its reader, a function (not a name a typo could break at run time); the
    shipped config's requests come from the five papers that read data. (Each reader runs on
    data in test_the_data_checks_pass_on_a_good_config.)"""
    from pufferfish.pipeline.data_checks import data_requests

    cfg = validate_config(yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8")))
    requests = data_requests(cfg)
    assert {r.where.split(".")[0] for r in requests} == {"multiuser", "gaussian", "wasserstein", "sensitivity", "distp"}
    assert all(callable(request.reader) for request in requests)


def test_without_a_cache_only_known_columns_are_checked(tmp_path):
    cfg = _data_config(tmp_path, cache=False)
    raw = tmp_path / "data" / "raw"
    cfg["multiuser"]["data_users"]["loan_blue"]["given"] = {"job": "astronaut"}  # needs the data: not checked
    check_data(cfg, raw)
    cfg["gaussian"]["fig4"]["attribute"] = "cholesterol"  # archive: read_csv.names lists the columns
    with pytest.raises(ConfigError, match="^config: gaussian.fig4.attribute: no column 'cholesterol'"):
        check_data(cfg, raw)


def test_a_cache_of_another_spec_is_not_used(tmp_path):
    """When the spec changed (rows, source...), the download job will fetch anew: the cache says nothing."""
    cfg = _data_config(tmp_path)
    cfg["datasets"]["bank_marketing"]["rows"] = 7
    cfg["multiuser"]["data_users"]["loan_blue"]["given"] = {"job": "astronaut"}
    check_data(cfg, tmp_path / "data" / "raw")


def test_an_empty_column_is_named_as_such():
    """Issue case 7: an all-missing column was reported as 'no row has freetime = 5 (values present: )'."""
    frame = pd.DataFrame({"romantic": ["yes", "no", "no"], "freetime": [np.nan] * 3})
    with pytest.raises(DataError) as info:
        condition(frame, attribute="romantic", given={"freetime": 5}, dataset="toy")
    assert one_line(info) == "dataset toy: column 'freetime' has no values (all 3 rows are missing)"
    frame = pd.DataFrame({"a": [1.0, np.nan], "b": [np.nan, "x"]})
    with pytest.raises(DataError, match="no row has a value in every one of the columns 'a', 'b'"):
        condition(frame, attribute="a", given={"b": "x"}, dataset="toy")
    frame = pd.DataFrame({"chol": [0, 0, np.nan], "sex": [0, 1, 1]})
    with pytest.raises(DataError, match=r"every value of column 'chol' is missing or one of missing_values \[0\]"):
        condition(frame, attribute="chol", given={"sex": 1}, dataset="toy", missing_values=[0])


# ------------------------------------------------------------------------------ reproduction and provenance
def test_a_paper_value_whose_epsilon_left_the_grid_is_not_computed(tmp_path):
    """Issue case 7: the reproduction rule failed the workflow; the row is now recorded with the reason."""
    pd.DataFrame({"method": ["m", "m"], "epsilon": [0.2, 0.3], "theta": [5.0, 10 / 3]}).to_csv(tmp_path / "t.csv",
                                                                                            index=False)
    items = [
        {"source": "s", "item": "at 0.1", "paper_value": 10, "ours": {"file": "t.csv", "where": {"epsilon": 0.1},
                                                                     "column": "theta"}},
        {"source": "s", "item": "at 0.2", "paper_value": 5, "ours": {"file": "t.csv", "where": {"epsilon": 0.2},
                                                                    "column": "theta"}},
        {"source": "s", "item": "gone", "paper_value": 1, "ours": {"file": "gone.csv", "column": "theta"}},
    ]
    items = [{**item, "strength": "printed"} for item in items]
    table = reproduction_table(items, tmp_path, produced=["t.csv"])
    assert table.status.tolist() == [NOT_COMPUTED, "match", NOT_COMPUTED]
    assert table.note.tolist() == ["no row of t.csv has epsilon = 0.1 (not in this run's grid or panels)", "",
                                   "gone.csv is not made by this config"]
    assert math.isnan(table.our_value[0]) and table.our_value[1] == 5
    with pytest.raises(ConfigError, match="has no column 'eps'"):  # a mistake in paper_values.yaml is still one
        reproduction_table([{**items[0], "ours": {"file": "t.csv", "where": {"eps": 0.1}, "column": "theta"}}], tmp_path)


def test_provenance_lists_every_output_with_its_sha256(tmp_path):
    outputs = []
    for k, data in enumerate([b"a,b\n1,2\n", b"\x89PNG\r\n"]):
        path = tmp_path / f"out{k}"
        path.write_bytes(data)
        outputs.append(path)
    record = provenance(config={"a": 1}, dataset_records=[], repo=tmp_path, outputs=outputs)
    assert record["outputs_sha256"] == {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in outputs}
    assert file_sha256(outputs[0]) == hashlib.sha256(b"a,b\n1,2\n").hexdigest()
    with pytest.raises(OutputError) as info:
        provenance(config={"a": 1}, dataset_records=[], repo=tmp_path, outputs=[tmp_path / "missing.csv"])
    assert "missing.csv" in one_line(info)


def test_the_provenance_rule_needs_every_final_target():
    """results/provenance.json is written only after every output it lists exists (the rule's inputs)."""
    rules = (ROOT / "workflow" / "rules" / "report.smk").read_text(encoding="utf-8")
    block = rules[rules.index("rule provenance:"):]
    inputs = block[:block.index("output:")]
    assert 'data=sorted({t for t in TARGETS if not t.startswith("results/")})' in inputs
    assert 'outputs=job_outputs([t for t in TARGETS if t.startswith("results/")], workflow.rules)' in inputs
    assert rules.index('TARGETS.extend(["results/audit/summary.csv", "results/reproduction.csv"])') < \
        rules.index("rule provenance:") < rules.index('TARGETS.append("results/provenance.json")')


# ------------------------------------------------------------------------------ OSError: one line naming the path
def test_an_output_directory_that_is_a_file_is_one_line(tmp_path):
    """Issue case 5: results/plans as a file ended in a traceback."""
    (tmp_path / "plans").write_text("not a directory")
    with pytest.raises(OutputError) as info:
        files.write_csv(pd.DataFrame({"a": [1]}), tmp_path / "plans" / "x.csv")
    assert one_line(info) == f"cannot write {tmp_path / 'plans' / 'x.csv'}: {tmp_path / 'plans'} is a file, not a directory"
    with pytest.raises(OutputError, match="is a file, not a directory"):
        files.check_output_paths([str(tmp_path / "plans" / "multiuser_{experiment,fig1|fig2}.csv")])
    with pytest.raises(OutputError, match=r"multiuser_\{experiment\}\.csv: "):
        files.check_output_paths([str(tmp_path / "plans" / "multiuser_{experiment,fig1|fig2}.csv")])
    (tmp_path / "out.json").mkdir()
    with pytest.raises(OutputError, match="out.json: it is a directory"):
        files.check_output_paths([str(tmp_path / "out.json")])
    files.check_output_paths([str(tmp_path / "new" / "deeper" / "{x}.csv"), str(tmp_path / "fine.csv")])


def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    """Issue case 5: OSError [Errno 28] from plotting.save_figure ended in a traceback."""
    import matplotlib.pyplot as plt

    from pufferfish import plotting

    fig = plt.figure()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fig, "savefig", full)
    png = tmp_path / "figures" / "fig1.png"
    with pytest.raises(OutputError) as info:
        plotting.save_figure(fig, png)
    assert one_line(info) == f"cannot write {png}: No space left on device"
    assert list((tmp_path / "figures").iterdir()) == []  # no temporary left behind
    assert not plt.fignum_exists(fig.number)             # and the figure is closed


def _fake_job(tmp_path, outputs):
    log = tmp_path / "job.log"
    return types.SimpleNamespace(log=[str(log)], output=[str(o) for o in outputs]), log


@pytest.fixture(autouse=True)
def _close_job_logs():
    """jobs.run logs to the job's file; close it after each test (a real job is a process of its own)."""
    yield
    import logging

    for handler in logging.getLogger("pufferfish").handlers:
        handler.close()
    logging.getLogger("pufferfish").handlers.clear()


@pytest.mark.parametrize("error, line", [
    (OSError(errno.ENOSPC, "No space left on device", "results/theta/x.csv"),
     "error: results/theta/x.csv: No space left on device"),
    (DataError("dataset toy: no column 'x'"), "error: dataset toy: no column 'x'"),
])
def test_a_job_that_fails_says_one_line_and_removes_its_outputs(tmp_path, capsys, error, line):
    out = tmp_path / "partial.csv"
    out.write_text("half")
    job, log = _fake_job(tmp_path, [out])

    def main(_):
        raise error

    with pytest.raises(SystemExit) as info:
        jobs.run(main, job)
    assert info.value.code == 1
    assert capsys.readouterr().err == line + "\n"
    assert not out.exists() and log.read_text().endswith(line.replace("error: ", "ERROR ") + "\n")


def test_a_job_that_succeeds_exits_the_normal_way_with_its_outputs_and_log_complete(tmp_path):
    """jobs.run returns after a successful job, its objects frozen (gc.freeze: the teardown's
    collections skip them); the process then exits the normal way: status 0, the output is there,
    the rule's log and the standard streams are flushed, exit handlers ran."""
    import subprocess
    import sys
    import textwrap

    out, log, marker = tmp_path / "out.csv", tmp_path / "job.log", tmp_path / "atexit.txt"
    code = textwrap.dedent(f"""
        import atexit, logging, types
        from pufferfish.pipeline import jobs
        atexit.register(lambda: open({str(marker)!r}, "w").write("ran"))
        def main(_):
            open({str(out)!r}, "w").write("x,y\\n1,2\\n")
            logging.getLogger("pufferfish").info("wrote the output")
            print("to stdout", end="")
        assert jobs.run(main, types.SimpleNamespace(log=[{str(log)!r}], output=[{str(out)!r}])) is None
        import gc
        assert gc.get_freeze_count() > 10_000   # the job's objects: left to the end of the process
        print(" and after", end="")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "to stdout and after" and proc.stderr == ""
    assert out.read_text() == "x,y\n1,2\n"
    assert log.read_text() == "INFO wrote the output\n"
    assert marker.read_text() == "ran"


def test_a_job_whose_log_cannot_be_written_says_so(tmp_path, capsys):
    (tmp_path / "logs").write_text("a file")
    job = types.SimpleNamespace(log=[str(tmp_path / "logs" / "x.log")], output=[])
    with pytest.raises(SystemExit):
        jobs.run(lambda _: None, job)
    assert capsys.readouterr().err == f"error: {tmp_path / 'logs' / 'x.log'}: {tmp_path / 'logs'} is a file, not a directory\n"


# ------------------------------------------------------------------------------ stale lock after SIGKILL
def test_a_stale_lock_is_removed_only_when_no_snakemake_runs_here(tmp_path):
    """Issue case 7: after SIGKILL of snakemake the next run refused with "Directory cannot be locked"."""
    assert jobs.release_stale_lock(tmp_path) == ""                        # no lock: nothing to do
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.output.lock").write_text("results/x.csv\n")
    fake = tmp_path / "bin" / "snakemake"                              # a process that runs `snakemake` here
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport sys, time\nsys.stdout.write('up\\n'); sys.stdout.flush(); time.sleep(60)\n")
    fake.chmod(0o755)
    proc = subprocess.Popen([str(fake)], cwd=tmp_path, stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"up\n"
        if jobs.snakemake_processes(tmp_path) is None:
            pytest.skip("no /proc: the lock is never removed, the message says what to do")
        assert jobs.snakemake_processes(tmp_path) == [proc.pid]
        with pytest.raises(PufferfishError) as info:
            jobs.release_stale_lock(tmp_path)
        assert f"process {proc.pid}" in one_line(info) and "make reproduce" in str(info.value)
        assert (locks / "0.output.lock").exists()
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    assert jobs.snakemake_processes(tmp_path) == []
    assert "removed the lock" in jobs.release_stale_lock(tmp_path)
    assert not locks.exists()
    assert jobs.main(["release-stale-lock", str(tmp_path)]) == 0 and jobs.main(["bogus"]) == 2


def test_table1_settings_are_checked_on_cached_data(tmp_path):
    """A wasserstein setting naming a column the cached table lacks stops at load, naming the key."""
    cfg = _data_config(tmp_path)
    cfg["wasserstein"] = {"settings": {"loans": {"title": "t", "dataset": "bank_marketing", "attribute": "loan",
                                              "encoding": {"indicator": ["yes"]}, "column": "jobb"}}}
    with pytest.raises(ConfigError) as info:
        check_data(cfg, tmp_path / "data" / "raw")
    assert one_line(info) == ("config: wasserstein.settings.loans.column: no column 'jobb' in dataset bank_marketing "
                              "(columns: job, loan)")
    cfg["wasserstein"]["settings"]["loans"]["column"] = "job"
    check_data(cfg, tmp_path / "data" / "raw")  # job has values; the indicator occurs

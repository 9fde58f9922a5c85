"""Randomized response and the clamped geometric mechanism (:mod:`pufferfish.mechanisms.randomized_response`,
:mod:`.geometric`, :mod:`.channel`).

Every expected number comes from another route: mpmath at 50 digits (the closed forms worked by
hand, and sums of the geometric series term by term), scipy's ``dlaplace`` (the same noise, its
own code), dp-accounting's privacy-loss distributions (randomized response; the discrete Laplace
mechanism, whose hockey stick clamping does not change), and brute force over the noise values.
eps_A spans 1e-12 to 1000, domains 2 to 2000 values.
"""
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError
from pufferfish.mechanisms import (ClampedGeometric, RandomizedResponse, TwoSidedGeometric, channel_epsilons,
                                   output_law)

EPSILONS = [0.0, 1e-12, 1e-6, 0.01, 0.5, 1.0, 4.0, 30.0, 700.0, 1000.0]
ULP = 2.220446049250313e-16


def close(got, exact, rel=4 * ULP):
    """|got - exact| <= rel |exact| (mpmath exact), entry by entry; a value below the floats may round to 0."""
    return all(abs(mp.mpf(float(g)) - e) <= rel * abs(e) + mp.mpf("1e-320") for g, e in zip(np.ravel(got), exact))


# ------------------------------------------------------------------------------ randomized response
@pytest.mark.parametrize("m", [2, 3, 10, 1000])
@pytest.mark.parametrize("eps", EPSILONS)
def test_rr_probabilities_against_mpmath(m, eps):
    rr = RandomizedResponse(m, eps)
    with mp.workdps(50):
        big = mp.e ** mp.mpf(eps)
        keep, other = big / (big + m - 1), 1 / (big + m - 1)       # by hand: e^eps / (e^eps + m - 1), 1 / (...)
        log_keep = -mp.log1p((m - 1) / big)                          # 1 - keep is below 50 digits at eps = 700
        assert close([rr.keep, rr.log_keep], [keep, log_keep])
        assert abs(mp.mpf(rr.other) - other) <= 4 * ULP * other + mp.mpf("1e-323")   # e^-1000 underflows
        assert abs(mp.mpf(rr.log_other) - mp.log(other)) <= 4 * ULP * abs(mp.log(other))


@pytest.mark.parametrize("m", [2, 3, 10, 300])
@pytest.mark.parametrize("eps", EPSILONS)
def test_rr_channel_rows_sum_to_one_and_its_epsilon_is_eps_a(m, eps):
    rr = RandomizedResponse(m, eps)
    matrix, logs = rr.matrix(), rr.log_matrix()
    assert matrix.shape == (m, m) and logs.shape == (m, m)
    for row in matrix:
        assert abs(math.fsum(row) - 1.0) <= 4 * ULP
    np.testing.assert_array_equal(np.diag(matrix), rr.keep)
    # the epsilon of the channel: max over outputs y and inputs x != x' of |log C[x, y] - log C[x', y]|,
    # computed here from the logs row by row (brute force), and by channel_epsilons
    worst = max(np.max(np.abs(logs[i] - logs[j])) for i in range(min(m, 12)) for j in range(min(m, 12)) if i != j)
    tol = 4 * ULP * max(1.0, abs(rr.log_other))
    assert abs(worst - eps) <= tol and rr.channel_epsilon == eps
    pairs = channel_epsilons(logs[:12])
    off = ~np.eye(pairs.shape[0], dtype=bool)
    assert np.all(np.abs(pairs[off] - eps) <= tol) and np.all(np.diag(pairs) == 0.0)


@pytest.mark.parametrize("m", [2, 5, 40])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_rr_hockey_stick_against_dp_accounting(m, eps):
    """dp-accounting's RR(p) keeps the input with probability 1 - p + p / m: p = m / (e^eps + m - 1) is ours.
    Its pessimistic PLD (losses rounded up to 1e-7) bounds the exact delta from above, within 1e-6."""
    from dp_accounting.pld.privacy_loss_distribution import from_randomized_response

    rr = RandomizedResponse(m, eps)
    c = rr.matrix()
    pld = from_randomized_response(m / (math.exp(eps) + m - 1), m, value_discretization_interval=1e-7)
    for e in [0.0, eps / 3, eps / 2, eps * 0.99]:
        ours = float(np.sum(np.maximum(c[0] - math.exp(e) * c[1], 0.0)))
        # by hand: only the first input's own column counts, keep - e^e other
        assert ours == pytest.approx(rr.keep - math.exp(e) * rr.other, rel=1e-14)
        ref = pld.get_delta_for_epsilon(e)
        assert ours <= ref + 1e-15 and ref - ours <= 1e-6
    assert pld.get_delta_for_epsilon(eps * (1 + 1e-6)) == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("eps", [0.0, 1e-12, 0.7, 30.0, 1000.0])
def test_rr_output_law_against_the_matrix_product_in_mpmath(eps):
    rng = np.random.default_rng(3)
    for m in [2, 7, 60]:
        lam = rng.dirichlet(np.ones(m) * 0.3)
        rr = RandomizedResponse(m, eps)
        got = rr.output_law(lam)
        with mp.workdps(50):
            big = mp.e ** mp.mpf(eps)
            keep, other = big / (big + m - 1), 1 / (big + m - 1)
            exact = [sum(mp.mpf(float(lam[x])) * (keep if x == y else other) for x in range(m)) for y in range(m)]
            assert close(got, exact, rel=8 * ULP)
        assert abs(math.fsum(got) - math.fsum(lam)) <= 8 * ULP
        np.testing.assert_allclose(got, lam @ rr.matrix(), rtol=1e-13, atol=0)


def test_rr_large_domain_output_law_needs_no_matrix():
    m = 10 ** 6
    rr = RandomizedResponse(m, 2.0)
    lam = np.zeros(m)
    lam[17] = 1.0
    got = rr.output_law(lam)
    assert got[17] == rr.keep and got[0] == rr.other and abs(math.fsum(got) - 1.0) <= 1e-12
    with pytest.raises(InvalidArgumentError, match=r"^size = 1000000: the channel has 1000000000000 entries"):
        rr.matrix()


def test_rr_eps_zero_is_uniform_and_bad_parameters_are_refused():
    np.testing.assert_allclose(RandomizedResponse(4, 0.0).matrix(), np.full((4, 4), 0.25), rtol=0, atol=1e-17)
    with pytest.raises(InvalidArgumentError, match=r"^size = 1: must be an integer >= 2$"):
        RandomizedResponse(1, 1.0)
    with pytest.raises(InvalidArgumentError, match=r"^epsilon = inf: must be finite and >= 0$"):
        RandomizedResponse(3, math.inf)
    with pytest.raises(InvalidDistributionError, match=r"^pmf: sums to 0.9, must sum to 1"):
        RandomizedResponse(2, 1.0).output_law([0.5, 0.4])
    with pytest.raises(InvalidArgumentError, match=r"^pmf: 3 masses in shape \(3,\), must be a vector of 2$"):
        RandomizedResponse(2, 1.0).output_law([0.5, 0.25, 0.25])


# ------------------------------------------------------------------------------ two-sided geometric noise
GEO_EPSILONS = [1e-12, 1e-6, 0.01, 0.5, 1.0, 4.0, 30.0, 700.0, 1000.0]


def mp_geometric(eps):
    """(c, r) at 50 digits: P(G = g) = c r^|g|, c = (1 - r) / (1 + r), r = e^-eps."""
    r = mp.e ** (-mp.mpf(eps))
    return (1 - r) / (1 + r), r


@pytest.mark.parametrize("eps", GEO_EPSILONS)
def test_geometric_pmf_tails_and_std_against_mpmath(eps):
    noise = TwoSidedGeometric(eps)
    g = np.array([-10 ** 6, -1000, -5, -1, 0, 1, 2, 7, 1000, 10 ** 6])
    with mp.workdps(50):
        c, r = mp_geometric(eps)
        pmf = [c * r ** abs(int(k)) for k in g]
        # tails by hand from the geometric series: P(G >= k) = r^k / (1 + r) (k >= 0), 1 - P(G >= 1 - k) (k < 0)
        sf = [r ** int(k) / (1 + r) if k >= 0 else 1 - r ** (1 - int(k)) / (1 + r) for k in g]
        log_c = mp.log1p(-r) - mp.log1p(r)                # log c is -2e-304 at eps = 700: not log(c) at 50 digits
        assert close(noise.log_pmf(g), [log_c - mp.mpf(eps) * abs(int(k)) for k in g])
        log_sf = [-int(k) * mp.mpf(eps) - mp.log1p(r) if k >= 0 else mp.log1p(-r ** (1 - int(k)) / (1 + r)) for k in g]
        assert close(noise.log_sf(g), log_sf, rel=8 * ULP)
        assert close(noise.log_cdf(-g), log_sf, rel=8 * ULP)      # symmetry
        # e^(-eps |g|) carries the rounding of its argument: (8 + eps |g|) ulp
        for got, exact in [(noise.pmf(g), pmf), (noise.sf(g), sf), (noise.cdf(-g), sf)]:
            assert all(abs(mp.mpf(float(x)) - e) <= (8 + eps * abs(int(k))) * ULP * e + mp.mpf("1e-320")
                       for x, e, k in zip(got, exact, g))
        std = mp.sqrt(2 * r) / (1 - r)
        if std > mp.mpf("1e-300"):
            assert abs(mp.mpf(noise.std) - std) <= 4 * ULP * std


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 3.0])
def test_geometric_against_scipy_dlaplace_and_direct_sums(eps):
    noise, ref = TwoSidedGeometric(eps), stats.dlaplace(eps)
    g = np.arange(-60, 61)
    np.testing.assert_allclose(noise.pmf(g), ref.pmf(g), rtol=1e-13)
    # scipy's upper tails are 1 - cdf (digits lost where they are small): compared where they are >= 1/2
    lower = g[g <= 0]
    np.testing.assert_allclose(noise.cdf(lower), ref.cdf(lower), rtol=1e-13)
    np.testing.assert_allclose(noise.sf(-lower), ref.cdf(lower), rtol=1e-13)    # symmetry
    np.testing.assert_allclose(noise.sf(lower), ref.sf(lower - 1), rtol=1e-13)  # scipy's sf is P(G > g)
    assert noise.std == pytest.approx(ref.std(), rel=1e-12)
    with mp.workdps(40):     # the tails and the variance term by term (no closed form)
        c, r = mp_geometric(eps)
        cut = int(120 / eps)
        tail = lambda k: mp.fsum(c * r ** abs(j) for j in range(k, cut))
        for k in [-7, 0, 3]:
            assert abs(mp.mpf(float(noise.sf(k))) - tail(k)) <= 1e-14 * tail(k)
        var = mp.fsum(c * r ** abs(j) * j * j for j in range(-cut, cut))
        assert abs(mp.mpf(noise.std) - mp.sqrt(var)) <= 1e-14 * mp.sqrt(var)


# ------------------------------------------------------------------------------ the clamped channel
def brute_channel(domain, eps):
    """P(clamp(x + G, lo, hi) = y) at 50 digits, summing P(G = g) over the noise values that land on y:
    interior y one term; the ends the tail sum over g, term by term up to where r^|g| < 1e-60."""
    lo, hi = domain[0], domain[-1]
    c, r = mp_geometric(eps)
    terms = int(min(140 / eps, 5000)) + hi - lo
    rows = []
    for x in domain:
        row = [c * r ** abs(y - x) for y in range(lo, hi + 1)]
        row[0] = mp.fsum(c * r ** abs(g) for g in range(lo - x - terms, lo - x + 1))
        row[-1] = mp.fsum(c * r ** abs(g) for g in range(hi - x, hi - x + terms + 1))
        rows.append(row)
    return rows


@pytest.mark.parametrize("domain", [(0, 1), (0, 1, 2, 3), (1, 3, 4, 9), (-5, 0, 16)])
@pytest.mark.parametrize("eps", [0.2, 0.5, 2.0, 30.0])
def test_clamped_channel_against_brute_force_sums(domain, eps):
    mech = ClampedGeometric(domain, eps)
    with mp.workdps(50):
        exact = brute_channel(domain, eps)
        for got_row, log_row, exact_row in zip(mech.matrix(), mech.log_matrix(), exact):
            assert close(got_row, exact_row, rel=(8 + eps * (domain[-1] - domain[0])) * ULP)
            assert all(abs(mp.mpf(float(g)) - mp.log(e)) <= 8 * ULP * max(1, abs(mp.log(e)))
                       for g, e in zip(log_row, exact_row))
    np.testing.assert_array_equal(mech.outputs, np.arange(domain[0], domain[-1] + 1))


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 0.01, 0.5, 4.0, 700.0, 1000.0])
@pytest.mark.parametrize("domain", [(0, 1), (0, 1, 2, 3, 4, 5, 6, 7), (2, 5, 11), tuple(range(0, 600, 7))])
def test_clamped_channel_rows_sum_to_one_and_its_epsilon_is_exact(eps, domain):
    mech = ClampedGeometric(domain, eps)
    matrix, logs = mech.matrix(), mech.log_matrix()
    for row in matrix:
        assert abs(math.fsum(row) - 1.0) <= 8 * ULP
    with mp.workdps(30):      # the log entries by hand at a few outputs
        c, r = mp_geometric(eps)
        x, lo, hi = domain[-1], domain[0], domain[-1]
        assert abs(logs[-1, 0] - mp.log(r ** (x - lo) / (1 + r))) <= 8 * ULP * max(1, eps * (x - lo))
        assert abs(logs[0, -1] - mp.log(r ** (hi - lo) / (1 + r))) <= 8 * ULP * max(1, eps * (hi - lo))
    # eps of each pair: max over outputs of the log ratio of the two rows = eps_A |x - x'|, exactly to rounding
    exact = eps * np.abs(np.subtract.outer(domain, domain).astype(float))
    pairs = channel_epsilons(logs)
    tol = 8 * ULP * max(1.0, float(np.max(np.abs(logs))))      # the rounding of the logs (channel_epsilons)
    assert np.all(np.abs(pairs - exact) <= tol)
    assert np.all(np.abs(mech.pair_epsilons() - exact) <= 2 * ULP * exact)
    assert mech.channel_epsilon == pytest.approx(eps * (domain[-1] - domain[0]), rel=2 * ULP)
    # the bound is attained at both ends: log C[x, lo] - log C[x', lo] = eps (x' - x)
    ends = logs[:, 0][:, None] - logs[:, 0][None, :]
    assert np.all(np.abs(np.abs(ends) - exact) <= tol)


@pytest.mark.parametrize("eps", [0.2, 1.0, 2.5])
def test_clamped_hockey_stick_equals_the_discrete_laplace_mechanism(eps):
    """Clamping merges outputs on which the loss is already constant (+- eps |x - x'|), so the hockey
    stick of two rows is that of the unclamped shift: dp-accounting's discrete Laplace privacy loss."""
    from dp_accounting.pld.privacy_loss_mechanism import DiscreteLaplacePrivacyLoss

    domain = (0, 1, 2, 4, 7)
    c = ClampedGeometric(domain, eps).matrix()
    for i, j in [(0, 1), (0, 4), (2, 3), (4, 1)]:
        ref = DiscreteLaplacePrivacyLoss(eps, sensitivity=abs(domain[i] - domain[j]))
        for e in [0.0, eps / 2, eps * abs(domain[i] - domain[j]) * 0.9]:
            ours = math.fsum(np.maximum(c[i] - math.exp(e) * c[j], 0.0))
            assert ours == pytest.approx(ref.get_delta_for_epsilon(e), rel=1e-12, abs=1e-16)


@settings(deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), eps=st.floats(1e-3, 20.0), size=st.integers(2, 12))
def test_clamped_output_law_against_mpmath(seed, eps, size):
    rng = np.random.default_rng(seed)
    domain = tuple(int(v) for v in np.sort(rng.choice(30, size=size, replace=False)))
    lam = rng.dirichlet(np.ones(size))
    mech = ClampedGeometric(domain, eps)
    got = mech.output_law(lam)
    with mp.workdps(40):
        rows = brute_channel(domain, eps) if eps > 0.2 else None
        if rows is not None:
            exact = [mp.fsum(mp.mpf(float(lam[k])) * rows[k][y] for k in range(size)) for y in range(len(got))]
            # e^(-eps d) carries the rounding of eps d: (16 + eps d) ulp
            assert close(got, exact, rel=(16 + eps * (domain[-1] - domain[0])) * ULP)
    assert abs(math.fsum(got) - math.fsum(lam)) <= 16 * ULP
    np.testing.assert_allclose(got, output_law(mech.matrix(), lam), rtol=1e-15, atol=0)


def test_geometric_bad_parameters_are_one_line_errors():
    for call, message in [
        (lambda: TwoSidedGeometric(0.0), r"^epsilon = 0.0: must be finite and > 0$"),
        (lambda: ClampedGeometric((0,), 1.0), r"^domain = \(0,\): must be at least 2 strictly increasing integers$"),
        (lambda: ClampedGeometric((3, 1), 1.0), r"^domain = \(3, 1\): must be at least 2 strictly increasing"),
        (lambda: ClampedGeometric((0, 1.5), 1.0), r"^domain\[1\] = 1.5: must be an integer$"),
        (lambda: ClampedGeometric((0, 10 ** 7), 1.0), r"^domain: the channel has 20000002 entries"),
        (lambda: TwoSidedGeometric(1.0).pmf([0, 0.5]), r"^values: 0.5 is not an integer$"),
        (lambda: output_law([[0.5, 0.4], [0.5, 0.5]], [0.5, 0.5]), r"^channel: row 0 sums to 0.9"),
        (lambda: channel_epsilons([[0.5, -1.0]]), r"^log_channel: entries must be log probabilities"),
    ]:
        with pytest.raises((InvalidArgumentError, InvalidDistributionError)) as info:
            call()
        assert len(str(info.value).splitlines()) == 1
        assert info.match(message)
    with pytest.raises(ArgumentTypeError, match=r"^domain = '01'"):
        ClampedGeometric("01", 1.0)


def test_channel_epsilons_by_hand():
    """Two rows [1/2, 1/2, 0] and [1/4, 1/2, 1/4]: log 2 at the first output, inf at the third (one row only)."""
    with np.errstate(divide="ignore"):
        logs = np.log(np.array([[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [0.5, 0.5, 0.0]]))
    got = channel_epsilons(logs)
    assert got[0, 1] == math.inf and got[1, 0] == math.inf and got[0, 2] == 0.0
    sub = channel_epsilons(logs[:, :2])
    assert sub[0, 1] == pytest.approx(math.log(2), rel=1e-15) and sub[1, 2] == sub[0, 1]

"""The spectral source of the sum engine (users given as rows) against exact routes and closed forms.

The fast path (:mod:`pufferfish.lattice.spectral` feeding the tilts of :mod:`pufferfish.lattice.tilted`)
is held against: exact fractions and the direct tree on small arrays (where ``sum_of_users``
keeps the exact route), binomial closed forms at 4e4 to 1.5e5 users (hypothesis: users with
zero masses, single-atom users, several widths), the batched FFT tree, and its parts against
numpy's Chebyshev module and direct sums. Speed is measured by benchmarks/engine.py.
"""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pufferfish.lattice import spectral, sums, tilted
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import TILT_FLOOR, sum_of_users
from tests.helpers import binomial_pmf


def fast_path(rows):
    """The spectral route itself (None if it declines or raises), as sum_of_users(rows) takes it."""
    rows, stats = sums._check_rows(rows)
    source = spectral.spectral_source(rows, stats)
    if source is None:
        return None
    try:
        lo, probs = tilted.tilted_sum(source, 0, stats.jlo, stats.jhi, {})
    except spectral.SpectralUnavailable:
        return None
    return LatticePMF(lo, probs)


# ------------------------------------------------------------------ the parts
@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), degree=st.integers(2, 40))
def test_chebyshev_helpers_match_numpy(seed, degree):
    """Interpolation, evaluation (real and complex), derivative and Taylor coefficients against numpy.polynomial."""
    rng = np.random.default_rng(seed)
    cheb = np.polynomial.chebyshev
    nodes = np.cos(np.pi * np.arange(degree + 1) / degree)
    values = rng.standard_normal(degree + 1)
    coef = spectral._chebyshev(values)
    np.testing.assert_allclose(coef, cheb.chebfit(nodes, values, degree), rtol=0, atol=1e-11)
    np.testing.assert_allclose(cheb.chebval(nodes, coef), values, rtol=0, atol=1e-11)
    coef = rng.standard_normal(degree + 1) / (1 + np.arange(degree + 1)) ** 2
    for x in (rng.uniform(-1, 1), complex(rng.uniform(-1, 1), rng.uniform(-0.3, 0.3))):
        assert spectral._clenshaw(coef, x) == pytest.approx(cheb.chebval(x, coef), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(spectral._derivative(coef), cheb.chebder(coef), rtol=1e-12, atol=1e-12)
    u = rng.uniform(-1, 1)
    taylor = spectral._taylor(coef, u)
    ref = [cheb.chebval(u, cheb.chebder(coef, r)) / math.factorial(r) if r else cheb.chebval(u, coef)
           for r in range(degree + 1)]
    np.testing.assert_allclose(taylor, ref, rtol=1e-9, atol=1e-9 * np.max(np.abs(ref)))


def random_rows(rng, n, m, zeros=0.2, atoms=0.1):
    """Dirichlet rows; some entries zeroed (users with zero masses) and some rows single atoms."""
    rows = rng.dirichlet(np.ones(m), size=n)
    rows[rng.random((n, m)) < zeros] = 0.0
    empty = rows.sum(axis=1) == 0
    rows[empty, rng.integers(0, m, empty.sum())] = 1.0
    single = rng.random(n) < atoms
    rows[single] = np.eye(m)[rng.integers(0, m, single.sum())]
    return rows / rows.sum(axis=1, keepdims=True)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 600), m=st.integers(1, 9))
def test_row_stats_against_exact_sums(seed, n, m):
    """K(0) against exact rational row masses; cumulants, lag products, hull and extremes against direct sums.

    K(0) is off by the rounding of each row's float64 sum (unbiased, up to m + 1 half-ulps of
    1 per row: 8 standard deviations allowed); the bias a sum ending near 1 would add is
    checked at 10^5 users (test_mass_and_mean_at_1e5_users_are_the_users_own).
    """
    rng = np.random.default_rng(seed)
    rows = random_rows(rng, n, m)
    rows[rng.random(n) < 0.3] *= 1 + rng.uniform(-9e-10, 9e-10)      # row masses off 1 within PMF_ATOL
    stats = spectral.row_stats(rows)
    devs = [sum(map(Fraction, row)) - 1 for row in rows.tolist()]
    k0 = sum(d - d * d / 2 + d ** 3 / 3 for d in devs)                   # log(1 + d) to 1e-36
    assert float(stats.k0) == pytest.approx(float(k0), abs=8 * 1.1e-16 * math.sqrt(n * (m + 1)))
    assert stats.max_dev == pytest.approx(float(max(abs(d) for d in devs)), rel=1e-6, abs=1e-15)
    assert stats.min_mass == rows.min()
    jc = np.arange(m) - stats.c
    mean = rows @ jc
    assert stats.k1 == pytest.approx(math.fsum(mean), rel=1e-9, abs=1e-9)
    assert stats.k2 == pytest.approx(math.fsum(rows @ jc ** 2 - mean ** 2), rel=1e-9, abs=1e-9)
    assert stats.k3 == pytest.approx(math.fsum(rows @ jc ** 3 - 3 * mean * (rows @ jc ** 2) + 2 * mean ** 3),
                                     rel=1e-8, abs=1e-8)
    lags = [math.fsum((rows[:, :-d] * rows[:, d:]).ravel()) for d in range(1, m)]
    np.testing.assert_allclose(stats.lags, lags, rtol=1e-12, atol=1e-300)
    nonzero = rows > 0
    assert stats.jlo == nonzero.argmax(axis=1).sum()
    assert stats.jhi == (m - 1 - nonzero[:, ::-1].argmax(axis=1)).sum()


@pytest.mark.parametrize("seed, n, m", [(1, 2000, 5), (2, 5000, 3), (3, 800, 9)])
def test_node_values_are_the_log_mgf(seed, n, m):
    """K(lam) - c n lam at the nodes against sum_k log sum_j p_kj e^{lam (j - c)} in 80-bit arithmetic."""
    rows = random_rows(np.random.default_rng(seed), n, m)
    stats = spectral.row_stats(rows)
    lams = np.array([-0.7, -0.05, 1e-3, 0.2, 0.9])
    got = spectral._node_values(rows, stats, lams)
    ld = np.longdouble
    jc = (np.arange(m) - stats.c).astype(ld)
    for lam, value in zip(lams, got):
        ref = np.sum(np.log(rows.astype(ld) @ np.exp(ld(lam) * jc)), dtype=ld)
        assert float(value - ref) == pytest.approx(0.0, abs=1e-13 * math.sqrt(n))


def exact_log_abs_phi(rows, lam, omega):
    """log |phi_lam(omega)| of the sum, user by user (the definition)."""
    j = np.arange(rows.shape[1])
    tilted_rows = rows * np.exp(lam * (j - j.mean()))
    tilted_rows /= tilted_rows.sum(axis=1, keepdims=True)
    return float(np.sum(np.log(np.abs(tilted_rows @ np.exp(1j * omega * j)))))


@pytest.mark.parametrize("seed, m", [(4, 5), (5, 2), (6, 9)])
def test_the_spectrum_bound_holds(seed, m):
    """Beyond the cut frequency (untilted and tilted lags) |phi_lam| is below SPECTRUM_CUT (checked on a grid)."""
    rng = np.random.default_rng(seed)
    rows = random_rows(rng, 3000, m, atoms=0.3)
    stats = spectral.row_stats(rows)
    spectrum = spectral._Spectrum(stats.lags, (1 + stats.max_dev) ** 2)
    for lam in (0.0, 0.05, -0.2):
        exact = spectral._Spectrum(spectral._tilted_lags(rows, stats, lam), 1.0).cut(None)
        weak = spectrum.cut(lam)                                      # weaker (None: no cut below pi)
        assert exact is not None and (weak is None or weak >= exact)
        for cut in [c for c in (weak, exact) if c is not None]:
            for omega in np.concatenate((np.linspace(cut, cut * 1.5, 20), rng.uniform(cut, np.pi, 40))):
                assert exact_log_abs_phi(rows, lam, omega) <= math.log(spectral.SPECTRUM_CUT)
    periodic = np.tile([0.5, 0.0, 0.5], (3000, 1))                    # |phi(pi)| = 1: no cut
    stats = spectral.row_stats(periodic)
    assert spectral._Spectrum(stats.lags, 1.0).cut(0.0) is None
    assert spectral.spectral_source(periodic, stats) is None or fast_path(periodic) is None


# ------------------------------------------------------------------ small arrays: the exact route is kept
def exact_sum(rows):
    """The law of the sum of the rows' float values, in exact rational arithmetic."""
    total = [Fraction(1)]
    for row in rows.tolist():
        new = [Fraction(0)] * (len(total) + len(row) - 1)
        for i, a in enumerate(total):
            if a:
                for j, b in enumerate(row):
                    if b:
                        new[i + j] += a * Fraction(b)
        total = new
    return np.array([float(f) for f in total])


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 90), m=st.integers(1, 4))
def test_small_arrays_take_the_exact_route(seed, n, m):
    """1 user, single atoms, zero masses: sum_of_users(rows) is the exact sum to a few ulps on every mass."""
    rows = random_rows(np.random.default_rng(seed), n, m, zeros=0.3, atoms=0.2)
    got = sum_of_users(rows)
    ref = exact_sum(rows)
    nz = np.flatnonzero(ref)
    assert got.lo == nz[0] and got.hi == nz[-1]
    values = got.pmf_on(0, ref.size - 1)
    np.testing.assert_array_equal(values == 0, ref == 0)             # structural zeros stay exact zeros
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=0)


# ------------------------------------------------------------------ large arrays: closed forms
def bernoulli_power(p, k):
    out = np.array([1.0])
    for _ in range(k):
        out = np.convolve(out, [1.0 - p, p])
    return out


def binomial_rows(rng, n, width, pa, pb, atoms):
    """Rows Bin(i, pa) * Bin(width - i, pb) (i per user), a fraction ``atoms`` of point masses instead.

    Returns the rows and the law of their sum as (number of pa trials, of pb trials, shift).
    """
    i = rng.integers(0, width + 1, size=n)
    rows = np.empty((n, width + 1))
    for k in range(width + 1):
        rows[i == k] = np.convolve(bernoulli_power(pa, k), bernoulli_power(pb, width - k))
    point = rng.random(n) < atoms
    at = rng.integers(0, width + 1, size=n)
    rows[point] = np.eye(width + 1)[at[point]]
    return rows, (int(i[~point].sum()), int((width - i[~point]).sum()), int(at[point].sum()))


def two_binomials(na, pa, nb, pb, shift, xs):
    """Pr(X = x) for X = Bin(na, pa) + Bin(nb, pb) + shift at the points ``xs`` (80-bit closed forms)."""
    alo, a = binomial_pmf(na, pa) if pa > 0 else (0, np.ones(1))
    blo, b = binomial_pmf(nb, pb) if pb > 0 else (0, np.ones(1))
    out = []
    for x in xs - shift:
        ys = np.arange(max(alo, x - blo - b.size + 1), min(alo + a.size, x - blo + 1))
        out.append(float(np.dot(a[ys - alo], b[x - ys - blo])) if ys.size else 0.0)
    return np.array(out), (alo + blo + shift, alo + a.size - 1 + blo + b.size - 1 + shift)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(40_000, 120_000), width=st.integers(1, 4),
       pa=st.floats(0.2, 0.8), pb=st.sampled_from([0.0, 0.3, 0.6]), atoms=st.sampled_from([0.0, 0.2]))
def test_fast_path_matches_two_binomials(seed, n, width, pa, pb, atoms):
    """10^5 users (zero masses where pb = 0, single atoms): the fast path, taken by sum_of_users, against closed forms."""
    rows, (na, nb, shift) = binomial_rows(np.random.default_rng(seed), n, width, pa, pb, atoms)
    fast = fast_path(rows)
    assert fast is not None                                         # this region is the fast path's
    got = sum_of_users(rows)
    assert got.lo == fast.lo and np.array_equal(got.probs, fast.probs)
    xs = np.unique(np.linspace(got.lo - 50, got.hi + 50, 300).astype(int))
    ref, _ = two_binomials(na, pa, nb, pb, shift, xs)
    values = got.pmf_on(xs.min(), xs.max())[xs - xs.min()]
    big = ref > 1e-280
    np.testing.assert_allclose(values[big], ref[big], rtol=1e-9)
    assert np.all(values[ref < 1e-302] == 0)                        # nothing resolved below the floor
    resolved = ref > 1e-298
    assert np.all(values[resolved] > 0)                             # everything above it is
    mean = na * pa + nb * pb + shift
    x = got.values.astype(float)
    assert math.fsum(got.probs * x) / math.fsum(got.probs) == pytest.approx(mean, rel=1e-13)


def test_mass_and_mean_at_1e5_users_are_the_users_own():
    """The contract of the rows engine: mass = product of the rows' masses (exact sums), mean = sum of their means."""
    rows = np.random.default_rng(17).dirichlet(np.ones(5), size=100_000)
    rows[::3] *= 1 + 5e-15                                          # masses off 1 (the sum's within PMF_ATOL)
    got = sum_of_users(rows)
    assert fast_path(rows) is not None
    devs = math.fsum(rows.ravel().tolist() + [-1.0] * rows.shape[0])   # sum_k (r_k - 1), exactly rounded
    mass = math.fsum(got.probs)
    assert mass - 1 == pytest.approx(devs, abs=1e-13)
    j = np.arange(5.0)
    mean = math.fsum((rows @ j / rows.sum(axis=1)).tolist())
    x = got.values.astype(float)
    assert math.fsum(got.probs * x) / mass == pytest.approx(mean, rel=1e-14)
    var = math.fsum((rows @ j ** 2 / rows.sum(axis=1) - (rows @ j / rows.sum(axis=1)) ** 2).tolist())
    assert math.fsum(got.probs * (x - mean) ** 2) / mass == pytest.approx(var, rel=1e-11)


# ------------------------------------------------------------------ where the bounds do not hold: the tree
def test_a_lattice_of_step_two_falls_back_to_the_tree():
    """Users on {0, 2}: |phi(pi)| = 1, the spectral source declines; the result is Bin(n, 1/2) on the even points."""
    n = 40_000
    rows = np.tile([0.5, 0.0, 0.5], (n, 1))
    assert fast_path(rows) is None
    got = sum_of_users(rows)
    lo, ref = binomial_pmf(n, 0.5)
    values = got.pmf_on(2 * lo, 2 * (lo + ref.size - 1))
    assert np.all(values[1::2] == 0)
    big = ref > 1e-280
    np.testing.assert_allclose(values[::2][big], ref[big], rtol=1e-9)


def test_a_tilt_outside_the_interval_falls_back_to_the_tree(monkeypatch):
    """If the walk asks for a tilt beyond the interpolated interval, sum_of_users redoes the sum by the tree."""
    rows, (na, nb, shift) = binomial_rows(np.random.default_rng(3), 60_000, 2, 0.4, 0.3, 0.0)
    calls = []
    narrow = spectral._tilt_range

    def too_narrow(stats):
        calls.append(1)
        return narrow(stats) / 3

    monkeypatch.setattr(spectral, "_tilt_range", too_narrow)
    assert fast_path(rows) is None
    got = sum_of_users(rows)
    assert calls
    xs = np.unique(np.linspace(got.lo, got.hi, 200).astype(int))
    ref, _ = two_binomials(na, 0.4, nb, 0.3, shift, xs)
    big = ref > 1e-280
    np.testing.assert_allclose(got.pmf_on(xs.min(), xs.max())[xs - xs.min()][big], ref[big], rtol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("width", [3, 5, 9])
def test_fast_path_matches_the_tree_at_1e5_dirichlet_users(width):
    """Every resolved mass of 10^5 Dirichlet users against the batched FFT tree (method="tilted"), to 1e-9."""
    rows = np.random.default_rng(width).dirichlet(np.ones(width), size=100_000)
    fast, tree = fast_path(rows), sum_of_users(rows, method="tilted")
    assert fast is not None and (fast.lo, fast.hi) == (tree.lo, tree.hi)
    mask = tree.probs > TILT_FLOOR
    np.testing.assert_allclose(fast.probs[mask], tree.probs[mask], rtol=1e-9)

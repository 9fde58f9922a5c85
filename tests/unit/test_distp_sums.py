"""E[(w(Z_1) + ... + w(Z_n))^+] (pufferfish.distp.sums, .grid, .moment_bounds).

Oracles: brute force over ordered tuples (itertools.product) for the exact route; for the
certified route, the count-vector sum in mpmath at 40 digits (multinomial weights from exact
integers), on cases chosen to stress each part of the certificate: many draws over few atoms
(n up to 400), atoms of tiny probability, values across eight orders of magnitude, a value
just below zero, large epsilons (delta near the Chernoff bound), eps = 0 (no tilt). The moment
bounds are checked on random discrete measures whose moments are exact.
"""
import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.distp import certified_positive_part, count_vectors, exact_positive_part
from pufferfish.distp.moment_bounds import positive_part_bounds
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError


def mp_positive_part(w, nu, n):
    """sum over count vectors c of n!/prod c_j! prod nu_j^c_j (sum c_j w_j)^+, at 40 digits."""
    with mp.workdps(40):
        ws, logs = [mp.mpf(float(v)) for v in w], [mp.log(mp.mpf(float(p))) for p in nu]
        total = mp.mpf(0)
        for bars in itertools.combinations(range(n + len(w) - 1), len(w) - 1):
            edges = (-1,) + bars + (n + len(w) - 1,)
            counts = [b - a - 1 for a, b in zip(edges, edges[1:])]
            s = mp.fsum(c * v for c, v in zip(counts, ws))
            if s > 0:
                weight = mp.mpf(math.factorial(n)) / mp.fprod(mp.mpf(math.factorial(c)) for c in counts)
                total += weight * mp.exp(mp.fsum(c * lg for c, lg in zip(counts, logs))) * s
        return total


def brute_force(w, nu, n):
    return math.fsum(max(sum(w[i] for i in t), 0.0) * math.prod(nu[i] for i in t)
                     for t in itertools.product(range(len(w)), repeat=n))


@settings(deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.data())
def test_exact_route_against_ordered_tuples(atoms, n, data):
    w = data.draw(st.lists(st.floats(-3, 3), min_size=atoms, max_size=atoms))
    nu = np.array(data.draw(st.lists(st.floats(0.01, 1), min_size=atoms, max_size=atoms)))
    nu /= nu.sum()
    assert exact_positive_part(w, nu, n) == pytest.approx(brute_force(w, nu, n), rel=1e-13, abs=1e-15)


def test_count_vectors():
    assert count_vectors(16, 200) == math.comb(215, 200)
    assert count_vectors(1, 7) == 1 and count_vectors(3, 2) == 6


CASES = {
    # name: (w, nu, n); at most ~1300 count vectors each (the 40-digit oracle)
    "few atoms, many draws": ([0.9, -0.4, -0.7], [0.2, 0.5, 0.3], 50),
    "tiny atom, large value": ([40.0, -0.3, 0.1], [1e-6, 0.6, 0.399999], 40),
    "values over eight decades": ([2e-4, -3.0, 5e3, -1e-4], [0.4, 0.3, 1e-5, 0.29999], 18),
    "a value just below 0": ([-1e-12, 0.5, -0.6], [0.5, 0.2, 0.3], 45),
    "no tilt (mean 0)": ([1.0, -1.0, 0.25, -0.25], [0.25, 0.25, 0.25, 0.25], 17),
    "deep tail": ([1.0, -0.9, -0.5], [0.05, 0.6, 0.35], 50),
}
#: larger cases where the float count-vector route (the other route) is the oracle
LARGE = {
    "400 draws over 3 atoms": ([0.9, -0.4, -0.7], [0.2, 0.5, 0.3], 400),
    "tiny atom, 200 draws": ([40.0, -0.3, 0.1], [1e-6, 0.6, 0.399999], 200),
    "a value just below 0, 300 draws": ([-1e-12, 0.5, -0.6], [0.5, 0.2, 0.3], 300),
    "no tilt, 70 draws over 4 atoms": ([1.0, -1.0, 0.25, -0.25], [0.25, 0.25, 0.25, 0.25], 70),
    "deep tail, 400 draws": ([1.0, -0.9, -0.5], [0.05, 0.6, 0.35], 400),
}


@pytest.mark.parametrize("name", list(CASES))
def test_certified_interval_contains_the_40_digit_value(name):
    w, nu, n = CASES[name]
    exact = mp_positive_part(w, nu, n)
    got = certified_positive_part(w, w, nu, n, rtol=1e-6, atol=1e-300)
    assert got.method in ("grid", "chernoff")
    assert mp.mpf(got.lower) <= exact <= mp.mpf(got.upper), (got, exact)
    if got.method == "grid":
        assert got.upper <= got.lower * (1 + 1e-6) + 1e-300
    # the exact route agrees to its rounding
    assert exact_positive_part(w, nu, n) == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("name", list(LARGE))
def test_certified_and_exact_routes_agree_on_large_cases(name):
    w, nu, n = LARGE[name]
    exact = exact_positive_part(w, nu, n)
    got = certified_positive_part(w, w, nu, n, rtol=1e-6, atol=1e-300)
    assert got.lower * (1 - 1e-12) <= exact <= got.upper * (1 + 1e-12)
    assert got.upper <= got.lower * (1 + 1e-6) + 1e-300


def test_chernoff_and_zero_routes():
    w, nu = [0.02, -1.0], [0.3, 0.7]
    tiny = certified_positive_part(w, w, nu, 300, atol=1e-15)
    assert tiny.method == "chernoff" and tiny.lower == 0 and 0 < tiny.upper <= 1e-15
    assert mp.mpf(tiny.upper) >= mp_positive_part(w, nu, 300)
    assert certified_positive_part([-1.0, -2.0], [-1.0, -2.0], [0.5, 0.5], 50).method == "zero"


def test_interval_values_bound_both_ways():
    # w_lo < w_hi: the interval holds every w between (monotone in w); here it holds both ends' exact values
    w_lo, w_hi, nu, n = np.array([0.8, -0.5, -0.1]), np.array([0.8001, -0.4999, -0.1]), [0.3, 0.3, 0.4], 60
    got = certified_positive_part(w_lo, w_hi, nu, n, rtol=1e-3)
    assert mp.mpf(got.lower) <= mp_positive_part(w_lo, nu, n)
    assert mp_positive_part(w_hi, nu, n) <= mp.mpf(got.upper)


@settings(deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(1e-6, 1)), min_size=1, max_size=6), st.floats(0.01, 1),
       st.floats(0, 1))
def test_moment_bounds_hold_for_every_measure(atoms, r_max, where):
    # a discrete measure of R on [0, r_max], s in (-r_max, 0]: the bounds from its exact moments hold
    r = np.array([a for a, _ in atoms]) * r_max
    mass = np.array([m for _, m in atoms])
    s = -where * r_max
    with mp.workdps(40):
        moments = [mp.fsum(mp.mpf(float(m)) * mp.mpf(float(x)) ** k for x, m in zip(r, mass)) for k in range(5)]
        exact = mp.fsum(mp.mpf(float(m)) * max(mp.mpf(s) + mp.mpf(float(x)), 0) for x, m in zip(r, mass))
    low = np.array([[float(v) * (1 - 1e-15)] for v in moments])
    high = np.array([[float(v) * (1 + 1e-15) + 1e-300] for v in moments])      # + what an underflow lost
    lo, up = positive_part_bounds(np.array([s]), r_max, (low, high), (low, high))
    assert mp.mpf(lo[0]) <= exact * (1 + mp.mpf("1e-13")) + mp.mpf("1e-300")
    assert exact <= mp.mpf(up[0]) * (1 + mp.mpf("1e-13")) + mp.mpf("1e-300")


@pytest.mark.parametrize("call, error, text", [
    (lambda: exact_positive_part([1.0, 2.0], [0.5], 3), InvalidArgumentError, "nu: 1 masses for 2 values"),
    (lambda: exact_positive_part([1.0, 2.0], [0.5, 0.0], 3), InvalidArgumentError, "nu[1] = 0"),
    (lambda: exact_positive_part([1.0, "x"], [0.5, 0.5], 3), ArgumentTypeError, "w[1]"),
    (lambda: exact_positive_part([1.0, 2.0], [0.5, 0.5], 0), InvalidArgumentError, "n = 0"),
    (lambda: exact_positive_part(list(range(16)), [1 / 16] * 16, 200), InvalidArgumentError, "count vectors"),
    (lambda: certified_positive_part([1.0, 2.0], [1.0, 1.0], [0.5, 0.5], 3), InvalidArgumentError, "w_hi[1]"),
    (lambda: certified_positive_part([1.0], [1.0], [1.0], 3, rtol=0), InvalidArgumentError, "rtol = 0"),
    (lambda: certified_positive_part([1.0], [1.0], [1.0], 3, max_points=10), InvalidArgumentError,
     "max_points = 10"),
    (lambda: certified_positive_part([1.0], [1.0], [1.0], 3, first_step=0.3), InvalidArgumentError,
     "first_step = 0.3: must be a power of 2"),
])
def test_bad_input_is_one_line(call, error, text):
    with pytest.raises(error) as caught:
        call()
    assert text in str(caught.value) and "\n" not in str(caught.value)

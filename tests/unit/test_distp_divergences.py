"""Divergences of two output laws (pufferfish.distp.divergences): paper 003, Def. 1, 2, Table I.

Expected numbers: worked by hand on small laws (fractions), scipy.special (rel_entr, kl_div),
and mpmath at 50 digits (random laws, laws within 1e-12 of each other where a naive sum of
signed terms loses every digit, epsilon beyond exp's overflow).
"""
import math
from fractions import Fraction as F

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.special import kl_div, rel_entr

from pufferfish.distp import F_DIVERGENCES, distp_delta, f_divergence, hockey_stick, pure_epsilon
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError

P = [0.2, 0.3, 0.5]
Q = [0.25, 0.25, 0.5]


def laws(size=st.integers(2, 8)):
    """Two random pmfs on one set, some masses 0."""
    return size.flatmap(lambda m: st.tuples(*[st.lists(st.floats(0, 1), min_size=m, max_size=m)
                                              .filter(lambda v: sum(v) > 0.1) for _ in range(2)]))


def normalise(values):
    a = np.array(values, dtype=float)
    return a / a.sum()


def mp_hockey(p, q, eps):
    with mp.workdps(50):
        big = mp.e ** mp.mpf(eps)
        return max(mp.fsum(max(mp.mpf(a) - big * mp.mpf(b), 0) for a, b in zip(p, q)),
                   mp.fsum(max(mp.mpf(b) - big * mp.mpf(a), 0) for a, b in zip(p, q)))


def test_hockey_stick_by_hand():
    # P - e^0 Q = (-0.05, 0.05, 0): delta(0) = 0.05 both ways (total variation)
    assert hockey_stick(P, Q, epsilon=0) == pytest.approx(0.05, rel=1e-15)
    assert hockey_stick(Q, P, epsilon=0) == pytest.approx(0.05, rel=1e-15)
    # at eps = log(1.1): P - 1.1 Q = (-0.075, 0.025, -0.05) -> 0.025; Q - 1.1 P = (0.03, -0.08, -0.05) -> 0.03
    eps = math.log(1.1)
    assert hockey_stick(P, Q, epsilon=eps) == pytest.approx(0.025, rel=1e-13)
    assert distp_delta(P, Q, epsilon=eps) == pytest.approx(0.03, rel=1e-13)
    # at log 1.2 only Q - 1.2 P = (0.01, -0.11, -0.1) is left; beyond the pure eps log(0.25 / 0.2): 0 exactly
    assert distp_delta(P, Q, epsilon=math.log(1.2)) == pytest.approx(0.01, rel=1e-12)
    assert distp_delta(P, Q, epsilon=math.log(1.25) + 1e-12) == 0.0


@settings(deadline=None)
@given(laws(), st.floats(0, 5))
def test_distp_delta_against_mpmath(pair, eps):
    p, q = normalise(pair[0]), normalise(pair[1])
    exact = mp_hockey(p, q, eps)
    assert abs(distp_delta(p, q, epsilon=eps) - exact) <= 1e-15 * (1 + math.exp(eps))


def test_hockey_stick_beyond_exp_overflow():
    # e^705 P1 overflows no float here: the log form keeps P0 (1 - e^(eps + log P1 - log P0))^+
    p, q = [0.5, 0.5 - 1e-300, 1e-300], [1e-310, 0.5, 0.5]        # e^705 1e-310 = 1.3e-4
    with mp.workdps(60):
        big = mp.e ** 705
        exact = mp.fsum(max(mp.mpf(a) - big * mp.mpf(b), 0) for a, b in zip(p, q))
    assert hockey_stick(p, q, epsilon=705) == pytest.approx(float(exact), rel=1e-13)
    assert hockey_stick(p, q, epsilon=705) > 0.49


def test_pure_epsilon():
    assert pure_epsilon(P, Q) == pytest.approx(math.log(1.25), rel=1e-15)      # 0.2 / 0.25 is the largest gap
    assert pure_epsilon(P, P) == 0.0
    assert pure_epsilon([0.5, 0.5, 0.0], [0.5, 0.25, 0.25]) == math.inf
    assert pure_epsilon([0.5, 0.5, 0.0], [0.25, 0.75, 0.0]) == pytest.approx(math.log(2), rel=1e-15)


def test_f_divergences_by_hand():
    p, q = [F(1, 5), F(3, 10), F(1, 2)], [F(1, 4), F(1, 4), F(1, 2)]
    tv = sum(abs(a - b) for a, b in zip(p, q)) / 2                         # 1/20
    chi2 = sum((a - b) ** 2 / b for a, b in zip(p, q))                       # 1/100 + 1/100 = 1/50
    assert f_divergence(P, Q, "total_variation") == pytest.approx(float(tv), rel=1e-15)
    assert f_divergence(P, Q, "chi2") == pytest.approx(float(chi2), rel=1e-14)
    with mp.workdps(40):
        kl = mp.fsum(mp.mpf(a) * mp.log(mp.mpf(a) / mp.mpf(b)) for a, b in zip(P, Q))
        rkl = mp.fsum(mp.mpf(b) * mp.log(mp.mpf(b) / mp.mpf(a)) for a, b in zip(P, Q))
        hel = mp.fsum((mp.sqrt(mp.mpf(a)) - mp.sqrt(mp.mpf(b))) ** 2 for a, b in zip(P, Q))
    assert f_divergence(P, Q, "kl") == pytest.approx(float(kl), rel=1e-14)
    assert f_divergence(P, Q, "reverse_kl") == pytest.approx(float(rkl), rel=1e-14)
    assert f_divergence(P, Q, "hellinger") == pytest.approx(float(hel), rel=1e-14)


@settings(deadline=None)
@given(laws())
def test_kl_against_scipy(pair):
    p, q = normalise(pair[0]), normalise(pair[1])
    expected = math.fsum(rel_entr(p, q)) if np.all((q > 0) | (p == 0)) else math.inf
    got = f_divergence(p, q, "kl")
    assert got == expected if math.isinf(expected) else abs(got - expected) <= 1e-14 * (1 + expected)
    # the non-negative form scipy's kl_div sums: p log(p/q) - p + q
    nonnegative = math.fsum(kl_div(p, q))              # inf where scipy's p/q overflows
    if math.isfinite(expected) and math.isfinite(nonnegative):
        assert abs(got - nonnegative) <= 1e-14 * (1 + expected)
    assert f_divergence(p, q, "reverse_kl") == f_divergence(q, p, "kl")


def test_kl_of_close_laws_keeps_its_digits():
    # q = p (1 + d), d ~ 1e-9: KL ~ sum p d^2 / 2 ~ 1e-19; the signed terms p log(p/q) are ~1e-10
    rng = np.random.default_rng(3)
    p = normalise(rng.random(6))
    d = rng.choice([-1, 1], 6) * 1e-9
    d -= np.dot(p, d)                                   # keeps sum q = 1 up to rounding
    q = p * (1 + d)
    with mp.workdps(60):
        mpq = [mp.mpf(a) for a in q]
        mpp = [mp.mpf(a) for a in p]
        kl = mp.fsum(a * mp.log(a / b) for a, b in zip(mpp, mpq))
        chi = mp.fsum((a - b) ** 2 / b for a, b in zip(mpp, mpq))
        hel = mp.fsum((mp.sqrt(a) - mp.sqrt(b)) ** 2 for a, b in zip(mpp, mpq))
    assert f_divergence(p, q, "kl") == pytest.approx(float(kl), rel=1e-6, abs=1e-22)
    assert f_divergence(p, q, "chi2") == pytest.approx(float(chi), rel=1e-9)
    assert f_divergence(p, q, "hellinger") == pytest.approx(float(hel), rel=1e-9)


def test_conventions_at_zeros():
    p, q = [0.5, 0.5, 0.0], [0.5, 0.25, 0.25]
    assert f_divergence(q, p, "kl") == math.inf                 # q has mass where p has none
    assert f_divergence(p, q, "reverse_kl") == math.inf
    assert math.isfinite(f_divergence(p, q, "kl"))              # 0 log 0 = 0
    assert f_divergence(q, p, "chi2") == math.inf
    assert f_divergence(q, p, "total_variation") == pytest.approx(0.25, rel=1e-15)
    # (sqrt .5 - sqrt .5)^2 + (sqrt .25 - sqrt .5)^2 + (sqrt .25 - 0)^2
    assert f_divergence(q, p, "hellinger") == pytest.approx((0.5 - math.sqrt(0.5)) ** 2 + 0.25, rel=1e-14)


@pytest.mark.parametrize("name", F_DIVERGENCES)
def test_every_divergence_is_zero_on_equal_laws(name):
    assert f_divergence(P, P, name) == 0.0


@pytest.mark.parametrize("call, error, text", [
    (lambda: hockey_stick([0.5, 0.5], [1.0], epsilon=0), InvalidArgumentError, "p1: 1 masses"),
    (lambda: hockey_stick([0.5, 0.6], [0.5, 0.5], epsilon=0), InvalidDistributionError, "p0: sums to"),
    (lambda: hockey_stick([0.5, 0.5], [0.5, 0.5], epsilon=-1), InvalidArgumentError, "epsilon = -1"),
    (lambda: hockey_stick([0.5, 0.5], [0.5, 0.5], epsilon=math.nan), InvalidArgumentError, "epsilon = nan"),
    (lambda: pure_epsilon([[0.5, 0.5]], [0.5, 0.5]), InvalidArgumentError, "p0: must be a vector"),
    (lambda: pure_epsilon(["a", 1], [0.5, 0.5]), ArgumentTypeError, "p0[0]"),
    (lambda: pure_epsilon([-0.5, 1.5], [0.5, 0.5]), InvalidArgumentError, "p0[0] = -0.5"),
    (lambda: f_divergence(P, Q, "renyi"), InvalidArgumentError, "name = 'renyi'"),
])
def test_bad_input_is_one_line(call, error, text):
    with pytest.raises(error) as caught:
        call()
    assert text in str(caught.value) and "\n" not in str(caught.value)

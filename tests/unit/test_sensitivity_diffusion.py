"""Diffusions (paper 002, Prop. 6.3 / App. F.4): the bound, the exact OU laws, the coupled Euler scheme.

Second routes: the moment ODEs of OU solved numerically (scipy's solve_ivp), W_1 of the
two OU laws by quadrature of |F - G| (W_1 <= W_inf <= the translation coupling's shift),
the discrete OU recursion written out, and hand-computed norms.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from pufferfish.errors import ArgumentTypeError, InvalidArgumentError
from pufferfish.sensitivity.diffusion import (NOISE_NORMS, coupled_distances, coupled_paths, diffusion_sensitivity, euler_step,
                                              noise_norm, ou_law, ou_w_inf, potential)


# ------------------------------------------------------------------------------ the bound
def test_bound_hand_worked_in_each_norm():
    # L = 2, D = 3, lambda = log 2, t = (1, 2): e^(-lambda t) = (1/2, 1/4), L D = 6
    kw = dict(lipschitz=2.0, diameter=3.0, rate=math.log(2.0), times=[1.0, 2.0])
    assert diffusion_sensitivity(norm=1, **kw) == pytest.approx(6 * 0.75, rel=1e-14)
    assert diffusion_sensitivity(norm=2, **kw) == pytest.approx(6 * math.sqrt(5) / 4, rel=1e-14)
    assert diffusion_sensitivity(norm=math.inf, **kw) == pytest.approx(3.0, rel=1e-14)
    # one time: every norm gives L D e^(-lambda t)
    for p in (1, 2, math.inf):
        assert diffusion_sensitivity(lipschitz=1, diameter=2, rate=0.5, times=[4.0], norm=p) == \
            pytest.approx(2 * math.exp(-2.0), rel=1e-14)
    # t = 0: no contraction; huge lambda t: 0 without NaN
    # rounded upward (a bound): at least 5, at most 2^-50 relative (one float more) above it
    assert 5.0 <= diffusion_sensitivity(lipschitz=1, diameter=5, rate=3.0, times=[0.0], norm=1) <= 5.0 * (1 + 2.0 ** -49)
    assert diffusion_sensitivity(lipschitz=1, diameter=5, rate=1e6, times=[1e3], norm=2) == 0.0


def test_noise_norms():
    assert noise_norm("laplace") == 1.0 and noise_norm("gaussian") == 2.0
    assert set(NOISE_NORMS) == {"laplace", "gaussian"}
    with pytest.raises(InvalidArgumentError, match="noise"):
        noise_norm("cauchy")


# ------------------------------------------------------------------------------ OU exact
@pytest.mark.parametrize("rate, time, x0", [(0.5, 1.0, 2.0), (1.0, 0.1, -3.0), (3.0, 2.5, 0.7), (1e-3, 5.0, 1.0),
                                            (50.0, 0.01, 10.0)])
def test_ou_law_solves_the_moment_odes(rate, time, x0):
    # dX = -lambda X dt + sqrt(2) dB: m' = -lambda m, v' = -2 lambda v + 2, m(0) = x0, v(0) = 0
    sol = integrate.solve_ivp(lambda t, y: [-rate * y[0], -2 * rate * y[1] + 2.0], (0.0, time), [x0, 0.0],
                              rtol=1e-12, atol=1e-14)
    mean, var = ou_law(x0, rate=rate, time=time)
    assert mean == pytest.approx(sol.y[0, -1], rel=1e-9)
    assert var == pytest.approx(sol.y[1, -1], rel=1e-9)
    assert mean == pytest.approx(math.exp(-rate * time) * x0, rel=1e-14)
    assert var == pytest.approx((1 - math.exp(-2 * rate * time)) / rate, rel=1e-12)


@pytest.mark.parametrize("rate, time", [(0.5, 1.0), (2.0, 0.3)])
def test_ou_w_inf_equals_w1_by_quadrature(rate, time):
    # W_1 = int |F - G| <= W_inf <= the translation shift; equality pins W_inf
    x0, x1 = -1.0, 1.0
    (m0, v), (m1, _) = ou_law(x0, rate=rate, time=time), ou_law(x1, rate=rate, time=time)
    sd = math.sqrt(v)
    w1, _ = integrate.quad(lambda y: abs(stats.norm.cdf(y, m0, sd) - stats.norm.cdf(y, m1, sd)),
                           m0 - 15 * sd, m1 + 15 * sd, limit=200, epsabs=1e-13)
    assert ou_w_inf(x0, x1, rate=rate, time=time) == pytest.approx(w1, rel=1e-8)
    assert ou_w_inf(x0, x1, rate=rate, time=time) == pytest.approx(
        diffusion_sensitivity(lipschitz=1, diameter=2, rate=rate, times=[time], norm=1), rel=1e-14)


# ------------------------------------------------------------------------------ the Euler scheme
def test_euler_step_respects_the_contraction_cap():
    # logcosh, lambda = 1: beta = 2, cap 2/3; t = 1 with max_step 1 -> 2 steps of 0.5
    assert euler_step(potential("logcosh", rate=1.0), 1.0, max_step=1.0) == (0.5, 2)
    # OU lambda = 4: cap 2/8 = 1/4; t = 1 -> 4 steps
    assert euler_step(potential("quadratic", rate=4.0), 1.0, max_step=1.0) == (0.25, 4)
    # max_step binds: t = 0.3, max_step 0.01 -> 30 steps
    h, n = euler_step(potential("quadratic", rate=1.0), 0.3, max_step=0.01)
    assert n == 30 and h <= 0.01 and h * n == pytest.approx(0.3, rel=1e-15)
    assert euler_step(potential("quadratic", rate=1.0), 0.0, max_step=0.1) == (0.0, 0)


def test_ou_coupled_distance_is_the_discrete_recursion():
    # for V = lambda x^2/2 the difference is deterministic: (1 - h lambda)^n D, below D e^(-lambda t)
    pot = potential("quadratic", rate=0.8)
    h, n = euler_step(pot, 2.0, max_step=0.05)
    dist = coupled_distances(pot, start=-1.0, diameter=2.0, time=2.0, paths=50, max_step=0.05, seed=1)
    assert dist == pytest.approx(np.full(50, 2.0 * (1 - h * 0.8) ** n), rel=1e-10)
    assert dist.max() <= 2.0 * math.exp(-0.8 * 2.0)


@pytest.mark.parametrize("rate", [0.1, 0.5, 2.0])
def test_logcosh_coupled_distances_lie_between_the_two_contraction_rates(rate):
    # lambda <= V'' <= lambda + 1 and h (lambda + 1) <= 1 here: each step multiplies the
    # difference by a factor in [1 - h (lambda + 1), 1 - h lambda]
    pot = potential("logcosh", rate=rate)
    t, diam = 3.0, 2.0
    h, n = euler_step(pot, t, max_step=0.02)
    assert h * (rate + 1) <= 1
    dist = coupled_distances(pot, start=-1.0, diameter=diam, time=t, paths=400, max_step=0.02, seed=3)
    assert np.all(dist <= diam * (1 - h * rate) ** n * (1 + 1e-12))
    assert np.all(dist >= diam * (1 - h * (rate + 1)) ** n * (1 - 1e-12))
    assert np.all(dist <= diam * math.exp(-rate * t))
    # the noise matters (log cosh is not quadratic): the paths do not all contract alike
    assert dist.max() - dist.min() > 1e-3 * dist.max()


def test_a_step_above_the_cap_breaks_the_bound():
    # the cap is needed: one noiseless Euler step of the difference with h = 1.5 / lambda (OU) or
    # 2.5 / (lambda + beta) (log cosh, near 0 where V'' = beta), both above 2 / (lambda + beta),
    # leaves a difference larger than the continuous bound e^(-lambda h) |x - x'|
    # (OU: |1 - 1.5| = 0.5 > e^(-1.5) = 0.22; log cosh: |1 - 2.5 * 2/3| = 2/3 > e^(-5/6) = 0.43)
    for pot, h in ((potential("quadratic", rate=1.0), 1.5), (potential("logcosh", rate=1.0), 2.5 / 3)):
        assert h > 2.0 / (pot.rate + pot.curvature_max)
        x, y = np.array([-1e-4]), np.array([1e-4])
        z = (y - h * pot.gradient(y)) - (x - h * pot.gradient(x))
        assert abs(z[0]) > math.exp(-pot.rate * h) * (y - x)[0]
        step, _ = euler_step(pot, 5 * h, max_step=10 * h)   # the scheme never takes such a step
        assert step <= 2.0 / (pot.rate + pot.curvature_max)


def test_one_run_over_several_times_is_the_discrete_recursion_stretch_by_stretch():
    # OU: the difference is deterministic, and over the stretches [0, 0.3], [0.3, 1], [1, 2.5] each of
    # n_k steps of h_k it is multiplied by (1 - h_k lambda)^n_k (h_k, n_k from euler_step on the
    # stretch's length), whatever the noise; the times may come in any order
    rate, diam = 0.8, 2.0
    pot = potential("quadratic", rate=rate)
    run = coupled_paths(pot, start=-1.0, diameter=diam, times=[1.0, 0.3, 2.5], paths=20, max_step=0.07, seed=4)
    assert list(run.times) == [0.3, 1.0, 2.5]
    expected, count, last = diam, 0, 0.0
    for i, t in enumerate([0.3, 1.0, 2.5]):
        h, n = euler_step(pot, t - last, max_step=0.07)
        expected, count, last = expected * (1 - h * rate) ** n, count + n, t
        assert run.steps[i] == h and run.counts[i] == count
        assert run.distances[i] == pytest.approx(np.full(20, expected), rel=1e-10)
        assert expected <= diam * math.exp(-rate * t)


def test_the_same_paths_never_move_apart_from_one_time_to_the_next():
    # log cosh: every step multiplies each path's difference by a factor in (0, 1 - h lambda], so on
    # the same paths each distance falls with t; the first time's distances are those of a run to
    # that time alone (the same seed draws the same increments first)
    pot = potential("logcosh", rate=0.3)
    times = [0.5, 1.0, 2.0, 4.0]
    run = coupled_paths(pot, start=-1.0, diameter=2.0, times=times, paths=300, max_step=0.05, seed=9)
    assert np.all(np.diff(run.distances, axis=0) < 0)
    assert np.all(run.distances <= 2.0 * np.exp(-0.3 * np.array(times))[:, None])
    alone = coupled_distances(pot, start=-1.0, diameter=2.0, time=0.5, paths=300, max_step=0.05, seed=9)
    assert np.array_equal(run.distances[0], alone)


def test_a_repeated_release_time_is_refused():
    with pytest.raises(InvalidArgumentError, match="times.*repeated"):
        coupled_paths(potential("quadratic", rate=1.0), start=0.0, diameter=1.0, times=[1.0, 0.5, 1.0], paths=2,
                      max_step=0.1, seed=1)


def test_coupled_paths_are_seeded():
    pot = potential("logcosh", rate=0.5)
    kw = dict(start=-1.0, diameter=2.0, time=1.0, paths=100, max_step=0.05)
    a = coupled_distances(pot, seed=11, **kw)
    assert np.array_equal(a, coupled_distances(pot, seed=11, **kw))
    assert not np.array_equal(a, coupled_distances(pot, seed=12, **kw))
    ss = np.random.SeedSequence(5, spawn_key=(1, 2))
    assert np.array_equal(coupled_distances(pot, seed=ss, **kw),
                          coupled_distances(pot, seed=np.random.SeedSequence(5, spawn_key=(1, 2)), **kw))


# ------------------------------------------------------------------------------ validation
def test_bad_arguments_are_refused():
    with pytest.raises(InvalidArgumentError, match="potential"):
        potential("quartic", rate=1.0)
    with pytest.raises(ArgumentTypeError, match="potential"):
        potential(3, rate=1.0)
    with pytest.raises(InvalidArgumentError, match="lambda"):
        potential("quadratic", rate=0.0)
    with pytest.raises(ArgumentTypeError, match="lambda"):
        potential("quadratic", rate="1")
    base = dict(lipschitz=1.0, diameter=1.0, rate=1.0, times=[1.0], norm=1)
    for key, value, err in [("lipschitz", -1.0, InvalidArgumentError), ("diameter", math.nan, InvalidArgumentError),
                            ("rate", -1.0, InvalidArgumentError), ("times", [-1.0], InvalidArgumentError),
                            ("times", [], InvalidArgumentError), ("norm", 3, InvalidArgumentError),
                            ("norm", True, ArgumentTypeError), ("times", "1", ArgumentTypeError)]:
        with pytest.raises(err):
            diffusion_sensitivity(**{**base, key: value})
    with pytest.raises(InvalidArgumentError, match="time"):
        ou_law(1.0, rate=1.0, time=-1.0)
    pot = potential("quadratic", rate=1.0)
    with pytest.raises(InvalidArgumentError, match="paths"):
        coupled_distances(pot, start=0.0, diameter=1.0, time=1.0, paths=0, max_step=0.1, seed=1)
    with pytest.raises(InvalidArgumentError, match="max_step"):
        coupled_distances(pot, start=0.0, diameter=1.0, time=1.0, paths=3, max_step=0.0, seed=1)
    with pytest.raises(InvalidArgumentError, match="seed"):
        coupled_distances(pot, start=0.0, diameter=1.0, time=1.0, paths=3, max_step=0.1, seed=-1)
    with pytest.raises(ArgumentTypeError, match="potential"):
        euler_step("quadratic", 1.0, max_step=0.1)

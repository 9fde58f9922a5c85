"""Soundness of the classical mechanisms' privacy values (issue 39): every value reported as achieved is at least
the true value for the floats given and at most it times 1 + 1e-9 (plus the smallest subnormal where the truth
is 0); every scale returned is at least its closed form's true value (so the guarantee it is calibrated for holds)
and at most 1e-9 relative above it.

The truth is computed here with mpmath at 50 significant digits (working precision 400 digits, enough for the
cancellations of deltas down to 1e-300) from the definitions:

* Laplace: H_{e^eps}(Laplace(s, b) || Laplace(0, b)) = the integral of p_s - e^eps p_0 over y > y*, y* = (s + eps b)/2
  the point where the loss (|y| - |y - s|) / b crosses eps, from the antiderivatives of the two exponentials;
* Gaussian: Balle and Wang (2018), Thm 8: Phi(s/(2 sigma) - eps sigma/s) - e^eps Phi(-s/(2 sigma) - eps sigma/s)
  (mpmath's ncdf);
* Cauchy: D_2(Cauchy(s, g) || Cauchy(0, g)) = log of the integral of p_s^2 / p_0, by mpmath's quadrature for
  moderate ratios and the closed form log(1 + s^2 / (2 g^2)) for all;
* scales: b eps >= w (Laplace), D_2 at the Cauchy scale <= eps, sigma >= the Renyi-route closed forms, and the
  analytic Gaussian sigma's true delta <= the target;
* channels: eps_A |x - x'| and max_y |log C[x, y] - log C[x', y]| of the floats given.

Inputs are seeded numpy draws: eps from 1e-6 to 700, deltas from 1e-300 to 0.5, shift / scale from 1e-8 to 1e8
(and the extremes 1e-300, 1e300 of each). A sample runs in ``make test``; the full 300 are slow.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish.mechanisms import (ClampedGeometric, analytic_gaussian_sigma, balle_wang_delta, cauchy_renyi2,
                                   cauchy_renyi2_scale, channel_epsilons, gaussian_rdp_sigma, gaussian_rdp_sigma_at,
                                   laplace_delta, laplace_scale)

RTOL = mp.mpf("1e-9")
FULL, SAMPLE = 300, 15
TINY = mp.mpf(2) ** -1074
DPS = 400


def check(route: str, reported: float, truth) -> None:
    value = mp.mpf(reported)
    assert truth <= value <= truth * (1 + RTOL) + TINY, (route, reported, mp.nstr(truth, 25))


def log_uniform(rng, lo, hi):
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def shift_scale(rng):
    u = rng.uniform()
    shift = log_uniform(rng, 1e-300, 1e300) if u < 0.1 else log_uniform(rng, 1e-3, 1e3)
    ratio = log_uniform(rng, 1e-8, 1e8)
    scale = shift / ratio
    if not 1e-300 < scale < 1e300:
        scale = shift
    return shift, scale


def epsilon_draw(rng):
    return log_uniform(rng, 1e-6, 700.0)


def delta_draw(rng):
    return log_uniform(rng, 1e-300, 0.5)


# ------------------------------------------------------------------ the truths
def true_laplace_delta(s, b, eps):
    s, b, eps = mp.mpf(s), mp.mpf(b), mp.mpf(eps)
    if eps >= s / b:
        return mp.mpf(0)
    y0 = (s + eps * b) / 2                      # in (s/2, s): the loss (2y - s)/b crosses eps here
    # on [y0, s]: p_s = e^(-(s - y)/b)/(2b), p_0 = e^(-y/b)/(2b); on [s, inf): p_s = e^(-(y - s)/b)/(2b)
    mid = ((1 - mp.exp(-(s - y0) / b)) - mp.exp(eps) * (mp.exp(-y0 / b) - mp.exp(-s / b))) / 2
    tail = (1 - mp.exp(eps) * mp.exp(-s / b)) / 2
    return mid + tail


def true_gaussian_delta(s, sigma, eps):
    s, sigma, eps = mp.mpf(s), mp.mpf(sigma), mp.mpf(eps)
    if s == 0:
        return mp.mpf(0)
    return (mp.ncdf(s / (2 * sigma) - eps * sigma / s)
            - mp.exp(eps) * mp.ncdf(-s / (2 * sigma) - eps * sigma / s))


def true_cauchy_d2(s, g):
    s, g = mp.mpf(s), mp.mpf(g)
    return mp.log1p(s * s / (2 * g * g))


def cauchy_d2_by_quadrature(s, g):
    s, g = mp.mpf(s), mp.mpf(g)

    def density(y, m):
        return g / (mp.pi * (g * g + (y - m) ** 2))
    return mp.log(mp.quad(lambda y: density(y, s) ** 2 / density(y, 0), [-mp.inf, 0, s, mp.inf]))


# ------------------------------------------------------------------ the checks
def laplace_case(rng):
    s, b = shift_scale(rng)
    eps = epsilon_draw(rng) if rng.uniform() < 0.7 else float(s / b * (1 - log_uniform(rng, 1e-15, 0.5)))
    check("laplace delta", laplace_delta(s, b, epsilon=eps), true_laplace_delta(s, b, eps))
    w, eps2 = log_uniform(rng, 1e-100, 1e100), epsilon_draw(rng)
    scale = float(laplace_scale(w, epsilons=eps2)[0])
    assert mp.mpf(scale) * mp.mpf(eps2) >= mp.mpf(w)                     # the loss w / b is at most eps
    check("laplace scale", scale, mp.mpf(w) / mp.mpf(eps2))


def gaussian_case(rng):
    s, sigma = shift_scale(rng)
    eps = epsilon_draw(rng)
    check("gaussian delta", balle_wang_delta(s, sigma, epsilon=eps), true_gaussian_delta(s, sigma, eps))
    w, eps2, delta = log_uniform(rng, 1e-3, 1e3), log_uniform(rng, 1e-3, 50.0), delta_draw(rng)
    log_inv = -mp.log(mp.mpf(delta))
    rdp = (mp.mpf(w) * (mp.sqrt(log_inv) + mp.sqrt(log_inv + mp.mpf(eps2))) / (mp.sqrt(2) * mp.mpf(eps2)))
    check("gaussian rdp sigma", gaussian_rdp_sigma(w, epsilon=eps2, delta=delta), rdp)
    alpha = float(1 + float(log_inv) / eps2 * log_uniform(rng, 1.001, 100.0))
    room = mp.mpf(eps2) - log_inv / (mp.mpf(alpha) - 1)
    at = float(gaussian_rdp_sigma_at(w, epsilon=eps2, delta=delta, alpha=alpha))
    assert mp.mpf(at) >= mp.mpf(w) * mp.sqrt(mp.mpf(alpha) / (2 * room))
    if rng.uniform() < 0.2:                                               # the analytic sigma meets its delta
        sigma_a = analytic_gaussian_sigma(w, epsilon=eps2, delta=delta)
        assert true_gaussian_delta(w, sigma_a, eps2) <= mp.mpf(delta)


def cauchy_case(rng):
    s, g = shift_scale(rng)
    truth = true_cauchy_d2(s, g)
    check("cauchy d2", cauchy_renyi2(s, g), truth)
    if 1e-3 < s / g < 1e3 and rng.uniform() < 0.1:                      # the closed form against quadrature
        with mp.workdps(40):                                             # (D_2 depends on s / g only)
            assert abs(cauchy_d2_by_quadrature(mp.mpf(s) / mp.mpf(g), 1) / true_cauchy_d2(s, g) - 1) < mp.mpf("1e-30")
    w, eps = log_uniform(rng, 1e-100, 1e100), log_uniform(rng, 1e-6, 600.0)
    scale = float(cauchy_renyi2_scale(w, epsilons=eps)[0])
    assert true_cauchy_d2(w, scale) <= mp.mpf(eps)                       # D_2 at the scale meets eps
    check("cauchy scale", scale, mp.mpf(w) / mp.sqrt(2 * mp.expm1(mp.mpf(eps))))


def channel_case(rng):
    lo = int(rng.integers(-50, 50))
    domain = tuple(sorted({lo, *rng.integers(lo + 1, lo + 60, int(rng.integers(1, 5))).tolist()}))
    eps = epsilon_draw(rng)
    mech = ClampedGeometric(domain, eps)
    check("clamped geometric eps", mech.channel_epsilon, mp.mpf(mech.epsilon) * (domain[-1] - domain[0]))
    pairs = mech.pair_epsilons()
    for i, x in enumerate(domain):
        for j, y in enumerate(domain):
            check("pair eps", pairs[i, j], mp.mpf(mech.epsilon) * abs(x - y))
    log_c = -np.abs(rng.normal(0.0, log_uniform(rng, 1e-6, 300.0), (3, 4)))
    got = channel_epsilons(log_c)
    for i in range(3):
        for j in range(3):
            truth = max(abs(mp.mpf(float(a)) - mp.mpf(float(b))) for a, b in zip(log_c[i], log_c[j]))
            check("channel eps", got[i, j], truth)


CASES = [laplace_case, gaussian_case, cauchy_case, channel_case]
IDS = ["laplace", "gaussian", "cauchy", "channel"]


def run(seed, count, body):
    rng = np.random.default_rng(seed)
    with mp.workdps(DPS):
        for _ in range(count):
            body(rng)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_sample_of_mechanism_values_is_certified(case):
    run(39, SAMPLE, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_mechanism_values_are_certified_over_the_whole_range(case):
    run(3939, FULL, case)

"""Soundness of paper 004's closed forms (issue 39): every scale or value reported is at least the paper's formula
(or the true quantity) and at most it times 1 + 1e-9.

The truth is computed here with mpmath at 50 digits from the definitions: tau* = Q^{-1}(delta / 2) by the
secant method on log Q(t), Q(t) = erfc(t / sqrt 2) / 2 (a bracketing sign change checked), the Lambert-W bound sqrt(W0(2 / (pi delta^2))),
eqs. (5), (6), (9), (10), (11) of the paper, Fig. 1's log-ratio of two normal laws over a window, and their
total variation by integrating |p_i - p_j| between the roots of the log-ratio. Inputs are plain seeded numpy
draws: deltas from 1e-300 to 1 - 1e-9, eps from 1e-6 to 700, means and standard deviations from 1e-6 to 1e6
(and point masses). A sample of each runs in ``make test``; the full 300 inputs are marked slow.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish.gaussian.methods import (corollary1_identical, corollary1a, corollary1b, gaussian_noise_max_log_ratio,
                                         remark1, tau_lambertw, tau_star, theorem1)
from pufferfish.gaussian.noise_ordering import gaussian_noise_total_variation

mp.mp.dps = 50
RTOL = mp.mpf("1e-9")
FULL, SAMPLE = 300, 20
OBSERVED: dict = {}


def check(route: str, reported: float, truth) -> None:
    value = mp.mpf(reported)
    assert truth <= value <= truth * (1 + RTOL) + mp.mpf(2) ** -1074, (route, reported, mp.nstr(truth, 20))
    if truth > 0:
        ratio = float(value / truth - 1)
        low, high = OBSERVED.get(route, (math.inf, -math.inf))
        OBSERVED[route] = (min(low, ratio), max(high, ratio))


def log_uniform(rng, lo, hi):
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def delta_draw(rng):
    return log_uniform(rng, 1e-300, 0.5) if rng.uniform() < 0.8 else float(rng.uniform(0.5, 1 - 1e-9))


def true_tau(delta):
    """Q^{-1}(delta / 2): the root of log(erfc(t / sqrt 2) / 2) = log(delta / 2) by the secant method from
    scipy's -ndtri(delta / 2) (a start only), checked to bracket a sign change 1e-40 either side (50 digits)."""
    from scipy.special import ndtri

    target = mp.log(mp.mpf(delta) / 2)

    def f(t):
        return mp.log(mp.erfc(t / mp.sqrt(2)) / 2) - target
    root = mp.findroot(f, mp.mpf(float(-ndtri(delta / 2))), solver="secant", tol=mp.mpf(10) ** -80, verify=False)
    assert f(root - mp.mpf("1e-40")) > 0 > f(root + mp.mpf("1e-40"))
    return root


def run(count, body):
    with mp.workdps(50):                 # whatever precision another test module left mpmath at
        for seed in range(count):
            body(np.random.default_rng(seed))


def theorem_case(rng):
    delta, eps = delta_draw(rng), log_uniform(rng, 1e-6, 700.0)
    tau = true_tau(delta)
    check("tau_star", tau_star(delta), tau)
    lambert = mp.sqrt(mp.lambertw(2 / (mp.pi * mp.mpf(delta) ** 2)))
    check("tau_lambertw", tau_lambertw(delta), lambert)
    mi, mj = rng.normal(0, log_uniform(rng, 1e-6, 1e6), 2)
    si, sj = (0.0 if rng.uniform() < 0.15 else log_uniform(rng, 1e-6, 1e6) for _ in range(2))
    e = mp.mpf(eps)
    check("theorem1", theorem1(mi, si, mj, sj, epsilon=eps, delta=delta),
          (abs(mp.mpf(mi) - mp.mpf(mj)) + abs(mp.mpf(si) - mp.mpf(sj)) * tau) / e)
    check("remark1", remark1(mi, mj, epsilon=eps), abs(mp.mpf(mi) - mp.mpf(mj)) / e)
    check("corollary1b", corollary1b(mi, mj, epsilon=eps), abs(mp.mpf(mi) - mp.mpf(mj)) / e)
    users = int(rng.integers(1, 30))
    mus, sds = rng.normal(0, 10, users), np.exp(rng.uniform(-5, 5, users))
    var = [mp.mpf(float(s)) ** 2 for s in sds]
    worst = max(abs(mp.mpf(float(m))) + (mp.sqrt(mp.fsum(var)) - mp.sqrt(mp.fsum(var) - v)) * tau
                for m, v in zip(mus, var))
    check("corollary1a", corollary1a(mus, sds, epsilon=eps, delta=delta), worst / e)
    count = int(rng.integers(1, 10 ** 6))
    check("corollary1_identical", corollary1_identical(mi, si, count, epsilon=eps, delta=delta),
          (abs(mp.mpf(mi)) + (mp.sqrt(count) - mp.sqrt(count - 1)) * mp.mpf(si) * tau) / e)


def log_ratio(y, mi, vi, mj, vj):
    return -mp.log(vi) / 2 - (y - mi) ** 2 / (2 * vi) + mp.log(vj) / 2 + (y - mj) ** 2 / (2 * vj)


def noise_case(rng):
    """Fig. 1: the window maximum of the log-ratio and the total variation of Gaussian noise."""
    mi, mj = rng.normal(0, log_uniform(rng, 1e-3, 1e3), 2)
    si, sj = (0.0 if rng.uniform() < 0.15 else log_uniform(rng, 1e-3, 1e3) for _ in range(2))
    s = log_uniform(rng, 1e-3, 1e3)
    vi, vj = mp.mpf(si) ** 2 + mp.mpf(s) ** 2, mp.mpf(sj) ** 2 + mp.mpf(s) ** 2
    lo = float(rng.normal(0, 10))
    hi = lo + log_uniform(rng, 1e-3, 1e3)
    points = [mp.mpf(lo), mp.mpf(hi)]
    a2 = 1 / (2 * vj) - 1 / (2 * vi)
    if a2 != 0:
        vertex = -(mp.mpf(mi) / vi - mp.mpf(mj) / vj) / (2 * a2)
        if lo < vertex < hi:
            points.append(vertex)
    truth = max(abs(log_ratio(y, mp.mpf(mi), vi, mp.mpf(mj), vj)) for y in points)
    check("gaussian_noise_max_log_ratio", gaussian_noise_max_log_ratio(mi, si, mj, sj, noise_sd=s, window=(lo, hi)),
          truth)
    if si == sj and mi == mj:
        return
    coefficients = [mp.mpf(mj) ** 2 / (2 * vj) - mp.mpf(mi) ** 2 / (2 * vi) + mp.log(vj / vi) / 2,
                    mp.mpf(mi) / vi - mp.mpf(mj) / vj, a2]
    roots = sorted(mp.polyroots(coefficients, maxsteps=200, extraprec=200, asc=True) if a2 != 0
                   else [(mp.mpf(mi) + mp.mpf(mj)) / 2], key=lambda r: mp.re(r))
    cuts = [mp.re(r) for r in roots if abs(mp.im(r)) < mp.mpf("1e-30")]
    edges = [-mp.inf, *cuts, mp.inf]
    cdf_i = [mp.ncdf(x, mp.mpf(mi), mp.sqrt(vi)) for x in edges]
    cdf_j = [mp.ncdf(x, mp.mpf(mj), mp.sqrt(vj)) for x in edges]
    tv = mp.fsum(abs((cdf_i[k + 1] - cdf_i[k]) - (cdf_j[k + 1] - cdf_j[k])) for k in range(len(edges) - 1)) / 2
    check("gaussian_noise_total_variation", gaussian_noise_total_variation(mi, si, mj, sj, noise_sd=s), tv)


CASES = [theorem_case, noise_case]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_sample(case):
    run(SAMPLE, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_full_range(case):
    run(FULL, case)

"""Regions no fast test checked (issue 41, tests/faults): the diffusion's sensitivity at rate x time > 50, the
Ornstein-Uhlenbeck law at rate x time <= 1e-3 and > 10, and the geometric audit's loss on a hull over 1e4 points.

Expected values: paper 002's Prop. 6.3 and the OU law N(e^(-lambda t) x0, (1 - e^(-2 lambda t)) / lambda) in mpmath at
40 digits; the geometric loss of two point masses (or an atom pair) from the kernel sums by hand: with
r = e^(-1/b), p_Y(y) / q_Y(y) = r^(|y| - |y - N|) for P = delta_0, Q = delta_N, whose log is at most N / b.
"""
from __future__ import annotations

import math

import mpmath as mp
import pytest

from tests.helpers import certified

from pufferfish.audit.geometric_lattice import geometric_privacy_loss
from pufferfish.lattice import LatticePMF
from pufferfish.sensitivity.diffusion import diffusion_sensitivity, ou_law


@pytest.fixture(autouse=True)
def _forty_digits():
    """mpmath at 40 digits in this module's tests only (mpmath's precision is global: other modules set theirs)."""
    with mp.workdps(40):
        yield

RTOL = 1e-12


@pytest.mark.parametrize("norm", [1, 2, math.inf])
def test_diffusion_sensitivity_at_rate_times_time_above_50(norm):
    lipschitz, diameter, rate, times = 2.0, 3.0, 1.5, [40.0, 60.0, 90.0]     # rate x max time = 135
    terms = [mp.exp(-mp.mpf(rate) * t) for t in times]
    size = {1: sum(terms), 2: mp.sqrt(sum(x * x for x in terms)), math.inf: max(terms)}[norm]
    got = diffusion_sensitivity(lipschitz=lipschitz, diameter=diameter, rate=rate, times=times, norm=norm)
    assert got == pytest.approx(float(lipschitz * diameter * size), rel=RTOL, abs=0)


@pytest.mark.parametrize("rate, time", [(2.0, 1e-4), (0.5, 1e-6), (1.0, 20.0), (3.0, 9.0)])
def test_ou_law_at_small_and_large_rate_times_time(rate, time):
    x0 = 1.5
    lam, t = mp.mpf(rate), mp.mpf(time)
    mean, variance = ou_law(x0, rate=rate, time=time)
    assert mean == pytest.approx(float(mp.exp(-lam * t) * x0), rel=RTOL, abs=0)
    assert variance == pytest.approx(float((1 - mp.exp(-2 * lam * t)) / lam), rel=RTOL, abs=0)


def test_geometric_loss_on_a_hull_over_1e4_points():
    n, b = 12_000, 3_000.0
    forward, backward = geometric_privacy_loss(LatticePMF.point(0), LatticePMF.point(n), scale=b)
    # certified values (issue 39): at least the truth, at most 1e-9 above it (a 1e-6 fault fails either end)
    assert forward == certified(n / b)
    assert backward == certified(n / b)
    # P = (delta_0 + delta_N) / 2, Q = delta_N: p/q = (r^(|y| - |y - N|) + 1) / 2, largest at y <= 0
    # (r^-N), smallest at y >= N (r^N)
    p = LatticePMF.from_values([0, n], [0.5, 0.5])
    forward, backward = geometric_privacy_loss(p, LatticePMF.point(n), scale=b)
    ratio = mp.mpf(n) / b
    assert forward == certified(mp.log((mp.exp(ratio) + 1) / 2))
    assert backward == certified(-mp.log((mp.exp(-ratio) + 1) / 2))

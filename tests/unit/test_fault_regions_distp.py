"""paper 003's smallest number of dummies (pufferfish.distp.calibrate.smallest_dummies): the DistP delta it reports
at the k it finds, against the randomized-response laws in mpmath (tests/faults: a 1e-6 error in it must fail a test).

With k = 0 dummies the tupling mechanism is its base (paper 003, Sec. IV), so the delta at k = 0 is the DistP delta
of RR(eps_A) on the two input laws (Def. 11): the larger of sum_y [mu_b(y) - e^eps mu_b'(y)]^+, with
mu_b = other + (keep - other) lambda_b, keep = e^eps_A / (e^eps_A + m - 1), other = 1 / (e^eps_A + m - 1).
"""
from __future__ import annotations

import math

import mpmath as mp
import pytest

from pufferfish.distp.calibrate import smallest_dummies
from pufferfish.mechanisms import RandomizedResponse

LAMBDA0, LAMBDA1, EPS_A, EPSILON = [0.7, 0.3, 0.0], [0.0, 0.4, 0.6], 3.0, 0.5


@pytest.fixture(autouse=True)
def _forty_digits():
    with mp.workdps(40):
        yield


def _rr_delta():
    big = mp.exp(mp.mpf(EPS_A))
    keep, other = big / (big + 2), 1 / (big + 2)
    mu0, mu1 = ([other + (keep - other) * mp.mpf(v) for v in law] for law in (LAMBDA0, LAMBDA1))
    scale = mp.exp(mp.mpf(EPSILON))
    return max(sum(max(a - scale * b, 0) for a, b in zip(first, second)) for first, second in ((mu0, mu1), (mu1, mu0)))


def test_smallest_dummies_met_by_the_base_reports_its_delta():
    expected = _rr_delta()
    assert 0.05 < expected < 0.9
    found = smallest_dummies(RandomizedResponse(3, EPS_A), LAMBDA0, LAMBDA1, epsilon=EPSILON, delta=0.95)
    assert found.parameter == 0.0
    assert found.delta == pytest.approx(float(expected), rel=1e-9, abs=0)
    assert found.delta_upper == pytest.approx(float(expected), rel=1e-9, abs=0)
    assert found.delta <= expected * (1 + mp.mpf("1e-12")) and found.delta_upper >= expected * (1 - mp.mpf("1e-12"))


def test_smallest_dummies_not_met_reports_the_delta_of_the_last_k():
    expected = _rr_delta()
    found = smallest_dummies(RandomizedResponse(3, EPS_A), LAMBDA0, LAMBDA1, epsilon=EPSILON, delta=1e-9,
                             max_dummies=0)
    assert math.isnan(found.parameter) and found.reason
    assert found.delta == pytest.approx(float(expected), rel=1e-9, abs=0)
    assert found.delta_upper == pytest.approx(float(expected), rel=1e-9, abs=0)

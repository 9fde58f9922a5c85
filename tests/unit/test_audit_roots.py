"""The vectorised Illinois root finder against scipy.optimize.brentq, one bracket at a time."""

import numpy as np
import pytest
from scipy.optimize import brentq

from pufferfish.audit.roots import illinois_roots


@pytest.mark.parametrize("bisect_after", [None, 2])
@pytest.mark.parametrize("scale", [1e-200, 1e-6, 1.0, 1e6, 1e200])
def test_roots_match_brentq_at_every_scale(scale, bisect_after):
    level = np.array([-3.0, -0.5, 0.0, 0.1, 2.0, 7.0])
    a = np.full(level.size, -2.0) * scale
    c = np.full(level.size, 2.5) * scale

    def g(x, lv):
        return np.sinh(x / scale) + (x / scale) ** 3 - lv        # increasing: one root per bracket

    f = lambda x, idx: g(x, level[idx])
    xtol = 1e-13 * scale
    x = illinois_roots(f, a, c, g(a, level), g(c, level), xtol, max_iter=200, bisect_after=bisect_after)
    for k, lv in enumerate(level):
        ref = brentq(lambda t: g(t, lv), a[k], c[k], xtol=1e-15 * scale, rtol=1e-15)
        assert abs(x[k] - ref) <= 2 * xtol


def test_flat_side_converges_with_bisection_steps():
    # a function whose regula falsi keeps one end: the Illinois rule and the bisection steps close it
    a, c = np.array([0.0]), np.array([1.0])
    f = lambda x, idx: x ** 20 - 0.5
    x = illinois_roots(f, a, c, f(a, None), f(c, None), 1e-14, max_iter=100, bisect_after=2)
    assert x[0] == pytest.approx(0.5 ** (1 / 20), abs=1e-13)


def test_shapes_must_agree():
    with pytest.raises(ValueError, match="one shape"):
        illinois_roots(lambda x, idx: x, np.zeros(2), np.ones(3), np.zeros(2), np.ones(2), 1e-9, max_iter=5)

"""sum_of_users on a list of LatticePMF and on the same users as a 2-D array: one law (issue 24, section 5).

The list is converted once at the boundary (its size check measures the users as rows of one
array), so both forms reach the same engine; the laws must agree bit for bit on seeded random
users, below and above SMALL_SYSTEM, through the direct levels and the tilted FFT.
"""
import numpy as np
import pytest

from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import SMALL_SYSTEM, sum_of_users


def _rows(seed, n, width, zeros):
    rows = np.random.default_rng(seed).dirichlet(np.ones(width), size=n)
    if zeros:                                           # some users without their first or last value
        rows[::7, 0] = 0.0
        rows[3::11, -1] = 0.0
        rows /= rows.sum(axis=1, keepdims=True)
    return rows


@pytest.mark.parametrize("seed, n, width, zeros, method", [
    (1, SMALL_SYSTEM + 1, 5, False, "auto"), (2, 500, 3, True, "auto"), (3, 3000, 5, False, "auto"),
    (4, 3000, 5, True, "tilted"), (5, 2000, 9, False, "direct"), (6, 20000, 2, False, "auto")])
def test_list_and_array_give_the_same_law(seed, n, width, zeros, method):
    rows = _rows(seed, n, width, zeros)
    from_array = sum_of_users(rows, method=method)
    from_list = sum_of_users([LatticePMF(0, row) for row in rows], method=method)
    assert from_list.lo == from_array.lo and from_list.hi == from_array.hi
    np.testing.assert_allclose(from_list.probs, from_array.probs, rtol=1e-15, atol=0.0)
    assert abs(float(np.sum(from_list.probs)) - 1.0) < 1e-12


def test_a_list_too_wide_is_refused_before_any_convolution():
    """The vectorized size check still refuses a sum wider than MAX_LATTICE_POINTS, naming the users."""
    far = LatticePMF.from_values([0, 10 ** 6], [0.5, 0.5])
    with pytest.raises(ValueError, match="users"):
        sum_of_users([far] * 2000 + [LatticePMF.bernoulli(0.3)] * 100)

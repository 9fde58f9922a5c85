"""Fixtures shared by the unit tests: the users of paper 000's Tables 2-3 (helpers in ``tests/helpers.py``)."""
import pytest

from pufferfish.lattice.pmf import LatticePMF
from tests.helpers import TABLE2, TABLE3


@pytest.fixture
def table2():
    """Users 1-3 of paper 000, Table 2, on the alphabet 1..5."""
    return [LatticePMF.from_values([1, 2, 3, 4, 5], p, name=k) for k, p in TABLE2.items()]


@pytest.fixture
def p4():
    """P4 of paper 000, Table 3."""
    return LatticePMF.from_values([1, 2, 3, 4, 5], TABLE3["P4"], name="P4")


@pytest.fixture
def q4():
    """Q4 of paper 000, Table 3."""
    return LatticePMF.from_values([1, 2, 3, 4, 5], TABLE3["Q4"], name="Q4")

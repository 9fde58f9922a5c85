"""Shared test fixtures: the users of paper 000's Tables 2-3 and seeded random lattice priors."""
import numpy as np
import pytest

from pufferfish.lattice.pmf import LatticePMF

TABLE2 = {
    "D1": [0.01, 0.04, 0.1, 0.2, 0.65],
    "D2": [0.7, 0.2, 0.05, 0.04, 0.01],
    "D3": [0.2, 0.2, 0.2, 0.2, 0.2],
}
TABLE3 = {"P4": [0.4, 0.1, 0.0, 0.1, 0.4], "Q4": [0.0, 0.05, 0.9, 0.05, 0.0]}


@pytest.fixture
def table2():
    """Users 1-3 of paper 000, Table 2, on the alphabet 1..5."""
    return [LatticePMF.from_values([1, 2, 3, 4, 5], p, name=k) for k, p in TABLE2.items()]


@pytest.fixture
def p4():
    return LatticePMF.from_values([1, 2, 3, 4, 5], TABLE3["P4"], name="P4")


@pytest.fixture
def q4():
    return LatticePMF.from_values([1, 2, 3, 4, 5], TABLE3["Q4"], name="Q4")


def random_pmf(rng, *, size=None, lo=None, zero_prob=0.2) -> LatticePMF:
    """A random float-only lattice pmf (no exact fractions), seeded by ``rng``."""
    size = int(rng.integers(1, 8)) if size is None else size
    lo = int(rng.integers(-4, 5)) if lo is None else lo
    w = rng.random(size) * (rng.random(size) > zero_prob)
    if w.sum() == 0:
        w[0] = 1.0
    return LatticePMF(lo, w / w.sum())


def pytest_configure(config):
    """Let the integration tests import their fixture builder."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent / "integration"))

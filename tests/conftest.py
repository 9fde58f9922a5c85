"""Fixtures shared by the unit tests: the users of paper 000's Tables 2-3 (helpers in ``tests/helpers.py``).

The test process computes with one BLAS / OpenMP thread, as every workflow job does (Snakemake
sets these variables to a job's ``threads``, 1 here): the suite runs its unit tests beside
complete Snakemake runs on the same cores (tests/integration/conftest.py), where a BLAS thread
pool only waits on them (OpenBLAS's idle threads spin), a tenth of the suite's CPU time.
"""
import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "GOTO_NUM_THREADS",
                  "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")   # before numpy is first imported

import pytest  # noqa: E402
from hypothesis import HealthCheck, Phase, settings  # noqa: E402

from pufferfish.lattice.pmf import LatticePMF  # noqa: E402
from tests.helpers import TABLE2, TABLE3  # noqa: E402

# Hypothesis: CI draws the same examples every run (``ci``: derandomized, no example database, selected
# by PUFFERFISH_HYPOTHESIS=ci, which .ci/run exports); a local run draws new ones (``dev``, Hypothesis's
# defaults with its database), and a failure it finds is kept as an @example of the test. ``faults``
# is ``ci`` without shrinking (tests/faults: a fault run needs the first failure, not the smallest).
# Every profile draws MAX_EXAMPLES examples per property test, and no test sets its own max_examples
# (issue 41: one number sets the depth and the time of the whole suite; a test whose example is
# costly draws smaller inputs instead). PUFFERFISH_MAX_EXAMPLES=n overrides it for a deeper run.
_max_examples = os.environ.get("PUFFERFISH_MAX_EXAMPLES", "30")
if not (_max_examples.isdigit() and int(_max_examples) >= 1):
    raise pytest.UsageError(f"PUFFERFISH_MAX_EXAMPLES = {_max_examples!r}: a whole number of examples, at least 1")
MAX_EXAMPLES = int(_max_examples)
settings.register_profile("ci", max_examples=MAX_EXAMPLES, derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", max_examples=MAX_EXAMPLES)
settings.register_profile("faults", settings.get_profile("ci"), deadline=None, suppress_health_check=list(HealthCheck),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.load_profile(os.environ.get("PUFFERFISH_HYPOTHESIS", "dev"))


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


@pytest.fixture(autouse=True)
def _mpmath_precision():
    """Each test starts at the working precision mpmath has after collection and leaves it there: a
    test that sets ``mp.dps`` for its oracle changes no other test's (under pytest-xdist the order of
    the tests, and so what an earlier test left, differs from run to run)."""
    import mpmath
    prec = mpmath.mp.prec
    yield
    mpmath.mp.prec = prec

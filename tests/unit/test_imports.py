"""Every workflow job is a new interpreter: importing the package costs only what the job uses.

Checked by the modules loaded, not by a clock (``benchmarks/pipeline.py`` prints the times).
"""
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
HEAVY = ("scipy", "scipy.stats", "scipy.optimize", "scipy.signal", "sklearn", "pandas", "matplotlib", "ot", "jsonschema",
         "yaml")


def loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(SRC), "PATH": ""})
    return set(out.stdout.split())


@pytest.mark.parametrize("code, allowed", [
    ("import pufferfish", set()),
    ("from pufferfish import LatticePMF, SecretPair, User, Draws, Absent, sum_of_users, calibrate, lattice_auditor, "
     "Target", set()),
    ("import pufferfish.pipeline.jobs", set()),                              # every job's glue
    ("import pufferfish.pipeline.config\nfrom pufferfish import registry\nregistry.methods()",
     {"jsonschema", "yaml"}),                                                # what the Snakefile loads
    ("import pufferfish.multiuser.experiments", {"pandas"}),                # no scipy, no matplotlib
    ("import pufferfish.gaussian.experiments", {"scipy", "pandas"}),        # scipy.special only: no stats, no sklearn
    ("from pufferfish.sensitivity import attribute_coefficients, diffusion_sensitivity, weak_dependence_bound, "
     "parallel_composition, scales_from_sensitivity", set()),              # closed forms: numpy only
    ("import pufferfish.sensitivity.experiments", {"pandas"}),              # no matplotlib until a figure is drawn
])
def test_imports_load_only_what_is_used(code, allowed):
    assert loaded_after(code) <= allowed


def test_lazy_names_resolve_and_are_listed():
    import pufferfish
    import pufferfish.lattice
    from pufferfish.lattice.sums import sum_of_users
    assert pufferfish.sum_of_users is sum_of_users and pufferfish.lattice.sum_of_users is sum_of_users
    assert set(pufferfish.__all__) <= set(dir(pufferfish))
    for name in pufferfish.__all__:
        assert getattr(pufferfish, name) is not None
    assert pufferfish.lattice.tail_mass_bound.__module__ == "pufferfish.lattice.sums"
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        pufferfish.nope

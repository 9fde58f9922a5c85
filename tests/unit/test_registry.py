"""The method registry and the shared audit interface."""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pufferfish import registry
from pufferfish import audit
from pufferfish.audit import LaplaceLatticeAuditor, Target, lattice_auditor
from pufferfish.audit.laplace_mixture import LaplaceMixtureAuditor
from pufferfish.audit.search import smallest_scale
from pufferfish.errors import ConfigError, InvalidArgumentError, NotApplicableError
from pufferfish.lattice import Absent, Draws, LatticePMF, Reports, SecretPair
from pufferfish.pipeline.config import load_schema

REPO = Path(__file__).resolve().parents[2]


def test_schema_method_enum_is_the_registry():
    """The loaded schema's method enum is the registry's names, in its order (load_schema fills it in)."""
    enum = load_schema()["$defs"]["method"]["enum"]
    assert enum == registry.names(automatic=False)
    assert "tight" not in enum and {"kantorovich", "dagwm_cauchy", "tight_cauchy"} <= set(enum)


def test_schema_file_is_valid_on_its_own_and_lists_no_method():
    """The file is a valid JSON schema by itself (any string is a method there) and holds no copy
    of the method names that could drift from the registry."""
    import jsonschema
    import yaml

    raw = yaml.safe_load((REPO / "src" / "pufferfish" / "pipeline" / "config.schema.yaml").read_text())
    jsonschema.Draft202012Validator.check_schema(raw)
    assert raw["$defs"]["method"] == {"description": raw["$defs"]["method"]["description"], "type": "string"}
    jsonschema.Draft202012Validator.check_schema(load_schema())


def test_a_new_registry_method_needs_no_schema_edit():
    """A method registered in a fresh interpreter is accepted by the config (and a misspelt one still
    refused by the schema, naming the registry's methods)."""
    code = """
import sys, yaml
from pufferfish.errors import ConfigError
from pufferfish.registry import Method, register
from pufferfish.pipeline.config import validate_config

register(Method("twice_kantorovich", lambda pair, epsilons, **_: 2.0 / epsilons, pairs=None, label="2 x eq. (5)",
                citation="a test"))
cfg = yaml.safe_load(open("config.yaml"))
cfg["multiuser"]["experiments"]["fig4"]["methods"].append("twice_kantorovich")
validate_config(cfg)
cfg["multiuser"]["experiments"]["fig4"]["methods"][-1] = "thrice_kantorovich"
try:
    validate_config(cfg)
except ConfigError as err:
    print(err)
from pufferfish import registry
print(", ".join(registry.names(automatic=False)))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    error, names = out.stdout.splitlines()
    assert "twice_kantorovich" in names.split(", ")
    assert error.startswith("config: multiuser.experiments.fig4.methods[")
    assert error.endswith(f"= 'thrice_kantorovich': must be one of {names}")


def test_docs_methods_table_lists_every_method():
    page = (REPO / "docs" / "for-researchers.md").read_text()   # the table moved there from the README
    table = page[page.index("## The calibration methods"):]
    rows = set(re.findall(r"^\| `(\w+)` \|", table, flags=re.M))
    assert set(registry.names()) <= rows


def test_every_record_is_complete():
    for name, record in registry.methods().items():
        assert record.name == name and record.label and record.citation
        assert record.noise in audit.noises()
        assert record.guarantee in ("epsilon", "epsilon_delta", "renyi")


def test_calibrate_by_record_and_refusals():
    pair = SecretPair.of(Reports(2), Reports(5), [])
    # eq. (10): |a - b| / eps = 3 / eps
    np.testing.assert_allclose(registry.calibrate("theorem1", pair, epsilons=[0.5, 1.5]), [6.0, 2.0])
    with pytest.raises(NotApplicableError, match="theorem2 does not apply to the secret pair \\(value, value\\)"):
        registry.calibrate("theorem2", pair, epsilons=[1.0])
    with pytest.raises(NotApplicableError, match="= 'nope': unknown method"):
        registry.calibrate("nope", pair, epsilons=[1.0])
    absent = SecretPair.of(Absent(), Reports(-4), [])
    np.testing.assert_allclose(registry.calibrate("theorem2", absent, epsilons=[2.0]), [2.0])  # eq. (12): |a|/eps


def test_laplace_lattice_auditor_on_two_points():
    # X = 0 vs X = 3 under Laplace(theta): the log-ratio is (|y - 3| - |y|) / theta, sup 3 / theta
    p, q = LatticePMF.point(0), LatticePMF.point(3)
    aud = lattice_auditor("laplace", "epsilon", p, q)
    assert isinstance(aud, LaplaceLatticeAuditor)
    got = aud.achieved(2.0, Target(1.5))
    for value in (got.forward, got.backward):                       # 3 / 2, certified from above
        assert 1.5 <= value <= 1.5 * (1 + 1e-9)
    assert got.meets() == (got.value <= 1.5)
    best = aud.smallest_scale(Target(0.75))
    assert best.scale == pytest.approx(4.0, rel=1e-11)  # 3 / 0.75
    with pytest.raises(ConfigError, match="audits epsilon, epsilon_delta, not renyi"):
        aud.achieved(1.0, Target(1.0, alpha=2.0))


def test_laplace_mixture_auditor_is_the_paper_004_audit():
    from pufferfish.audit.laplace_mixture import b_min
    from pufferfish.audit.mixture_hockey_stick import hockey_stick
    aud = LaplaceMixtureAuditor((0.0, 1.0), (1.0, 1.0))
    t = Target(0.5, delta=0.1)
    got = aud.achieved(1.0, t)
    hs = hockey_stick((0.0, 1.0), (1.0, 1.0), epsilon=0.5, b=1.0)
    assert (got.forward, got.backward) == (hs.forward, hs.backward)
    assert aud.smallest_scale(t).scale == b_min((0.0, 1.0), (1.0, 1.0), epsilon=0.5, delta=0.1).b


@pytest.mark.parametrize("kwargs, message", [
    ({"epsilon": 0}, "epsilon = 0"), ({"epsilon": float("nan")}, "epsilon = nan"),
    ({"epsilon": 1, "delta": 1.0}, "delta = 1.0: must be < 1"), ({"epsilon": 1, "alpha": 1}, "alpha = 1"),
    ({"epsilon": 1, "delta": 0.1, "alpha": 2}, "exclude each other"),
])
def test_target_refuses_bad_values(kwargs, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        Target(**kwargs)


def test_smallest_scale_finds_a_closed_form_root():
    # value(s) = 3 / s is non-increasing; the smallest s with 3 / s <= 0.6 is 5
    scale, value, steps, reason = smallest_scale(lambda s: 3.0 / s, 0.6, start=1.0, rtol=1e-12)
    assert scale == pytest.approx(5.0, rel=1e-11) and value <= 0.6 and reason == ""
    assert smallest_scale(lambda s: 1.0, 2.0, start=1.0, at_zero=1.0)[0] == 0.0


def test_tight_records_are_derived_from_the_auditor_classes():
    """Nothing lists a noise but its auditor class: every tight record of the registry is a
    lattice auditor's declaration (name, label, citation, noise, guarantee, the parameters the
    guarantee needs), every declaration is a record, and the noises are the classes'."""
    declared = {spec.name: (cls, guarantee, spec) for cls in audit.auditor_classes("lattice")
                for guarantee, spec in cls.tight.items()}
    tight = {name: m for name, m in registry.methods().items() if m.smallest}
    assert set(tight) == set(declared)
    assert {"tight", "tight_laplace_delta", "tight_gaussian", "tight_cauchy", "tight_geometric"} <= set(tight)
    needs = {"epsilon": (), "epsilon_delta": ("delta",), "renyi": ("alpha",)}
    for name, (cls, guarantee, spec) in declared.items():
        record = registry.get(name)
        assert (record.noise, record.guarantee, record.needs) == (cls.noise, guarantee, needs[guarantee])
        assert (record.label, record.citation, record.automatic) == (spec.label, spec.citation, spec.automatic)
        assert record.pairs is None
    assert [n for n, m in registry.methods().items() if m.automatic] == ["tight"]
    assert audit.noises() == tuple(dict.fromkeys(c.noise for c in audit.auditor_classes()))
    assert audit.noises()[:3] == ("laplace", "gaussian", "cauchy") and "geometric" in audit.noises()
    assert {cls.noise for cls in audit.auditor_classes("lattice")} == {m.noise for m in tight.values()}
    assert {m.noise for m in registry.methods().values()} <= set(audit.noises())
    assert registry.get("tight").label == r"tight: $\theta_{\min}$ (exact audit)"


def test_a_tight_method_raises_instead_of_returning_inf(monkeypatch):
    from pufferfish.audit.gaussian_lattice import GaussianLatticeAuditor
    from pufferfish.audit.target import Smallest

    def gives_up(self, target):
        return Smallest(target, float("inf"), float("nan"), 200, "bracket [1, 2] not closed within 200 steps")

    monkeypatch.setattr(GaussianLatticeAuditor, "smallest_scale", gives_up)
    pair = SecretPair.of(Reports(0), Reports(3), [])
    with pytest.raises(InvalidArgumentError,
                       match=r"^epsilons\[0\] = 0.5: no tight_gaussian scale: bracket \[1, 2\] not closed"):
        registry.calibrate("tight_gaussian", pair, epsilons=[0.5], delta=1e-5)


def test_noise_std_is_each_familys():
    # Var Laplace(b) = 2 b^2; Gaussian sigma; Cauchy none; geometric 2 r / (1 - r)^2, r = e^(-1/b)
    assert audit.noise_std("laplace", 2.0) == pytest.approx(2 * 2 ** 0.5, rel=1e-15)
    assert audit.noise_std("gaussian", 2.0) == 2.0
    assert np.isnan(audit.noise_std("cauchy", 2.0))
    r = np.exp(-0.5)
    assert audit.noise_std("geometric", 2.0) == pytest.approx(np.sqrt(2 * r) / (1 - r), rel=1e-14)
    with pytest.raises(ConfigError, match="noise = 'student'"):
        audit.noise_std("student", 1.0)


def test_families_are_the_ones_the_package_imports():
    """Every family module is imported by pufferfish/audit/__init__.py (one import line each; no module
    is looked up by its file name): importing the package registers all five classes, the lattice
    families are the four lattice ones, and the package still does not import scipy."""
    import subprocess
    import sys

    code = ("import sys\nfrom pufferfish.audit import auditor_classes\n"
            "lattice = [c.__name__ for c in auditor_classes('lattice')]\n"
            "loaded = 'pufferfish.audit.laplace_mixture' in sys.modules\n"
            "every = [c.__name__ for c in auditor_classes()]\n"
            "print(lattice, loaded, every, 'scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ("['LaplaceLatticeAuditor', 'GaussianLatticeAuditor', 'CauchyLatticeAuditor', "
                   "'GeometricLatticeAuditor'] True ['LaplaceLatticeAuditor', 'GaussianLatticeAuditor', "
                   "'CauchyLatticeAuditor', 'GeometricLatticeAuditor', 'LaplaceMixtureAuditor'] False")

"""The typed config (each experiment's settings classes, built by pufferfish.pipeline.config) and the schema
it types, shipped as package data."""
import copy
import dataclasses
import importlib
import os
import tomllib
from pathlib import Path

import pytest
import yaml

import pufferfish.pipeline as pipeline_package
import pufferfish.pipeline.config
import pufferfish.settings
from pufferfish.errors import ConfigError
from pufferfish.gaussian.experiments import run_figure
from pufferfish.gaussian.settings import Fig1Settings, Fig5Settings, GaussianSettings, GMMExperimentSettings
from pufferfish.multiuser.settings import Secret, users_from_config
from pufferfish.papers import declared
from pufferfish.pipeline.config import SCHEMA_PATH, Settings, load_schema, validate_config
from pufferfish.sensitivity.settings import DiffusionSettings
from pufferfish.settings import AuditSettings
from tests.helpers import REPO


@pytest.fixture(scope="module")
def shipped():
    with open(REPO / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.fixture(scope="module")
def settings(shipped):
    return Settings.load(shipped)


# ------------------------------------------------------------------------------ the schema as package data
def test_schema_is_package_data_and_the_workflow_reads_it_through_a_symlink():
    """The shared schema is the package's (a non-editable install has it; workflow/schemas/ links
    to it), and so is each paper's section, in the paper's package: package data by one pattern."""
    from fnmatch import fnmatch

    assert SCHEMA_PATH.parent == Path(pipeline_package.__file__).parent and SCHEMA_PATH.is_file()
    link = REPO / "workflow" / "schemas" / "config.schema.yaml"
    assert link.is_symlink() and os.path.samefile(link, SCHEMA_PATH)
    with open(REPO / "pyproject.toml", "rb") as handle:
        package_data = tomllib.load(handle)["tool"]["setuptools"]["package-data"]["pufferfish"]
    root = Path(pipeline_package.__file__).parents[1]
    for path in [SCHEMA_PATH, *(paper.schema for paper in declared() if paper.schema.is_relative_to(root))]:
        assert path.is_file() and any(fnmatch(path.relative_to(root).as_posix(), p) for p in package_data), path


def test_snakemake_validates_against_the_same_filled_schema(shipped):
    """snakemake.utils.validate reads a path: schema_file writes the loaded schema (the registry's
    method names filled in) to a temporary file, removed afterwards; a method outside the registry
    fails Snakemake's pass too."""
    import json

    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    from pufferfish.pipeline.config import schema_file

    schema = load_schema()
    with schema_file(schema) as path:
        assert json.loads(Path(path).read_text(encoding="utf-8")) == schema
        cfg = validate_config(copy.deepcopy(shipped))
        validate(cfg, path)
        cfg["multiuser"]["experiments"]["fig4"]["methods"] = ["theorem9"]
        with pytest.raises(WorkflowError):
            validate(cfg, path)
    assert not Path(path).exists() and not Path(path).parent.exists()


# ------------------------------------------------------------------------------ the classes follow the schema
def _resolve(schema: dict, pointer: str) -> dict:
    node = schema
    for part in filter(None, pointer.split("/")):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


#: the shared settings, the config's, and each declared paper's settings module (the module of its
#: declaration's check_references)
SETTINGS_MODULES = [pufferfish.settings, pufferfish.pipeline.config,
                    *(importlib.import_module(paper.check_references.__module__) for paper in declared())]
SECTION_CLASSES = [cls for module in SETTINGS_MODULES for cls in vars(module).values()
                   if isinstance(cls, type) and dataclasses.is_dataclass(cls) and hasattr(cls, "schema_path")
                   and cls.__module__ == module.__name__]


def test_every_settings_class_is_collected():
    """Each experiment's module defines its own classes; all of them are held to the schema below."""
    names = {cls.__name__ for cls in SECTION_CLASSES}
    assert {"Settings", "AuditSettings", "DatasetSettings", "LatticeUserSettings", "DataUserSettings", "Panel",
            "ExperimentSettings", "MultiuserSettings", "GaussianPrior", "Fig1Settings", "IntRange", "Fig2Settings",
            "Fig5Settings", "GMMSettings", "ConditionalSecret", "PrivacyPair", "GMMExperimentSettings",
            "GaussianSettings", "WassersteinSetting", "ComparisonSettings", "Fig6Settings", "SeriesSettings",
            "IterationSettings", "AttributeTriple", "AttributePrivacySettings", "DiffusionSettings",
            "SensitivitySettings", "DistpGrid", "DistpCase"} <= names  # and those of any other installed paper
    # every dataclass of a settings module with a from_config types a mapping of the schema, but
    # the two that type one of several forms of a value (a oneOf: numeric / codes / indicator;
    # absent / value / user)
    assert sorted(cls.__name__ for module in SETTINGS_MODULES for cls in vars(module).values()
                  if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__
                  and hasattr(cls, "from_config") and not hasattr(cls, "schema_path")) == ["Encoding", "Secret"]


@pytest.mark.parametrize("cls", SECTION_CLASSES, ids=lambda c: c.__name__)
def test_every_section_class_has_the_schema_keys_and_no_default(cls):
    """A key the schema gains must get a field (or from_config refuses the config), and every
    default lives in the schema: no field has a default of its own."""
    schema = load_schema()
    part = _resolve(schema, cls.schema_path)
    keys = set(part["properties"])
    fields = {f.name for f in dataclasses.fields(cls)} - {"name"}  # the key of the section, not a property
    if cls is GaussianSettings:  # fig3, fig4 and any other key are the GMM experiments
        keys = keys - {"fig3", "fig4"} | {"experiments"}
    if cls is Settings:  # the shared keys; each paper's typed section is in `papers` (the switch's key)
        keys = keys - {paper.key for paper in declared()}
    if cls is DiffusionSettings:  # the config's seed, beside its section
        fields = fields - {"seed"}
    assert fields == keys
    # no default of its own; None stands for an optional key that is absent (the schema gives no default)
    for f in dataclasses.fields(cls):
        assert f.default_factory is dataclasses.MISSING, f.name
        assert f.default is dataclasses.MISSING or (
            f.default is None and f.name not in part.get("required", []) and "default" not in part["properties"][f.name]
        ), f.name


def test_defaults_come_from_the_schema(shipped):
    cfg = copy.deepcopy(shipped)
    del cfg["audit"], cfg["gaussian"]["gmm"], cfg["seed"]
    got = Settings.load(cfg)
    schema = load_schema()
    audit = schema["properties"]["audit"]["properties"]
    gmm = schema["properties"]["gaussian"]["properties"]["gmm"]["properties"]
    assert got.audit == AuditSettings(audit["rtol"]["default"], audit["bisection_rtol"]["default"],
                                      audit["bisection_max_steps"]["default"])
    assert (got.gaussian.gmm.components, got.gaussian.gmm.n_init, got.gaussian.gmm.max_iter) == (
        gmm["components"]["default"], gmm["n_init"]["default"], gmm["max_iter"]["default"])
    assert got.seed == schema["properties"]["seed"]["default"]
    # a lattice user without presence is present with probability 1 (schema default)
    assert got.multiuser.users["D1"].presence == 1.0


# ------------------------------------------------------------------------------ the values, read by hand off config.yaml
def test_shipped_config_as_settings(settings):
    assert settings.seed == 20240507
    assert settings.audit == AuditSettings(rtol=1e-9, bisection_rtol=1e-12, bisection_max_steps=200)
    assert settings.datasets["hungarian_heart"].member == "processed.hungarian.data"
    assert settings.datasets["adult"].uci_id == 2 and settings.datasets["adult"].url is None
    assert settings.multiuser.users["Bern0.2"].values == (0, 1)
    assert settings.multiuser.users["Bern0.2"].probabilities == (0.8, 0.2)
    # {start: 0.1, stop: 1.0, step: 0.1} and {start: 0.001, stop: 0.04, step: 0.001}, written out
    assert settings.multiuser.experiments["fig1"].epsilons == (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    fig8 = settings.multiuser.experiments["fig8"].epsilons
    assert len(fig8) == 40 and fig8[0] == 0.001 and fig8[2] == 0.003 and fig8[-1] == 0.04
    assert settings.gaussian.fig5.deltas[:3] == (0.001, 0.002, 0.003) and len(settings.gaussian.fig5.deltas) == 999
    assert settings.gaussian.fig2.K.values() == tuple(range(1, 101))
    assert settings.gaussian.fig1.priors[1].std == 2.0 and settings.gaussian.fig1.window == (-20.0, 20.0)
    assert settings.gaussian.figures() == ["fig1", "fig2", "fig5"]
    assert list(settings.gaussian.experiments) == ["fig3", "fig4"]
    fig4 = settings.gaussian.experiments["fig4"]
    assert fig4.missing_values == (0,) and fig4.unit == "mg/dl" and fig4.secrets[1].given == {"sex": 1}
    assert settings.gaussian.experiments["fig3"].unit == ""  # the schema's default
    # iteration (issue 22): Fig. 6 as the issue states it, and the bank series
    fig6 = settings.iteration.fig6
    assert (fig6.eta, fig6.sigma, fig6.diameter, fig6.alpha, fig6.secret_index) == (0.1, 1.0, 1.0, 2.0, 1)
    assert fig6.steps == (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    assert fig6.equal == (0, 0.01, 0.1, 0.5, 1) and fig6.decaying == (0.5, 0.9, 0.99)
    bank = settings.iteration.series["bank"]
    assert (bank.dataset, bank.column, bank.order, bank.etas) == ("bank_marketing", "age", "file", (0.01, 0.05))
    assert (bank.sigma, bank.alpha, bank.delta) == (1.0, 2.0, 1e-5)
    assert bank.epsilons == settings.multiuser.experiments["fig1"].epsilons  # the project's usual grid
    # 45,211 records: 1, 5000, ..., 45000 and the last
    assert bank.secret_indices(45211) == (1, *range(5000, 45001, 5000), 45211)


def test_experiment_structure(settings, shipped):
    mu = settings.multiuser
    fig9 = mu.experiments["fig9"]
    assert fig9.secrets is None and list(fig9.panels) == ["adult", "student_performance", "bank_marketing"]
    adult = fig9.pairs()["adult"]
    assert adult.rest == ("D1", "D2", "D3")  # the experiment's rest: the panel names none
    assert adult.secrets == (Secret("user", user="adult_married_asian_pac_islander"),
                             Secret("user", user="adult_married_amer_indian_eskimo"))
    assert mu.data_users_of("fig9") == sorted(["adult_married_asian_pac_islander", "adult_married_amer_indian_eskimo",
                                               "student_romantic_freetime_5", "student_romantic_freetime_2",
                                               "bank_loan_blue_collar", "bank_loan_management"])
    assert mu.data_users_of("fig1") == []
    fig2 = mu.experiments["fig2"].pairs()[""]
    assert [s.as_config() for s in fig2.secrets] == [{"value": 5}, "absent"]
    assert mu.plan_experiments() == ["fig1", "fig2", "fig3", "fig6", "fig7", "tableA"]
    assert mu.data_users["student_romantic_higher_yes"].encoding.as_config() == {"codes": ["no", "yes"]}
    # the users alone (what an experiment's jobs get) are the same objects' equals
    validated = validate_config(copy.deepcopy(shipped))["multiuser"]
    users, data_users = users_from_config({"users": validated["users"], "data_users": validated["data_users"]})
    assert users == mu.users and data_users == mu.data_users


def test_privacy_grid_of_a_gmm_experiment(settings):
    """Fig. 3: the pairs (1, 0.5), (1, 0.3), then 0.1..1.0 at each delta; (1, delta) only once."""
    grid = settings.gaussian.experiments["fig3"].privacy_grid()
    eps = [round(0.1 * k, 1) for k in range(1, 11)]
    assert grid == [(e, 0.5) for e in eps] + [(e, 0.3) for e in eps]


# ------------------------------------------------------------------------------ refusals
def test_unknown_or_missing_keys_are_one_line_errors(shipped):
    cfg = validate_config(copy.deepcopy(shipped))
    with pytest.raises(ConfigError, match=r"^config: audit\.extra: not a key the typed settings know"):
        AuditSettings.from_config({**cfg["audit"], "extra": 1})
    with pytest.raises(ConfigError, match=r"^config: audit\.rtol: missing \(validate the configuration first"):
        AuditSettings.from_config({"bisection_rtol": 1e-12, "bisection_max_steps": 200})
    raw = copy.deepcopy(shipped)
    del raw["seed"]
    with pytest.raises(ConfigError, match=r"^config: seed: missing"):
        Settings.from_config(raw)  # not validated: the schema's default was not filled in
    with pytest.raises(ConfigError, match=r"^config: gaussian\.fig3\.unit: missing"):
        GMMExperimentSettings.from_config("fig3", shipped["gaussian"]["fig3"])  # config.yaml gives no unit
    with pytest.raises(ConfigError, match=r"^config: gaussian\.fig3: not one of fig1, fig2, fig5"):
        GaussianSettings.figure_from_config("fig3", cfg["gaussian"]["fig3"])
    with pytest.raises(ConfigError, match=r"^config: gaussian\.fig5\.deltas\.stop = 1\.5: must be >= start"):
        Fig5Settings.from_config({"deltas": {"start": 2.0, "stop": 1.5, "step": 0.1}})


def test_settings_are_frozen(settings):
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.audit.rtol = 0.1  # type: ignore[misc]


def test_run_figure_refuses_an_audit_where_there_is_no_scale(settings, tmp_path):
    files = {k: tmp_path / f"{k}.out" for k in ("theta_csv", "png", "pdf", "csv")}
    with pytest.raises(TypeError, match="Fig1Settings has no scale to audit"):
        run_figure(settings.gaussian.fig1, audit=settings.audit, audit_csv=tmp_path / "a.csv", **files)
    with pytest.raises(TypeError, match="Fig. 2 audits every scale"):
        run_figure(settings.gaussian.fig2, **files)
    assert isinstance(settings.gaussian.figure("fig1"), Fig1Settings)
    assert not any(path.exists() for path in files.values())

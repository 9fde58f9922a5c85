"""config.yaml validation: every mistake is one line naming the key and the reason."""
import copy
from pathlib import Path

import numpy as np
import pytest
import yaml

from pufferfish.errors import ConfigError
from pufferfish.papers import declared
from pufferfish.pipeline.config import Settings, validate_config
from pufferfish.grids import expand_grid

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def shipped():
    with open(ROOT / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_shipped_config_is_valid_and_defaults_filled(shipped):
    cfg = validate_config(copy.deepcopy(shipped))
    assert cfg["audit"]["rtol"] == 1e-9
    assert cfg["multiuser"]["users"]["D1"]["presence"] == 1.0


def _set(cfg, path, value):
    *head, last = path
    node = cfg
    for key in head:
        node = node[key]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value


_DELETE = object()
EXP = ["multiuser", "experiments"]
ITER = ["iteration"]
SERIES = ["iteration", "series", "bank"]

CASES = [
    (EXP + ["fig4", "epsilons"], [-0.1, 0.2], "config: multiuser.experiments.fig4.epsilons[0] = -0.1: must be > 0"),
    (EXP + ["fig4", "epsilons"], {"start": 0, "stop": 1, "step": 0.1},
     "config: multiuser.experiments.fig4.epsilons.start = 0: must be > 0"),
    (EXP + ["fig4", "epsilonz"], [0.1], "config: multiuser.experiments.fig4.epsilonz: unknown key"),
    (EXP + ["fig4", "methods"], ["theorem3_max", "theorem9"],
     "config: multiuser.experiments.fig4.methods[1] = 'theorem9': must be one of kantorovich"),
    (EXP + ["fig4", "methods"], ["lemma5"],
     "config: multiuser.experiments.fig4.methods: lemma5 does not apply to the secret pair (user, absent)"),
    (EXP + ["fig4", "secrets"], [{"user": "P5"}, "absent"],
     "config: multiuser.experiments.fig4.secrets[0].user = 'P5': unknown user"),
    (EXP + ["fig4", "secrets"], [{"usr": "P4"}, "absent"],
     "config: multiuser.experiments.fig4.secrets[0] = {\"usr\": \"P4\"}: is not a valid form (expected absent, {value: <integer>} or {user: <name>})"),
    (EXP + ["fig5", "secrets"], [{"value": 1}, "absent"],
     "config: multiuser.experiments.fig5 = "),
    (EXP + ["fig9", "panels", "adult", "secrets"], [{"user": "nobody"}, "absent"],
     "config: multiuser.experiments.fig9.panels.adult.secrets[0].user = 'nobody': unknown user"),
    (EXP + ["fig1", "rest"], ["D1", "D7"], "config: multiuser.experiments.fig1.rest[1] = 'D7': unknown user"),
    (["multiuser", "users", "D1", "probabilities"], [0.5, 0.5, 0.1, 0, 0],
     "config: multiuser.users.D1.probabilities: sum to 1.1, must sum to 1 (within 1e-9)"),
    (["multiuser", "users", "D1", "probabilities"], [-0.5, 0.5, 0.1, 0, 0],
     "config: multiuser.users.D1.probabilities[0] = -0.5: must be >= 0"),
    (["multiuser", "users", "D1", "values"], [1, 2, 3], "config: multiuser.users.D1: values and probabilities have different lengths"),
    (["multiuser", "data_users", "bank_loan_management", "dataset"], "bank",
     "config: multiuser.data_users.bank_loan_management.dataset = 'bank': not a key of datasets"),
    (["datasets", "adult", "uci_id"], "two", "config: datasets.adult.uci_id = 'two': must be an integer"),
    (["datasets", "adult", "uci_id"], _DELETE, "config: datasets.adult.uci_id: missing required key"),
    (["datasets", "hungarian_heart", "sha256"], "abc", "config: datasets.hungarian_heart.sha256 = 'abc': must match"),
    (["gaussian", "fig3", "privacy", 0, "delta"], 1.5, "config: gaussian.fig3.privacy[0].delta = 1.5: must be < 1"),
    (["gaussian", "fig3", "privacy", 0, "epsilon"], 0, "config: gaussian.fig3.privacy[0].epsilon = 0: must be > 0"),
    (["gaussian", "fig3", "dataset"], "census", "config: gaussian.fig3.dataset = 'census': not a key of datasets"),
    (["audit", "rtol"], 0, "config: audit.rtol = 0: must be > 0"),
    (["sed"], 1, "config: sed: unknown key"),
    (EXP + ["fig4", "epsilons"], [float("inf"), 0.5], "config: multiuser.experiments.fig4.epsilons[0] = inf: must be finite"),
    (EXP + ["fig4", "epsilons"], {"start": 0.1, "stop": float("inf"), "step": 0.1},
     "config: multiuser.experiments.fig4.epsilons.stop = inf: must be finite"),
    (EXP + ["fig4", "epsilons"], {"start": 0.1, "stop": 1.0, "step": 1e-9},
     "config: multiuser.experiments.fig4.epsilons: {start: 0.1, stop: 1.0, step: 1e-09} has more than 100000 values"),
    (["gaussian", "fig3", "epsilons"], [float("inf")], "config: gaussian.fig3.epsilons[0] = inf: must be finite"),
    (["gaussian", "fig1", "laplace_b"], float("nan"), "config: gaussian.fig1.laplace_b = nan: must be finite"),
    (["gaussian", "fig5", "deltas"], {"start": 0.5, "stop": 1.5, "step": 0.5}, "config: gaussian.fig5.deltas.stop = 1.5: must be < 1"),
    (EXP + ["fig6", "methods"], ["lemma5"],
     "config: multiuser.experiments.fig6.methods: lemma5 needs Bernoulli users, but multiuser.experiments.fig6.secrets[0].user = 'P4'"),
    # paper 002's methods: the parameter their registry record needs, and its range
    (EXP + ["fig5", "methods"], ["theorem3_max", "gawm_laplace"],
     "config: multiuser.experiments.fig5.methods: gawm_laplace needs `delta` (set multiuser.experiments.fig5.delta)"),
    (EXP + ["fig6", "methods"], ["tight_cauchy"],
     "config: multiuser.experiments.fig6.methods: tight_cauchy needs `alpha` (set multiuser.experiments.fig6.alpha)"),
    (EXP + ["noise_families", "alpha"], _DELETE,
     "config: multiuser.experiments.noise_families.methods: dagwm_cauchy needs `alpha` (set multiuser.experiments.noise_families.alpha)"),
    (EXP + ["noise_families", "delta"], _DELETE,
     "config: multiuser.experiments.noise_families.methods: gawm_laplace needs `delta` (set multiuser.experiments.noise_families.delta)"),
    (EXP + ["noise_families", "alpha"], 3,
     "config: multiuser.experiments.noise_families.methods: dagwm_cauchy is stated for alpha = 2 (paper 002, Cor. 4.1 at alpha = 2), not alpha = 3"),
    (EXP + ["noise_families", "delta"], 1.0, "config: multiuser.experiments.noise_families.delta = 1.0: must be < 1"),
    (EXP + ["noise_families", "delta"], 0, "config: multiuser.experiments.noise_families.delta = 0: must be > 0"),
    (EXP + ["noise_families", "alpha"], 1, "config: multiuser.experiments.noise_families.alpha = 1: must be > 1"),
    (EXP + ["noise_families", "alpha"], "two", "config: multiuser.experiments.noise_families.alpha = 'two': must be a number"),
    (EXP + ["noise_families", "delta"], float("nan"), "config: multiuser.experiments.noise_families.delta = nan: must be finite"),
    # amplification by iteration (paper 002, Section 5): section `iteration`
    (ITER + ["fig6", "eta"], 0, "config: iteration.fig6.eta = 0: must be > 0"),
    (ITER + ["fig6", "eta"], 1.5, "config: iteration.fig6.eta = 1.5: must be <= 1"),
    (ITER + ["fig6", "sigma"], -1.0, "config: iteration.fig6.sigma = -1.0: must be > 0"),
    (ITER + ["fig6", "alpha"], 1, "config: iteration.fig6.alpha = 1: must be > 1"),
    (ITER + ["fig6", "secret_index"], 0, "config: iteration.fig6.secret_index = 0: must be >= 1"),
    (ITER + ["fig6", "steps"], [1, 2.5], "config: iteration.fig6.steps[1] = 2.5: must be an integer"),
    (ITER + ["fig6", "steps"], [], "config: iteration.fig6.steps = []: must have at least 1 item(s)"),
    (ITER + ["fig6", "equal"], [0.5, 1.5], "config: iteration.fig6.equal[1] = 1.5: must be <= 1"),
    (ITER + ["fig6", "decaying"], [0.5, 1.0], "config: iteration.fig6.decaying[1] = 1.0: must be < 1"),
    (ITER + ["fig6", "diameter"], _DELETE, "config: iteration.fig6.diameter: missing required key"),
    (ITER + ["fig6", "rho"], 0.5, "config: iteration.fig6.rho: unknown key"),
    (ITER + ["fig6", "steps"], [1, float("inf")], "config: iteration.fig6.steps[1] = inf: must be finite"),
    (SERIES + ["etas"], [0.01, -0.05], "config: iteration.series.bank.etas[1] = -0.05: must be > 0"),
    (SERIES + ["delta"], 1.0, "config: iteration.series.bank.delta = 1.0: must be < 1"),
    (SERIES + ["secret_every"], 0, "config: iteration.series.bank.secret_every = 0: must be >= 1"),
    (SERIES + ["epsilons"], {"start": 0, "stop": 1, "step": 0.1},
     "config: iteration.series.bank.epsilons.start = 0: must be > 0"),
    (SERIES + ["dataset"], "bank", "config: iteration.series.bank.dataset = 'bank': not a key of datasets"),
    (SERIES + ["column"], "balance",
     "config: iteration.series.bank.column = 'balance': not a column of datasets.bank_marketing.columns"),
    (SERIES + ["order"], "day", "config: iteration.series.bank.order = 'day': not a column of "
     "datasets.bank_marketing.columns"),
    (SERIES + ["order"], "", "config: iteration.series.bank.order = '': must have at least 1 character(s)"),
    (ITER + ["series"], _DELETE, "config: iteration.series: missing required key"),
    # paper 003: an (epsilon, delta) pair's epsilon above 700 (e^epsilon is no float), refused before any job
    (["distp", "grid", "targets"], [0.5, 800.0], "config: distp.grid.targets[1] = 800.0: must be <= 700"),
    (["distp", "grid", "tupling_epsilons"], [0.5, 701], "config: distp.grid.tupling_epsilons[1] = 701: must be <= 700"),
    (["distp", "grid", "epsilons"], {"start": 600, "stop": 800, "step": 100},
     "config: distp.grid.epsilons (its value 800): must be <= 700"),
]


@pytest.mark.parametrize("path, value, message", CASES, ids=[".".join(map(str, c[0])) for c in CASES])
def test_bad_config_gives_one_line_naming_the_key(shipped, path, value, message):
    cfg = copy.deepcopy(shipped)
    _set(cfg, path, value)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    text = str(info.value)
    assert text.startswith(message), text
    assert "\n" not in text


def test_plan_experiment_with_panels_refused(shipped):
    cfg = copy.deepcopy(shipped)
    exp = cfg["multiuser"]["experiments"]["fig9"]
    exp["kind"] = "plan"
    with pytest.raises(ConfigError, match="multiuser.experiments.fig9: kind 'plan' draws one secret pair"):
        validate_config(cfg)


@pytest.mark.parametrize("spec, expected", [
    ({"start": 0.1, "stop": 1.0, "step": 0.1}, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
    ({"start": 0.001, "stop": 0.04, "step": 0.001}, [k / 1000 for k in range(1, 41)]),
    ([0.5, 0.1], [0.5, 0.1]),
])
def test_grids(spec, expected):
    np.testing.assert_array_equal(expand_grid(spec), expected)


@pytest.mark.parametrize("name, message", [
    ("multiuser_fig1", "config: multiuser.users.multiuser_fig1: a user name must not start with 'multiuser_'"),
    ("bad/name", "config: multiuser.users"),
])
def test_user_names_that_would_clash_as_files_refused(shipped, name, message):
    cfg = copy.deepcopy(shipped)
    cfg["multiuser"]["users"][name] = {"values": [0, 1], "probabilities": [0.5, 0.5]}
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert str(info.value).startswith(message) and "\n" not in str(info.value), str(info.value)


def test_added_gmm_experiment_is_validated_like_fig3(shipped):
    cfg = copy.deepcopy(shipped)
    cfg["gaussian"]["bank_age"] = {**copy.deepcopy(cfg["gaussian"]["fig3"]), "dataset": "nope"}
    with pytest.raises(ConfigError, match=r"^config: gaussian.bank_age.dataset = 'nope': not a key of datasets$"):
        validate_config(copy.deepcopy(cfg))
    cfg["gaussian"]["bank_age"] = {**copy.deepcopy(cfg["gaussian"]["fig3"]), "epsilons": [0.5, -1]}
    with pytest.raises(ConfigError, match=r"^config: gaussian.bank_age.epsilons\[1\] = -1: must be > 0$"):
        validate_config(copy.deepcopy(cfg))
    cfg["gaussian"]["bank_age"] = {"dataset": "adult"}
    with pytest.raises(ConfigError, match=r"^config: gaussian.bank_age"):
        validate_config(copy.deepcopy(cfg))
    cfg["gaussian"]["bank_age"] = copy.deepcopy(cfg["gaussian"]["fig3"])
    out = validate_config(copy.deepcopy(cfg))
    assert out["gaussian"]["bank_age"]["unit"] == "" and out["gaussian"]["bank_age"]["missing_values"] == []


@pytest.mark.parametrize("edit, message", [
    # YAML reads unquoted 3: as an int and on:/yes: as booleans
    (lambda c: c["gaussian"].__setitem__(3, {}), "config: gaussian: key 3 must be a string (quote it in config.yaml)"),
    (lambda c: c["multiuser"]["users"].__setitem__(True, {"values": [0, 1], "probabilities": [0.5, 0.5]}),
     "config: multiuser.users: key True must be a string"),
    # a mistyped fixed key would otherwise be read as a GMM experiment
    (lambda c: c["gaussian"].__setitem__("GMM", {"components": 2}),
     "config: gaussian.GMM: not one of fig1, fig2, fig5, gmm (keys are case-sensitive"),
    # names whose outputs would be another experiment's
    (lambda c: c["gaussian"].__setitem__("fig3_theta", copy.deepcopy(c["gaussian"]["fig3"])),
     "config: gaussian.fig3_theta: a GMM experiment name must not end in '_theta'"),
    (lambda c: c["multiuser"]["experiments"].__setitem__("fig1_cdf", copy.deepcopy(c["multiuser"]["experiments"]["fig1"])),
     "config: multiuser.experiments.fig1_cdf: an experiment name must not end in '_cdf'"),
    # (stop - start) / step overflows to inf; K.stop huge
    (lambda c: c["multiuser"]["experiments"]["fig4"].__setitem__("epsilons", {"start": 0.1, "stop": 1.0, "step": 1e-320}),
     "config: multiuser.experiments.fig4.epsilons: {start: 0.1, stop: 1.0, step: 1e-320} has more than 100000 values"),
    (lambda c: c["gaussian"]["fig2"]["K"].__setitem__("stop", 10**12),
     "config: gaussian.fig2.K = {start: 1, stop: 1000000000000}: at most 100000 values allowed"),
])
def test_keys_names_and_sizes_that_would_crash_later_are_one_line_errors(shipped, edit, message):
    cfg = copy.deepcopy(shipped)
    edit(cfg)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert str(info.value).startswith(message) and "\n" not in str(info.value), str(info.value)


@pytest.mark.parametrize("name, message", [
    ("fig6", "config: iteration.series.fig6: a series name must not be 'fig6' or end in '_sigma'"),
    ("bank_sigma", "config: iteration.series.bank_sigma: a series name must not be 'fig6' or end in '_sigma'"),
    ("2bank", "config: iteration.series = '2bank': must match the pattern"),
])
def test_iteration_series_names_that_would_clash_as_files_refused(shipped, name, message):
    """results/theta/iteration_<name>.csv must be neither the Fig. 6 table nor another series' sigma table."""
    cfg = copy.deepcopy(shipped)
    cfg["iteration"]["series"][name] = copy.deepcopy(cfg["iteration"]["series"]["bank"])
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert str(info.value).startswith(message) and "\n" not in str(info.value), str(info.value)


def test_iteration_section_is_optional_and_a_second_series_is_one_more_key(shipped):
    from pufferfish.pipeline.config import Settings

    cfg = copy.deepcopy(shipped)
    del cfg["iteration"]
    assert Settings.load(cfg).iteration is None
    cfg = copy.deepcopy(shipped)
    cfg["iteration"]["series"]["bank_by_age"] = {**cfg["iteration"]["series"]["bank"], "order": "age"}
    series = Settings.load(cfg).iteration.series
    assert sorted(series) == ["bank", "bank_by_age"] and series["bank_by_age"].order == "age"


def test_tight_cauchy_takes_any_order_above_one(shipped):
    """Only dagwm_cauchy is tied to alpha = 2 (paper 002, Cor. 4.1); the exact audit takes any alpha > 1."""
    cfg = copy.deepcopy(shipped)
    exp = cfg["multiuser"]["experiments"]["noise_families"]
    exp["alpha"], exp["methods"] = 3.5, ["tight_cauchy", "gwm_laplace"]
    assert validate_config(cfg)["multiuser"]["experiments"]["noise_families"]["alpha"] == 3.5


@pytest.mark.parametrize("section", [{"settings": {}}, None, {"settings": {"student": {"dataset": "nope"}}}])
def test_the_old_key_of_paper_002_names_its_new_key(shipped, section):
    """Paper 002's section was `pierquin` (issue 30): the old key stops the load, naming the new one,
    whatever it holds and before any other check (the rest of this config is fine or not)."""
    cfg = copy.deepcopy(shipped)
    cfg["pierquin"] = section
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert str(info.value) == "config: pierquin: renamed to wasserstein"
    cfg = copy.deepcopy(shipped)
    cfg["pierquin"] = cfg.pop("wasserstein")  # a config written before the rename
    cfg["multiuser"]["experiments"]["fig4"]["epsilons"] = [-0.1]
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert str(info.value) == "config: pierquin: renamed to wasserstein"


def test_each_paper_checks_its_own_references(shipped):
    """The cross-references live in each paper's declaration; pipeline.config only dispatches
    (every declared paper has check_references; those that read data declare data_requests)."""
    shipped_papers = ["multiuser", "gaussian", "wasserstein", "comparison", "iteration", "sensitivity", "distp"]
    assert [paper.key for paper in declared() if paper.key in shipped_papers] == shipped_papers  # in this order
    assert all(callable(paper.check_references) for paper in declared())
    cfg = validate_config(copy.deepcopy(shipped))
    readers = {paper.key: {r.where.split(".")[0] for r in paper.data_requests(cfg)}
               for paper in declared() if paper.data_requests is not None and paper.key in cfg}
    # each declares only requests of its own section (the shipped config reads data in five)
    assert readers == {"multiuser": {"multiuser"}, "gaussian": {"gaussian"}, "wasserstein": {"wasserstein"},
                       "sensitivity": {"sensitivity"}, "distp": {"distp"}}
    from pufferfish.wasserstein.settings import check_references

    cfg["wasserstein"]["settings"]["heart"]["column"] = "age"
    with pytest.raises(ConfigError, match=r"^config: wasserstein.settings.heart: attribute and column are both 'age'"):
        check_references(cfg)


# ------------------------------------------------------------------------------ each paper, on its own
#: the installed papers with a section in config.yaml (a paper of another distribution has its own tests)
IN_CONFIG = [p for p in declared() if p.key in yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))]


def _alone(shipped, paper):
    """The shipped config with only the shared keys, ``paper``'s section and those of the papers it needs."""
    keep = ("seed", "datasets", "audit", *paper.needs, paper.key)
    return {k: copy.deepcopy(shipped[k]) for k in keep if k in shipped}


@pytest.mark.parametrize("paper", IN_CONFIG, ids=lambda p: p.key)
def test_a_config_with_one_papers_section_runs_that_paper_alone(shipped, paper):
    """seed, datasets, audit and one paper's section (and the sections of the papers it needs)
    are a whole configuration: that paper is typed and checked, no other."""
    settings = Settings.load(_alone(shipped, paper))
    assert list(settings.papers) == [*paper.needs, paper.key]
    assert all(getattr(settings, p.key) is None for p in declared() if p.key not in settings.papers)


@pytest.mark.parametrize("paper", IN_CONFIG, ids=lambda p: p.key)
def test_a_mistake_in_each_papers_section_is_one_line_naming_its_key(shipped, paper):
    for value, message in (([1], f"config: {paper.key} = [1]: must be a mapping"),
                           ("x", f"config: {paper.key} = 'x': must be a mapping")):
        cfg = _alone(shipped, paper)
        cfg[paper.key] = value
        with pytest.raises(ConfigError) as info:
            validate_config(cfg)
        assert str(info.value) == message
    cfg = _alone(shipped, paper)
    cfg[paper.key]["not_a_key"] = {}
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert str(info.value).startswith(f"config: {paper.key}.not_a_key") and "\n" not in str(info.value)


def test_the_shared_keys_alone_run_no_paper(shipped):
    settings = Settings.load({k: shipped[k] for k in ("seed", "datasets", "audit")})
    assert settings.papers == {} and settings.seed == shipped["seed"]
    with pytest.raises(ConfigError, match=r"^config: datasets: missing required key$"):
        validate_config({"seed": 1})


@pytest.mark.parametrize("papers, message", [
    (["foo"], "config: papers[0] = 'foo': must be one of " + ", ".join(p.key for p in declared())),
    ([], "config: papers = []: must have at least 1 item(s)"),
    (["distp", "distp"], "config: papers = [\"distp\", \"distp\"]: must not repeat an item"),
    ("distp", "config: papers = 'distp': must be a list"),
    (["comparison"], "config: papers: comparison reads the outputs of multiuser, wasserstein: list them too"),
])
def test_the_papers_switch_names_its_mistake_in_one_line(shipped, papers, message):
    cfg = copy.deepcopy(shipped)
    cfg["papers"] = papers
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    assert str(info.value) == message


def test_the_papers_switch_runs_the_listed_papers_in_their_order(shipped):
    cfg = copy.deepcopy(shipped)
    cfg["papers"] = ["distp", "iteration"]
    assert list(Settings.load(cfg).papers) == ["iteration", "distp"]  # the papers' order, not the list's
    cfg["distp"]["cases"]["nope"] = {**cfg["distp"]["cases"]["adult_education_sex"], "dataset": "nope"}
    cfg["papers"] = ["iteration"]  # a section that does not run is checked by the schema only
    assert list(Settings.load(cfg).papers) == ["iteration"]
    del cfg["iteration"]
    with pytest.raises(ConfigError, match=r"^config: papers\[0\] = 'iteration': the configuration has no section "
                                          r"iteration$"):
        validate_config(cfg)

"""Audit summary and the paper-versus-reproduction table."""
import math

import numpy as np
import pandas as pd
import pytest

from pufferfish.pipeline.report import audit_summary, audit_violations, config_hash, reproduction_table, violation_lines


def _audit(rows):
    cols = ["experiment", "panel", "method", "epsilon", "delta", "scale", "epsilon_achieved", "delta_achieved",
            "scale_min", "violation"]
    return pd.DataFrame(rows, columns=cols)


def test_audit_summary_by_hand():
    lattice = _audit([
        ["e", "", "m", 0.5, np.nan, 4.0, 0.25, np.nan, 2.0, False],
        ["e", "", "m", 1.0, np.nan, 2.0, 0.5, np.nan, 1.0, False],
        ["e", "", "bad", 1.0, np.nan, 0.5, 1.5, np.nan, 1.0, True],
        ["e", "", "tight", 1.0, np.nan, 0.0, 0.9, np.nan, 0.0, False],
    ])
    gauss = _audit([["g", "sigma2=4", "theorem2", 1.0, 0.3, 3.0, 2.0, 0.1, 1.5, False]])
    out = audit_summary([lattice, gauss]).set_index(["experiment", "method"])
    assert out.loc[("e", "m"), "max_epsilon_ratio"] == 0.5           # max(0.25/0.5, 0.5/1.0)
    assert out.loc[("e", "m"), "min_scale_ratio"] == 2.0 == out.loc[("e", "m"), "max_scale_ratio"]
    assert out.loc[("e", "bad"), "violations"] == 1 and out.loc[("e", "bad"), "max_epsilon_ratio"] == 1.5
    # the tight scale is 0 (no noise needed): no ratio, the row is counted as noise-free instead
    assert math.isnan(out.loc[("e", "tight"), "min_scale_ratio"]) and math.isnan(out.loc[("e", "tight"), "max_scale_ratio"])
    assert out.loc[("e", "tight"), "noise_free_rows"] == 1 and out.loc[("e", "m"), "noise_free_rows"] == 0
    assert out["claimed"].tolist() == [True] * 4
    assert out.loc[("g", "theorem2"), "max_delta_ratio"] == pytest.approx(0.1 / 0.3)
    assert math.isnan(out.loc[("g", "theorem2"), "max_epsilon_ratio"])
    lines = violation_lines(out.reset_index())
    assert len(lines) == 1 and "e: bad violates its target in 1 of 1 rows" in lines[0]


#: the shared audit schema (``pufferfish.audit.AUDIT_COLUMNS``, issue 30), written out: the test
#: below holds the two together
AUDIT_COLUMNS = ["experiment", "panel", "method", "epsilon", "delta", "scale", "epsilon_achieved", "delta_achieved",
                 "scale_min", "violation", "loss_forward", "loss_backward", "tight_note", "noise", "guarantee", "alpha",
                 "renyi_achieved", "claimed"]


def test_the_shared_schema_is_the_one_the_summary_reads():
    from pufferfish.audit import AUDIT_COLUMNS as SHARED
    from pufferfish.pipeline.report import AUDIT_REQUIRED

    assert SHARED == AUDIT_COLUMNS and set(AUDIT_REQUIRED) <= set(AUDIT_COLUMNS)


def test_a_comparison_table_in_the_shared_schema_is_summarised_with_the_others(tmp_path):
    """A comparison-like audit table (one secret pair, every noise and guarantee, written in the
    shared schema, as the comparison's per-pair audits will be) goes through the summary with a
    multi-user table of fewer columns: each row against its own guarantee, ``claimed`` read (a
    baseline apart), a zero tight scale counted as noise-free with no ratio."""
    from pufferfish.pipeline.report import SUMMARY_COLUMNS, write_audit_summary

    nan = np.nan
    rows = [  # experiment, panel, method, eps, delta, scale, eps_ach, delta_ach, scale_min, violation, ...
        ["comparison", "fig5/adult", "paper000_best", 0.5, 1e-5, 4.0, 0.5, nan, 4.0, False, 0.5, 0.4, "", "laplace",
         "epsilon", nan, nan, True],
        ["comparison", "fig5/adult", "paper000_best", 1.0, 1e-5, 2.5, 0.8, nan, 2.0, False, 0.8, 0.7, "", "laplace",
         "epsilon", nan, nan, True],
        ["comparison", "fig5/adult", "gwm_gaussian_analytic", 1.0, 1e-5, 3.0, nan, 4e-6, 1.5, False, nan, nan, "",
         "gaussian", "epsilon_delta", nan, nan, True],
        ["comparison", "fig5/adult", "gwm_gaussian_analytic", 2.0, 1e-5, 1.0, nan, 0.0, 0.0, False, nan, nan,
         "noise-free", "gaussian", "epsilon_delta", nan, nan, True],
        ["comparison", "fig5/adult", "dagwm_cauchy", 1.0, nan, 6.0, nan, nan, 5.0, False, nan, nan, "", "cauchy",
         "renyi", 2.0, 0.75, True],
        ["comparison", "fig5/adult", "closed_form", 1.0, 1e-5, 1.0, nan, 3e-5, 2.0, True, nan, nan, "", "gaussian",
         "epsilon_delta", nan, nan, False],
    ]
    comparison = pd.DataFrame(rows, columns=AUDIT_COLUMNS)
    multiuser = _audit([["multiuser_fig1", "", "theorem1", 1.0, np.nan, 2.0, 1.0, np.nan, 2.0, False]])
    paths = [tmp_path / "comparison_fig5__adult.csv", tmp_path / "multiuser_fig1.csv"]
    comparison.to_csv(paths[0], index=False)
    multiuser.to_csv(paths[1], index=False)
    out = write_audit_summary(paths, tmp_path / "summary.csv")
    assert list(out.columns) == SUMMARY_COLUMNS
    assert pd.read_csv(tmp_path / "summary.csv").columns.tolist() == SUMMARY_COLUMNS
    out = out.set_index("method")
    best = out.loc["paper000_best"]
    assert (best["rows"], best["max_epsilon_ratio"], best["min_scale_ratio"], best["max_scale_ratio"]) == (2, 1.0, 1.0, 1.25)
    assert math.isnan(best["max_delta_ratio"])            # a delta in the row, but the target is pure epsilon
    gauss = out.loc["gwm_gaussian_analytic"]
    assert gauss["max_delta_ratio"] == pytest.approx(0.4) and gauss["noise_free_rows"] == 1
    assert gauss["min_scale_ratio"] == 2.0 == gauss["max_scale_ratio"]      # 3 / 1.5; the 1 / 0 row has none
    assert out.loc["dagwm_cauchy", "max_renyi_ratio"] == 0.75 and out.loc["dagwm_cauchy", "max_scale_ratio"] == 1.2
    closed = out.loc["closed_form"]
    assert not closed["claimed"] and (closed["violations"], closed["baseline_failures"]) == (0, 1)
    assert closed["max_delta_ratio"] == pytest.approx(3.0)
    assert out.loc["theorem1", "claimed"] and out.loc["theorem1", "max_epsilon_ratio"] == 1.0
    assert out["claimed"].tolist() == [True, True, True, False, True]


def test_a_table_outside_the_audit_schema_is_named(tmp_path):
    from pufferfish.errors import DataError
    from pufferfish.pipeline.report import write_audit_summary

    pd.DataFrame({"pair": ["p"], "method": ["m"], "achieved": [0.1], "meets_target": [True]}).to_csv(
        tmp_path / "old.csv", index=False)
    with pytest.raises(DataError) as err:
        write_audit_summary([tmp_path / "old.csv"], tmp_path / "summary.csv")
    assert str(err.value) == (f"audit summary: {tmp_path / 'old.csv'} is not an audit table: no column(s) experiment, "
                              "panel, epsilon, delta, scale, epsilon_achieved, delta_achieved, scale_min, violation")
    assert not (tmp_path / "summary.csv").exists()
    with pytest.raises(DataError, match="^audit summary: no audit table$"):
        audit_summary([])


def test_unclaimed_baseline_failures_are_counted_apart():
    """A baseline the project does not claim (``claimed`` False) that misses its target is a
    ``baseline_failures`` count and a NOTE line, not a violation; a claimed row still is one."""
    table = _audit([
        ["it", "", "dp_assumption", 1.0, 1e-5, 3.0, np.nan, 2e-5, 3.3, True],
        ["it", "", "dp_assumption", 2.0, 1e-5, 2.0, np.nan, 5e-6, 2.1, False],
        ["it", "", "contraction_bound", 1.0, 1e-5, 4.0, np.nan, 1e-6, 3.3, False],
        ["it", "", "paper_bound", 1.0, 1e-5, 1.0, np.nan, 3e-5, 3.3, True],
    ]).assign(claimed=[False, False, True, True])
    out = audit_summary([table]).set_index("method")
    assert out.claimed.to_dict() == {"dp_assumption": False, "contraction_bound": True, "paper_bound": True}
    assert (out.loc["dp_assumption", "violations"], out.loc["dp_assumption", "baseline_failures"]) == (0, 1)
    assert (out.loc["paper_bound", "violations"], out.loc["paper_bound", "baseline_failures"]) == (1, 0)
    assert (out.loc["contraction_bound", "violations"], out.loc["contraction_bound", "baseline_failures"]) == (0, 0)
    assert out.loc["dp_assumption", "max_delta_ratio"] == pytest.approx(2.0)   # 2e-5 / 1e-5, still reported
    lines = violation_lines(out.reset_index())
    assert [line.split(":")[0] for line in lines] == ["WARNING", "NOTE"]
    assert "paper_bound violates its target in 1 of 1 rows" in lines[0]
    assert "baseline dp_assumption (not claimed by the project) misses its target in 1 of 2 rows" in lines[1]


def test_audit_violations_lines_for_captions(tmp_path):
    table = _audit([
        ["e", "", "lemma6", 0.1, np.nan, 8.0, 0.125, np.nan, 10.0, True],
        ["e", "", "lemma5", 0.1, np.nan, 10.0, 0.1, np.nan, 10.0, False],
        ["g", "b", "theorem2", 1.0, 0.3, 2.0, 0.5, 0.375, 2.5, True],
    ])
    table.to_csv(tmp_path / "audit.csv", index=False)
    assert audit_violations(tmp_path / "audit.csv") == [
        "lemma6 at ε = 0.1: exact loss 0.125",
        "theorem2 (panel b) at (ε, δ) = (1, 0.3): exact δ 0.375",
    ]
    table.assign(claimed=[False, True, True]).to_csv(tmp_path / "baseline.csv", index=False)
    assert audit_violations(tmp_path / "baseline.csv")[0] == "lemma6 (baseline, not claimed) at ε = 0.1: exact loss 0.125"
    table[table.violation].assign(violation=False).to_csv(tmp_path / "clean.csv", index=False)
    assert audit_violations(tmp_path / "clean.csv") == []


def test_reproduction_table_match_differs_and_notes(tmp_path):
    pd.DataFrame({"x": [1, 1, 2], "x_prime": [2, 3, 3], "mass": [0.25, 0.25, 0.5]}).to_csv(tmp_path / "plan.csv",
                                                                                         index=False)
    items = [
        {"source": "s", "item": "span", "paper_value": 2, "strength": "printed",
         "ours": {"file": "plan.csv", "expr": "abs(x - x_prime)", "reduce": "max"}},
        {"source": "s", "item": "entry", "paper_value": 0.3, "strength": "printed",
         "ours": {"file": "plan.csv", "where": {"x": 2, "x_prime": 3}, "column": "mass"}, "note": "a misprint"},
        {"source": "s", "item": "zero entry", "paper_value": 0, "strength": "by construction",
         "ours": {"file": "plan.csv", "where": {"x": 2, "x_prime": 2}, "column": "mass", "reduce": "sum"}},
        {"source": "s", "item": "unexplained", "paper_value": 7, "strength": "derived",
         "ours": {"file": "plan.csv", "reduce": "count"}},
        # a list in `where` keeps the rows with any of the values; `range` is max - min:
        # the masses of the rows x = 1, 2 are 0.25, 0.25, 0.5, so their range is 0.25
        {"source": "s", "item": "spread", "paper_value": 0, "strength": "derived", "note": "not equal",
         "ours": {"file": "plan.csv", "where": {"x": [1, 2]}, "column": "mass", "reduce": "range"}},
        {"source": "s", "item": "equal", "paper_value": 0, "strength": "derived",
         "ours": {"file": "plan.csv", "where": {"x": [1], "x_prime": [2, 3]}, "column": "mass", "reduce": "range"}},
    ]
    table = reproduction_table(items, tmp_path)
    assert list(table.columns) == ["source", "item", "paper_value", "our_value", "status", "strength", "note"]
    assert table.status.tolist() == ["match", "differs", "match", "differs", "differs", "match"]
    assert table.our_value.tolist() == [2, 0.5, 0, 3, 0.25, 0]
    assert table.note.tolist() == ["", "a misprint", "", "UNEXPLAINED", "not equal", ""]
    assert table.strength.tolist() == ["printed", "printed", "by construction", "derived", "derived", "derived"]


@pytest.mark.parametrize("change, message", [
    ({"strength": None}, "paper_values: s / i: no 'strength'"),
    ({"strength": "exact"}, "paper_values: s / i: strength 'exact' is not one of printed, derived, by construction"),
    ({"paper_value": "2"}, "paper_values: s / i: paper_value '2' is not a finite number"),
    ({"paper_value": float("nan")}, "paper_values: s / i: paper_value nan is not a finite number"),
    ({"ours": {"column": "x"}}, "paper_values: s / i: 'ours' needs a 'file'"),
])
def test_a_paper_value_without_its_strength_or_file_is_named(tmp_path, change, message):
    from pufferfish.errors import ConfigError

    item = {"source": "s", "item": "i", "paper_value": 2, "strength": "printed", "ours": {"file": "t.csv", "column": "x"},
            **change}
    item = {k: v for k, v in item.items() if v is not None}
    with pytest.raises(ConfigError) as err:
        reproduction_table([item], tmp_path)
    assert str(err.value) == message


def test_every_shipped_paper_value_says_how_strong_its_match_is():
    """Every item of the papers' values files (workflow/report/paper_values/) has a ``strength`` among STRENGTHS (the loader
    checks it); the axis maxima are ``by construction``, Fig. 5(b)/(c) say which encoding they rest
    on, and Appendix A's claim on Delta* has its own item."""
    from pathlib import Path

    import yaml

    from pufferfish.pipeline.report import STRENGTHS, load_paper_values

    from pufferfish.papers import declared

    repo = Path(__file__).parents[2]
    paths = [paper.path("paper_values", repo) for paper in declared() if paper.paper_values is not None]
    items = load_paper_values(paths)
    raw = [item for path in paths for item in yaml.safe_load(path.read_text())["items"]]
    assert len(items) == len(raw) and all(item["strength"] in STRENGTHS for item in raw)
    by_strength = {s: [i for i in raw if i["strength"] == s] for s in STRENGTHS}
    assert all(len(v) > 0 for v in by_strength.values())
    # the axis maxima of Figs. 4, 5, 8 and 9 are max|t| / epsilon: by construction, never "printed"
    axis = [i for i in raw if "largest theta on the axis" in i["item"]]
    assert len(axis) == 8 and all(i["strength"] == "by construction" for i in axis)
    # Fig. 5(b)/(c) match only under an encoding the paper does not state: their notes say which
    fig5 = {i["source"]: i.get("note", "") for i in axis if i["source"] in ("paper 000, Fig. 5(b)", "paper 000, Fig. 5(c)")}
    assert "romantic coded no = 1, yes = 2" in fig5["paper 000, Fig. 5(b)"]
    assert "marital coded divorced = 1, married = 2, single = 3" in fig5["paper 000, Fig. 5(c)"]
    # Appendix A's claim Delta*(2) = Delta*(3) = Delta*(4) is an item of its own
    claim = [i for i in raw if "Delta*(2) = Delta*(3) = Delta*(4)" in i["item"]]
    assert len(claim) == 1 and claim[0]["strength"] == "derived" and "0.925" in claim[0]["note"]


def test_appendix_a_claim_differs_on_table_4_and_holds_on_the_misprinted_table_5(tmp_path):
    """Delta* of Lemma 1 (paper 000, eq. 25) by hand on Table 4's CDFs, F_i = 0.2, 0.425, 0.925, 1, 1
    and F_j = 0, 0.075, 0.575, 0.8, 1: Delta*(1) = 2 (0.2 <= F_j(3)), Delta*(2) = 1 (0.425 <= F_j(3)),
    Delta*(3) = 2 (0.925 > F_j(4) = 0.8, <= F_j(5)), Delta*(4) = 1, Delta*(5) = 0. With Table 5's
    printed F_j(4) = 0.925, Delta*(3) = 1: the paper's Delta*(2) = Delta*(3) = Delta*(4) holds."""
    from pathlib import Path

    import yaml

    from pufferfish.papers import get

    path = get("multiuser").path("paper_values", Path(__file__).parents[2])
    raw = yaml.safe_load(path.read_text())["items"]
    claim = [i for i in raw if "Delta*(2) = Delta*(3) = Delta*(4)" in i["item"]]
    plan = tmp_path / "results" / "plans" / "multiuser_tableA_cdf.csv"
    plan.parent.mkdir(parents=True)
    for delta_star, status in (([2, 1, 2, 1, 0], "differs"), ([2, 1, 1, 1, 0], "match")):
        pd.DataFrame({"x": [1, 2, 3, 4, 5], "delta_star": delta_star}).to_csv(plan, index=False)
        table = reproduction_table(claim, tmp_path)
        assert table.status.tolist() == [status]


def test_config_hash_ignores_key_order():
    assert config_hash({"a": 1, "b": [1, 2]}) == config_hash({"b": [1, 2], "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


# ------------------------------------------------------------------------------ provenance in the report
def test_the_report_shows_the_provenance_file_itself(tmp_path):
    """The caption of provenance.json is built from the file the run wrote (provenance_summary), so
    the report cannot show another git state than the file, e.g. after the tree changed between the
    run and the report; the rule's rerun trigger is a digest of the state, not a second claim."""
    import json

    from pufferfish.pipeline.report import git_state_key, provenance_summary

    record = {"python": "3.11.7", "packages": {"numpy": "2.4.6"}, "config_sha256": "ab" * 32,
              "git": {"commit": "c0ffee", "modified_tracked_files": True},
              "datasets": {"adult": {"sha256": "cd" * 32, "sha256_verified": True, "rows": 48842}},
              "outputs_sha256": {"results/a.csv": "ef" * 32, "results/b.png": "01" * 32}}
    (tmp_path / "provenance.json").write_text(json.dumps(record))
    summary = provenance_summary(tmp_path / "provenance.json")
    assert summary == {**{k: v for k, v in record.items() if k != "outputs_sha256"}, "outputs": 2}
    assert summary["git"]["modified_tracked_files"] is True
    key = git_state_key(tmp_path)            # not a git checkout: commit and flag None
    assert len(key) == 16 and int(key, 16) >= 0 and key == git_state_key(tmp_path)
    assert "None" not in key and "modified" not in key


def test_the_git_state_key_changes_with_the_commit_and_with_a_modified_file(tmp_path):
    import subprocess

    from pufferfish.pipeline.report import git_state, git_state_key

    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                       capture_output=True)

    git("init", "-q")
    (tmp_path / "f.txt").write_text("one\n")
    git("add", "f.txt")
    git("commit", "-qm", "one")
    clean = git_state_key(tmp_path)
    assert git_state(tmp_path)["modified_tracked_files"] is False
    (tmp_path / "f.txt").write_text("two\n")
    modified = git_state_key(tmp_path)
    assert git_state(tmp_path)["modified_tracked_files"] is True and modified != clean
    git("commit", "-qam", "two")
    assert git_state_key(tmp_path) not in (clean, modified)


def test_a_provenance_file_that_cannot_be_read_is_named(tmp_path):
    from pufferfish.errors import OutputError
    from pufferfish.pipeline.report import provenance_summary

    with pytest.raises(OutputError, match=r"^provenance: .*missing\.json cannot be read: No such file"):
        provenance_summary(tmp_path / "missing.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(OutputError, match=r"^provenance: .*list\.json is not a JSON object$"):
        provenance_summary(tmp_path / "list.json")


# ------------------------------------------------------------------------------ readable params
def test_readable_params_print_as_yaml_and_rerun_as_plain_dicts():
    """A config section passed as a param shows in the report in YAML flow style, while the repr
    that Snakemake records (and compares to rerun a job) is the plain dict's, and a job's script
    gets a dict back from the pickle."""
    import pickle

    from pufferfish.pipeline.params import ReadableDict, ReadableList, readable, readable_param

    spec = {"kind": "plan", "title": "User 4 reports a=5 vs b=3", "rest": ["D1", "D2"],
            "secrets": [{"value": 5}, "absent"], "epsilons": {"start": 0.1, "stop": 1.0, "step": 0.1},
            "delta": 1e-05, "flag": True, "none": None}
    shown = readable(spec)
    assert isinstance(shown, ReadableDict) and shown == spec and repr(shown) == repr(spec)
    assert str(shown) == ("{kind: plan, title: User 4 reports a=5 vs b=3, rest: [D1, D2], secrets: [{value: 5}, "
                          "absent], epsilons: {start: 0.1, stop: 1.0, step: 0.1}, delta: 1.0e-05, flag: true, none: null}")
    assert f"spec={shown}" == f"spec={str(shown)}"               # how Snakemake's report formats a param
    back = pickle.loads(pickle.dumps(shown, protocol=4))
    assert back == spec and isinstance(back, dict) and str(back) == str(shown)
    users = readable([{"user": "u", "given": {"race": "White"}}])
    assert isinstance(users, ReadableList) and repr(users) == repr([{"user": "u", "given": {"race": "White"}}])
    assert str(users) == "[{user: u, given: {race: White}}]" and str(readable([])) == "[]"
    assert readable("ed23a313dfe59ab7") == "ed23a313dfe59ab7" and readable(3) == 3

    def section(wildcards, output):
        return {"a": [1, 2]}

    wrapped = readable_param(section)
    import inspect
    assert list(inspect.signature(wrapped).parameters) == ["wildcards", "output"]  # what Snakemake passes
    assert str(wrapped(None, output=None)) == "{a: [1, 2]}" and readable_param({"b": 1}) == {"b": 1}


def test_snakemake_records_the_same_params_for_a_readable_dict():
    """Snakemake's rerun trigger serialises params with repr (persistence): a readable param records
    exactly what the plain dict did, so no job reruns for it, and a changed section still differs."""
    from snakemake.persistence import PersistenceBase

    from pufferfish.pipeline.params import readable

    serialise = PersistenceBase._serialize_param_builtin
    spec = {"epsilons": [0.1, 0.2], "title": "t"}
    assert serialise(None, readable(spec)) == serialise(None, spec) == repr(spec)
    assert serialise(None, readable({**spec, "title": "u"})) != serialise(None, spec)

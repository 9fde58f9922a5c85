"""What provenance.json records of a run (pufferfish.pipeline.run_record, report.provenance) and the
audit summary's verdict column (report.audit_summary)."""
from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest

from pufferfish.pipeline.report import PROVENANCE_FIELDS, SUMMARY_COLUMNS, VERDICTS, audit_summary, provenance
from pufferfish.pipeline.run_record import RUN_SPECIFIC, dataset_retrieval, imported_distributions, job_outputs

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------ the outputs hashed
class _Rule:
    """A rule as job_outputs reads it: ``pattern`` (one wildcard ``{w}``) and its output patterns."""

    def __init__(self, prefix: str, outputs: list[str]):
        self.prefix, self.outputs = prefix, outputs

    def is_producer(self, target: str) -> bool:
        return any(target.startswith(o.split("{w}")[0]) and target.endswith(o.split("{w}")[1]) for o in self.outputs)

    def get_wildcards(self, target: str) -> dict:
        for o in self.outputs:
            head, tail = o.split("{w}")
            if target.startswith(head) and target.endswith(tail):
                return {"w": target[len(head):len(target) - len(tail)]}
        raise AssertionError(target)

    def expand_output(self, wildcards: dict):
        return [o.replace("{w}", wildcards["w"]) for o in self.outputs], {}


def test_every_output_of_the_jobs_that_make_the_targets_is_listed():
    """A target's job also writes an audit table and a CDF table that no target names: both are
    listed; a rule that makes no target adds nothing; nothing outside results/ is listed."""
    rules = [_Rule("plan", ["results/plans/{w}.csv", "results/plans/{w}_cdf.csv", "results/audit/{w}.csv"]),
             _Rule("fig", ["results/figures/{w}.png", "results/figures/{w}.csv"]),
             _Rule("unused", ["results/other/{w}.txt"]),
             _Rule("download", ["data/raw/{w}.csv"])]
    targets = ["results/plans/fig1.csv", "results/figures/fig1.png", "data/raw/adult.csv"]
    assert job_outputs(targets, rules) == ["results/audit/fig1.csv", "results/figures/fig1.csv",
                                           "results/figures/fig1.png", "results/plans/fig1.csv",
                                           "results/plans/fig1_cdf.csv"]
    assert job_outputs([], rules) == []


# ------------------------------------------------------------------------------ packages
def test_every_imported_distribution_is_recorded_with_its_version():
    """threadpoolctl is imported inside a function (lattice.spectral); scikit-learn's own requirements
    (joblib) are imported with it; snakemake runs the jobs; each version is the installed one."""
    versions = imported_distributions()
    for name in ("pufferfish-calibration", "numpy", "scipy", "pandas", "scikit-learn", "matplotlib", "ucimlrepo",
                 "jsonschema", "pyyaml", "threadpoolctl", "joblib", "snakemake"):
        assert versions[name] == metadata.version(name), name
    assert list(versions) == sorted(versions)
    assert "pytest" not in versions and "hypothesis" not in versions   # test tools are not imported by a run


# ------------------------------------------------------------------------------ the data's source
def test_where_and_when_a_dataset_was_read(tmp_path):
    record = tmp_path / "adult.json"
    record.write_text("{}")
    (tmp_path / "adult.csv").write_text("a\n1\n")
    os.utime(tmp_path / "adult.csv", (1_700_000_000, 1_700_000_000))   # 2023-11-14 22:13:20 UTC
    assert dataset_retrieval({"read_from": "/mirror/static/public/2/data.csv"}, record) == {
        "read_from": "/mirror/static/public/2/data.csv", "retrieved": "2023-11-14T22:13:20Z"}
    assert dataset_retrieval({}, tmp_path / "gone.json") == {"read_from": None, "retrieved": None}
    assert set(RUN_SPECIFIC) == {"read_from", "retrieved"}


def test_the_record_says_what_each_field_holds(tmp_path):
    record_path = tmp_path / "heart.json"
    record_path.write_text(json.dumps({"dataset": "heart", "source": "archive", "url": "https://x/heart.zip",
                                       "read_from": "https://x/heart.zip", "sha256": "ab", "rows": 3}))
    (tmp_path / "heart.csv").write_text("a\n1\n")
    out = tmp_path / "o.csv"
    out.write_text("x\n")
    record = provenance(config={"a": 1}, dataset_records=[record_path], repo=tmp_path, outputs=[out])
    assert set(record["fields"]) == set(record) == set(PROVENANCE_FIELDS)
    assert "not the sha256 of the bytes of config.yaml" in record["fields"]["config_sha256"]
    heart = record["datasets"]["heart"]
    assert heart["read_from"] == "https://x/heart.zip" and heart["url"] == "https://x/heart.zip"
    assert heart["retrieved"].endswith("Z")
    assert record["packages"]["threadpoolctl"] == metadata.version("threadpoolctl")


# ------------------------------------------------------------------------------ the summary's verdict
def _audit(method, claimed, violations, rows=3):
    return pd.DataFrame({"experiment": "e", "panel": "", "method": method, "epsilon": 1.0, "delta": float("nan"),
                         "scale": 1.0, "epsilon_achieved": 0.5, "delta_achieved": float("nan"), "scale_min": 0.5,
                         "violation": [k < violations for k in range(rows)], "claimed": claimed})


def test_the_summary_says_its_verdict_in_words():
    summary = audit_summary([_audit("safe", True, 0), _audit("dp_assumption", False, 2), _audit("wrong", True, 1)])
    assert list(summary.columns) == SUMMARY_COLUMNS and SUMMARY_COLUMNS[-1] == "verdict"
    assert dict(zip(summary["method"], summary["verdict"])) == {
        "safe": "holds", "dp_assumption": "baseline fails, as expected", "wrong": "violated"}
    assert set(summary["verdict"]) == set(VERDICTS)
    assert list(summary["baseline_failures"]) == [0, 2, 0] and list(summary["violations"]) == [0, 0, 1]


# ------------------------------------------------------------------------------ the shipped run
def test_the_shipped_provenance_hashes_every_result_file():
    """results/provenance.json of the run in this directory (``make reproduce``, as in CI) lists
    the sha256 of every file under results/ but the logs, the report and itself."""
    path = ROOT / "results" / "provenance.json"
    if not path.exists():
        pytest.skip("no results/provenance.json: run `make reproduce` first (CI does)")
    listed = set(json.loads(path.read_text(encoding="utf-8"))["outputs_sha256"])
    results = {str(p.relative_to(ROOT)) for p in (ROOT / "results").rglob("*") if p.is_file()
               and p.parts[len(ROOT.parts) + 1] != "logs" and p.name not in ("report.html", "provenance.json")}
    assert not sorted(results - listed), f"result files provenance.json does not hash: {sorted(results - listed)}"


def test_the_shipped_summary_verdicts_follow_its_counts():
    path = ROOT / "results" / "audit" / "summary.csv"
    if not path.exists():
        pytest.skip("no results/audit/summary.csv: run `make reproduce` first (CI does)")
    summary = pd.read_csv(path)
    expected = ["violated" if v else "baseline fails, as expected" if b else "holds"
                for v, b in zip(summary["violations"], summary["baseline_failures"])]
    assert list(summary["verdict"]) == expected

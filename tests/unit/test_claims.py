"""The ledger of claims (pufferfish.pipeline.claims, claim_checks; workflow/report/claims.yaml).

Three things are held here: each check computes what its arguments say (on small tables whose
answers are worked out by hand), every claim of the ledger is still said, verbatim, at its
anchor, and the shipped run (``results/claims.csv``, present after ``make reproduce``) holds
every claim.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from pufferfish.errors import ConfigError
from pufferfish.pipeline.claim_checks import CHECKS, Tables, evaluate, printed_matches, select
from pufferfish.pipeline.claims import (CLAIMS_COLUMNS, EVERY_PAPER, check_claim, claim_files, claim_warnings,
                                        evaluate_claims, load_claims, source_parts, write_claims)

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "workflow" / "report" / "claims.yaml"
SHIPPED = ROOT / "results" / "claims.csv"


# ------------------------------------------------------------------------------ sentences at their anchors
def _slug(title: str) -> str:
    """The anchor MyST gives a heading (GitHub style: lower case, punctuation dropped, spaces -> -)."""
    from myst_parser.slugs import github_slugify
    return github_slugify(title)


def _sections(text: str) -> dict[str, str]:
    """Anchor -> the text of its section (its heading to the next heading of the same or a higher
    level, subsections included); "" -> the whole file. Fenced code is not a heading."""
    lines, heads, fenced = text.splitlines(), [], False
    for k, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if match:
            heads.append((k, len(match.group(1)), match.group(2)))
    out = {"": text}
    for i, (start, level, title) in enumerate(heads):
        end = next((s for s, lv, _ in heads[i + 1:] if lv <= level), len(lines))
        out.setdefault(_slug(title), "\n".join(lines[start:end]))
    return out


def _flat(text: str) -> str:
    return " ".join(text.split())


def statement_problems(claim, root: Path = ROOT) -> str:
    """What is wrong with where a claim says it is said ("" when its sentence is at its anchor)."""
    file, anchor = source_parts(claim["source"])
    path = root / file
    if not path.is_file():
        return f"{file} does not exist"
    sections = _sections(path.read_text(encoding="utf-8"))
    if anchor not in sections:
        return f"{file} has no heading with anchor #{anchor}"
    if _flat(claim["statement"]) not in _flat(sections[anchor]):
        return f"the sentence is not in {file}#{anchor}"
    return ""


def test_every_claim_is_said_verbatim_at_its_anchor():
    problems = [f"{c['id']}: {p}" for c in load_claims(LEDGER) if (p := statement_problems(c))]
    assert not problems, "\n".join(problems)


def test_every_claim_names_a_section_of_the_config_and_reads_files_of_the_run():
    sections = set(yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8")))
    claims = load_claims(LEDGER)
    assert claims
    unknown = sorted({c["paper"] for c in claims} - sections - {EVERY_PAPER})
    assert not unknown, f"papers that are no section of config.yaml: {unknown}"
    assert all(f.startswith(("results/", "data/raw/")) for f in claim_files(claims)), claim_files(claims)


def test_the_anchor_finder_reads_headings_and_skips_code():
    text = "# Top\nintro\n## A b: c\none two\n```\n# not a heading\n```\n### Sub\nthree\n## Next\nfour\n"
    sections = _sections(text)
    assert set(sections) == {"", "top", "a-b-c", "sub", "next"}
    assert "three" in sections["a-b-c"] and "four" not in sections["a-b-c"]
    assert statement_problems({"source": "x.md#a-b-c", "statement": "one\n two"}, _write(text)) == ""
    assert "not in" in statement_problems({"source": "x.md#next", "statement": "one two"}, _write(text))
    assert "no heading" in statement_problems({"source": "x.md#gone", "statement": "one"}, _write(text))


def _write(text: str) -> Path:
    import tempfile
    root = Path(tempfile.mkdtemp())
    (root / "x.md").write_text(text, encoding="utf-8")
    return root


# ------------------------------------------------------------------------------ the shipped run
def test_the_shipped_run_holds_every_claim():
    """results/claims.csv of the run in this directory (``make reproduce``, as in CI) lists every
    claim of the ledger, and each holds."""
    if not SHIPPED.exists():
        pytest.skip("no results/claims.csv: run `make reproduce` first (CI does)")
    table = pd.read_csv(SHIPPED, keep_default_na=False)
    assert list(table.columns) == CLAIMS_COLUMNS
    missing = sorted({c["id"] for c in load_claims(LEDGER)} - set(table["id"]))
    assert not missing, f"claims not in {SHIPPED} (rerun `make reproduce`): {missing}"
    failed = table[table["holds"].astype(str) != "True"]
    assert failed.empty, "claims that do not hold:\n" + "\n".join(
        f"{r.id} ({r.source}): {r.value}" for r in failed.itertuples())


# ------------------------------------------------------------------------------ expressions
FRAME = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [2.0, 2.0, 2.0], "name": ["x", "y", "z"]})


@pytest.mark.parametrize("expr, expected", [
    ("a / b", [0.5, 1.0, 2.0]),
    ("a ** 2 - b", [-1.0, 2.0, 14.0]),
    ("a >= b", [False, True, True]),
    ("1 < a < 4", [False, True, False]),                   # chained, as Python reads it
    ("a > 1 and b == 2", [False, True, True]),
    ("a < 2 or a > 3", [True, False, True]),
    ("not a > 1", [True, False, False]),
    ("log10(a * 25)", [math.log10(25), math.log10(50), 2.0]),
    ("name == 'y'", [False, True, False]),
    ("name >= 'y'", [False, True, True]),
])
def test_expressions_compute_elementwise(expr, expected):
    assert list(evaluate(expr, FRAME)) == pytest.approx(expected)


@pytest.mark.parametrize("expr", ["a.__class__", "__import__('os')", "a[0]", "open('x')", "(lambda: 1)()",
                                  "[a for a in b]", "a if b else 1", "True"])
def test_expressions_refuse_everything_but_arithmetic_of_columns(expr):
    with pytest.raises(ConfigError, match="not allowed|not an expression"):
        evaluate(expr, FRAME)


def test_a_name_that_is_no_column_is_missing_data_not_a_malformed_claim():
    from pufferfish.errors import DataError
    with pytest.raises(DataError, match="no column 'c'"):
        evaluate("a + c", FRAME)
    with pytest.raises(ConfigError, match="keyword"):
        evaluate("lambda + 1", FRAME)


# ------------------------------------------------------------------------------ selections
@pytest.fixture
def tables(tmp_path):
    (tmp_path / "results").mkdir()
    pd.DataFrame({"pair": ["p", "p", "q", "q"], "method": ["tight", "bound", "tight", "bound"],
                  "epsilon": [0.1, 0.1, 0.1, 0.1], "scale": [2.0, 5.0, 0.0, 3.0],
                  "ok": [True, True, False, True]}).to_csv(tmp_path / "results" / "t.csv", index=False)
    (tmp_path / "results" / "r.json").write_text(
        '{"rows": 7, "terms": {"x": 0.25}, "secrets": [{"label": "A", "stds": [1.5, 3.0]}, {"label": "B", "stds": [2.0]}]}')
    pd.DataFrame({"secret": ["u"] * 2 + ["v"] * 2, "value": [0, 2, 1, 5],
                  "probability": [0.5, 0.5, 0.25, 0.75]}).to_csv(tmp_path / "results" / "priors.csv", index=False)
    pd.DataFrame({"g": [0, 0, 1, 3, 3, 4], "s": ["n", "n", "n", "y", "y", "y"]}).to_csv(
        tmp_path / "results" / "records.csv", index=False)
    return Tables(tmp_path)


T = "results/t.csv"


@pytest.mark.parametrize("spec, expected", [
    ({"file": T, "where": {"method": "tight"}, "column": "scale", "reduce": "sum"}, 2.0),
    ({"file": T, "where": {"method": ["tight", "bound"], "pair": "q"}, "column": "scale", "reduce": "max"}, 3.0),
    ({"file": T, "where": {"epsilon": 0.1}, "column": "scale", "reduce": "count"}, 4.0),
    ({"file": T, "query": "scale > 2", "column": "scale", "reduce": "min"}, 3.0),
    ({"file": T, "column": "scale", "reduce": "range"}, 5.0),
    ({"file": T, "column": "scale", "reduce": "median"}, 2.5),
    ({"file": T, "column": "pair", "reduce": "nunique"}, 2.0),
    ({"file": T, "expr": "ok == 1", "reduce": "all"}, 0.0),
    ({"file": T, "expr": "ok == 1", "reduce": "any"}, 1.0),
    ({"file": T, "expr": "ok == 1", "reduce": "sum"}, 3.0),
    ({"file": T, "query": "scale > 100", "column": "scale", "reduce": "count"}, 0.0),
    # one column per method: the bound over the tight scale where the tight scale is positive
    ({"file": T, "pivot": {"index": ["pair"], "columns": "method", "values": "scale"}, "query": "tight > 0",
      "expr": "bound / tight"}, 2.5),
    ({"file": T, "pivot": {"index": ["epsilon"], "columns": "method", "values": "scale", "aggfunc": "max"},
      "expr": "bound - tight"}, 3.0),
    ({"file": T, "count_by": ["pair"], "column": "count", "reduce": "max"}, 2.0),
    ({"file": [T, T], "column": "scale", "reduce": "sum"}, 20.0),
    ({"file": "results/r.json", "column": "rows"}, 7.0),
    ({"file": "results/r.json", "column": "terms.x"}, 0.25),
    ({"file": "results/r.json", "records": "secrets", "explode": "stds", "column": "stds", "reduce": "min"}, 1.5),
    ({"file": "results/r.json", "records": "secrets", "explode": "stds", "column": "stds", "reduce": "count"}, 3.0),
])
def test_a_selection_reads_what_its_keys_say(tables, spec, expected):
    assert select(tables, spec) == pytest.approx(expected)


@pytest.mark.parametrize("spec, error, match", [
    ({"file": T, "column": "scale"}, "DataError", "selects 4 values"),
    ({"file": T, "query": "scale > 100", "column": "scale", "reduce": "max"}, "DataError", "nothing of"),
    ({"file": T, "column": "size"}, "DataError", "no column 'size'"),
    ({"file": T, "where": {"size": 1}, "column": "scale"}, "DataError", "no column 'size'"),
    ({"file": "results/none.csv", "column": "scale"}, "DataError", "cannot be read"),
    ({"file": T, "column": "scale", "reduce": "mode"}, "ConfigError", "reduce 'mode'"),
    ({"file": T, "colum": "scale"}, "ConfigError", "unknown key"),
    ({"file": T, "reduce": "max"}, "ConfigError", "needs 'expr' or 'column'"),
    ({"file": T, "column": "pair", "reduce": "max"}, "ConfigError", "is not a number"),
])
def test_a_selection_says_what_is_wrong(tables, spec, error, match):
    import pufferfish.errors as errors
    with pytest.raises(getattr(errors, error), match=match):
        select(tables, spec)


# ------------------------------------------------------------------------------ comparisons
@pytest.mark.parametrize("value, text, holds", [
    (2.46, "2.46", True), (2.455, "2.46", True), (2.4649, "2.46", True), (2.4651, "2.46", False),
    (2.454, "2.46", False), (42.0, "42", True), (42.5, "42", True), (42.6, "42", False), (41.0, "42", False),
    (32561.0, "32,561", True), (1.2345e-5, "1.2e-5", True), (1.26e-5, "1.2e-5", False), (0.0700, "0.0700", True),
    (0.07006, "0.0700", False), (math.inf, "inf", True), (1e308, "inf", False), (math.inf, "42", False),
    (math.nan, "1", False), (0.0, "0", True),
])
def test_a_printed_number_holds_within_half_a_unit_of_its_last_digit(value, text, holds):
    assert printed_matches(value, text) is holds


def test_the_checks_compare_and_say_what_they_read(tables):
    values = CHECKS["values"]
    verdict = values(tables, [{"file": T, "column": "scale", "reduce": "max", "printed": "5"},
                              {"file": T, "column": "scale", "reduce": "min", "at_least": 0, "below": 1}])
    assert verdict.holds and verdict.value == "5; 0"
    assert not values(tables, {"file": T, "column": "scale", "reduce": "max", "at_most": 4.9}).holds
    with pytest.raises(ConfigError, match="needs one of"):
        values(tables, {"file": T, "column": "scale", "reduce": "max"})
    combined = CHECKS["combine"](tables, {"of": {"t": {"file": T, "where": {"pair": "p", "method": "tight"}, "column": "scale"},
                                                 "b": {"file": T, "where": {"pair": "p", "method": "bound"}, "column": "scale"}},
                                          "expr": "b / t", "printed": "2.5"})
    assert combined.holds and combined.value.startswith("2.5 (t 2, b 5)")


def test_transport_checks_against_hand_computed_plans(tables):
    """u = 1/2 d0 + 1/2 d2, v = 1/4 d1 + 3/4 d5: the monotone plan moves 1/4 from 0 to 1, 1/4 from
    0 to 5 and 1/2 from 2 to 5, so W1 = (1 + 5 + 6) / 4 = 3, W2^2 = (1 + 25 + 18) / 4 = 11, W_inf = 5;
    records g | s: n = {0, 0, 1}, y = {3, 3, 4}, a shift by 3 (W1 = W_inf = 3)."""
    distance = CHECKS["conditional_distance"]
    pair = {"file": "results/priors.csv", "pair": ["u", "v"]}
    assert distance(tables, [{**pair, "order": 1, "printed": "3"}, {**pair, "order": 2, "printed": f"{math.sqrt(11):.6f}"},
                             {**pair, "order": "inf", "printed": "5"}]).holds
    assert not distance(tables, {**pair, "order": 1, "printed": "2.9"}).holds
    records = {"file": "results/records.csv", "released": "g", "secret": "s", "pair": ["n", "y"]}
    assert distance(tables, [{**records, "order": 1, "printed": "3"}, {**records, "order": "inf", "printed": "3"}]).holds
    moves = CHECKS["plan_moves"](tables, {**pair, "distance": 5, "moves": [[0, 5]], "printed": "0.25"})
    assert moves.holds and moves.value == "0 -> 5; mass 0.25"
    assert CHECKS["plan_moves"](tables, {**pair, "distance": 3, "moves": [[2, 5]], "printed": "0.5"}).holds
    assert not CHECKS["plan_moves"](tables, {**pair, "distance": 3, "moves": [[0, 3]], "printed": "0.5"}).holds
    assert not CHECKS["plan_moves"](tables, {**pair, "distance": 3, "moves": [[2, 5]], "printed": "0.4"}).holds


# ------------------------------------------------------------------------------ the ledger and the step
def _claim(**kw):
    claim = {"id": "c", "paper": "multiuser", "source": "docs/x.md#a", "statement": "S.",
             "check": {"values": {"file": T, "column": "scale", "reduce": "max", "printed": "5"}}}
    claim.update(kw)
    return claim


@pytest.mark.parametrize("claim, match", [
    ({k: v for k, v in _claim().items() if k != "check"}, "no 'check'"),
    (_claim(paper=""), "'paper' must be a non-empty text"),
    (_claim(check={"guess": {}}), "'check' must be one of"),
    (_claim(check={"values": {}, "combine": {}}), "'check' must be one of"),
    (_claim(where="x"), "unknown key"),
    ("a sentence", "must be a mapping"),
])
def test_a_malformed_claim_is_one_line_naming_it(claim, match):
    with pytest.raises(ConfigError, match=match):
        check_claim(claim)


def test_ids_are_unique_and_the_file_needs_a_list(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [_claim(), _claim()]}))
    with pytest.raises(ConfigError, match="'c' appears twice"):
        load_claims(path)
    path.write_text("items: []\n")
    with pytest.raises(ConfigError, match="no list 'claims'"):
        load_claims(path)


def test_the_step_skips_sections_the_run_leaves_out_and_files_it_does_not_make(tables):
    claims = [_claim(id="kept"), _claim(id="other paper", paper="distp"), _claim(id="everyone", paper=EVERY_PAPER),
              _claim(id="false", check={"values": {"file": T, "column": "scale", "reduce": "max", "printed": "4"}}),
              _claim(id="not made", check={"values": {"file": "results/u.csv", "column": "x", "printed": "1"}}),
              _claim(id="gone", check={"values": {"file": T, "column": "size", "printed": "1"}})]
    table = evaluate_claims(claims, root=tables.root, sections=["multiuser"], produced=[T])
    assert list(table.columns) == CLAIMS_COLUMNS
    assert list(table["id"]) == ["kept", "everyone", "false", "gone"]
    assert list(table["holds"]) == [True, True, False, False]
    assert table.set_index("id").loc["gone", "value"].startswith("not found: results/t.csv has no column 'size'")
    assert claim_files(claims, ["multiuser"]) == ["results/t.csv", "results/u.csv"]
    assert claim_files(claims, ["distp"]) == ["results/t.csv"]
    with pytest.raises(ConfigError, match="^claims: bad: reduce 'mode'"):
        evaluate_claims([_claim(id="bad", check={"values": {"file": T, "column": "scale", "reduce": "mode",
                                                              "printed": "1"}})], root=tables.root)


def test_a_claim_that_does_not_hold_is_a_warning_at_the_end_of_the_run(tables, tmp_path, caplog):
    ledger = tmp_path / "claims.yaml"
    ledger.write_text(yaml.safe_dump({"claims": [
        _claim(id="true"), _claim(id="wrong", check={"values": {"file": T, "column": "scale", "reduce": "max", "printed": "4"}})]}))
    out = tmp_path / "claims.csv"
    write_claims(ledger, out, root=tables.root)
    assert "claim wrong does not hold" in caplog.text
    lines = claim_warnings(out)
    assert lines == [f"WARNING: claim wrong does not hold (docs/x.md#a): the results give 5; see {out}"]
    assert claim_warnings(tmp_path / "absent.csv") == []


def test_the_rule_is_in_the_report_and_its_warnings_at_the_end_of_the_run():
    rules = (ROOT / "workflow" / "rules" / "report.smk").read_text(encoding="utf-8")
    block = rules[rules.index("rule claims:"):rules.index("rule provenance:")]
    assert '"results/claims.csv"' in block and 'category="Paper versus reproduction"' in block
    assert 'END_OF_RUN_WARNINGS.append(lambda: claim_warnings("results/claims.csv"))' in rules
    assert rules.index('TARGETS.append("results/claims.csv")') < rules.index("rule provenance:")

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

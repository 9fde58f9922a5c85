"""The ledger of claims: every sentence of the docs, the README and the report captions that
states a fact about the results, checked against the result tables of the run.

``workflow/report/claims.yaml`` holds a list ``claims``; each claim has

* ``id``: a unique name;
* ``paper``: the config section it belongs to, or ``all`` (a run without that section skips it);
* ``source``: where it is said, ``file#anchor`` (the anchor of the Markdown heading whose section
  holds the sentence; a caption file has none);
* ``statement``: the sentence, verbatim;
* ``check``: one check of :data:`pufferfish.pipeline.claim_checks.CHECKS` with its arguments,
  ``{name: arguments}``;
* optionally ``note``: what the check does not cover (e.g. the earlier value of a "before ->
  after" sentence, which no table of this run holds).

:func:`evaluate_claims` evaluates them into ``results/claims.csv``
(:data:`CLAIMS_COLUMNS`); :func:`claim_warnings` turns the claims that do not hold into the
end-of-run warnings.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pufferfish.errors import ConfigError, DataError

if TYPE_CHECKING:  # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["CLAIMS_COLUMNS", "CLAIM_KEYS", "EVERY_PAPER", "load_claims", "check_claim", "claim_files",
           "evaluate_claims", "write_claims", "claim_warnings", "source_parts"]

log = logging.getLogger("pufferfish")

#: the columns of ``results/claims.csv``
CLAIMS_COLUMNS = ["id", "source", "statement", "value", "holds"]
#: the keys every claim has (``note`` is optional)
CLAIM_KEYS = ("id", "paper", "source", "statement", "check")
#: the ``paper`` of a claim about the whole run
EVERY_PAPER = "all"


def source_parts(source: str) -> tuple[str, str]:
    """``("docs/x.md", "anchor")`` of a claim's ``source`` ``docs/x.md#anchor`` (anchor "" if none)."""
    file, _, anchor = str(source).partition("#")
    return file, anchor


def check_claim(claim) -> None:
    """A claim has every key of :data:`CLAIM_KEYS`, text where text goes and a ``check`` naming
    one known check.

    Raises
    ------
    ConfigError
        One line naming the claim and what is wrong.
    """
    from pufferfish.pipeline.claim_checks import CHECKS

    if not isinstance(claim, Mapping):
        raise ConfigError(f"claims: {claim!r}: a claim must be a mapping")
    name = f"claims: {claim.get('id', '?')}"
    for key in CLAIM_KEYS:
        if key not in claim:
            raise ConfigError(f"{name}: no {key!r}")
    for key in ("id", "paper", "source", "statement"):
        if not isinstance(claim[key], str) or not claim[key].strip():
            raise ConfigError(f"{name}: {key!r} must be a non-empty text")
    unknown = set(claim) - set(CLAIM_KEYS) - {"note"}
    if unknown:
        raise ConfigError(f"{name}: unknown key(s) {', '.join(sorted(unknown))}")
    check = claim["check"]
    if not isinstance(check, Mapping) or len(check) != 1 or next(iter(check)) not in CHECKS:
        raise ConfigError(f"{name}: 'check' must be one of {', '.join(CHECKS)} with its arguments, "
                          f"e.g. {{values: {{file: ..., column: ..., printed: ...}}}}")


def load_claims(path: str | Path) -> list[dict]:
    """The claims of ``path``, each checked (:func:`check_claim`), ids unique.

    Raises
    ------
    ConfigError
        The file has no list ``claims``, a claim is malformed, or an id repeats.
    """
    import yaml

    from pufferfish.pipeline.config import SAFE_LOADER
    with open(path, encoding="utf-8") as handle:
        claims = (yaml.load(handle, Loader=SAFE_LOADER) or {}).get("claims")  # noqa: S506 (a safe loader)
    if not isinstance(claims, list):
        raise ConfigError(f"claims: {path} has no list 'claims'")
    seen: set[str] = set()
    for claim in claims:
        check_claim(claim)
        if claim["id"] in seen:
            raise ConfigError(f"claims: id {claim['id']!r} appears twice")
        seen.add(claim["id"])
    return claims


def _runs(claim: Mapping, sections: Collection[str] | None) -> bool:
    return sections is None or claim["paper"] == EVERY_PAPER or claim["paper"] in sections


def claim_files(claims: Sequence[Mapping], sections: Collection[str] | None = None) -> list[str]:
    """Every file the claims of the run's ``sections`` read (sorted, unique; ``None``: every claim)."""
    from pufferfish.pipeline.claim_checks import checked_files

    return sorted({f for c in claims if _runs(c, sections) for f in checked_files(next(iter(c["check"].values())))})


def evaluate_claims(claims: Sequence[Mapping], *, root: str | Path = ".", sections: Collection[str] | None = None,
                    produced: Collection[str] | None = None) -> pd.DataFrame:
    """One row per claim of the run (:data:`CLAIMS_COLUMNS`): what its check read and whether it holds.

    A claim whose ``paper`` is not among ``sections`` (the config sections of the run; ``None``:
    all), or that reads a file not among ``produced`` (the files this config makes; ``None``:
    all), is skipped and logged. A claim whose tables do not hold what it reads (no row
    selected, a file that cannot be read) does not hold, and its ``value`` says why.

    Raises
    ------
    ConfigError
        A claim's check is malformed (a key, an expression, a column the table does not have):
        one line naming the claim.
    """
    import pandas as pd

    from pufferfish.pipeline.claim_checks import CHECKS, Tables, checked_files
    tables, rows = Tables(root), []
    produced = None if produced is None else {str(Path(p)) for p in produced}
    for claim in claims:
        check_claim(claim)
        (name, args), = claim["check"].items()
        missing = [] if produced is None else [f for f in checked_files(args) if str(Path(f)) not in produced]
        if not _runs(claim, sections) or missing:
            log.info("claims: %s skipped (%s)", claim["id"],
                     f"{', '.join(missing)} not made by this config" if missing else f"no section {claim['paper']}")
            continue
        try:
            verdict = CHECKS[name](tables, args)
            value, holds = verdict.value, bool(verdict.holds)
        except DataError as err:
            value, holds = f"not found: {err}", False
        except (ConfigError, KeyError, TypeError) as err:
            raise ConfigError(f"claims: {claim['id']}: {str(err).removeprefix('claims: ')}") from None
        rows.append({"id": claim["id"], "source": claim["source"], "statement": " ".join(claim["statement"].split()),
                     "value": value, "holds": holds})
    return pd.DataFrame(rows, columns=CLAIMS_COLUMNS)


def write_claims(claims_yaml: str | Path, out: str | Path, *, root: str | Path = ".",
                 sections: Collection[str] | None = None, produced: Collection[str] | None = None) -> pd.DataFrame:
    """Step ``claims``: :func:`evaluate_claims` of ``claims_yaml`` written to ``out``; each claim
    that does not hold is logged as a warning."""
    from pufferfish.files import write_csv

    table = evaluate_claims(load_claims(claims_yaml), root=root, sections=sections, produced=produced)
    for row in table[~table["holds"]].to_dict("records"):
        log.warning("claim %s does not hold (%s): %s", row["id"], row["source"], row["value"])
    log.info("claims: %d evaluated, %d hold", len(table), int(table["holds"].sum()))
    write_csv(table, out)
    return table


def claim_warnings(claims_csv: str | Path) -> list[str]:
    """One ``WARNING`` line per claim of a written ``claims.csv`` that does not hold (none if the
    file does not exist)."""
    if not Path(claims_csv).exists():
        return []
    from pufferfish.files import read_table

    table = read_table(claims_csv)
    failed = table[~table["holds"].astype(str).str.lower().isin(["true", "1"])]
    return [f"WARNING: claim {row['id']} does not hold ({row['source']}): the results give {row['value']}; "
            f"see {claims_csv}" for row in failed.to_dict("records")]

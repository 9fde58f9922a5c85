"""Priors read off a dataset: conditioning on public attributes and integer encodings.

The papers' experiments use conditional distributions such as
Pr(education-num | race = White) (paper 000, Fig. 5) or the values of chol given
sex = female (paper 004, Fig. 4). :func:`condition` selects the rows, dropping and
counting rows where a used column is missing; :func:`encode` turns categorical values
into integers by an encoding written in config.yaml.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pufferfish.errors import DataError
from pufferfish.lattice.pmf import LatticePMF

__all__ = ["Conditioned", "condition", "encode", "empirical_pmf", "describe_encoding"]


@dataclass(frozen=True, eq=False)
class Conditioned:
    """The attribute values of the rows that satisfy ``given``, with the row accounting."""

    values: pd.Series
    rows_in_dataset: int
    rows_dropped_missing: int
    rows_matching: int
    given: dict = field(default_factory=dict)

    def record(self) -> dict:
        """Row counts for provenance files."""
        return {"rows_in_dataset": self.rows_in_dataset, "rows_dropped_missing": self.rows_dropped_missing,
                "rows_used": self.rows_matching}


def _present(series: pd.Series, limit: int = 12) -> str:
    values = sorted({str(v) for v in series.dropna().unique()})
    if not values:
        return "none"
    text = ", ".join(values[:limit])
    return text + (f", ... ({len(values)} values)" if len(values) > limit else "")


def _matches(column: pd.Series, wanted) -> pd.Series:
    """Rows of ``column`` equal to ``wanted``: numerically for numeric columns, as text otherwise."""
    if pd.api.types.is_numeric_dtype(column) and not isinstance(wanted, bool):
        try:
            return column == float(wanted)
        except (TypeError, ValueError):
            return pd.Series(False, index=column.index)
    return column.astype(str) == str(wanted)


def condition(frame: pd.DataFrame, *, attribute: str, given: Mapping, dataset: str,
              missing_values: Sequence = ()) -> Conditioned:
    """Rows of ``frame`` with ``given`` (column -> value), and their ``attribute`` values.

    Rows missing the attribute or a conditioning column (NaN), or whose attribute is one
    of ``missing_values`` (e.g. chol = 0, "not measured"), are dropped and counted.
    A column absent from the data, a column with no value at all (named as such), or a
    conditioning value that no row has, is a :class:`DataError` whose message lists what
    is present.
    """
    for column in [attribute, *given]:
        if column not in frame.columns:
            raise DataError(f"dataset {dataset}: no column {column!r} (columns: {', '.join(map(str, frame.columns))})")
    columns = [attribute, *[c for c in given if c != attribute]]
    for column in columns:
        if not frame[column].notna().any():
            raise DataError(f"dataset {dataset}: column {column!r} has no values (all {len(frame)} rows are missing)")
    if len(missing_values) and frame[attribute].dropna().isin(list(missing_values)).all():
        raise DataError(f"dataset {dataset}: every value of column {attribute!r} is missing or one of "
                        f"missing_values {list(missing_values)!r}")
    used = frame[columns]
    keep = used.notna().all(axis=1)
    if len(missing_values):
        keep &= ~frame[attribute].isin(list(missing_values))
    dropped = int((~keep).sum())
    kept = frame[keep]
    if kept.empty:
        raise DataError(f"dataset {dataset}: no row has a value in every one of the columns "
                        f"{', '.join(map(repr, columns))} (all {len(frame)} rows miss one)")
    mask = pd.Series(True, index=kept.index)
    for column, wanted in given.items():
        hit = _matches(kept[column], wanted)
        if not hit.any():
            raise DataError(f"dataset {dataset}: no row has {column} = {wanted!r} "
                            f"(values present: {_present(kept[column])})")
        mask &= hit
    rows = int(mask.sum())
    if rows == 0:
        raise DataError(f"dataset {dataset}: no row satisfies {dict(given)!r}")
    return Conditioned(kept.loc[mask, attribute].reset_index(drop=True), int(len(frame)), dropped, rows, dict(given))


def describe_encoding(encoding) -> str:
    """A short text form of an encoding for captions and provenance."""
    if encoding == "numeric":
        return "numeric (values as they are)"
    if "codes" in encoding:
        return "codes: " + ", ".join(f"{v}={k}" for k, v in enumerate(encoding["codes"], start=1))
    return "indicator: " + " or ".join(map(str, encoding["indicator"])) + " -> 1, else 0"


def encode(values: pd.Series, encoding, *, name: str, column: pd.Series | None = None) -> np.ndarray:
    """Integer codes of ``values`` under ``encoding`` (``"numeric"``, ``{codes: [...]}`` or ``{indicator: [...]}``).

    ``column`` (the whole dataset column) lets an indicator refuse a listed value that never
    occurs anywhere, which is almost always a typo.
    """
    if encoding == "numeric":
        numbers = pd.to_numeric(values, errors="coerce")
        bad = values[numbers.isna() | (numbers != np.round(numbers))]
        if len(bad):
            raise DataError(f"{name}: encoding 'numeric' needs integer values, found {bad.iloc[0]!r}; "
                            f"use {{codes: [...]}} or {{indicator: [...]}}")
        return numbers.to_numpy().astype(np.int64)
    if "codes" in encoding:
        codes = {str(v): k for k, v in enumerate(encoding["codes"], start=1)}
        text = values.astype(str)
        unknown = sorted(set(text) - set(codes))
        if unknown:
            raise DataError(f"{name}: value(s) {', '.join(map(repr, unknown))} not in encoding codes "
                            f"{list(encoding['codes'])}")
        return text.map(codes).to_numpy().astype(np.int64)
    if "indicator" in encoding:
        listed = [str(v) for v in encoding["indicator"]]
        if column is not None:
            seen = set(column.dropna().astype(str))
            for value in listed:
                if value not in seen:
                    raise DataError(f"{name}: indicator value {value!r} never occurs (values present: {_present(column)})")
        return values.astype(str).isin(listed).to_numpy().astype(np.int64)
    raise DataError(f"{name}: unknown encoding {encoding!r}")


def empirical_pmf(codes: np.ndarray, *, name: str) -> LatticePMF:
    """The empirical pmf of integer ``codes``: exact fractions count / total."""
    values, counts = np.unique(np.asarray(codes, dtype=np.int64), return_counts=True)
    return LatticePMF.from_counts(values.tolist(), counts.tolist(), name=name)

"""Reader of a case's data for the captions of paper 003's table and figures: the records left out.

The workflow calls it when it builds its DAG, so it imports nothing but the standard library.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping

__all__ = ["missing_released"]


def missing_released(data_csv, spec: Mapping) -> dict:
    """How many records of the dataset have no value of the case's released column (they are left out
    of the laws, :func:`pufferfish.distp.experiments.case_laws`), and a caption sentence saying so.

    Parameters
    ----------
    data_csv : str or os.PathLike
        The dataset's cached table (``data/raw/<dataset>.csv``).
    spec : Mapping
        The case's config entry (``released``).

    Returns
    -------
    dict
        ``column``, ``missing``, ``rows`` and ``text`` (empty when no record is missing).

    Raises
    ------
    OSError, KeyError
        A table that cannot be read, or without the released column.
    """
    column = spec["released"]
    with open(data_csv, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        at = next(reader).index(column)
        rows = missing = 0
        for row in reader:
            rows += 1
            missing += row[at].strip() in ("", "NA", "NaN", "nan")
    text = (f"{missing:,} of the dataset's {rows:,} records have no value of ``{column}`` (missing in the data, "
            f"such as UCI's ``unknown``) and are left out." if missing else "")
    return {"column": column, "missing": missing, "rows": rows, "text": text}

"""Reader of the iteration jobs' calibration tables, for the sigma figure's caption.

The workflow calls it when it builds its DAG, so it imports nothing but the standard library.
"""

from __future__ import annotations

__all__ = ["rejection_summary"]


def rejection_summary(sigma_csv) -> str:
    """One line per calibration table (:func:`~pufferfish.iteration.experiments.calibration_table`,
    as written): for each accountant, how many of its sigmas (eta, secret, epsilon) the exact
    audit rejects, e.g.
    ``paper_bound: 0 of 220 rejected; ...; dp_assumption: 113 of 220 rejected``.

    For the caption of the sigma figure; the workflow calls it when it loads, so it reads the file
    with the :mod:`csv` module (no pandas).
    """
    import csv

    total: dict[str, int] = {}
    rejected: dict[str, int] = {}
    with open(sigma_csv, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            name = row["accountant"]
            total[name] = total.get(name, 0) + 1
            rejected[name] = rejected.get(name, 0) + (row["meets_target"].strip().lower() != "true")
    return "; ".join(f"{name}: {rejected[name]} of {total[name]} rejected" for name in total)

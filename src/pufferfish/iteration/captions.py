"""Readers of the iteration jobs' tables, for the captions of the sigma and the exposure figures.

The workflow calls it when it builds its DAG, so it imports nothing but the standard library.
"""

from __future__ import annotations

__all__ = ["rejection_summary", "exposure_summary"]


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


def exposure_summary(exposure_csv) -> str:
    """One sentence per eta of an exposure table (:func:`~pufferfish.iteration.exposure.exposure_table`,
    as written): the most exposed record and its exact D_alpha, the listed secrets' worst, and the
    sigma that protects every record against the one that protects the listed secrets, e.g.
    ``eta = 0.01: the most exposed record is 45,193 (exact D_2 = 0.703; the listed secrets' largest:
    0.689, record 45,211); sigma for (1, 1e-05) protecting every record: 3.34 (listed secrets: 3.31).``

    For the caption of the exposure figure; read with the :mod:`csv` module (no pandas).
    """
    import csv

    lines = []
    with open(exposure_csv, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            lines.append(f"eta = {float(row['eta']):g}: the most exposed record is {int(row['most_exposed']):,} "
                         f"(exact D_{float(row['alpha']):g} = {float(row['exact']):.3g}; the listed secrets' largest: "
                         f"{float(row['listed_exact']):.3g}, record {int(row['listed_worst']):,}); sigma for "
                         f"({float(row['epsilon']):g}, {float(row['delta']):g}) protecting every record: "
                         f"{float(row['sigma_every_record']):.3g} (listed secrets: {float(row['sigma_listed']):.3g}).")
    return " ".join(lines)


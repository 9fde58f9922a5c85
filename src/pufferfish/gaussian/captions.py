"""Readers of paper 004's outputs for the report's captions (Figs. 1, 3, 4).

The workflow calls them when it builds its DAG and when it renders the report, so this module
imports nothing but the standard library (not scipy, which :mod:`pufferfish.gaussian.experiments`
loads).
"""

from __future__ import annotations

import csv
import json

__all__ = ["read_gmm_rows", "read_fig1_values"]


def read_gmm_rows(gmm_json) -> dict:
    """The rows-used record of :func:`~pufferfish.gaussian.gmm_fits.fit_experiment_gmms`, for captions.

    Parameters
    ----------
    gmm_json : str or os.PathLike
        ``results/gmm/gaussian_<name>.json``.

    Returns
    -------
    dict
        ``dataset``, ``attribute``, ``rows_in_dataset``, ``missing_values``, ``resolution`` (None
        without one), ``rounding`` (the treatment of rounded values) and ``secrets``, a list (in
        config order) of ``label``, ``given``, ``rows_with_secret``, ``rows_used``,
        ``rows_dropped_nan``, ``rows_dropped_missing_value`` and ``below_resolution``: the
        components narrower than the rounding, each a dict of ``weight``, ``mean``, ``std``;
        ``below_resolution``, those of both secrets with their secret's ``label``.

    Raises
    ------
    OSError
        A file that cannot be read.
    KeyError, json.JSONDecodeError
        A file that is not such a record.
    """
    with open(gmm_json, encoding="utf-8") as handle:
        record = json.load(handle)
    keys = ("label", "given", "rows_with_secret", "rows_used", "rows_dropped_nan", "rows_dropped_missing_value")
    secrets = []
    for s in record["secrets"]:
        narrow = [{"weight": s["weights"][k], "mean": s["means"][k], "std": s["stds"][k]}
                  for k in s.get("components_below_resolution", [])]
        secrets.append({**{k: s[k] for k in keys}, "below_resolution": narrow})
    return {
        "dataset": record["dataset"],
        "attribute": record["attribute"],
        "rows_in_dataset": record["rows_in_dataset"],
        "missing_values": record["missing_values"],
        "resolution": record.get("resolution"),
        "rounding": record.get("gmm", {}).get("rounding", "none"),
        "secrets": secrets,
        "below_resolution": [{"label": s["label"], **c} for s in secrets for c in s["below_resolution"]],
    }


def read_fig1_values(theta_csv) -> dict:
    """Fig. 1's numbers (``results/theta/gaussian_fig1.csv``), for its caption.

    Parameters
    ----------
    theta_csv : str or os.PathLike
        The table of :func:`~pufferfish.gaussian.experiments.run_fig1`.

    Returns
    -------
    dict
        ``laplace`` and ``gaussian``: each a dict of the row's numeric columns as floats
        (``scale``, ``max_log_ratio_window``, ``sup_log_ratio_all_y``, ``total_variation``,
        ``crossover_half_width``; inf stays inf).

    Raises
    ------
    OSError
        A file that cannot be read.
    KeyError, ValueError
        A file that is not such a table.
    """
    with open(theta_csv, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {row["noise"]: {k: float(v) for k, v in row.items() if k != "noise"} for row in rows}

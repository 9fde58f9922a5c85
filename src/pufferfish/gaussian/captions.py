"""Reader of the GMM fits' records, for the captions of Figs. 3-4 (paper 001).

The workflow calls it when it builds its DAG, so it imports nothing but the standard library
(not scipy, which :mod:`pufferfish.gaussian.experiments` loads).
"""

from __future__ import annotations

import json

__all__ = ["read_gmm_rows"]


def read_gmm_rows(gmm_json) -> dict:
    """The rows-used record of :func:`~pufferfish.gaussian.experiments.fit_experiment_gmms` without
    the fitted parameters (for captions).

    Keys: ``dataset``, ``attribute``, ``rows_in_dataset``, ``missing_values`` and ``secrets``, a
    list (in config order) of ``label``, ``given``, ``rows_with_secret``, ``rows_used``,
    ``rows_dropped_nan`` and ``rows_dropped_missing_value``.
    """
    with open(gmm_json, encoding="utf-8") as handle:
        record = json.load(handle)
    keys = ("label", "given", "rows_with_secret", "rows_used", "rows_dropped_nan", "rows_dropped_missing_value")
    return {
        "dataset": record["dataset"],
        "attribute": record["attribute"],
        "rows_in_dataset": record["rows_in_dataset"],
        "missing_values": record["missing_values"],
        "secrets": [{k: s[k] for k in keys} for s in record["secrets"]],
    }

"""Reader of the values paper 002's Table 1 prints, for the captions of the conditionals' figures.

The workflow calls it when it builds its DAG, so it imports nothing but the standard library and
PyYAML (which Snakemake itself needs).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["table1_printed"]

#: what each column of ``results/theta/wasserstein_table1.csv`` is called in a caption
_NAMES = {"range": "DP range", "w_inf": "W∞", "w_2": "W₂"}


def table1_printed(paper_values, setting: str) -> list[dict]:
    """The values the paper's Table 1 prints for ``setting``, as the items of its paper-values file
    that compare them with the maximum row of ``results/theta/wasserstein_table1.csv``.

    Parameters
    ----------
    paper_values : str or os.PathLike
        ``workflow/report/paper_values/wasserstein.yaml``.
    setting : str
        A key of config ``wasserstein.settings``.

    Returns
    -------
    list of dict
        ``name`` (``W∞``), ``column`` (``w_inf``) and ``paper_value`` of each, in the file's order;
        empty when the file has none for the setting.

    Raises
    ------
    OSError, yaml.YAMLError
        A file that cannot be read or is not YAML.
    """
    import yaml

    items = yaml.safe_load(Path(paper_values).read_text(encoding="utf-8")) or {}
    items = items.get("items", items) if isinstance(items, dict) else items
    out = []
    for item in items or []:
        ours = item.get("ours") or {}
        where = ours.get("where") or {}
        if (str(ours.get("file", "")).endswith("wasserstein_table1.csv") and where.get("setting") == setting
                and where.get("secret_i") == "max" and ours.get("column") in _NAMES):
            out.append({"name": _NAMES[ours["column"]], "column": ours["column"], "paper_value": item["paper_value"]})
    return out

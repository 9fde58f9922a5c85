"""Paper 003's figures on tables with nothing to show on a log axis (a small dataset whose laws
coincide: every delta 0): the files are written, the CSV holds the table's rows, no crash."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from pufferfish.distp import plots  # noqa: E402


def _table(delta: float) -> pd.DataFrame:
    rows = [{"mechanism": m, "base_epsilon": 1.0, "dummy_distribution": "uniform", "dummies": k, "epsilon": 0.5,
             "delta": delta, "delta_upper": delta} for m in ("tupling_rr",) for k in (0, 1, 5)]
    return pd.DataFrame(rows)


def test_dummies_figure_with_every_delta_zero(tmp_path):
    paths = {"png": tmp_path / "d.png", "pdf": tmp_path / "d.pdf", "csv": tmp_path / "d.csv"}
    plots.plot_dummies(_table(0.0), epsilon=0.5, **paths)
    assert paths["png"].stat().st_size > 0 and paths["pdf"].read_bytes().startswith(b"%PDF")
    written = pd.read_csv(paths["csv"])
    assert list(written["dummies"]) == [0, 1, 5] and (written["delta_upper"] == 0).all()


def test_dummies_figure_with_positive_deltas_is_log_log(tmp_path):
    import matplotlib.pyplot as plt

    seen = {}
    real_save = plots._save

    def spy(fig, data, png, pdf, csv):
        seen["scales"] = (fig.axes[0].get_xscale(), fig.axes[0].get_yscale())
        real_save(fig, data, png, pdf, csv)

    plots._save = spy
    try:
        plots.plot_dummies(_table(1e-3), epsilon=0.5, png=tmp_path / "d.png", pdf=tmp_path / "d.pdf",
                           csv=tmp_path / "d.csv")
    finally:
        plots._save = real_save
        plt.close("all")
    assert seen["scales"] == ("log", "log")

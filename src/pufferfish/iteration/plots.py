"""Figures of the iteration experiments (numbers in CSV beside each, written by :mod:`pufferfish.iteration.experiments`).

* :func:`plot_fig6` -- paper 002, Fig. 6 analogue: D_alpha against T, log-log, one panel per
  correlation family; colour = rho, line style = accountant, the exact value as hollow
  markers; ``dp_assumption`` (the same for every rho) in black dash-dot.
* :func:`plot_series` -- a real series: D_alpha per secret position, one panel per eta.
* :func:`plot_exposure` -- the exact D_alpha of every record of a series against its position,
  one panel per eta, the listed secrets' accountant bounds beside it, the most exposed record marked;
* :func:`plot_sigma` -- the sigma each accountant needs against epsilon (one panel per eta),
  rejected points (the exact audit finds delta above the target) marked with a red cross and
  said in the legend.

A value of 0 (a bound below float64's range) cannot sit on a log axis: it is left out of the
line and the CSV keeps it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_fig6", "plot_series", "plot_exposure", "plot_sigma", "LABELS"]

#: legend text of each accountant
LABELS = {
    "paper_bound": "paper's bound (Thm 5.2, c = 1)",
    "contraction_bound": "contraction bound (ours, c = 1 − η)",
    "dp_assumption": "DP assumption (records independent)",
    "composition": "composition (a_t = s_t)",
    "exact": "exact (linear-Gaussian audit)",
}
_LINES = {"paper_bound": "-", "contraction_bound": "--", "composition": ":"}
#: Okabe-Ito colours of the rho curves (yellow left out: too pale for thin lines on white)
_RHO_COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7"]
#: the lower end of Fig. 6's y axis: the contraction bound falls exponentially for weak
#: correlations (below 10^-90 at T = 1000) and would flatten every other curve; the CSV has all values
FIG6_FLOOR = 1e-7
_TITLES = {"equal": "equal correlations Σ_tu = ρ", "decaying": "decaying correlations Σ_tu = ρ^|t−u|"}


def _positive(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = y > 0
    return x[keep], y[keep]


def _style_handles():
    """Legend handles of the accountants' line styles (colour-neutral) in Fig. 6."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="#555555", linestyle=_LINES[k], label=LABELS[k]) for k in _LINES]
    handles.append(Line2D([], [], color="#555555", linestyle="none", marker="o", markerfacecolor="white",
                          label=LABELS["exact"]))
    handles.append(Line2D([], [], color="#000000", linestyle="-.", label=LABELS["dp_assumption"]))
    return handles


def plot_fig6(frame, png_path, pdf_path) -> None:
    """Two panels (equal, decaying): D_alpha against T for every rho (:data:`.experiments.FIG6_COLUMNS`)."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from pufferfish.plotting import log_axis, save_figure, setup_style

    setup_style()
    families = [f for f in ("equal", "decaying") if (frame.correlation == f).any()]
    fig, axes = plt.subplots(1, len(families), figsize=(6.2 * len(families), 5.6), squeeze=False)
    for ax, family in zip(axes[0], families):
        sub = frame[frame.correlation == family]
        colour_handles = []
        for i, (rho, curve) in enumerate(sub.groupby("rho", sort=True)):
            colour = _RHO_COLOURS[i % len(_RHO_COLOURS)]
            curve = curve.sort_values("steps")
            for name, dash in _LINES.items():
                ax.plot(*_positive(curve.steps, curve[name]), color=colour, linestyle=dash,
                        linewidth=2.0 if name == "paper_bound" else 1.3)
            ax.plot(*_positive(curve.steps, curve.exact), color=colour, linestyle="none", marker="o",
                    markerfacecolor="white", markersize=4.5)
            colour_handles.append(Line2D([], [], color=colour, linewidth=2.5, label=f"ρ = {rho:g}"))
        dp = sub.drop_duplicates("steps").sort_values("steps")
        ax.plot(*_positive(dp.steps, dp.dp_assumption), color="#000000", linestyle="-.", linewidth=1.3)
        log_axis(ax, "x")
        log_axis(ax, "y")
        top = float(np.nanmax(sub[["paper_bound", "composition", "exact", "contraction_bound"]].to_numpy()))
        ax.set_ylim(FIG6_FLOOR, top * 3.0)
        ax.set_xlabel("number of steps T (secret = record 1)")
        ax.set_ylabel(f"Rényi divergence D_α (axis from 10⁻⁷; CSV has all)")
        ax.set_title(_TITLES.get(family, family))
        ax.legend(handles=colour_handles, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=len(colour_handles),
                  fontsize=8, frameon=False)
    # one key of the line styles for both panels, below them (inside the saved area: a figure legend)
    fig.legend(handles=_style_handles(), loc="upper center", bbox_to_anchor=(0.5, -0.04), ncol=3, fontsize=8,
               frameon=False)
    row = frame.iloc[0]
    fig.suptitle(f"Noisy gradient descent, quadratic loss: η = {row.eta:g}, σ = {row.sigma:g}, α = {row.alpha:g}, "
                 f"D = 1, K = 1", fontsize=10)
    save_figure(fig, png_path, pdf_path)


def _bounds(ax, rows, suffix: str = "", **style) -> None:
    """The accountants' D_alpha at the rows' secret positions, in :func:`plot_series`' styles (``style``
    overrides them; ``suffix`` follows each label)."""
    from pufferfish.plotting import series_style

    for i, name in zip((0, 1, 2, 4), ("paper_bound", "contraction_bound", "dp_assumption", "composition")):
        look = series_style(i)
        look.update(label=LABELS[name] + suffix, **style)
        ax.plot(*_positive(rows.secret_index, rows[name]), **look)


def _position_axes(ax, eta) -> None:
    """A panel of D_alpha against the secret's position (log y)."""
    from pufferfish.plotting import log_axis

    log_axis(ax, "y")
    ax.set_xlabel("secret record k (file order)")
    ax.set_ylabel("Rényi divergence D_α")
    ax.set_title(f"η = {eta:g}")


def _key_below(fig, axes, *, ncol: int) -> None:
    """One key for every panel, below them, where it hides no point."""
    handles, _ = axes[0][0].get_legend_handles_labels()
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, fontsize=8, frameon=False)


def plot_series(frame, png_path, pdf_path) -> None:
    """D_alpha per secret position of a real series, one panel per eta (:data:`.experiments.SERIES_COLUMNS`)."""
    import matplotlib.pyplot as plt

    from pufferfish.plotting import save_figure, setup_style

    setup_style()
    etas = sorted(frame.eta.unique())
    fig, axes = plt.subplots(1, len(etas), figsize=(6.0 * len(etas), 4.4), squeeze=False)
    for ax, eta in zip(axes[0], etas):
        sub = frame[frame.eta == eta].sort_values("secret_index")
        _bounds(ax, sub)
        ax.plot(*_positive(sub.secret_index, sub.exact), color="#000000", linestyle="--", marker="o",
                markerfacecolor="white", label=LABELS["exact"], zorder=10)
        _position_axes(ax, eta)
    _key_below(fig, axes, ncol=3)
    row = frame.iloc[0]
    fig.suptitle(f"{row.dataset}.{row.column}: T = {row.records:,} records, D = {row.D:g}, σ = {row.sigma:g}, "
                 f"α = {row.alpha:g}", fontsize=10)
    save_figure(fig, png_path, pdf_path)


def plot_exposure(curve, table, png_path, pdf_path) -> None:
    """Exact D_alpha of every record against its position, one panel per eta (:func:`.exposure.exposure_curve`).

    A black line through all T records; at the listed secrets their exact value (hollow
    circles) and each accountant's bound (markers, the styles of :func:`plot_series`); a red
    star on the most exposed record (:func:`.exposure.exposure_table`).
    """
    import matplotlib.pyplot as plt

    from pufferfish.plotting import save_figure, setup_style

    setup_style()
    etas = sorted(curve.eta.unique())
    fig, axes = plt.subplots(1, len(etas), figsize=(6.0 * len(etas), 4.4), squeeze=False)
    for ax, eta in zip(axes[0], etas):
        sub = curve[curve.eta == eta]
        ax.plot(*_positive(sub.secret_index, sub.exact), color="#000000", linewidth=0.8, rasterized=True,
                label="exact, every record (linear-Gaussian audit)", zorder=5)   # T points: a raster in the PDF
        listed = sub.dropna(subset=["paper_bound"])
        _bounds(ax, listed, ", listed secrets", linestyle="none")
        ax.plot(*_positive(listed.secret_index, listed.exact), color="#000000", linestyle="none", marker="o",
                markerfacecolor="white", label="exact, listed secrets", zorder=10)
        row = table[table.eta == eta].iloc[0]
        ax.plot([row.most_exposed], [row.exact], linestyle="none", marker="*", markersize=14, color="#D55E00",
                markeredgecolor="#000000", zorder=20, label="most exposed record")
        ax.annotate(f"record {int(row.most_exposed):,}: D = {row.exact:.3g}", (row.most_exposed, row.exact),
                    textcoords="offset points", xytext=(-10, -12), ha="right", va="top", fontsize=8)
        _position_axes(ax, eta)
    _key_below(fig, axes, ncol=2)
    first = table.iloc[0]
    fig.suptitle(f"{first.dataset}.{first.column}: every one of the T = {int(first.records):,} records as the "
                 f"secret, σ = {first.sigma:g}, α = {first.alpha:g}", fontsize=10)
    save_figure(fig, png_path, pdf_path)


def plot_sigma(frame, png_path, pdf_path) -> None:
    """sigma needed per accountant, rejected points marked (:func:`.experiments.sigma_figure_table`).

    Top row (``panel == "all_secrets"``): against epsilon, the sigma that protects every listed
    secret. Bottom row (``panel == "per_secret"``): against the secret's position, each secret's
    own sigma at one epsilon. One column per eta. A red cross marks a sigma the exact audit
    rejects (exact delta above the target).
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from pufferfish.plotting import TIGHT_STYLE, log_axis, save_figure, series_style, setup_style

    setup_style()
    etas = sorted(frame.eta.unique())
    fig, axes = plt.subplots(2, len(etas), figsize=(6.0 * len(etas), 8.6), squeeze=False)
    for row, (panel, x, xlabel) in enumerate((("all_secrets", "epsilon", "target ε"),
                                              ("per_secret", "secret_index", "secret record k (file order)"))):
        for ax, eta in zip(axes[row], etas):
            sub = frame[(frame.eta == eta) & (frame.panel == panel)]
            for i, name in zip((0, 1, 2, 4, 5), ("paper_bound", "contraction_bound", "dp_assumption", "composition",
                                                 "exact")):
                curve = sub[sub.accountant == name].sort_values(x)
                if name == "exact":
                    style = dict(TIGHT_STYLE)
                    style.update(label="exact smallest σ (audit)")
                else:
                    style = series_style(i)
                    style.update(label=LABELS[name])
                ax.plot(*_positive(curve[x], curve.sigma), **style)
                bad = curve[~curve.meets_target.astype(bool)]
                ax.plot(*_positive(bad[x], bad.sigma), linestyle="none", marker="x", color="#D55E00",
                        markersize=10, markeredgewidth=2.2, zorder=20)
            log_axis(ax, "y")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("noise σ needed")
            if panel == "all_secrets":
                ax.set_title(f"η = {eta:g}, δ = {sub.delta.iloc[0]:g}: σ protecting every listed secret")
            else:
                ax.set_title(f"η = {eta:g}: each secret's own σ at ε = {sub.epsilon.iloc[0]:g} "
                             f"(σ = 0 not drawn)")
    # one key for every panel, below them, where it hides no point
    handles, _ = axes[0][0].get_legend_handles_labels()
    handles.append(Line2D([], [], linestyle="none", marker="x", color="#D55E00", markersize=9,
                          markeredgewidth=2.2, label="rejected by the exact audit (δ above target)"))
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=8, frameon=False)
    fig.subplots_adjust(hspace=0.32)  # the top row's x label clear of the bottom row's titles
    rejected = sorted(frame.loc[~frame.meets_target.astype(bool), "accountant"].unique())
    note = ("rejected by the exact audit: " + ", ".join(rejected) + " (the records are correlated: treating them "
            "as independent under-noises)") if rejected else "every accountant's σ passes the exact audit"
    fig.suptitle("Gaussian noise for (ε, δ) through the RDP conversion, quadratic loss\n" + note, fontsize=10)
    save_figure(fig, png_path, pdf_path)

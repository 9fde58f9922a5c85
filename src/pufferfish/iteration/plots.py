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

import math

import numpy as np

__all__ = ["plot_fig6", "plot_series", "plot_exposure", "plot_sigma", "LABELS"]

#: legend text of each accountant
LABELS = {
    "paper_bound": "paper's bound (Thm 5.2, c = 1)",
    "contraction_bound": "contraction bound (ours, c = 1 − η)",
    "dp_assumption": "DP assumption (records independent)",
    "composition": "composition (aₜ = sₜ)",
    "exact": "exact (linear-Gaussian audit)",
}
_LINES = {"paper_bound": "-", "contraction_bound": "--", "composition": ":"}
#: the stretch of matplotlib's viridis (colour-blind safe, ordered in lightness) the rho curves take:
#: up to its teal (contrast 3.4:1 on white), the paler green and yellow end left out (thin lines on white)
_RHO_MAP = ("viridis", 0.0, 0.56)
#: the lower end of Fig. 6's y axis: the contraction bound falls exponentially for weak
#: correlations (below 10^-90 at T = 1000) and would flatten every other curve; the CSV has all values
FIG6_FLOOR = 1e-7
_TITLES = {"equal": "equal correlations Σₜᵤ = ρ", "decaying": r"decaying correlations Σₜᵤ = $\rho^{|t-u|}$"}
#: the y label of the divergence panels (mathtext: Unicode has no subscript alpha)
_D_ALPHA = r"Rényi divergence $D_\alpha$"


def _positive(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = y > 0
    return x[keep], y[keep]


def _gaps(x, y):
    """``x`` and ``y`` with every y <= 0 as NaN: a log-axis line breaks there instead of joining its
    neighbours across a zero (which :func:`_zero_marks` marks)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return x, np.where(y > 0, y, np.nan)


def _zero_marks(zeros) -> None:
    """A ▼ on the lower edge of its panel, in the curve's colour, at every x whose value is 0."""
    for ax, xs, colour in zeros:
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi)   # the marks sit on the edge; they do not widen the axis
        ax.scatter(xs, np.full(xs.size, lo), marker="v", s=45, color=colour, edgecolors="black", linewidths=0.6,
                   zorder=12, clip_on=False)


def _style_handles(frame):
    """Legend handles of the accountants' line styles (colour-neutral) in Fig. 6; the DP assumption's
    says at which rho a bound lies on it (the black line hides nothing: it is drawn on top)."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="#555555", linestyle=_LINES[k], label=LABELS[k]) for k in _LINES]
    handles.append(Line2D([], [], color="#555555", linestyle="none", marker="o", markerfacecolor="white",
                          label=LABELS["exact"]))
    same = [f"the {LABELS[name].split(' (')[0]} at ρ = {rho:g}"
            for name in _LINES for rho, curve in frame.groupby("rho", sort=True)
            if np.allclose(curve[name], curve.dp_assumption, rtol=1e-9, atol=0.0)]
    label = LABELS["dp_assumption"] + (f", on it: {', '.join(dict.fromkeys(same))}" if same else "")
    handles.append(Line2D([], [], color="#000000", linestyle="-.", label=label))
    return handles


def _rho_colours(rhos) -> dict:
    """One colour per rho, the same in every panel: the sorted rhos spread along :data:`_RHO_MAP`
    (a larger rho is lighter, so the order reads without hue)."""
    import matplotlib

    name, lo, hi = _RHO_MAP
    cmap = matplotlib.colormaps[name]
    values = sorted(set(rhos))
    return {rho: matplotlib.colors.to_hex(cmap(lo + (hi - lo) * k / max(len(values) - 1, 1)))
            for k, rho in enumerate(values)}


def plot_fig6(frame, png_path, pdf_path) -> None:
    """Two panels (equal, decaying): D_alpha against T for every rho (:data:`pufferfish.iteration.experiments.FIG6_COLUMNS`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The Fig. 6 table.
    png_path, pdf_path : path-like
        Where to save the figure (``pdf_path`` None: PNG only).

    Returns
    -------
    None
        The figure is saved.

    Raises
    ------
    OSError
        A path that cannot be written.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from pufferfish.plotting import figure_key, legend_below, log_axis, save_figure, setup_style

    setup_style()
    colour_of = _rho_colours(frame.rho)
    families = [f for f in ("equal", "decaying") if (frame.correlation == f).any()]
    fig, axes = plt.subplots(1, len(families), figsize=(6.2 * len(families), 5.6), squeeze=False)
    for ax, family in zip(axes[0], families):
        sub = frame[frame.correlation == family]
        colour_handles = []
        for rho, curve in sub.groupby("rho", sort=True):
            colour = colour_of[rho]
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
        ax.set_ylabel(_D_ALPHA + " (axis from 10⁻⁷; CSV has all)", parse_math=True)
        ax.set_title(_TITLES.get(family, family), parse_math=True)
        legend_below(ax, handles=colour_handles, ncol=len(colour_handles))
    row = frame.iloc[0]
    fig.suptitle(f"Noisy gradient descent, quadratic loss: η = {row.eta:g}, σ = {row.sigma:g}, α = {row.alpha:g}, "
                 f"D = 1, K = 1", fontsize=10)
    # one key of the line styles for both panels, below them
    figure_key(fig, _style_handles(frame), ncol=3)
    save_figure(fig, png_path, pdf_path)


def _bounds(ax, rows, suffix: str = "", **style) -> None:
    """The accountants' D_alpha at the rows' secret positions, in :func:`plot_series`' styles (``style``
    overrides them; ``suffix`` follows each label)."""
    from pufferfish.plotting import series_style

    for i, name in zip((0, 1, 2, 3), ("paper_bound", "contraction_bound", "dp_assumption", "composition")):
        look = series_style(i)
        look.update(label=LABELS[name] + suffix, **style)
        ax.plot(*_positive(rows.secret_index, rows[name]), **look)


def _position_axes(ax, eta) -> None:
    """A panel of D_alpha against the secret's position (log y)."""
    from pufferfish.plotting import log_axis

    log_axis(ax, "y")
    ax.set_xlabel("secret record k (file order)")
    ax.set_ylabel(_D_ALPHA, parse_math=True)
    ax.set_title(f"η = {eta:g}")


def _key_below(fig, axes, *, ncol: int) -> None:
    """One key for every panel, below them, where it hides no point."""
    from pufferfish.plotting import figure_key

    handles, _ = axes[0][0].get_legend_handles_labels()
    figure_key(fig, handles, ncol=ncol)


def plot_series(frame, png_path, pdf_path) -> None:
    """D_alpha per secret position of a real series, one panel per eta (:data:`pufferfish.iteration.experiments.SERIES_COLUMNS`).

    Parameters
    ----------
    frame : pandas.DataFrame
        A series table.
    png_path, pdf_path : path-like
        Where to save the figure (``pdf_path`` None: PNG only).

    Returns
    -------
    None
        The figure is saved.

    Raises
    ------
    OSError
        A path that cannot be written.
    """
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
    from pufferfish.plotting import words

    row = frame.iloc[0]
    fig.suptitle(f"{words(row.dataset)}, column {row.column}: T = {row.records:,} records, D = {row.D:g}, "
                 f"σ = {row.sigma:g}, α = {row.alpha:g}", fontsize=10)
    _key_below(fig, axes, ncol=3)
    save_figure(fig, png_path, pdf_path)


def plot_exposure(curve, table, png_path, pdf_path) -> None:
    """Exact D_alpha of every record against its position, one panel per eta (:func:`pufferfish.iteration.exposure.exposure_curve`).

    A black line through all T records; at the listed secrets their exact value (hollow
    circles) and each accountant's bound (markers, the styles of :func:`plot_series`); a red
    star on the most exposed record (:func:`pufferfish.iteration.exposure.exposure_table`).

    Parameters
    ----------
    curve : pandas.DataFrame
        The exposure curve.
    table : pandas.DataFrame
        The exposure table.
    png_path, pdf_path : path-like
        Where to save the figure (``pdf_path`` None: PNG only).

    Returns
    -------
    None
        The figure is saved.

    Raises
    ------
    OSError
        A path that cannot be written.
    """
    import matplotlib.pyplot as plt

    from adjustText import adjust_text

    from pufferfish.plotting import save_figure, setup_style, superscript, words

    setup_style()
    etas = sorted(curve.eta.unique())
    notes = []
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
        star, = ax.plot([row.most_exposed], [row.exact], linestyle="none", marker="*", markersize=14, color="#D55E00",
                        markeredgecolor="#000000", zorder=20, label="most exposed record")
        # the label starts left of and below the star (in the bounds' gap), adjustText moves it off every point
        notes.append((ax, ax.text(0.75 * row.most_exposed, row.exact / 20, f"record {int(row.most_exposed):,}: "
                                  f"D = {row.exact:.3g}", ha="center", va="center", fontsize=8), star))
        _position_axes(ax, eta)
        # the floor at the exact values' 1st percentile: a few records' dips to 10⁻¹¹ would squeeze the rest
        floor = 10.0 ** math.floor(math.log10(np.quantile(_positive(sub.secret_index, sub.exact)[1], 0.01)))
        ax.set_ylim(bottom=floor)
        ax.set_ylabel(f"{_D_ALPHA}\n(axis from 10{superscript(str(round(math.log10(floor))))}; CSV has all)",
                      parse_math=True)
    first = table.iloc[0]
    fig.suptitle(f"{words(first.dataset)}, column {first.column}: every one of the T = {int(first.records):,} "
                 f"records as the secret, σ = {first.sigma:g}, α = {first.alpha:g}", fontsize=10)
    _key_below(fig, axes, ncol=2)
    for ax, note, star in notes:    # after the layout, where it covers no point (iter_lim: a run's time never matters)
        points = np.concatenate([line.get_xydata()[::max(1, len(line.get_xydata()) // 2000)] for line in ax.lines])
        points = points[np.all(np.isfinite(points), axis=1)]
        adjust_text([note], x=points[:, 0], y=points[:, 1], objects=[star], ax=ax, expand=(1.2, 1.6),
                    target_x=star.get_xdata(), target_y=star.get_ydata(), iter_lim=300,
                    arrowprops=dict(arrowstyle="-", color="0.3", linewidth=0.6))
    save_figure(fig, png_path, pdf_path)


def plot_sigma(frame, png_path, pdf_path) -> None:
    """sigma needed per accountant, rejected points marked (:func:`pufferfish.iteration.experiments.sigma_figure_table`).

    Top row (``panel == "all_secrets"``): against epsilon, the sigma that protects every listed
    secret. Bottom row (``panel == "per_secret"``): against the secret's position, each secret's
    own sigma at one epsilon. One column per eta. A red cross marks a sigma the exact audit
    rejects (exact delta above the target).

    Parameters
    ----------
    frame : pandas.DataFrame
        The sigma figure's table.
    png_path, pdf_path : path-like
        Where to save the figure (``pdf_path`` None: PNG only).

    Returns
    -------
    None
        The figure is saved.

    Raises
    ------
    OSError
        A path that cannot be written.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from pufferfish.plotting import TIGHT_STYLE, figure_key, log_axis, save_figure, series_style, setup_style

    setup_style()
    etas = sorted(frame.eta.unique())
    fig, axes = plt.subplots(2, len(etas), figsize=(6.0 * len(etas), 8.6), squeeze=False)
    zeros = []
    for row, (panel, x, xlabel) in enumerate((("all_secrets", "epsilon", "target ε"),
                                              ("per_secret", "secret_index", "secret record k (file order)"))):
        for ax, eta in zip(axes[row], etas):
            sub = frame[(frame.eta == eta) & (frame.panel == panel)]
            for i, name in zip((0, 1, 2, 3, 5), ("paper_bound", "contraction_bound", "dp_assumption", "composition",
                                                 "exact")):
                curve = sub[sub.accountant == name].sort_values(x)
                if name == "exact":
                    style = dict(TIGHT_STYLE)
                    # a marker on every point: a secret between two zeros has no line to show it
                    style.update(label="exact smallest σ (audit)", marker="o", markersize=4)
                else:
                    style = series_style(i)
                    style.update(label=LABELS[name])
                ax.plot(*_gaps(curve[x], curve.sigma), **style)
                zero = curve[curve.sigma.to_numpy(dtype=float) == 0]
                if len(zero):
                    zeros.append((ax, zero[x].to_numpy(dtype=float), style.get("color", "#000000")))
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
                             f"(σ = 0: ▼ on the axis)")
    _zero_marks(zeros)
    # one key for every panel, below them, where it hides no point
    handles, _ = axes[0][0].get_legend_handles_labels()
    if zeros:
        handles.append(Line2D([], [], linestyle="none", marker="v", color="#777777", markeredgecolor="black",
                              markersize=7, label="σ = 0: no noise needed (line broken there)"))
    handles.append(Line2D([], [], linestyle="none", marker="x", color="#D55E00", markersize=9,
                          markeredgewidth=2.2, label="rejected by the exact audit (δ above target)"))
    rejected = sorted(frame.loc[~frame.meets_target.astype(bool), "accountant"].unique())
    note = ("rejected by the exact audit: " + ", ".join(LABELS.get(r, r) for r in rejected) + " (the records are "
            "correlated: treating them as independent under-noises)") if rejected else \
        "every accountant's σ passes the exact audit"
    fig.suptitle("Gaussian noise for (ε, δ) through the RDP conversion, quadratic loss\n" + note, fontsize=10)
    figure_key(fig, handles, ncol=3)
    save_figure(fig, png_path, pdf_path)

"""Figures of the closed-form sensitivity experiments (matplotlib imported here only)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["plot_attribute_privacy", "plot_diffusion"]

#: the sensitivities of the attribute figure: column, legend label
_ATTRIBUTE_BARS = [("dp_sensitivity", "DP: range of the released column's domain (observed range if none declared)"),
                   ("empirical_w_inf", "GWM: W∞ of the data's conditionals (exact)"),
                   ("empirical_w_2", "DAGWM: W₂ of the data's conditionals (exact)"),
                   ("gaussian_w_inf", "closed form (Prop. 6.2): |cov(r, j)/var(j)| × range(j)")]


def plot_attribute_privacy(figure: pd.DataFrame, *, epsilons, png, pdf) -> None:
    """Horizontal bars per triple, as fractions of its DP sensitivity on a linear axis (each bar's
    value written at its end): the DP sensitivity, the data's W∞ and W₂, the Gaussian closed form.

    A triple whose closed-form scale fails the exact audit on the data's conditionals for some
    noise is marked (✗ and the noises); one that passes says so. The tick label says where the DP
    sensitivity comes from and how many records the rarest protected value has.

    Parameters
    ----------
    figure : pandas.DataFrame
        The attribute figure's numbers (:data:`pufferfish.sensitivity.experiments.FIGURE_COLUMNS`).
    epsilons : sequence of float
        The audited epsilons (for the title).
    png, pdf : path-like
        Where to save the figure (``pdf`` None: PNG only).

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

    from pufferfish.plotting import save_figure, series_style, setup_style, words
    from pufferfish.sensitivity.captions import noise_list

    setup_style()
    n = len(figure)
    fig, ax = plt.subplots(figsize=(12, 2.0 + 0.95 * n))
    height = 0.8 / len(_ATTRIBUTE_BARS)
    ys = np.arange(n)[::-1]
    dp = figure["dp_sensitivity"].to_numpy(dtype=float)
    for k, (column, label) in enumerate(_ATTRIBUTE_BARS):
        style = series_style(k)
        values = figure[column].to_numpy(dtype=float)
        at = ys + 0.4 - height * (k + 0.5)
        ax.barh(at, values / dp, height=height, color=style["color"], edgecolor="black", linewidth=0.4,
                hatch=["", "//", "..", "xx"][k], label=label)
        for y, value, fraction in zip(at, values, values / dp):
            ax.text(fraction + 0.01, y, f"{value:.3g}", va="center", fontsize=7)
    for y, row in zip(ys, figure.to_dict("records")):
        flagged = row["closed_form_flagged"]
        x = row["gaussian_w_inf"] / row["dp_sensitivity"] + 0.09
        if isinstance(flagged, str) and flagged:
            ax.text(x, y + 0.4 - height * 3.5, f"✗ closed form fails the exact audit: {noise_list(flagged)}",
                    va="center", fontsize=8, color="#D55E00")
        else:
            ax.text(x, y + 0.4 - height * 3.5, "✓ closed form passes the exact audit", va="center", fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{words(r['dataset'])}: {r['released']} | {r['protected']}\n"
                        f"n = {r['rows']}, {r['protected_values']} values, rarest: {r['min_rows']} "
                        f"record{'s' if r['min_rows'] != 1 else ''}\nDP = {r['dp_sensitivity']:g} ({r['dp_source']})"
                        for r in figure.to_dict("records")], fontsize=8)
    ax.set_xlim(0.0, 2.2)   # room for the notes right of the bars
    ax.set_xticks(np.linspace(0.0, 1.0, 6))
    ax.set_xlabel("sensitivity as a fraction of the triple's DP sensitivity (linear; each bar's value at its end)")
    eps = ", ".join(f"{e:g}" for e in epsilons)
    ax.set_title("Attribute privacy on UCI data. Prop. 6.2's closed form assumes a Gaussian prior; its scales are\n"
                 f"audited exactly on the data's own conditionals (ε = {eps}): ✗ fails, ✓ passes", fontsize=9)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1 - 0.25 / max(n, 1)), ncol=1, fontsize=8)
    fig.tight_layout()
    save_figure(fig, png, pdf)


def plot_diffusion(table: pd.DataFrame, *, violations: int, png, pdf) -> None:
    """One panel per lambda: the bound D e^(-λt), the exact OU W∞, and the largest coupled distance
    per potential against t (log scale).

    Parameters
    ----------
    table : pandas.DataFrame
        The diffusion table (:data:`pufferfish.sensitivity.experiments.DIFFUSION_COLUMNS`).
    violations : int
        How many coupled distances are above the bound (for the title).
    png, pdf : path-like
        Where to save the figure.

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

    from pufferfish.plotting import log_axis, math_texts, save_figure, series_style, setup_style

    setup_style()
    lambdas = list(dict.fromkeys(table["lambda"]))
    fig, axes = plt.subplots(1, len(lambdas), figsize=(5.2 * len(lambdas), 4.2), squeeze=False)
    for ax, lam in zip(axes[0], lambdas):
        part = table[table["lambda"] == lam]
        first = part[part["potential"] == part["potential"].iloc[0]]
        ax.plot(first["time"], first["bound"], color="#000000", linestyle="--", linewidth=1.6,
                label=r"bound $D\,e^{-\lambda t}$ (Prop. 6.3)")
        for k, name in enumerate(dict.fromkeys(part["potential"])):
            rows = part[part["potential"] == name]
            style = series_style(k)
            ax.plot(rows["time"], rows["coupled_max"], color=style["color"], marker=style["marker"],
                    markerfacecolor=style["markerfacecolor"], linestyle="none", markersize=6,
                    label=f"max coupled |Xₜ − X′ₜ|, {name}{_on_bound(rows['coupled_max'], rows['bound'])}")
            if rows["ou_exact"].notna().any():
                ax.plot(rows["time"], rows["ou_exact"], color="#000000", marker="x", linestyle="none",
                        markersize=7, label=f"exact W∞ of the OU laws{_on_bound(rows['ou_exact'], rows['bound'])}")
        ax.set_xlabel("release time t")
        ax.set_ylabel("distance")
        ax.set_title(f"λ = {lam:g}, D = {part['diameter'].iloc[0]:g}")
        log_axis(ax, "y")
        _readable_log_ticks(ax)
        math_texts(ax.legend(fontsize=7, loc="lower left"))
    verdict = ("no coupled distance above the bound" if violations == 0
               else f"{violations} coupled distance(s) ABOVE the bound")
    fig.suptitle(f"Diffusions: synchronous coupling (seeded Euler-Maruyama) vs $D\\,e^{{-\\lambda t}}$; {verdict}",
                 fontsize=10, parse_math=True)
    fig.tight_layout()
    save_figure(fig, png, pdf)


def _on_bound(values, bound) -> str:
    """`` (= the bound)`` or `` (within 2 % of the bound)`` where the points lie on the bound's line
    (they are drawn on it: the legend says so), else nothing."""
    gap = float(np.nanmax(np.abs(np.asarray(values, dtype=float) / np.asarray(bound, dtype=float) - 1.0)))
    if gap <= 1e-9:
        return " (= the bound)"
    return f" (within {math.ceil(100 * gap)} % of the bound)" if gap <= 0.05 else ""


def _readable_log_ticks(ax) -> None:
    """Label 1, 2 and 5 of every decade in plain numbers (0.02, 0.5, 1): a range of about one decade
    would otherwise show a single labelled tick."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.yaxis.set_major_locator(LogLocator(10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())

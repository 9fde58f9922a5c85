r"""The figure of one pair of the noise comparison: the noise each mechanism needs, against :math:`\epsilon`.

Left panel: the rows of an :math:`(\epsilon, \delta)`-or-stronger guarantee whose noise has a standard
deviation (:data:`~pufferfish.comparison.compare.COMPARABLE`), by that standard deviation.
Right panel: the Rényi rows, by their scale. Each noise family has one colour, taken in the
order of :func:`pufferfish.audit.auditor.noises` from an ordered colour-blind-safe palette
(:data:`PALETTE`); within a family, the closed forms are solid lines with filled markers and the
tight scales of the exact audits dashed with open ones. A scale of 0 (the priors meet the
target without noise) cannot sit on a log axis: it is drawn as a downward triangle on the
panel's floor, labelled, never dropped. Log axes spanning few decades get labelled ticks at
1, 2 and 5 times each power of ten.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pufferfish.comparison.compare import COMPARABLE, PAPER000_BEST

__all__ = ["PALETTE", "plot_pair", "method_label"]

#: the colours of the noise families, in the order of :func:`pufferfish.audit.auditor.noises`: Okabe-Ito
#: (blue, vermillion, bluish green, reddish purple, orange, sky blue), the pale yellow last
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442"]
_CLOSED_MARKERS = ["o", "s", "^", "v", "P", "X"]
_TIGHT_MARKERS = ["D", "o", "s", "^"]
_TIGHT_DASHES = ["--", ":", "-.", (0, (5, 1, 1, 1))]
#: how each guarantee is written in a legend
_GUARANTEE_TEXT = {"epsilon": "ε-PP", "epsilon_delta": "(ε, δ)-PP", "renyi": "(α, ε)-RPP"}


def method_label(method: str) -> str:
    """The legend text of a row of the comparison: its registry label, generated for the tight scales.

    Parameters
    ----------
    method : str
        A method of :func:`~pufferfish.comparison.compare.methods_by_noise`.

    Returns
    -------
    str
        ``best of paper 000 (Laplace, ε-PP)``, ``tight <noise>, <guarantee> (exact audit)`` for
        a record whose scale is the exact audit's smallest one, else the record's label.

    Raises
    ------
    NotApplicableError
        An unknown method.
    """
    from pufferfish import registry

    if method == PAPER000_BEST:
        return "best of paper 000 (Laplace, ε-PP)"
    record = registry.get(method)
    if record.smallest:
        return f"tight {record.noise.capitalize()}, {_GUARANTEE_TEXT[record.guarantee]} (exact audit)"
    return record.label


def _styles(frame: pd.DataFrame) -> dict[str, dict]:
    """The line style of every method of ``frame``: the colour of its noise, then a marker and dash
    by its rank among its family's closed forms or tight scales."""
    from pufferfish import registry
    from pufferfish.audit import noises

    order = list(noises())
    styles, seen = {}, {}
    for method, noise in dict.fromkeys(zip(frame.method, frame.noise)):
        colour = PALETTE[order.index(noise) % len(PALETTE)] if noise in order else "#000000"
        tight = method != PAPER000_BEST and registry.get(method).smallest
        k = seen.setdefault((noise, tight), 0)
        seen[(noise, tight)] = k + 1
        if tight:   # later families' open markers larger: tight scales that coincide all show
            size = 4.5 + 1.2 * (order.index(noise) if noise in order else 0)
            styles[method] = dict(color=colour, linestyle=_TIGHT_DASHES[k % 4], linewidth=1.6, markersize=size,
                                  marker=_TIGHT_MARKERS[k % 4], markerfacecolor="white", zorder=10 + k)
        else:
            styles[method] = dict(color=colour, linestyle="-", linewidth=max(1.0, 3.2 - 1.1 * k), markersize=7 - k,
                                  marker=_CLOSED_MARKERS[k % 6], markerfacecolor=colour if k % 2 == 0 else "white",
                                  zorder=2 + k)
        styles[method]["label"] = method_label(method)
    return styles


def _draw(ax, frame: pd.DataFrame, column: str, styles: dict) -> list:
    """Every method of ``frame`` against epsilon (positive values; the zeros returned for the floor)."""
    zeros = []
    for method in dict.fromkeys(frame.method):
        sub = frame[frame.method == method]
        values = sub[column].to_numpy(dtype=float)
        positive = values > 0
        ax.plot(sub.epsilon[positive], values[positive], **styles[method])
        if (~positive).any():
            zeros.append((sub.epsilon[~positive].to_numpy(), styles[method]["color"]))
    return zeros


def _floor_marks(ax, zeros) -> None:
    """The zero scales as downward triangles on the floor of a log axis, in their series' colours,
    one row per series (stacked, so that series at 0 at the same epsilon all show; one legend entry)."""
    if not zeros:
        return
    for k, (eps, colour) in enumerate(zeros):
        ax.scatter(eps, np.full(eps.size, 0.035 * k), marker="v", s=45, color=colour, edgecolors="black",
                   linewidths=0.6, zorder=12, clip_on=False, transform=ax.get_xaxis_transform(),
                   label="scale 0: no noise needed (a row per method, in legend order)" if k == 0 else None)


def _nouns(names) -> str:
    """``Laplace, Gaussian and geometric``."""
    names = [n.capitalize() for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def plot_pair(frame: pd.DataFrame, *, title: str, png, pdf, csv) -> None:
    """The two panels of one pair (module docstring); the rows plotted go to ``csv``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The pair's rows (:data:`~pufferfish.comparison.compare.COLUMNS`), read back from its CSV.
    title : str
        The figure's title.
    png, pdf, csv : path-like
        The figure files and the CSV of the numbers plotted.

    Returns
    -------
    None

    Raises
    ------
    OutputError
        A file that cannot be written.
    """
    import matplotlib.pyplot as plt

    from pufferfish.files import write_csv
    from pufferfish.plotting import readable_log_ticks, save_figure, setup_style

    setup_style()
    styles = _styles(frame)
    left_rows = frame.guarantee.isin(COMPARABLE) & frame["std"].notna()
    panels = [(frame[left_rows], "std", "noise standard deviation"), (frame[~left_rows], "scale", "noise scale")]
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 5.6), gridspec_kw={"width_ratios": [1.45, 1]})
    for ax, (rows, column, ylabel) in zip(axes, panels):
        if rows.empty:
            ax.set_axis_off()
            continue
        zeros = _draw(ax, rows, column, styles)
        ax.set_yscale("log")
        if zeros:   # room below the curves for the rows of triangles
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo / (hi / lo) ** (0.04 * len(zeros)), hi)
        readable_log_ticks(ax)
        ax.set_xlabel("privacy budget ε")
        ax.set_ylabel(ylabel)
        _floor_marks(ax, zeros)
        # legends below the panels: the curves span the whole plotting area
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2 if ax is axes[0] else 1, fontsize=7.5,
                  frameon=False)
    left, right = panels[0][0], panels[1][0]
    if len(left):
        delta = left["delta"].dropna()
        axes[0].set_title("(ε, δ)-PP" + (f", δ = {delta.iloc[0]:g}" if len(delta) else "")
                          + f": {_nouns(dict.fromkeys(left.noise))} noise")
    if len(right):
        alpha = right["alpha"].dropna()
        what = ("(α, ε)-Renyi PP" + (f", α = {alpha.iloc[0]:g}" if len(alpha) else "")
                if (right.guarantee == "renyi").all() else "by noise scale")
        axes[1].set_title(f"{what}: {_nouns(dict.fromkeys(right.noise))} noise")
    fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, png, pdf)
    plt.close(fig)
    write_csv(frame, csv)

r"""The figure of one pair of the noise comparison: the noise each mechanism needs, against :math:`\epsilon`.

Left panel: the rows of an :math:`(\epsilon, \delta)`-or-stronger guarantee whose noise has a standard
deviation (:data:`~pufferfish.comparison.compare.COMPARABLE`), by that standard deviation.
Then one panel per noise family of the Rényi rows, by its own scale (a Cauchy γ and a geometric
b are not comparable on one axis). Each noise family has one colour, taken in the order of
:func:`pufferfish.audit.auditor.noises` from an ordered colour-blind-safe palette with at least
3:1 contrast on white (:data:`PALETTE`); within a family, the closed forms are solid lines with
filled markers and the tight scales of the exact audits dashed with open ones. Methods whose
scales coincide (within 0.1 %, or a few pixels of the log axis) are drawn once, under one legend
entry naming them all. A scale of 0 (the priors meet the target without noise) cannot sit on a log
axis: it is its method's marker on the panel's floor, a row per method, never dropped. Log axes
spanning few decades get labelled ticks at 1, 2 and 5 times each power of ten.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pufferfish.comparison.compare import COMPARABLE, PAPER000_BEST

__all__ = ["PALETTE", "plot_pair", "method_label"]

#: the colours of the noise families, in the order of :func:`pufferfish.audit.auditor.noises`: Okabe-Ito
#: (blue, vermillion, bluish green, reddish purple, orange, sky blue, yellow), the last three darkened to
#: 3.2:1 on white (:data:`pufferfish.plotting.LINE_COLOURS`)
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#BD8300", "#1D96DB", "#9C920C"]
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
    from pufferfish.plotting import words

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
        styles[method]["label"] = words(method_label(method))
    return styles


def _draw(ax, frame: pd.DataFrame, column: str, styles: dict) -> list:
    """Every method of ``frame`` against epsilon (positive values; the zeros returned for the floor).

    Methods whose values coincide (:func:`pufferfish.plotting.coinciding`) are drawn once, in the
    first one's style, under one legend entry that names them all (``=``, or ``≈`` within
    :data:`pufferfish.plotting.NEAR` or a few pixels of the log axis, the largest distance said)."""
    from pufferfish.plotting import coinciding, within

    subs = {m: frame[frame.method == m] for m in dict.fromkeys(frame.method)}
    positive = frame[column][frame[column] > 0]     # the panel's log axis: its decades
    decades = float(np.log10(positive.max() / positive.min())) if len(positive) else None
    same = coinciding({m: (sub.epsilon, sub[column]) for m, sub in subs.items()}, decades=decades)
    zeros = []
    for method, sub in subs.items():
        if method in same:
            continue
        label = styles[method]["label"]
        for other, (head, sign, gap) in same.items():
            if head == method:
                label += f"\n= {styles[other]['label']}" if sign == "=" else \
                    f"\n≈ {styles[other]['label']} ({within(gap)})"
        values = sub[column].to_numpy(dtype=float)
        positive = values > 0
        if positive.any():
            ax.plot(sub.epsilon[positive], values[positive], **{**styles[method], "label": label})
        if (~positive).any():
            own = None if positive.any() else label + ": 0 at every ε"
            zeros.append((sub.epsilon[~positive].to_numpy(), styles[method], own))
    return zeros


def _floor_marks(ax, zeros) -> list:
    """The zero scales as their methods' markers on the floor of a log axis, one row per method
    (stacked, so that methods at 0 at the same epsilon all show); returns the key entry saying so."""
    from matplotlib.lines import Line2D

    for k, (eps, style, label) in enumerate(zeros):
        ax.plot(eps, np.full(eps.size, 0.035 * k), linestyle="none", marker=style["marker"], markersize=6,
                color=style["color"], markerfacecolor=style["markerfacecolor"], zorder=12, clip_on=False,
                transform=ax.get_xaxis_transform(), label=label)
    return [Line2D([], [], linestyle="none", label="on the floor: a scale of 0 (no noise needed), a row per "
                   "method")] if zeros else []


_SYMBOLS = {"laplace": "b", "gaussian": "σ", "cauchy": "γ", "geometric": "b"}


def _title(description: str) -> str:
    """The figure's title from the pair's description: ``fig5/adult: ...`` -> ``Fig. 5, adult panel: ...``,
    identifiers in words (:func:`pufferfish.plotting.words`)."""
    import re

    from pufferfish.plotting import words

    def reference(match) -> str:
        kind, number, name = match.groups()
        return f"{kind.capitalize()}. {number}, {name} panel" if kind == "fig" else f"Table {number}, {name}"

    return words(re.sub(r"^(fig|table)(\d+)/([^:]+)", reference, description))


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
    from pufferfish.plotting import legend_below, readable_log_ticks, save_figure, setup_style

    setup_style()
    styles = _styles(frame)
    left_rows = frame.guarantee.isin(COMPARABLE) & frame["std"].notna()
    left, right = frame[left_rows], frame[~left_rows]
    # the standard deviation is comparable across noises; a scale is not: one panel per noise
    panels = [(left, "std", "noise standard deviation")] if len(left) else []
    panels += [(right[right.noise == noise], "scale", f"{noise.capitalize()} scale {_SYMBOLS.get(noise, '')}".strip())
               for noise in dict.fromkeys(right.noise)]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.6 + 4.2 * len(panels), 6.2), squeeze=False,
                             gridspec_kw={"width_ratios": [1.45] + [1] * (len(panels) - 1)})
    for ax, (rows, column, ylabel) in zip(axes[0], panels):
        zeros = _draw(ax, rows, column, styles)
        ax.set_yscale("log")
        if zeros:   # room below the curves for the rows of floor marks
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo / (hi / lo) ** (0.04 * len(zeros)), hi)
        readable_log_ticks(ax)
        if not (rows[column].astype(float) > 0).any():   # every scale 0: no scale to read off the axis
            ax.set_yticks([])
        ax.set_xlabel("privacy budget ε")
        ax.set_ylabel(ylabel)
        key = _floor_marks(ax, zeros)
        # legends below the panels: the curves span the whole plotting area
        legend_below(ax, handles=ax.get_legend_handles_labels()[0] + key, ncol=2 if column == "std" else 1,
                     fontsize=7.5)
    for ax, (rows, column, _) in zip(axes[0], panels):
        if column == "std":
            delta = rows["delta"].dropna()
            ax.set_title("(ε, δ)-PP" + (f", δ = {delta.iloc[0]:g}" if len(delta) else "")
                         + f": {_nouns(dict.fromkeys(rows.noise))} noise")
        else:
            alpha = rows["alpha"].dropna()
            what = ("(α, ε)-Rényi PP" + (f", α = {alpha.iloc[0]:g}" if len(alpha) else "")
                    if (rows.guarantee == "renyi").all() else "by noise scale")
            ax.set_title(f"{what}: {_nouns(dict.fromkeys(rows.noise))} noise")
    fig.suptitle(_title(title))
    fig.tight_layout()
    save_figure(fig, png, pdf)
    plt.close(fig)
    write_csv(frame, csv)

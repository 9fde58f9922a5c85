r"""Figures of the multi-user paper (000): the noise scale :math:`\theta` against :math:`\epsilon`, and the plan :math:`\pi^*`.

:func:`plot_theta` draws every method's scale with the exact audit's smallest one (``tight``,
dashed black), one subplot per panel and noise family (the families in the order of
:func:`pufferfish.audit.auditor.noises`); a scale of 0 (the priors meet the target without noise) is a
downward triangle on the axis, and a scale that misses its target by the exact audit a cross.
Methods whose scales coincide are all drawn and their labels say so.
:func:`plot_plan` draws the two query priors, the monotone plan :math:`\pi^*` of eq. (6) (cell
labels in whole % from 1 %, where they fit at 7 pt or more) and :math:`\theta`.
The methods: docs/math/paper000-multiuser.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from pufferfish.files import write_csv
from pufferfish.plotting import (LINE_COLOURS, OKABE_ITO, TIGHT_STYLE, coinciding, legend_below, save_figure,
                                 series_style, setup_style, within, words)

__all__ = ["method_label", "plot_theta", "plot_plan", "FIGURE_COLUMNS"]


def method_label(name: str) -> str:
    """Legend text of a method: its registry label (the result and equation it implements).

    Parameters
    ----------
    name : str
        A method name (an unknown one is its own label).

    Returns
    -------
    str

    Raises
    ------
    ArgumentTypeError
        ``name`` is not a string.
    """
    from pufferfish.checks import instance
    from pufferfish.registry import methods

    record = methods().get(instance(name, str, name="name"))
    return record.label if record is not None else name


_VIOLATION = dict(marker="x", color=LINE_COLOURS[6], s=60, linewidths=2, zorder=5)
_ZERO = dict(marker="v", s=40, edgecolors="black", linewidths=0.6, zorder=12, clip_on=False)
#: a panel whose positive scales (or epsilons) span more than this ratio gets a log axis (Fig. 8: 1/eps
#: over eps in [0.001, 0.04] would squeeze every curve into a corner of a linear one)
_LOG_RATIO = 30.0


def noise_of(frame: pd.DataFrame) -> pd.Series:
    """The ``noise`` column of a theta table (``laplace`` for tables written before it existed)."""
    if "noise" in frame.columns:
        return frame["noise"].fillna("laplace").astype(str)
    return pd.Series("laplace", index=frame.index)


def violates(frame: pd.DataFrame) -> pd.Series:
    r"""Rows whose scale misses its own target by the exact audit, with a relative slack of 1e-9.

    ``epsilon_achieved`` above ``epsilon`` (pure :math:`\epsilon`), ``delta_achieved`` above
    ``delta`` (:math:`(\epsilon, \delta)`) or ``renyi_achieved`` above ``epsilon``
    (:math:`D_\alpha`): a row is checked only against its own guarantee."""
    def column(name):
        return frame[name].astype(float) if name in frame.columns else pd.Series(np.nan, index=frame.index)
    eps, delta = frame["epsilon"].astype(float), column("delta")
    # the audit's rule: a certified achieved value above its target, no tolerance (issue 39)
    bad = column("epsilon_achieved") > eps
    bad |= column("delta_achieved") > delta
    bad |= column("renyi_achieved") > eps
    return bad


def _short(label: str) -> str:
    """The name part of a legend label: ``Theorem 1, eq. (10)`` of ``Theorem 1, eq. (10): |a − b| / ε``."""
    return label.split(":")[0]


def _wide(values) -> bool:
    """Whether the positive values span more than :data:`_LOG_RATIO`."""
    values = np.asarray(values, dtype=float)
    values = values[values > 0]
    return bool(len(values)) and values.max() / values.min() > _LOG_RATIO


def _theta_axes(ax, frame: pd.DataFrame, methods: Sequence[str], *, legend: bool, noise: str = "laplace",
                styles: Mapping[str, int] | None = None, log: tuple[bool, bool] = (False, False)) -> None:
    """One noise family's scales against epsilon (``tight`` dashed), zeros as triangles on the axis.

    Methods whose scales coincide at every epsilon (or lie within 0.1 % of each other) are all drawn
    (the later ones narrower, dashed, their markers between the earlier ones') and each later
    one's label says which it equals (=) or nearly equals (≈).
    ``log`` puts x and y on log axes; there a scale of 0 is a triangle on the floor, and a method
    that is 0 at every epsilon is its row of triangles (its label says so)."""
    from pufferfish.plotting import log_axis, readable_log_ticks

    curves = {m: frame[frame.method == m] for m in [m for m in methods if m != "tight"] + ["tight"]
              if (frame.method == m).any()}
    same = coinciding({m: (sub.epsilon, sub.theta) for m, sub in curves.items()})
    first = {m: same[m][0] if m in same else m for m in curves}
    groups = {m: [n for n in curves if first[n] == first[m]] for m in curves}
    zeros = []
    for k, (method, sub) in enumerate(curves.items()):
        group = groups[method]
        label = words(method_label(method)) if method != "tight" else TIGHT_STYLE["label"]
        if method in same:
            other, sign, gap = same[method]
            name = TIGHT_STYLE["label"] if other == "tight" else _short(words(method_label(other)))
            label += f" (= {name})" if sign == "=" else f" (≈ {name}, {within(gap)})"
        if method == "tight":
            style = dict(TIGHT_STYLE)
            if len(group) > 1:    # black markers of its own between the others'
                style.update(marker="x", markersize=6, markevery=(group.index(method), len(group)))
        else:
            index = styles[method] if styles is not None else k
            style = series_style(index)
            step = max(len(group), len(sub) // 12)  # at most ~12 markers, staggered between coinciding series
            style["markevery"] = (group.index(method) % step if len(group) > 1 else index % step, step)
        shown = sub[sub.theta > 0] if log[1] else sub
        if len(shown):
            ax.plot(shown.epsilon, shown.theta, **{**style, "label": label})
        zero = sub[sub.theta == 0].epsilon
        if len(zero):
            zeros.append((zero, style["color"], None if len(shown) else f"{label}: 0 at every ε (no noise needed)"))
    generic = False
    for eps, colour, own in zeros:
        if own is None and not generic:
            own, generic = "scale 0: no noise needed", True
        ax.scatter(eps, np.zeros(len(eps)), color=colour, label=own,
                   transform=ax.get_xaxis_transform() if log[1] else ax.transData, **_ZERO)
    bad = frame[violates(frame)]
    if len(bad):
        ax.scatter(bad.epsilon, bad.theta, label="misses its target (exact audit)", **_VIOLATION)
    ax.set_xlabel("privacy budget ε")
    ax.set_ylabel(f"{noise.capitalize()} scale θ")
    for which, on in zip("xy", log):
        if on:
            log_axis(ax, which)
            readable_log_ticks(ax, which)
    if not log[1]:   # a little below 0: a scale of 0 is a line above the spine, not under it
        ax.set_ylim(bottom=-0.04 * max(float(frame.theta.max()), 1e-12) if zeros else 0)
    if legend:
        legend_below(ax)


#: columns of the figure CSV (the numbers plotted, the audit of each and the noise they belong to)
FIGURE_COLUMNS = ["panel", "method", "epsilon", "theta", "epsilon_achieved", "theta_min", "noise", "delta",
                  "alpha", "std", "delta_achieved", "renyi_achieved"]


def plot_theta(theta: pd.DataFrame, *, title: str, panel_titles: Mapping[str, str], png, pdf, csv) -> None:
    """The scale against epsilon of every method and of ``tight`` (dashed), one subplot per panel.

    An experiment that mixes noise families gets one row of subplots per family (scales of
    different laws are not comparable on one axis), or, with a single panel, one subplot per
    family side by side, each with its own legend; a method keeps its colour and marker
    across rows and panels.

    Parameters
    ----------
    theta : pandas.DataFrame
        The experiment's theta table (:data:`pufferfish.multiuser.experiments.THETA_COLUMNS`).
    title : str
        The figure's title.
    panel_titles : Mapping[str, str]
        Panel -> its subplot title (the panel's name where missing).
    png, pdf, csv : path-like
        The figure files and the CSV of the numbers plotted (:data:`FIGURE_COLUMNS`).

    Returns
    -------
    None

    Raises
    ------
    OutputError
        A file that cannot be written.
    """
    from pufferfish.audit import noises as audited

    setup_style()
    theta = theta.assign(noise=noise_of(theta))
    panels = list(dict.fromkeys(theta.panel.fillna("")))
    methods = list(dict.fromkeys(theta.method))
    present = set(theta.noise)
    noises = [n for n in audited() if n in present] + sorted(present - set(audited()))
    styles = {m: k for k, m in enumerate(m for m in methods if m != "tight")}
    # one row per noise family and one column per panel; a single panel's families side by side
    side = len(panels) == 1 and len(noises) > 1
    shape = (1, len(noises)) if side else (len(noises), len(panels))
    log = (_wide(theta.epsilon), _wide(theta.theta))     # the same axes in every panel
    entries = len(methods) + 2                           # the legend below: one line each
    fig, axes = plt.subplots(*shape, figsize=(max(4.6 * shape[1], 6.5), (3.8 + 0.16 * entries) * shape[0]),
                             squeeze=False)
    for r, noise in enumerate(noises):
        for k, panel in enumerate(panels):
            ax = axes[0][r] if side else axes[r][k]
            rows = theta[(theta.panel.fillna("") == panel) & (theta.noise == noise)]
            _theta_axes(ax, rows, [m for m in methods if m in set(rows.method)],
                        legend=side or k == len(panels) - 1, noise=noise, styles=styles, log=log)
            if panel and r == 0:
                ax.set_title(f"({chr(97 + k)}) {words(panel_titles.get(panel, panel))}")
            elif side:
                ax.set_title(f"({chr(97 + r)}) {noise.capitalize()} noise")
    fig.suptitle(words(title), wrap=True)
    fig.tight_layout()
    write_csv(theta[[c for c in FIGURE_COLUMNS if c in theta.columns]], csv)
    save_figure(fig, png, pdf)


def _priors_axes(ax, priors: pd.DataFrame, secret_labels: Sequence[str]) -> None:
    """(a) the two query priors side by side, the legend above the bars (headroom on the y axis)."""
    secrets = list(dict.fromkeys(priors.secret))
    for k, (secret, shift) in enumerate(zip(secrets, (-0.2, 0.2))):
        sub = priors[priors.secret == secret]
        ax.bar(sub.value + shift, sub.probability, width=0.4, color=OKABE_ITO[1 + 4 * k],
               label=words(secret_labels[k] if k < len(secret_labels) else secret), edgecolor="black", linewidth=0.4)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(0, priors.probability.max() * 1.4)   # the top quarter holds the legend
    ax.set_xlabel("query answer x")
    ax.set_ylabel("Pr(X = x | s)")
    ax.set_title("(a) query priors")
    ax.legend(loc="upper left")


def _percent(mass: float) -> str:
    """A cell label: the mass in whole % (``16``, ``2``); none below 1 % (the colour bar says so, the
    CSV has every digit)."""
    value = 100.0 * mass
    return f"{value:.0f}" if value >= 0.995 else ""


def _plan_axes(fig, ax, plan: pd.DataFrame, secret_labels: Sequence[str], span: int):
    """(b) the plan as a heat map in % of the mass, cells with |x - x'| = span outlined, every
    cell inside the axes (the labels come after the layout, :func:`_plan_labels`); returns the image."""
    from matplotlib.ticker import MaxNLocator

    lo = int(min(plan.x.min(), plan.x_prime.min()))
    hi = int(max(plan.x.max(), plan.x_prime.max()))
    size = hi - lo + 1
    matrix = np.full((size, size), np.nan)
    matrix[plan.x_prime - lo, plan.x - lo] = 100.0 * plan.mass
    image = ax.imshow(matrix, origin="lower", cmap="viridis", extent=(lo - 0.5, hi + 0.5, lo - 0.5, hi + 0.5),
                      interpolation="nearest", aspect="equal")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="π*(x, x′) in % (cells under 1 %: no label)")
    ax.plot([lo - 0.5, hi + 0.5], [lo - 0.5, hi + 0.5], color="0.25", linewidth=0.8, linestyle=":")
    far = plan[np.abs(plan.x - plan.x_prime) == span]
    for x, xp in zip(far.x, far.x_prime):
        ax.add_patch(plt.Rectangle((x - 0.5, xp - 0.5), 1, 1, fill=False, edgecolor=LINE_COLOURS[6], linewidth=2))
    ax.set_xlim(lo - 1, hi + 1)     # a margin: the outlines of the edge cells are not clipped
    ax.set_ylim(lo - 1, hi + 1)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(False)
    ax.set_xlabel(words(f"x under {secret_labels[0]}"))
    ax.set_ylabel(words(f"x′ under {secret_labels[1]}"))
    ax.set_title(f"(b) π*; sup |x − x′| over supp(π*) = {span} (outlined)")
    return image


def _plan_labels(fig, ax, plan: pd.DataFrame, image) -> None:
    """Each cell's mass in whole % (:func:`_percent`), at the largest font size from 7 to 9 pt at which
    the widest label (its glyphs measured) takes at most 3/4 of its cell once the figure is laid out,
    so that labels of neighbouring cells stay apart (none if 7 pt does not fit: the colour bar and the
    CSV have them), black or white, whichever contrasts more with the cell."""
    from matplotlib.textpath import TextPath

    from pufferfish.figure_check import contrast_ratio

    labels = [_percent(m) for m in plan.mass]
    if not any(labels):
        return
    ax.apply_aspect()   # the axes' box as drawn (equal aspect)
    lo, hi = ax.get_xlim()
    cell = ax.get_window_extent().width * 72.0 / fig.dpi / (hi - lo)    # points per lattice step
    widest = max(TextPath((0, 0), text, size=1.0).get_extents().width for text in labels if text)   # em
    fontsize = min(9.0, 0.75 * cell / widest)
    if fontsize < 7.0:
        return
    for x, xp, m, text in zip(plan.x, plan.x_prime, plan.mass, labels):
        if not text:
            continue
        fill = image.cmap(image.norm(100.0 * m))
        colour = "black" if contrast_ratio("black", fill) >= contrast_ratio("white", fill) else "white"
        ax.text(x, xp, text, ha="center", va="center", fontsize=fontsize, color=colour)


def plot_plan(plan: pd.DataFrame, priors: pd.DataFrame, theta: pd.DataFrame, *, title: str,
              secret_labels: Sequence[str], png, pdf, csv) -> None:
    r"""(a) the two query priors, (b) the monotone plan :math:`\pi^*` with :math:`\sup |x - x'|` marked,
    (c) theta against epsilon (the Laplace methods).

    Parameters
    ----------
    plan : pandas.DataFrame
        ``x, x_prime, mass``: the non-zero entries of :math:`\pi^*` (eq. 6).
    priors : pandas.DataFrame
        ``secret, value, probability``: the two query priors.
    theta : pandas.DataFrame
        The experiment's theta table.
    title : str
        The figure's title.
    secret_labels : sequence of str
        The two secrets' legend and axis labels.
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
    setup_style()
    span = int(np.max(np.abs(plan.x - plan.x_prime))) if len(plan) else 0
    fig, (ax_p, ax_plan, ax_t) = plt.subplots(1, 3, figsize=(15.5, 5.4), gridspec_kw={"width_ratios": [1.0, 1.3, 1.1]})
    _priors_axes(ax_p, priors, secret_labels)
    image = _plan_axes(fig, ax_plan, plan, secret_labels, span)
    # (c) theta against epsilon: the Laplace methods (other noises are in the theta table)
    laplace = theta[noise_of(theta) == "laplace"]
    _theta_axes(ax_t, laplace, list(dict.fromkeys(laplace.method)), legend=True,
                log=(_wide(laplace.epsilon), _wide(laplace.theta)))
    others = len(laplace) < len(theta)
    ax_t.set_title("(c) calibrated θ" + (" (Laplace methods)" if others else ""))
    fig.suptitle(words(title))
    fig.tight_layout()
    _plan_labels(fig, ax_plan, plan, image)   # after the layout: the labels fit the final cells
    rows = [pd.DataFrame({"subplot": "a_priors", "series": priors.secret, "x": priors.value, "y": np.nan,
                          "value": priors.probability}),
            pd.DataFrame({"subplot": "b_plan", "series": "pi_star", "x": plan.x, "y": plan.x_prime, "value": plan.mass}),
            pd.DataFrame({"subplot": "c_theta", "series": laplace.method, "x": laplace.epsilon, "y": np.nan,
                          "value": laplace.theta})]
    write_csv(pd.concat(rows, ignore_index=True), csv)
    save_figure(fig, png, pdf)

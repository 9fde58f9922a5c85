"""Figures of paper 003's experiments (the plotted numbers in a CSV beside each PNG/PDF).

* :func:`plot_delta` -- (a) the exact δ(ε) of each mechanism at one ε_A, (b) the tupling
  mechanism's certified δ(ε) at the largest k, each on its own log axis (no panel (b) where every
  such δ is 0: its series are rows of (a)'s strip);
* :func:`plot_loss` -- the service loss of each family's calibrated parameter against the
  target ε at the configured δ (log axis where the losses span decades);
* :func:`plot_dummies` -- the tupling mechanism's certified δ against k at one ε, colour =
  ε_A, line style = ν, one panel per base mechanism;
* :func:`plot_bound` -- the introduction's bound ε_A W∞(λ₀, λ₁) (RR: ε_A) against the exact pure ε.

A value of 0 cannot sit on a log axis: it is its series' marker in a row of a strip under the
panel (``δ = 0``, ``loss 0``), the row named on its left. A tupling δ whose certified interval is [0, a
Chernoff bound] is drawn at the bound as an open triangle (δ is at most there), apart from the
δ whose interval is tight (filled circles); the legend says which is which, and the figures'
CSVs print each interval. Colours: Okabe-Ito hues with at least 3:1 contrast on white
(:data:`pufferfish.plotting.LINE_COLOURS`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["FIGURES", "LABELS", "plot_delta", "plot_loss", "plot_dummies", "plot_bound"]

#: the figures of a case, ``results/figures/distp/<case>_<figure>.{png,pdf,csv}``
FIGURES = ("delta", "loss", "dummies", "bound")
#: legend text of each mechanism
LABELS = {"rr": "randomized response", "geometric": "geometric (clamped)", "laplace": "Laplace noise",
          "gaussian": "Gaussian noise", "tupling_rr": "tupling over RR", "tupling_geometric": "tupling over geometric"}
_ORDER = list(LABELS)
#: the series colours (:data:`pufferfish.plotting.LINE_COLOURS` without black and the darkened yellow)
_COLOURS = ["#BD8300", "#1D96DB", "#009E73", "#0072B2", "#D55E00", "#CC79A7"]
#: the colours of the dummies figure's ε_A, neighbours far apart in every channel (blue after green would
#: differ by less than a quarter of the range in each: a curve on the other's would not show)
_EPS_COLOURS = [_COLOURS[i] for i in (0, 1, 2, 5, 4, 3)]
#: the mechanism's epsilon, rendered (mathtext: Unicode has no subscript A)
_EPS_A = r"$\varepsilon_A$"


#: a certified delta at most the smallest subnormal (2^-1074) is drawn as 0: the truth is 0 or below the float
#: range (a certified value of a true 0 may be 2^-1074, docs/math/audits.md)
_ZERO = math.ulp(0.0)

def _colour(mechanism: str) -> str:
    return _COLOURS[_ORDER.index(mechanism) % len(_COLOURS)]


def _interval(lower, upper) -> list[str]:
    """Each certified interval as text, ``[0.0, 2.884e-27]``: the lower end alone reads as a δ of 0."""
    return [f"[{float(lo)!r}, {float(hi)!r}]" for lo, hi in zip(lower, upper)]


def _figure(ncols: int, strip_rows: int, nrows: int = 1, extra: float = 0.0):
    """``nrows`` x ``ncols`` panels (row by row), each with a strip of ``strip_rows`` rows under it (none if 0),
    ``extra`` inches wider (long row names)."""
    import matplotlib.pyplot as plt

    from pufferfish.plotting import setup_style

    setup_style()
    fig = plt.figure(figsize=(5.6 * ncols + extra, (4.6 + 0.28 * strip_rows) * nrows), layout="constrained")
    if not strip_rows:
        return fig, [(ax, None) for ax in fig.subplots(nrows, ncols, squeeze=False).ravel()]
    grid = fig.add_gridspec(2 * nrows, ncols, height_ratios=[4.0, 0.3 + 0.28 * strip_rows] * nrows)
    panels = []
    for row in range(nrows):
        for col in range(ncols):
            ax = fig.add_subplot(grid[2 * row, col])
            panels.append((ax, fig.add_subplot(grid[2 * row + 1, col], sharex=ax)))
            ax.tick_params(axis="x", labelbottom=False)     # the strip's ticks read for both
    return fig, panels


def _strip(strip, rows, what: str) -> None:
    """The zeros of a panel: row k holds series k's x values at 0, in its marker and colour, named."""
    if strip is None:
        return
    if not rows:
        strip.set_axis_off()
        strip.get_shared_x_axes().get_siblings(strip)[0].tick_params(axis="x", labelbottom=True)
        return
    for k, (x, style, _) in enumerate(rows):
        strip.plot(x, np.full(len(x), float(k)), linestyle="none", **{**style, "markersize": 5})
    strip.set_ylim(len(rows) - 0.4, -0.6)
    # the names left of the strip, as its y ticks (right of it they read as a legend of the last markers)
    strip.set_yticks(range(len(rows)), [name for _, _, name in rows], fontsize=7)
    strip.tick_params(axis="y", length=0)
    strip.grid(False, axis="y")
    strip.set_ylabel(what, rotation=0, ha="right", va="center")


def _save(fig, data: pd.DataFrame, png, pdf, csv) -> None:
    from pufferfish.files import write_csv
    from pufferfish.plotting import save_figure

    save_figure(fig, png, pdf)
    write_csv(data.reset_index(drop=True), csv)


def _marks(colour: str, marker: str, filled: bool = True, size: float = 5.0) -> dict:
    return dict(color=colour, marker=marker, markersize=size, markerfacecolor=colour if filled else "white")


def _certified(ax, x, lower, upper, *, colour: str, linestyle: str, label: str, zeros: list, name: str,
               marker: str = "o", size: float = 4.0, zorder: float = 2.0, width: float = 1.5) -> None:
    """One tupling series: tight intervals as filled markers on a line, intervals [0, bound] as hollow
    ones at the bound on a dotted line, upper ends of 0 to the strip (``zeros``)."""
    x, lower, upper = (np.asarray(v, dtype=float) for v in (x, lower, upper))
    tight, bound = (lower > _ZERO) & (upper > _ZERO), (lower <= _ZERO) & (upper > _ZERO)
    if tight.any():     # markers staggered between the curves (zorder): where curves meet, each shows some
        ax.plot(x[tight], upper[tight], linestyle=linestyle, label=label, zorder=zorder, linewidth=width,
                markevery=(int(zorder) % 2, 2), **_marks(colour, marker, size=size))
        label = None
    if bound.any():     # dotted from the last tight point before them (no marker there)
        first, before = np.flatnonzero(bound)[0], np.flatnonzero(tight)
        before = before[before < first]
        keep = np.r_[before[-1:], np.flatnonzero(bound)]
        ax.plot(x[keep], upper[keep], linestyle=":", markevery=list(range(len(before[-1:]), len(keep))),
                linewidth=width,
                label=label, zorder=zorder, **_marks(colour, marker, filled=False, size=size))
    if (upper <= _ZERO).any():
        zeros.append((x[upper <= _ZERO], _marks(colour, marker, size=size), name))


def _interval_keys(frame: pd.DataFrame) -> list:
    """Key entries (colour-neutral) for the two kinds of tupling points present in ``frame``."""
    from matplotlib.lines import Line2D

    lower, upper = frame["delta"].to_numpy(dtype=float), frame["delta_upper"].to_numpy(dtype=float)
    tight, bound = (lower > _ZERO) & (upper > _ZERO), (lower <= _ZERO) & (upper > _ZERO)
    keys = []
    if tight.any():
        width = math.ceil(1000 * float(np.max(upper[tight] / lower[tight] - 1.0))) / 10
        keys.append(Line2D([], [], linestyle="-", **_marks("0.3", "o", size=4),
                           label=f"filled: certified δ (its interval within {max(width, 0.1):g} %)"))
    if bound.any():
        keys.append(Line2D([], [], linestyle=":", **_marks("0.3", "o", filled=False, size=4),
                           label="hollow, dotted: a Chernoff bound only (the interval is [0, bound]: δ is at "
                                 "most there)"))
    return keys


def _log_axes(ax, *which: str) -> None:
    """Log axes (ticks at whole powers of ten, Unicode) where the panel shows a positive value."""
    from pufferfish.plotting import log_axis, readable_log_ticks

    if any(len(line.get_xdata()) for line in ax.get_lines()):
        for axis in which:
            log_axis(ax, axis)
            readable_log_ticks(ax, axis)
    else:
        ax.text(0.5, 0.5, "no positive value to plot\n(every value is 0: the strip below)", transform=ax.transAxes,
                ha="center", va="center")


def _tupled_panel(ax, strip, groups, zeros: list, *, kmax, base_epsilon: float) -> None:
    """(b) of :func:`plot_delta`: the tupling mechanism at the largest k, one series per (base, ν);
    at a single ε (the grid's figure ε) one column per series, named on the axis."""
    epsilons = sorted({e for _, rows in groups for e in rows["epsilon"]})
    single = len(epsilons) == 1
    for k, ((mechanism, nu), rows) in enumerate(groups):
        name = f"{LABELS[mechanism]}, ν {nu}"
        x = np.full(len(rows), float(k)) if single else rows["epsilon"]
        _certified(ax, x, rows["delta"], rows["delta_upper"], colour=_colour(mechanism),
                   linestyle="-" if nu == "uniform" else "--", label=name, zeros=zeros, name=name,
                   marker="os"[k % 2], size=6)
    _log_axes(ax, "y")
    at = f" at ε = {epsilons[0]:g}" if single else ""
    ax.set_title(f"(b) tupling at k = {int(kmax)}{at}, {_EPS_A} = {base_epsilon:g}", parse_math=True)
    ax.set_ylabel("δ(ε) (certified upper end)")
    if single and strip is not None and zeros:     # one row: each series has its own column
        for x, style, _ in zeros:
            strip.plot(x, np.zeros(len(x)), linestyle="none", **{**style, "markersize": 5})
        strip.set_yticks([])
        strip.set_ylabel("δ = 0", rotation=0, ha="right", va="center")
    else:
        _strip(strip, zeros, "δ = 0")
    if single:
        names = [f"{'RR' if m == 'tupling_rr' else 'geometric'},\nν {nu}" for (m, nu), _ in groups]
        below = strip if strip is not None and strip.axison else ax
        ax.set_xlim(-0.6, len(names) - 0.4)
        below.set_xticks(range(len(names)), names, fontsize=8)
        below.set_xlabel(f"ε (DistP) = {epsilons[0]:g}")


def plot_delta(table: pd.DataFrame, *, base_epsilon: float, png, pdf, csv) -> None:
    """(a) δ against ε per mechanism at ε_A = ``base_epsilon``; (b) the tupling mechanism at the largest
    k, each ν (certified intervals); zeros in the strips under the panels."""
    from pufferfish.plotting import legend_below, math_texts

    at = table[table["base_epsilon"] == base_epsilon]
    kmax = at["dummies"].max()
    tupling = at["mechanism"].str.startswith("tupling")
    plain, tupled = at[~tupling], at[tupling & (at["dummies"] == kmax)]
    data = pd.concat([plain, tupled])[["mechanism", "dummies", "dummy_distribution", "epsilon", "delta",
                                       "delta_upper", "service_loss"]]
    data = data.assign(delta_interval=_interval(data["delta"], data["delta_upper"]))
    zeros = {"plain": [], "tupled": []}
    groups = {"plain": list(plain.groupby("mechanism", sort=False)),
              "tupled": list(tupled.groupby(["mechanism", "dummy_distribution"], sort=False))}
    # the zero rows first (the strips' heights), then the panels
    for mechanism, rows in groups["plain"]:
        zero = rows["delta_upper"].to_numpy(dtype=float) <= _ZERO
        if zero.any():
            zeros["plain"].append((rows["epsilon"].to_numpy()[zero], _marks(_colour(mechanism), "o", size=4),
                                   LABELS[mechanism]))
    merged = len(tupled) and not (tupled["delta_upper"] > _ZERO).any()
    if merged:    # no panel (b) of zeros only: its series are rows of (a)'s strip
        for k, ((mechanism, nu), rows) in enumerate(groups["tupled"]):
            zeros["plain"].append((rows["epsilon"].to_numpy(), _marks(_colour(mechanism), "os"[k % 2], size=4),
                                   f"{LABELS[mechanism]}, ν {nu} (k = {int(kmax)})"))
        tupled = tupled.iloc[:0]
    panels = [("plain", plain)] + ([("tupled", tupled)] if len(tupled) else [])
    tupled_rows = 1 if tupled["epsilon"].nunique() == 1 else len(groups["tupled"])
    height = max(len(zeros["plain"]), tupled_rows if (tupled["delta_upper"] <= _ZERO).any() else 0)
    fig, axes = _figure(len(panels), height, extra=2.0 if merged else 0.0)
    ax, strip = axes[0]
    for mechanism, rows in groups["plain"]:
        positive = rows["delta_upper"] > _ZERO
        if positive.any():
            ax.plot(rows["epsilon"][positive], rows["delta_upper"][positive], label=f"{LABELS[mechanism]} (loss "
                    f"{rows['service_loss'].iloc[0]:.3g})", **_marks(_colour(mechanism), "o", size=4))
    _log_axes(ax, "y")
    ax.set_title(f"exact δ(ε) of each mechanism (tupling: certified, k = {int(kmax)}), {_EPS_A} = {base_epsilon:g}"
                 if merged else f"(a) exact δ(ε) of each mechanism, {_EPS_A} = {base_epsilon:g}", parse_math=True)
    ax.set_ylabel("δ(ε)")
    _strip(strip, zeros["plain"], "δ = 0")
    legend_below(strip if strip is not None and strip.axison else ax, handles=ax.get_legend_handles_labels()[0])
    if len(tupled):
        _tupled_panel(*axes[1], groups["tupled"], zeros["tupled"], kmax=kmax, base_epsilon=base_epsilon)
        two_lines = {"borderaxespad": 5.8} if tupled["epsilon"].nunique() == 1 else {}   # tick labels of 2 lines
        legend_below(axes[1][1] if axes[1][1] is not None and axes[1][1].axison else axes[1][0],
                     handles=axes[1][0].get_legend_handles_labels()[0] + _interval_keys(tupled), **two_lines)
    ax, strip = axes[0]
    (strip if strip is not None and strip.axison else ax).set_xlabel("ε (DistP)")
    for ax, _ in axes:
        math_texts(ax.title)
    _save(fig, data, png, pdf, csv)


def plot_loss(calibration: pd.DataFrame, *, png, pdf, csv) -> None:
    """Service loss of each family's calibrated parameter against the target ε (met targets only); a
    loss of 0 (the data sent as they are already meet the target: ε_A = ∞) in the strip."""
    from pufferfish.plotting import coinciding, legend_below, log_axis, readable_log_ticks, within

    met = calibration[calibration["meets"].astype(bool)]
    data = met[["mechanism", "dummy_distribution", "target_epsilon", "target_delta", "base_epsilon", "dummies",
                "service_loss"]]
    series = {LABELS[m] + (f", ν {nu}" if isinstance(nu, str) and nu else ""): (m, rows, "os^Dv"[k % 5])
              for k, ((m, nu), rows) in enumerate(data.groupby(["mechanism", "dummy_distribution"], sort=False,
                                                               dropna=False))}
    positive = data["service_loss"][data["service_loss"] > 0]
    log = bool(len(positive) and positive.max() / positive.min() > 30)     # the losses span decades
    same = coinciding({label: (rows["target_epsilon"], rows["service_loss"]) for label, (_, rows, _) in series.items()},
                      decades=float(np.log10(positive.max() / positive.min())) if log else None)
    zeros = [(rows["target_epsilon"][rows["service_loss"] <= 0].to_numpy(), _marks(_colour(m), marker), label)
             for label, (m, rows, marker) in series.items() if (rows["service_loss"] <= 0).any() and label not in same]
    fig, [(ax, strip)] = _figure(1, len(zeros))
    for label, (mechanism, rows, marker) in series.items():
        if label in same:
            continue
        shown = rows[rows["service_loss"] > 0]
        text = label + "".join(f"\n{sign} {other}" + (f" ({within(gap)})" if sign != "=" else "")
                               for other, (head, sign, gap) in same.items() if head == label)
        if len(shown):
            ax.plot(shown["target_epsilon"], shown["service_loss"], linestyle="--" if "marginal" in label else "-",
                    label=text, **_marks(_colour(mechanism), marker))
    if log:
        log_axis(ax, "y")
        readable_log_ticks(ax)
    ax.set_ylabel("service loss (E|x − y| or P(y ≠ x))")
    delta = calibration["target_delta"].iloc[0] if len(calibration) else float("nan")
    ax.set_title(f"best calibrated parameter at δ = {delta:g}")
    _strip(strip, zeros, "loss 0\n(" + _EPS_A + " = ∞)")
    if strip is not None:
        strip.yaxis.label.set_parse_math(True)
    below = strip if strip is not None else ax
    below.set_xlabel("target ε")
    legend_below(below, handles=ax.get_legend_handles_labels()[0])
    _save(fig, data, png, pdf, csv)


#: tupling curves within this relative distance of each other at every k are one curve (no eye separates
#: them at any scale), and so are curves whose log10 values lie within :data:`_ONE_PIXEL` of the panel's
#: decades (about 3 pixels of a panel some 300 pixels high): drawn once, named together with the largest
#: ratio between them; curves further apart are each drawn
_ONE_CURVE = 1e-3
_ONE_PIXEL = 0.01


def _one_curve(curves) -> dict:
    """key -> (the first curve it lies on, the largest ratio between them), for curves that are 0 at the
    same points and elsewhere within a relative :data:`_ONE_CURVE` or :data:`_ONE_PIXEL` of the panel's
    decades of each other."""
    logs = {key: np.log10(np.where(np.asarray(y, dtype=float) > _ZERO, np.asarray(y, dtype=float), np.nan))
            for key, (_, y) in curves.items()}
    finite = np.concatenate([v[np.isfinite(v)] for v in logs.values()] + [np.zeros(0)])
    decades = float(np.ptp(finite)) if len(finite) else 0.0
    same, heads = {}, []
    for key, value in logs.items():
        for head in heads:
            other = logs[head]
            if value.shape == other.shape and np.array_equal(np.isfinite(value), np.isfinite(other)):
                gap = float(np.nanmax(np.abs(value - other), initial=0.0)) if np.isfinite(value).any() else 0.0
                if gap <= max(math.log10(1.0 + _ONE_CURVE), _ONE_PIXEL * decades):
                    same[key] = (head, 10.0 ** gap)
                    break
        else:
            heads.append(key)
    return same


def plot_dummies(table: pd.DataFrame, *, epsilon: float, png, pdf, csv) -> None:
    """The tupling mechanism's certified δ against k + 1 at ``epsilon``: one panel per base mechanism
    (rows) and ν (columns), colour and marker ε_A (larger markers under smaller ones: curves that
    meet all show); a δ of 0 in the strip under the panel."""
    from pufferfish.plotting import legend_below, math_texts

    rows = table[table["mechanism"].str.startswith("tupling") & (table["epsilon"] == epsilon)]
    data = rows[["mechanism", "base_epsilon", "dummy_distribution", "dummies", "epsilon", "delta", "delta_upper"]]
    data = data.assign(delta_interval=_interval(data["delta"], data["delta_upper"]))
    eps_as = sorted(rows["base_epsilon"].unique())
    nus = list(dict.fromkeys(rows["dummy_distribution"]))
    keys = [(m, nu) for m in dict.fromkeys(rows["mechanism"]) for nu in nus]
    panels = {key: list(rows[(rows["mechanism"] == key[0]) & (rows["dummy_distribution"] == key[1])]
                        .groupby("base_epsilon")) for key in keys}
    merged = {key: _one_curve({eps_a: (line["dummies"], line["delta_upper"]) for eps_a, line in groups})
              for key, groups in panels.items()}
    height = max([sum(bool((line["delta_upper"] <= _ZERO).any()) for e, line in groups if e not in merged[key])
                  for key, groups in panels.items()] + [0])
    fig, axes = _figure(max(1, len(nus)), height, nrows=max(1, len(keys) // max(1, len(nus))))
    for (ax, strip), (mechanism, nu) in zip(axes, keys):
        zeros, same = [], merged[(mechanism, nu)]
        for eps_a, line in panels[(mechanism, nu)]:
            if eps_a in same:     # drawn as the curve it lies on, named in its legend entry
                continue
            k = eps_as.index(eps_a)
            also = [(e, ratio) for e, (head, ratio) in same.items() if head == eps_a]
            name = f"{_EPS_A} = {', '.join(f'{e:g}' for e in [eps_a] + [e for e, _ in also])}"
            ratio = max([r for _, r in also], default=1.0)
            if also and (line["delta_upper"] > _ZERO).any():
                name += (" (one curve: equal)" if ratio <= 1 + 1e-9 else
                         f" (one curve: within {100 * _ONE_CURVE:g} %)" if ratio <= 1 + _ONE_CURVE else
                         f" (one curve at this scale, a few pixels apart: within a factor {ratio:.2g})")
            _certified(ax, line["dummies"] + 1, line["delta"], line["delta_upper"],
                       colour=_EPS_COLOURS[k % len(_EPS_COLOURS)], linestyle="-", label=name, zeros=zeros, name=name,
                       marker="osD^v"[k % 5],
                       size=8.0 - 1.1 * (k % 5), zorder=2 + k, width=3.0 - 0.5 * (k % 5))
        _log_axes(ax, "x", "y")
        ax.set_ylabel(f"δ(ε = {epsilon:g}) (certified upper end)")
        text = "uniform on the outputs" if nu == "uniform" else "from the released column's law"
        ax.set_title(f"{LABELS[mechanism]}, ν {nu}: dummies {text}", fontsize=9)
        _strip(strip, zeros, "δ = 0")
        below = strip if strip is not None and strip.axison else ax
        below.set_xlabel("k + 1 (dummies + the real output)")
        legend = legend_below(below, handles=ax.get_legend_handles_labels()[0] + _interval_keys(rows))
        math_texts(legend, *(strip.get_yticklabels() if strip is not None and strip.axison else []))
    _save(fig, data, png, pdf, csv)


def plot_bound(table: pd.DataFrame, *, png, pdf, csv) -> None:
    """The introduction's bound (ε_A W∞; RR: ε_A) against the exact pure ε, per ε_A; bounds (or exact
    values) that coincide between mechanisms are one line naming them all."""
    from pufferfish.plotting import coinciding, legend_below, log_axis, readable_log_ticks, within

    rows = table[table["mechanism"].isin(["rr", "geometric", "laplace"])]
    data = rows.drop_duplicates(["mechanism", "base_epsilon"])[["mechanism", "base_epsilon", "bound_epsilon",
                                                                "pure_epsilon", "w_inf"]]
    fig, [(ax, _)] = _figure(1, 0)
    values = data[["bound_epsilon", "pure_epsilon"]].to_numpy(dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    decades = float(np.log10(values.max() / values.min())) if len(values) else None    # the log y axis
    for column, what, style in (("bound_epsilon", "bound", dict(linestyle="--", marker="None")),
                                ("pure_epsilon", "exact pure ε", dict(linestyle="-", marker="o", markersize=5))):
        curves = {m: (line["base_epsilon"], line[column]) for m, line in data.groupby("mechanism", sort=False)}
        same = coinciding(curves, decades=decades)
        for mechanism, (x, y) in curves.items():
            if mechanism in same:
                continue
            label = f"{LABELS[mechanism]}: {what}" + "".join(
                f" {sign} {LABELS[other]}'s" + (f" ({within(gap)})" if sign != "=" else "")
                for other, (head, sign, gap) in same.items() if head == mechanism)
            ax.plot(x, y, color=_colour(mechanism), label=label, **style)
    for which in "xy":
        log_axis(ax, which)
        readable_log_ticks(ax, which)
    ax.set_xlabel(f"{_EPS_A} (mechanism)", parse_math=True)
    ax.set_ylabel("pure DistP ε")
    ax.set_title(f"{_EPS_A} W∞(λ₀, λ₁) (RR: {_EPS_A}) against the exact pure ε", parse_math=True)
    legend_below(ax)
    _save(fig, data, png, pdf, csv)

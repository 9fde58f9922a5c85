"""Figures of paper 003's experiments (the plotted numbers in a CSV beside each PNG/PDF).

* :func:`plot_delta` -- delta(eps) of each mechanism at one eps_A (log y), the tupling
  mechanism at the largest k as markers;
* :func:`plot_loss` -- the service loss of each family's calibrated parameter against the
  target eps at the configured delta;
* :func:`plot_dummies` -- the tupling mechanism's delta (certified upper end) against k at
  one eps, colour = eps_A, line style = nu, one panel per base mechanism;
* :func:`plot_bound` -- the introduction's bound eps_A W_inf (RR: eps_A) against the exact pure eps.

Okabe-Ito colours (:data:`pufferfish.plotting.OKABE_ITO`); a value of 0 cannot sit on a log
axis and is left out of the line (the CSV keeps it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["FIGURES", "LABELS", "plot_delta", "plot_loss", "plot_dummies", "plot_bound"]

#: the figures of a case, ``results/figures/distp/<case>_<figure>.{png,pdf,csv}``
FIGURES = ("delta", "loss", "dummies", "bound")
#: legend text of each mechanism
LABELS = {"rr": "randomized response", "geometric": "geometric (clamped)", "laplace": "Laplace noise",
          "gaussian": "Gaussian noise", "tupling_rr": "tupling over RR", "tupling_geometric": "tupling over geometric"}
_ORDER = list(LABELS)


#: Okabe-Ito colours without black and yellow (too pale for lines on white)
_COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7"]


def _colour(mechanism: str) -> str:
    return _COLOURS[_ORDER.index(mechanism) % len(_COLOURS)]


def _log(ax, *which: str) -> None:
    """Log axes where the panel has a positive value to show; a panel with none (every delta 0 on
    a small table) stays linear and says so, instead of a log axis matplotlib cannot draw."""
    from pufferfish.plotting import log_axis

    def positive(axis: str) -> bool:
        return any(np.any(np.asarray(line.get_xdata() if axis == "x" else line.get_ydata(), dtype=float) > 0)
                   for line in ax.get_lines())

    if not all(positive(axis) for axis in which):
        ax.text(0.5, 0.5, "no positive value to plot\n(every δ is 0 here)", transform=ax.transAxes,
                ha="center", va="center")
        return
    for axis in which:
        log_axis(ax, axis)


def _figure(ncols: int = 1):
    import matplotlib.pyplot as plt

    from pufferfish.plotting import setup_style

    setup_style()
    fig, axes = plt.subplots(1, ncols, figsize=(5.2 * ncols, 3.8), squeeze=False, layout="constrained")
    return fig, list(axes[0])


def _save(fig, data: pd.DataFrame, png, pdf, csv) -> None:
    from pufferfish.files import write_csv
    from pufferfish.plotting import save_figure

    save_figure(fig, png, pdf)
    write_csv(data.reset_index(drop=True), csv)


#: the lowest delta the figures draw: a delta below it (0 included) is an open triangle on this floor
#: (the CSV beside the figure keeps every exact value); tupling's deltas reach 1e-170 and would
#: squeeze every other curve into the top of the axis
DELTA_FLOOR = 1e-30


def _draw(ax, x, y, *, color: str, label: str, **style) -> bool:
    """Plot ``y`` against ``x``, the points below :data:`DELTA_FLOOR` as open triangles on it;
    True if there were any."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = y >= DELTA_FLOOR
    ax.plot(x[keep], y[keep], color=color, label=label, **style)
    if keep.all():
        return False
    ax.plot(x[~keep], np.full(int((~keep).sum()), DELTA_FLOOR), linestyle="none", marker="v", color=color,
            markerfacecolor="white", markersize=5)
    return True


def _floor_note(ax, below: bool) -> None:
    if below:     # a legend entry of its own (the panel's legend is drawn after)
        ax.set_ylim(bottom=DELTA_FLOOR / 10)
        ax.plot([], [], linestyle="none", marker="v", color="0.35", markerfacecolor="white", markersize=5,
                label="δ below 10⁻³⁰ or 0 (exact: the CSV)")


def plot_delta(table: pd.DataFrame, *, base_epsilon: float, png, pdf, csv) -> None:
    """delta against eps per mechanism at eps_A = ``base_epsilon`` (tupling: largest k, each nu)."""
    at = table[table["base_epsilon"] == base_epsilon]
    kmax = at["dummies"].max()
    plain = at[~at["mechanism"].str.startswith("tupling")]
    tupled = at[at["mechanism"].str.startswith("tupling") & (at["dummies"] == kmax)]
    data = pd.concat([plain, tupled])[["mechanism", "dummies", "dummy_distribution", "epsilon", "delta",
                                       "delta_upper", "service_loss"]]
    fig, (ax,) = _figure()
    below = False
    for mechanism, rows in plain.groupby("mechanism", sort=False):
        below |= _draw(ax, rows["epsilon"], rows["delta_upper"], color=_colour(mechanism), marker="o", markersize=3,
                       label=f"{LABELS[mechanism]} (loss {rows['service_loss'].iloc[0]:.3g})")
    for (mechanism, nu), rows in tupled.groupby(["mechanism", "dummy_distribution"], sort=False):
        below |= _draw(ax, rows["epsilon"], rows["delta_upper"], color=_colour(mechanism), linestyle="none",
                       marker="s" if nu == "uniform" else "D", markerfacecolor="white",
                       label=f"{LABELS[mechanism]}, k = {int(kmax)}, ν {nu}")
    _log(ax, "y")
    _floor_note(ax, below)
    ax.set_xlabel("ε (DistP)")
    ax.set_ylabel("δ(ε) (exact; tupling: certified upper end)")
    ax.set_title(f"ε_A = {base_epsilon:g} (Laplace, Gaussian: scale 1/ε_A)")
    ax.legend(loc="best")
    _save(fig, data, png, pdf, csv)


def plot_loss(calibration: pd.DataFrame, *, png, pdf, csv) -> None:
    """Service loss of each family's calibrated parameter against the target eps (met targets only)."""
    met = calibration[calibration["meets"].astype(bool) & np.isfinite(calibration["parameter"].astype(float))]
    data = met[["mechanism", "dummy_distribution", "target_epsilon", "target_delta", "base_epsilon", "dummies",
                "service_loss"]]
    fig, (ax,) = _figure()
    for (mechanism, nu), rows in data.groupby(["mechanism", "dummy_distribution"], sort=False):
        label = LABELS[mechanism] + (f", ν {nu}" if nu else "")
        ax.plot(rows["target_epsilon"], rows["service_loss"], color=_colour(mechanism), marker="o",
                linestyle="--" if nu == "marginal" else "-", label=label)
    ax.set_xlabel("target ε")
    ax.set_ylabel("service loss (E|x − y| or P(y ≠ x))")
    delta = calibration["target_delta"].iloc[0] if len(calibration) else float("nan")
    ax.set_title(f"best calibrated parameter at δ = {delta:g}")
    ax.legend(loc="best")
    _save(fig, data, png, pdf, csv)


def plot_dummies(table: pd.DataFrame, *, epsilon: float, png, pdf, csv) -> None:
    """The tupling mechanism's delta_upper against k at ``epsilon``: colour eps_A, style nu, one panel per base."""
    rows = table[table["mechanism"].str.startswith("tupling") & (table["epsilon"] == epsilon)]
    data = rows[["mechanism", "base_epsilon", "dummy_distribution", "dummies", "epsilon", "delta", "delta_upper"]]
    mechanisms = list(dict.fromkeys(rows["mechanism"]))
    fig, axes = _figure(max(1, len(mechanisms)))
    colours = _COLOURS
    for ax, mechanism in zip(axes, mechanisms):
        below = False
        for (eps_a, nu), line in rows[rows["mechanism"] == mechanism].groupby(["base_epsilon", "dummy_distribution"]):
            k = sorted(rows["base_epsilon"].unique()).index(eps_a)
            below |= _draw(ax, line["dummies"] + 1, line["delta_upper"], color=colours[k % len(colours)], marker="o",
                           markersize=3, linestyle="-" if nu == "uniform" else "--", label=f"ε_A = {eps_a:g}, ν {nu}")
        _log(ax, "x", "y")
        _floor_note(ax, below)
        ax.set_xlabel("k + 1 (dummies + the real output)")
        ax.set_ylabel(f"δ(ε = {epsilon:g})")
        ax.set_title(LABELS[mechanism])
        ax.legend(loc="best", fontsize=6)
    _save(fig, data, png, pdf, csv)


def plot_bound(table: pd.DataFrame, *, png, pdf, csv) -> None:
    """The introduction's bound (eps_A W_inf; RR: eps_A) against the exact pure eps, per eps_A."""
    rows = table[table["mechanism"].isin(["rr", "geometric", "laplace"])]
    data = rows.drop_duplicates(["mechanism", "base_epsilon"])[["mechanism", "base_epsilon", "bound_epsilon",
                                                                "pure_epsilon", "w_inf"]]
    fig, (ax,) = _figure()
    for mechanism, line in data.groupby("mechanism", sort=False):
        ax.plot(line["base_epsilon"], line["bound_epsilon"], color=_colour(mechanism), linestyle="--",
                label=f"{LABELS[mechanism]}: bound")
        ax.plot(line["base_epsilon"], line["pure_epsilon"], color=_colour(mechanism), marker="o",
                label=f"{LABELS[mechanism]}: exact pure ε")
    _log(ax, "x", "y")
    ax.set_xlabel("ε_A (mechanism)")
    ax.set_ylabel("pure DistP ε")
    ax.set_title("ε_A W∞(λ₀, λ₁) (RR: ε_A) against the exact pure ε")
    ax.legend(loc="best", fontsize=7)
    _save(fig, data, png, pdf, csv)

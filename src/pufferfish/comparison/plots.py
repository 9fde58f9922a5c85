"""The figure of one pair of the noise comparison: noise standard deviation per mechanism against epsilon.

Left panel: Laplace and Gaussian mechanisms for (epsilon, delta)-PP (log y axis; the
standard deviation: sqrt(2) b for Laplace, sigma for Gaussian). Right panel: Cauchy
mechanisms for (alpha, epsilon)-RPP (the scale gamma; Cauchy has no standard deviation).
A scale of 0 (the priors meet the target without noise) cannot sit on a log axis: it is
drawn as a downward triangle on the panel's floor, labelled, never dropped.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pufferfish.comparison.compare import CAUCHY_METHODS, GAUSSIAN_METHODS, LAPLACE_METHODS, PAPER000_BEST

__all__ = ["plot_pair", "LABELS"]

#: legend text of each row of the comparison
LABELS = {
    PAPER000_BEST: "Laplace: best of paper 000 (ε-PP)",
    "gwm_laplace": "Laplace: GWM W∞ / ε (ε-PP)",
    "gawm_laplace": "Laplace: GAWM Δ_δ / ε",
    "tight_laplace_delta": "Laplace: tight (ε, δ)",
    "tight": "Laplace: tight ε-PP",
    "gwm_gaussian_rdp": "Gaussian: GWM via RDP",
    "gwm_gaussian_analytic": "Gaussian: GWM analytic",
    "tight_gaussian": "Gaussian: tight (ε, δ)",
    "dagwm_cauchy": "Cauchy: DAGWM W₂ / √(2 (exp ε − 1))",
    "tight_cauchy": "Cauchy: tight RPP",
}


_TIGHT_VARIANTS = {
    "tight": dict(marker="o", linestyle="--"),
    "tight_laplace_delta": dict(marker="D", linestyle="--"),
    "tight_gaussian": dict(marker="s", linestyle=":"),
    "tight_cauchy": dict(marker="s", linestyle=":"),
}


def _draw(ax, frame: pd.DataFrame, methods, column: str) -> list:
    from pufferfish.plotting import TIGHT_STYLE, series_style

    zeros = []
    k = 0
    for method in methods:
        sub = frame[frame.method == method]
        if not len(sub):
            continue
        values = sub[column].to_numpy(dtype=float)
        positive = values > 0
        if method.startswith("tight"):
            # the exact smallest scales: black, one dash and marker per noise/guarantee
            style = dict(TIGHT_STYLE)
            style.update(label=LABELS[method], markersize=5, markerfacecolor="white",
                         **_TIGHT_VARIANTS[method])
        else:
            style = series_style(k)
            style["label"] = LABELS[method]
            k += 1
        ax.plot(sub.epsilon[positive], values[positive], **style)
        if (~positive).any():
            zeros.append((sub.epsilon[~positive].to_numpy(), style.get("color", "#000000")))
    return zeros


def _floor_marks(ax, zeros) -> None:
    if not zeros:
        return
    lo = ax.get_ylim()[0]
    for k, (eps, colour) in enumerate(zeros):
        ax.scatter(eps, np.full(eps.size, lo), marker="v", s=45, color=colour, edgecolors="black", linewidths=0.6,
                   zorder=12, clip_on=False, label="scale 0: no noise needed" if k == 0 else None)


def plot_pair(frame: pd.DataFrame, *, title: str, png, pdf, csv) -> None:
    """The two panels of one pair (module docstring); the rows plotted go to ``csv``."""
    import matplotlib.pyplot as plt

    from pufferfish.files import write_csv
    from pufferfish.plotting import log_axis, save_figure, setup_style

    setup_style()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 5.6), gridspec_kw={"width_ratios": [1.45, 1]})
    delta = frame.loc[frame.noise != "cauchy", "delta"].dropna()
    alpha = frame.loc[frame.noise == "cauchy", "alpha"].dropna()
    zl = _draw(left, frame, LAPLACE_METHODS + GAUSSIAN_METHODS, "std")
    zr = _draw(right, frame, CAUCHY_METHODS, "scale")
    for ax in (left, right):
        log_axis(ax, "y")
        ax.set_xlabel("privacy budget ε")
    if len(delta):
        left.set_title(f"(ε, δ)-PP, δ = {delta.iloc[0]:g}: Laplace and Gaussian noise")
    right.set_title(f"(α, ε)-Renyi PP, α = {alpha.iloc[0]:g}: Cauchy noise" if len(alpha)
                    else "Cauchy noise")
    left.set_ylabel("noise standard deviation (√2 b Laplace, σ Gaussian)")
    right.set_ylabel("Cauchy scale γ")
    _floor_marks(left, zl)
    _floor_marks(right, zr)
    # legends below the panels: the curves span the whole plotting area
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=7.5, frameon=False)
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, fontsize=7.5, frameon=False)
    fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, png, pdf)
    plt.close(fig)
    write_csv(frame, csv)


def _fmt(value: float) -> str:
    return "0" if value == 0 else (f"{value:.3g}" if math.isfinite(value) else str(value))

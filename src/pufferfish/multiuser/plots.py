"""Figures of the multi-user paper: theta against epsilon, and the transport plan pi*."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from pufferfish.pipeline.io import write_csv
from pufferfish.pipeline.plotting import OKABE_ITO, TIGHT_STYLE, save_figure, series_style, setup_style

__all__ = ["method_label", "plot_theta", "plot_plan"]

def method_label(name: str) -> str:
    """Legend text of a method: its registry label (the result and equation it implements)."""
    from pufferfish.registry import methods

    record = methods().get(name)
    return record.label if record is not None else name


_VIOLATION = dict(marker="x", color=OKABE_ITO[6], s=60, linewidths=2, zorder=5)


def _theta_axes(ax, frame: pd.DataFrame, methods: Sequence[str], *, legend: bool) -> None:
    for k, method in enumerate([m for m in methods if m != "tight"]):
        sub = frame[frame.method == method]
        step = max(1, len(sub) // 12)  # at most ~12 markers per series, staggered between series
        ax.plot(sub.epsilon, sub.theta, label=method_label(method), markevery=(k % step, step),
                **series_style(k))
    tight = frame[frame.method == "tight"]
    if len(tight):
        ax.plot(tight.epsilon, tight.theta, **TIGHT_STYLE)
    bad = frame[frame.epsilon_achieved > frame.epsilon * (1 + 1e-9)]
    if len(bad):
        ax.scatter(bad.epsilon, bad.theta, label="violates its epsilon (exact audit)", **_VIOLATION)
    ax.set_xlabel(r"privacy budget $\epsilon$")
    ax.set_ylabel(r"Laplace scale $\theta$")
    ax.set_ylim(bottom=0)
    if legend:
        ax.legend(loc="upper right", frameon=True)


def plot_theta(theta: pd.DataFrame, *, title: str, panel_titles: Mapping[str, str], png, pdf, csv) -> None:
    """theta(epsilon) of every method and of ``tight`` (dashed), one subplot per panel."""
    setup_style()
    panels = list(dict.fromkeys(theta.panel.fillna("")))
    methods = list(dict.fromkeys(theta.method))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.8), squeeze=False)
    for k, (ax, panel) in enumerate(zip(axes[0], panels)):
        _theta_axes(ax, theta[theta.panel.fillna("") == panel], methods, legend=(k == len(panels) - 1))
        if panel:
            ax.set_title(f"({chr(97 + k)}) {panel_titles.get(panel, panel)}")
    fig.suptitle(title)
    fig.tight_layout()
    write_csv(theta[["panel", "method", "epsilon", "theta", "epsilon_achieved", "theta_min"]], csv)
    save_figure(fig, png, pdf)


def plot_plan(plan: pd.DataFrame, priors: pd.DataFrame, theta: pd.DataFrame, *, title: str,
              secret_labels: Sequence[str], png, pdf, csv) -> None:
    """(a) the two query priors, (b) the monotone plan pi* with sup |x - x'| marked, (c) theta(epsilon)."""
    setup_style()
    span = int(np.max(np.abs(plan.x - plan.x_prime))) if len(plan) else 0
    lo = int(min(plan.x.min(), plan.x_prime.min()))
    hi = int(max(plan.x.max(), plan.x_prime.max()))
    fig, (ax_p, ax_plan, ax_t) = plt.subplots(1, 3, figsize=(14.5, 4.2), gridspec_kw={"width_ratios": [1.1, 1.1, 1.2]})

    # (a) priors
    secrets = list(dict.fromkeys(priors.secret))
    for k, (secret, shift) in enumerate(zip(secrets, (-0.2, 0.2))):
        sub = priors[priors.secret == secret]
        ax_p.bar(sub.value + shift, sub.probability, width=0.4, color=OKABE_ITO[1 + 4 * k],
                 label=secret_labels[k] if k < len(secret_labels) else secret, edgecolor="black", linewidth=0.4)
    ax_p.xaxis.get_major_locator().set_params(integer=True)
    ax_p.set_xlabel("query answer $x$")
    ax_p.set_ylabel(r"$P_{X|S}(x\,|\,s)$")
    ax_p.set_title("(a) query priors")
    ax_p.legend(loc="upper left")

    # (b) plan as a heat map, cells with |x - x'| = span outlined
    size = hi - lo + 1
    matrix = np.full((size, size), np.nan)
    matrix[plan.x_prime - lo, plan.x - lo] = plan.mass
    image = ax_plan.imshow(matrix, origin="lower", cmap="viridis", extent=(lo - 0.5, hi + 0.5, lo - 0.5, hi + 0.5),
                           interpolation="nearest", aspect="equal")
    fig.colorbar(image, ax=ax_plan, fraction=0.046, pad=0.04, label=r"$\pi^*(x, x')$")
    ax_plan.plot([lo - 0.5, hi + 0.5], [lo - 0.5, hi + 0.5], color="white", linewidth=0.8, linestyle=":")
    far = plan[np.abs(plan.x - plan.x_prime) == span]
    for x, xp in zip(far.x, far.x_prime):
        ax_plan.add_patch(plt.Rectangle((x - 0.5, xp - 0.5), 1, 1, fill=False, edgecolor=OKABE_ITO[6], linewidth=2))
    if size <= 14:
        for x, xp, m in zip(plan.x, plan.x_prime, plan.mass):
            ax_plan.text(x, xp, f"{m:.3g}", ha="center", va="center", fontsize=6,
                         color="white" if m < 0.6 * plan.mass.max() else "black")
    ax_plan.grid(False)
    ax_plan.set_xlabel(f"$x$ under {secret_labels[0]}")
    ax_plan.set_ylabel(f"$x'$ under {secret_labels[1]}")
    ax_plan.set_title(rf"(b) $\pi^*$; $\sup\,|x-x'|$ over supp($\pi^*$) = {span} (outlined)")

    # (c) theta against epsilon
    _theta_axes(ax_t, theta, list(dict.fromkeys(theta.method)), legend=True)
    ax_t.set_title(r"(c) calibrated $\theta$")
    fig.suptitle(title)
    fig.tight_layout()
    rows = [pd.DataFrame({"subplot": "a_priors", "series": priors.secret, "x": priors.value, "y": np.nan,
                          "value": priors.probability}),
            pd.DataFrame({"subplot": "b_plan", "series": "pi_star", "x": plan.x, "y": plan.x_prime, "value": plan.mass}),
            pd.DataFrame({"subplot": "c_theta", "series": theta.method, "x": theta.epsilon, "y": np.nan,
                          "value": theta.theta})]
    write_csv(pd.concat(rows, ignore_index=True), csv)
    save_figure(fig, png, pdf)

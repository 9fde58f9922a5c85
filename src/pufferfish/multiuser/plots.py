"""Figures of the multi-user paper: theta against epsilon, and the transport plan pi*."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from pufferfish.files import write_csv
from pufferfish.plotting import OKABE_ITO, TIGHT_STYLE, save_figure, series_style, setup_style

__all__ = ["method_label", "plot_theta", "plot_plan"]

def method_label(name: str) -> str:
    """Legend text of a method: its registry label (the result and equation it implements)."""
    from pufferfish.registry import methods

    record = methods().get(name)
    return record.label if record is not None else name


_VIOLATION = dict(marker="x", color=OKABE_ITO[6], s=60, linewidths=2, zorder=5)

#: noise families in the order their rows are drawn, with the y-axis label of their scale
NOISE_AXES = {"laplace": "Laplace scale θ", "gaussian": "Gaussian scale σ",
              "cauchy": "Cauchy scale γ"}
#: the relative slack of the audit (config audit.rtol's default) before a marker is drawn
_RTOL = 1e-9


def noise_of(frame: pd.DataFrame) -> pd.Series:
    """The ``noise`` column of a theta table (``laplace`` for tables written before it existed)."""
    if "noise" in frame.columns:
        return frame["noise"].fillna("laplace").astype(str)
    return pd.Series("laplace", index=frame.index)


def violates(frame: pd.DataFrame) -> pd.Series:
    """Rows whose scale misses its own target by the exact audit: epsilon_achieved > epsilon
    (pure epsilon), delta_achieved > delta ((epsilon, delta)) or renyi_achieved > epsilon
    (D_alpha), each with a relative slack of 1e-9. A row is checked only against its guarantee."""
    def column(name):
        return frame[name].astype(float) if name in frame.columns else pd.Series(np.nan, index=frame.index)
    eps, delta = frame["epsilon"].astype(float), column("delta")
    bad = column("epsilon_achieved") > eps * (1 + _RTOL)
    bad |= column("delta_achieved") > delta * (1 + _RTOL)
    bad |= column("renyi_achieved") > eps * (1 + _RTOL)
    return bad


def _theta_axes(ax, frame: pd.DataFrame, methods: Sequence[str], *, legend: bool, noise: str = "laplace",
                styles: Mapping[str, int] | None = None) -> None:
    """One noise family's scales against epsilon (``tight`` dashed on the Laplace axes)."""
    series = [m for m in methods if m != "tight"]
    for k, method in enumerate(series):
        sub = frame[frame.method == method]
        step = max(1, len(sub) // 12)  # at most ~12 markers per series, staggered between series
        style = styles[method] if styles is not None else k
        ax.plot(sub.epsilon, sub.theta, label=method_label(method), markevery=(style % step, step),
                **series_style(style))
    tight = frame[frame.method == "tight"]
    if len(tight):
        ax.plot(tight.epsilon, tight.theta, **TIGHT_STYLE)
    bad = frame[violates(frame)]
    if len(bad):
        ax.scatter(bad.epsilon, bad.theta, label="misses its target (exact audit)", **_VIOLATION)
    ax.set_xlabel("privacy budget ε")
    ax.set_ylabel(NOISE_AXES.get(noise, f"{noise} scale"))
    ax.set_ylim(bottom=0)
    if legend:
        ax.legend(loc="upper right", frameon=True)


#: columns of the figure CSV (the numbers plotted, the audit of each and the noise they belong to)
FIGURE_COLUMNS = ["panel", "method", "epsilon", "theta", "epsilon_achieved", "theta_min", "noise", "delta",
                  "alpha", "std", "delta_achieved", "renyi_achieved"]


def plot_theta(theta: pd.DataFrame, *, title: str, panel_titles: Mapping[str, str], png, pdf, csv) -> None:
    """The scale against epsilon of every method and of ``tight`` (dashed), one subplot per panel.

    An experiment that mixes noise families gets one row of subplots per family (Laplace b,
    Gaussian sigma, Cauchy gamma: scales of different laws are not comparable on one axis),
    or, with a single panel, one subplot per family side by side, each with its own legend;
    a method keeps its colour and marker across rows and panels.
    """
    setup_style()
    theta = theta.assign(noise=noise_of(theta))
    panels = list(dict.fromkeys(theta.panel.fillna("")))
    methods = list(dict.fromkeys(theta.method))
    noises = [n for n in NOISE_AXES if n in set(theta.noise)] + sorted(set(theta.noise) - set(NOISE_AXES))
    styles = {m: k for k, m in enumerate(m for m in methods if m != "tight")}
    # one row per noise family and one column per panel; a single panel's families side by side
    side = len(panels) == 1 and len(noises) > 1
    shape = (1, len(noises)) if side else (len(noises), len(panels))
    fig, axes = plt.subplots(*shape, figsize=(4.6 * shape[1], 3.8 * shape[0]), squeeze=False)
    for r, noise in enumerate(noises):
        for k, panel in enumerate(panels):
            ax = axes[0][r] if side else axes[r][k]
            rows = theta[(theta.panel.fillna("") == panel) & (theta.noise == noise)]
            _theta_axes(ax, rows, [m for m in methods if m in set(rows.method)],
                        legend=side or k == len(panels) - 1, noise=noise, styles=styles)
            if panel and r == 0:
                ax.set_title(f"({chr(97 + k)}) {panel_titles.get(panel, panel)}")
            elif side:
                ax.set_title(f"({chr(97 + r)}) {noise.capitalize()} noise")
    fig.suptitle(title)
    fig.tight_layout()
    write_csv(theta[[c for c in FIGURE_COLUMNS if c in theta.columns]], csv)
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
    ax_p.set_xlabel("query answer x")
    ax_p.set_ylabel("Pr(X = x | s)")
    ax_p.set_title("(a) query priors")
    ax_p.legend(loc="upper left")

    # (b) plan as a heat map, cells with |x - x'| = span outlined
    size = hi - lo + 1
    matrix = np.full((size, size), np.nan)
    matrix[plan.x_prime - lo, plan.x - lo] = plan.mass
    image = ax_plan.imshow(matrix, origin="lower", cmap="viridis", extent=(lo - 0.5, hi + 0.5, lo - 0.5, hi + 0.5),
                           interpolation="nearest", aspect="equal")
    fig.colorbar(image, ax=ax_plan, fraction=0.046, pad=0.04, label="π*(x, x′)")
    ax_plan.plot([lo - 0.5, hi + 0.5], [lo - 0.5, hi + 0.5], color="white", linewidth=0.8, linestyle=":")
    far = plan[np.abs(plan.x - plan.x_prime) == span]
    for x, xp in zip(far.x, far.x_prime):
        ax_plan.add_patch(plt.Rectangle((x - 0.5, xp - 0.5), 1, 1, fill=False, edgecolor=OKABE_ITO[6], linewidth=2))
    if size <= 14:
        for x, xp, m in zip(plan.x, plan.x_prime, plan.mass):
            ax_plan.text(x, xp, f"{m:.3g}", ha="center", va="center", fontsize=6,
                         color="white" if m < 0.6 * plan.mass.max() else "black")
    ax_plan.grid(False)
    ax_plan.set_xlabel(f"x under {secret_labels[0]}")
    ax_plan.set_ylabel(f"x′ under {secret_labels[1]}")
    ax_plan.set_title(f"(b) π*; sup |x − x′| over supp(π*) = {span} (outlined)")

    # (c) theta against epsilon: the Laplace methods (other noises are in the theta table)
    laplace = theta[noise_of(theta) == "laplace"]
    _theta_axes(ax_t, laplace, list(dict.fromkeys(laplace.method)), legend=True)
    others = len(laplace) < len(theta)
    ax_t.set_title("(c) calibrated θ" + (" (Laplace methods)" if others else ""))
    fig.suptitle(title)
    fig.tight_layout()
    rows = [pd.DataFrame({"subplot": "a_priors", "series": priors.secret, "x": priors.value, "y": np.nan,
                          "value": priors.probability}),
            pd.DataFrame({"subplot": "b_plan", "series": "pi_star", "x": plan.x, "y": plan.x_prime, "value": plan.mass}),
            pd.DataFrame({"subplot": "c_theta", "series": laplace.method, "x": laplace.epsilon, "y": np.nan,
                          "value": laplace.theta})]
    write_csv(pd.concat(rows, ignore_index=True), csv)
    save_figure(fig, png, pdf)

"""Figures of the Gaussian-priors paper (paper 004): Figs. 1-5 and theta against epsilon.

Every function draws one figure with the pipeline's conventions (:mod:`pufferfish.plotting`:
Okabe-Ito colours, markers, the tight scale dashed) and writes the numbers plotted as a
CSV beside the PNG and PDF.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pufferfish.audit.emg_density import emg_pdf
from pufferfish.mixture import GMM
from pufferfish.files import write_csv
from pufferfish.plotting import OKABE_ITO, TIGHT_STYLE, save_figure, series_style, setup_style, words

__all__ = ["plot_fig1", "plot_fig2", "plot_gmm_figure", "plot_theta", "plot_fig5"]

_BOX = dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor="0.7", alpha=0.9)


def _fmt(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.4f}"


def _violation_note(fig, violations: int) -> None:
    if violations:
        fig.text(0.5, -0.02, f"AUDIT: {violations} scale(s) violate their delta target "
                 "(see results/audit/)", ha="center", va="top", color="#D55E00", fontsize=9, weight="bold")


def _gauss_pdf(x: np.ndarray, mean: float, sd: float) -> np.ndarray:
    return np.exp(-0.5 * ((x - mean) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))


# ------------------------------------------------------------------------------ Fig. 1
def plot_fig1(pi: GMM, pj: GMM, *, b: float, noise_sd: float, window: tuple[float, float], values: pd.DataFrame,
              png, pdf, csv) -> None:
    r"""Fig. 1: (a) the prior densities, (b) with :math:`\mathcal{L}(b)` noise, (c) with Gaussian noise of equal variance.

    Parameters
    ----------
    pi, pj : pufferfish.mixture.GMM
        The two priors (single Gaussians).
    b : float
        The Laplace scale :math:`b > 0`.
    noise_sd : float
        The Gaussian noise's standard deviation (:math:`\sqrt{2}\, b`).
    window : tuple of float
        The plotted :math:`(lo, hi)`.
    values : pandas.DataFrame
        The rows of :func:`pufferfish.gaussian.experiments.run_fig1`, printed on the panels.
    png, pdf, csv : str or os.PathLike
        The figure (PNG, PDF) and the plotted numbers (CSV).

    Returns
    -------
    None

    Raises
    ------
    OutputError
        A file that cannot be written (:class:`pufferfish.errors.OutputError`).
    """
    import matplotlib.pyplot as plt

    setup_style()
    y = np.linspace(window[0], window[1], 801)
    (mi, si), (mj, sj) = (float(pi.means[0]), float(pi.stds[0])), (float(pj.means[0]), float(pj.stds[0]))
    prior = [_gauss_pdf(y, mi, si), _gauss_pdf(y, mj, sj)]
    lap = [emg_pdf(y, pi, b), emg_pdf(y, pj, b)]
    gau = [_gauss_pdf(y, mi, math.hypot(si, noise_sd)), _gauss_pdf(y, mj, math.hypot(sj, noise_sd))]
    lap_row = values.set_index("noise").loc["laplace"]
    gau_row = values.set_index("noise").loc["gaussian"]
    labels = [f"sᵢ: G({mi:g}, {si:g}²)", f"sⱼ: G({mj:g}, {sj:g}²)"]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.1), sharex=True)
    crossover = float(gau_row.crossover_half_width)
    centre = 0.5 * (window[0] + window[1])
    panels = [
        ("(a) priors: density of X", "x", prior, None),
        (f"(b) Y = X + N, N ~ Laplace(b = {b:g})", "y", lap,
         f"window max |log ratio| = {_fmt(lap_row.max_log_ratio_window)}\n"
         f"sup over all y (exact) = {_fmt(lap_row.sup_log_ratio_all_y)}\n"
         f"total variation = {_fmt(lap_row.total_variation)}"),
        (f"(c) Y = X + N, N ~ G(0, {noise_sd ** 2:g}) (same variance)", "y", gau,
         f"window max |log ratio| = {_fmt(gau_row.max_log_ratio_window)}\n"
         f"sup over all y = {_fmt(gau_row.sup_log_ratio_all_y)}"
         + (" (prior variances differ)" if math.isinf(gau_row.sup_log_ratio_all_y) else "") + "\n"
         f"total variation = {_fmt(gau_row.total_variation)}\n"
         f"max |log ratio| below Laplace's only over\n|y - {centre:g}| < W* = {crossover:.3f} (dotted)"),
    ]
    for ax, (title, xlabel, dens, note) in zip(axes, panels):
        for k, d in enumerate(dens):
            style = series_style(k)
            ax.plot(y, d, color=style["color"], linestyle="-" if k == 0 else "--", linewidth=1.6, label=labels[k])
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("probability density")
        ax.set_xlim(*window)
        # room above the curves for the legend (and the note's lines): it covers none of them
        ax.set_ylim(0, (1.6 if note else 1.25) * max(float(np.max(d)) for d in dens))
        ax.legend(loc="upper right", fontsize=8)
        if note:
            ax.text(0.02, 0.97, note, transform=ax.transAxes, va="top", ha="left", fontsize=7.5, bbox=_BOX)
    for edge in [e for e in (centre - crossover, centre + crossover) if window[0] < e < window[1]]:
        axes[2].axvline(edge, ymax=0.62, color="0.4", linestyle=":", linewidth=1.0)   # clear of the legend, the note
    reverses = gau_row.max_log_ratio_window > lap_row.max_log_ratio_window
    fig.suptitle("Fig. 1: Gaussian priors with Laplace vs Gaussian noise of equal variance (priors and window are our"
                 f" choice: the paper does not give them{'; under them its conclusion reverses' if reverses else ''})",
                 fontsize=10)
    fig.tight_layout()
    write_csv(pd.DataFrame({"y": y, "prior_i": prior[0], "prior_j": prior[1], "laplace_i": lap[0],
                            "laplace_j": lap[1], "gaussian_i": gau[0], "gaussian_j": gau[1],
                            "log_ratio_laplace": np.log(lap[0]) - np.log(lap[1]),
                            "log_ratio_gaussian": np.log(gau[0]) - np.log(gau[1])}), csv)
    save_figure(fig, png, pdf)


# ------------------------------------------------------------------------------ Fig. 2
def plot_fig2(frame: pd.DataFrame, *, mu: float, violations: int, png, pdf, csv) -> None:
    r"""Fig. 2: :math:`b` of eq. (11) against :math:`K` (log axis) per :math:`\sigma^2`, and ``b_min`` (dashed).

    Solid lines with markers: eq. (11); dashed, same colour: the tight scale ``b_min``. Its values
    at the smallest :math:`K` (the only ones above 0 in the shipped configuration) are printed
    in the box.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``sigma2``, ``K``, ``b``, ``b_min``, ``epsilon``, ``delta``.
    mu : float
        The users' mean, for the title.
    violations : int
        Audit violations, printed under the plot when above 0.
    png, pdf, csv : str or os.PathLike
        The figure (PNG, PDF) and the plotted numbers (CSV).

    Returns
    -------
    None

    Raises
    ------
    OutputError
        A file that cannot be written (:class:`pufferfish.errors.OutputError`).
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    setup_style()
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    handles, zero_from, first = [], [], []
    for k, (sigma2, part) in enumerate(frame.groupby("sigma2", sort=True)):
        style = series_style(k)
        line, = ax.plot(part.K, part.b, color=style["color"], marker=style["marker"], markersize=4,
                        markevery=max(1, len(part) // 10), linewidth=1.4, label=f"σ² = {sigma2:g}: eq. (11)")
        ax.plot(part.K, part.b_min, color=style["color"], linestyle="--", linewidth=1.3, marker="x", markersize=5,
                markevery=list(np.flatnonzero(part.b_min.to_numpy() > 0)))
        handles.append(line)
        positive = part.K[part.b_min > 0]
        zero_from.append(int(positive.max()) + 1 if len(positive) else int(part.K.min()))
        first.append(f"{sigma2:g}: {float(part.b_min.iloc[0]):.3f}")
    handles.append(Line2D([], [], **{**TIGHT_STYLE, "marker": "x", "markersize": 5,
                                     "label": "dashed: bₘᵢₙ (exact audit), same colour; × where bₘᵢₙ > 0"}))
    eps, dl = frame.epsilon.iloc[0], frame.delta.iloc[0]
    ax.set_xscale("log")                              # K = 1, where b_min > 0, apart from K = 2
    ticks = [k for k in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if frame.K.min() <= k <= frame.K.max()]
    ax.set_xticks(ticks, [str(k) for k in ticks])
    ax.set_xlabel("number of users K (log scale)")
    ax.set_ylabel("Laplace scale b")
    ax.set_title(f"Fig. 2: lower bound on b of eq. (11), (ε, δ) = ({eps:g}, {dl:g}), μ = {mu:g}")
    ax.set_ylim(bottom=-0.03 * float(frame.b.max()))  # keeps the dashed b_min = 0 lines visible
    ax.legend(handles=handles, loc="upper right")
    ax.text(0.98, 0.06, f"bₘᵢₙ at K = {int(frame.K.min())} (×), by σ²: " + ", ".join(first) + "\n"
            f"bₘᵢₙ = 0 for K ≥ {max(zero_from)} at every σ²: the Gaussian priors alone already meet the target",
            transform=ax.transAxes, ha="right", va="bottom", fontsize=8, bbox=_BOX)
    _violation_note(fig, violations)
    fig.tight_layout()
    write_csv(frame[["sigma2", "K", "b", "b_min"]], csv)
    save_figure(fig, png, pdf)


# ------------------------------------------------------------------------------ Figs. 3-4
def _bins(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Unit bins centred on the integers for integer data with few values, else ~40 bins."""
    if np.all(values == np.round(values)) and np.unique(values).size <= 60 and hi - lo <= 80:
        return np.arange(math.floor(lo) - 0.5, math.ceil(hi) + 1.5, 1.0)
    return np.linspace(lo, hi, 41)


def _noisy_panels(axes_row, sample: Mapping, gmm: GMM, *, grid: np.ndarray, r: int, letters, xlabel: str) -> list:
    """The privatized panels of one secret (one per (epsilon, delta)); returns their plotted rows."""
    rows = []
    lo, hi = grid[0], grid[-1]
    for ax, noisy in zip(axes_row, sample["noisy"]):
        y = noisy["y"]
        counts, edges, _ = ax.hist(y, bins=np.linspace(lo, hi, 41), density=True, color=OKABE_ITO[1], alpha=0.55,
                                   label=f"privatized data (n = {y.size})")
        model = emg_pdf(grid, gmm, noisy["b"])
        ax.plot(grid, model, color="black", linewidth=1.5, label="density of Y under the GMM prior")
        tag = f"{r}_y_eps{noisy['epsilon']:g}_delta{noisy['delta']:g}"
        rows += [{"panel": tag, "series": "histogram", "x_left": a, "x_right": e, "value": v}
                 for a, e, v in zip(edges[:-1], edges[1:], counts)]
        rows += [{"panel": tag, "series": "model_density", "x_left": g, "x_right": g, "value": d}
                 for g, d in zip(grid, model)]
        ax.set_title(f"({next(letters)}) Y = X + Laplace(b), b = {noisy['b']:.5g}, "
                     f"(ε, δ) = ({noisy['epsilon']:g}, {noisy['delta']:g})")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("density")
        ax.set_xlim(lo, hi)
        ax.set_ylim(0, 1.35 * max(float(counts.max()), float(model.max())))   # the legend above the data
        ax.legend(loc="upper left", fontsize=7)
    return rows


def _data_panel(ax, sample: Mapping, gmm: GMM, record: Mapping, *, grid: np.ndarray, r: int, letters,
                xlabel: str) -> list:
    """The data panel of secret ``r``: histogram, fitted GMM and its components; returns the plotted rows."""
    rows = []
    lo, hi = grid[0], grid[-1]
    x = sample["x"]
    given = ", ".join(f"{k} = {v}" for k, v in sample["given"].items())
    if [str(v) for v in sample["given"].values()] != [str(sample["label"])]:
        given = f"{sample['label']} ({given})"
    bins = _bins(x, min(x.min(), lo), max(x.max(), hi))
    counts, edges, _ = ax.hist(x, bins=bins, density=True, color=OKABE_ITO[2], alpha=0.55, label="data")
    rows += [{"panel": f"{r}_x", "series": "histogram", "x_left": a, "x_right": c, "value": v}
             for a, c, v in zip(edges[:-1], edges[1:], counts)]
    dens = gmm.pdf(grid)
    ax.plot(grid, dens, color="black", linewidth=1.5, label=f"{gmm.components}-component GMM")
    for m, (w, mu, sd) in enumerate(zip(gmm.weights, gmm.means, gmm.stds)):
        comp = w * np.exp(-0.5 * ((grid - mu) / max(sd, 1e-300)) ** 2) / (max(sd, 1e-300) * math.sqrt(2 * math.pi))
        ax.plot(grid, comp, color=OKABE_ITO[5], linestyle=":", linewidth=1.0,
                label="components" if m == 0 else None)
    rows += [{"panel": f"{r}_x", "series": "gmm_density", "x_left": g, "x_right": g, "value": d}
             for g, d in zip(grid, dens)]
    narrow = set(record.get("secrets", [{}] * (r + 1))[r].get("components_below_resolution", []))
    params = "\n".join(f"α={w:.3f}  μ={mu:.2f}  σ={sd:.3g}" + ("  (below the data's resolution)" if m in narrow else "")
                       for m, (w, mu, sd) in enumerate(zip(gmm.weights, gmm.means, gmm.stds)))
    ax.text(0.98, 0.97, params, transform=ax.transAxes, ha="right", va="top", fontsize=7, bbox=_BOX)
    dropped = int(record.get("secrets", [{}] * (r + 1))[r].get("rows_dropped_missing", 0))
    count = f"n = {x.size}" + (f", {dropped} missing dropped" if dropped else "")
    ax.set_title(f"({next(letters)}) X | {given}  ({count})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density")
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, 1.5 * max(float(counts.max()), float(dens.max()), 1e-12))   # the legend and the box above the data
    ax.legend(loc="upper left", fontsize=7)
    return rows


def plot_gmm_figure(samples: Sequence[Mapping], gmms: Sequence[GMM], *, record: Mapping, title: str, violations: int,
                    png, pdf, csv, unit: str = "") -> None:
    r"""Figs. 3-4: per secret (rows) the data with its GMM, then :math:`Y = X + \mathcal{L}(b)` at each :math:`(\epsilon, \delta)`.

    Parameters
    ----------
    samples : sequence of dict
        Per secret: ``label``, ``given``, ``x`` (the data) and ``noisy``, a list of dicts with
        ``epsilon``, ``delta``, ``b`` and ``y`` (the privatized sample).
    gmms : sequence of pufferfish.mixture.GMM
        The fitted priors, one per secret.
    record : dict
        The fit's record (:func:`pufferfish.gaussian.gmm_fits.fit_experiment_gmms`): the
        attribute's name, the rows dropped and the components narrower than the rounding.
    title : str
        The figure's title.
    violations : int
        Audit violations, printed under the figure when above 0.
    png, pdf, csv : str or os.PathLike
        The figure (PNG, PDF) and the plotted numbers (CSV).
    unit : str
        Config ``unit``, appended to the axis labels of X and Y.

    Returns
    -------
    None

    Raises
    ------
    OutputError
        A file that cannot be written (:class:`pufferfish.errors.OutputError`).
    """
    suffix = f" ({unit})" if unit else ""
    import matplotlib.pyplot as plt

    setup_style()
    ncol = 1 + len(samples[0]["noisy"])
    fig, axes = plt.subplots(len(samples), ncol, figsize=(4.3 * ncol, 3.4 * len(samples)), squeeze=False)
    all_y = np.concatenate([n["y"] for s in samples for n in s["noisy"]] + [s["x"] for s in samples])
    lo, hi = np.percentile(all_y, [0.5, 99.5])
    pad = 0.05 * (hi - lo)
    lo, hi = lo - pad, hi + pad
    grid = np.linspace(lo, hi, 600)
    rows = []
    letters = iter("abcdefghijklmnop")
    for r, (sample, gmm) in enumerate(zip(samples, gmms)):
        rows += _data_panel(axes[r, 0], sample, gmm, record, grid=grid, r=r, letters=letters,
                            xlabel=record.get("attribute", "x") + suffix)
        rows += _noisy_panels(axes[r, 1:], sample, gmm, grid=grid, r=r, letters=letters,
                              xlabel=f"privatized {record.get('attribute', 'x')}{suffix}")
    # lettering as in the paper: (a, b, c) first secret, (d, e, f) second
    fig.suptitle(words(f"{title}: {samples[0]['label']} vs {samples[1]['label']}; noise calibrated by Theorem 2 "
                       "(eq. 13)"), fontsize=10)
    _violation_note(fig, violations)
    fig.tight_layout()
    write_csv(pd.DataFrame(rows, columns=["panel", "series", "x_left", "x_right", "value"]), csv)
    save_figure(fig, png, pdf)


def plot_theta(theta: pd.DataFrame, *, title: str, violations: int, png, pdf, csv, unit: str = "") -> None:
    r""":math:`b` against :math:`\epsilon`, one panel per :math:`\delta`: Theorem 2 (solid) and the tight ``b_min`` (dashed).

    Parameters
    ----------
    theta : pandas.DataFrame
        Columns ``method``, ``epsilon``, ``delta``, ``b`` (``method`` ``theorem2`` or ``tight``).
    title : str
        The figure's title.
    violations : int
        Audit violations, printed under the figure when above 0.
    png, pdf, csv : str or os.PathLike
        The figure (PNG, PDF) and the plotted numbers (CSV).
    unit : str
        Config ``unit``: the unit of :math:`b`.

    Returns
    -------
    None

    Raises
    ------
    OutputError
        A file that cannot be written (:class:`pufferfish.errors.OutputError`).
    """
    import matplotlib.pyplot as plt

    setup_style()
    deltas = sorted(theta.delta.unique(), reverse=True)
    fig, axes = plt.subplots(1, len(deltas), figsize=(5.2 * len(deltas), 3.9), squeeze=False)
    for ax, dl in zip(axes[0], deltas):
        part = theta[theta.delta == dl].sort_values("epsilon")
        t2 = part[part.method == "theorem2"]
        tight = part[part.method == "tight"]
        ax.plot(t2.epsilon, t2.b, **series_style(0), label="Theorem 2, eq. (13)")
        ax.plot(tight.epsilon, tight.b, **TIGHT_STYLE)
        ax.set_title(f"δ = {dl:g}")
        ax.set_xlabel("privacy budget ε")
        ax.set_ylabel("Laplace scale b" + (f" ({unit})" if unit else ""))
        ax.set_ylim(bottom=-0.03 * float(part.b.max()))
        note = None
        if len(tight) and (tight.b == 0).all():
            note = "bₘᵢₙ = 0 at every ε:\nthe fitted priors alone meet the target"
        elif len(tight) and (tight.b == 0).any():
            note = f"bₘᵢₙ = 0 for ε ≥ {tight.epsilon[tight.b == 0].min():g}:\nthe fitted priors alone meet the target"
        elif len(tight):
            first, last = tight.iloc[0], tight.iloc[-1]
            note = (f"bₘᵢₙ from {first.b:.3g} (ε = {first.epsilon:g}) to {last.b:.3g} (ε = {last.epsilon:g})\n"
                    f"Theorem 2 / bₘᵢₙ from {t2.b.iloc[0] / first.b:.3g} to {t2.b.iloc[-1] / last.b:.3g}")
        if note:
            ax.text(0.97, 0.6, note, transform=ax.transAxes, ha="right", va="top", fontsize=8, bbox=_BOX)
        ax.legend(loc="upper right")
    fig.suptitle(words(title), fontsize=10)
    _violation_note(fig, violations)
    fig.tight_layout()
    write_csv(theta[["method", "epsilon", "delta", "b"]], csv)
    save_figure(fig, png, pdf)


# ------------------------------------------------------------------------------ Fig. 5
def plot_fig5(frame: pd.DataFrame, *, png, pdf, csv) -> None:
    r"""Fig. 5: :math:`\tau^*(\delta) = Q^{-1}(\delta/2)` and its Lambert-W upper bound against :math:`\delta`.

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows of :func:`pufferfish.gaussian.experiments.run_fig5`.
    png, pdf, csv : str or os.PathLike
        The figure (PNG, PDF) and the plotted numbers (CSV).

    Returns
    -------
    None

    Raises
    ------
    OutputError
        A file that cannot be written (:class:`pufferfish.errors.OutputError`).
    """
    import matplotlib.pyplot as plt

    setup_style()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    every = max(1, len(frame) // 12)
    ax.plot(frame.delta, frame.tau_q, **{**series_style(0), "markevery": every},
            label="τ*(δ) = Q⁻¹(δ/2), eq. (20)")
    ax.plot(frame.delta, frame.tau_lambertw, **{**series_style(1), "markevery": (every // 2, every), "linestyle": "--"},
            label="upper bound √W₀(2/(πδ²)), eq. (23)")
    ax.set_xlabel("δ")
    ax.set_ylabel("τ*(δ)")
    ax.set_title(f"Fig. 5: τ*(δ) for δ in [{frame.delta.min():g}, {frame.delta.max():g}]")
    ax.set_xlim(-0.02, 1.02)     # the markers at delta = 0.001 and 0.999 whole, clear of the spines
    ax.set_ylim(bottom=-0.03 * float(frame.tau_lambertw.max()))
    ax.legend(loc="upper right")
    fig.tight_layout()
    write_csv(frame, csv)
    save_figure(fig, png, pdf)

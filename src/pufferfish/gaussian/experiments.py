"""Experiments of the Gaussian-priors paper (paper 004) as declared in config.yaml (``gaussian``).

N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024).
Each ``run_*`` function is one Snakemake job: it calibrates with the paper's method, audits
every scale exactly through :mod:`pufferfish.audit.verdict` (Laplace noise on mixture priors,
:class:`~pufferfish.audit.laplace_mixture.LaplaceMixtureAuditor`), adds the tight scale b_min,
writes the CSVs and draws the figure (:mod:`pufferfish.gaussian.plots`). Each takes its
section of the config as a frozen dataclass of :mod:`pufferfish.gaussian.settings`.

* Fig. 1  :func:`run_fig1`  two Gaussian priors, Laplace vs Gaussian noise of equal variance
  (:mod:`pufferfish.gaussian.noise_ordering`).
* Fig. 2  :func:`run_fig2`  eq. (11) against the number of users K.
* Figs. 3-4 :func:`~pufferfish.gaussian.gmm_fits.fit_experiment_gmms` (GMMs of a data attribute given
  two secrets, :mod:`pufferfish.gaussian.gmm_fits`) then :func:`run_gmm_experiment` (Theorem 2, eq. 13).
* Fig. 5  :func:`run_fig5`  tau*(delta) (eq. 20) and the Lambert-W bound (eq. 23).

:func:`run_figure` runs Fig. 1, 2 or 5 by its settings (the workflow's one rule for the three).
Randomness: every draw comes from ``numpy.random.Generator(PCG64(SeedSequence([seed, ...])))``
with ``seed`` = config ``seed`` and a fixed integer path per figure, secret and panel
(:mod:`pufferfish.gaussian.streams`). A scale whose certified achieved value exceeds its
target (no tolerance) is a violation: logged as a WARNING, flagged in the audit CSV and printed on the
figure; the job goes on. The mathematics: docs/math/paper004-gaussian.md.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pufferfish.audit.laplace_mixture import BMin, LaplaceMixtureAuditor, b_min
from pufferfish.audit.mixture_privacy_loss import epsilon_achieved, prior_epsilon_achieved
from pufferfish.audit.target import Target, target_for
from pufferfish.audit.verdict import Verdict, audit_frame, audit_row, audit_scale
from pufferfish.data_priors import condition
from pufferfish.errors import DataError
from pufferfish.files import write_csv
from pufferfish.gaussian.gmm import theorem2
from pufferfish.gaussian.gmm_fits import read_gmms
from pufferfish.gaussian.methods import corollary1_identical, gaussian_noise_max_log_ratio, tau_lambertw, tau_star
from pufferfish.gaussian.settings import Fig1Settings, Fig2Settings, Fig5Settings, GMMExperimentSettings
from pufferfish.gaussian.streams import STREAMS, generator, stream_id
from pufferfish.grids import check_deltas, check_epsilons
from pufferfish.mixture import GMM
from pufferfish.settings import AuditSettings

__all__ = [
    "FIG1_COLUMNS", "FIG2_COLUMNS", "GMM_THETA_COLUMNS", "FIG5_COLUMNS", "run_fig1", "run_fig2",
    "run_gmm_experiment", "run_fig5", "run_figure",
]

log = logging.getLogger("pufferfish")

#: results/theta/gaussian_fig1.csv: per noise, its scale (Laplace b, Gaussian sd), the max of
#: |log ratio| over the window and over all y, the total variation over all y, and W* (the same
#: on both rows: Gaussian noise gives the smaller window max over [c - W, c + W] iff W < W*)
FIG1_COLUMNS = ["noise", "scale", "max_log_ratio_window", "sup_log_ratio_all_y", "total_variation",
                "crossover_half_width"]
#: results/theta/gaussian_fig2.csv
FIG2_COLUMNS = ["sigma2", "K", "epsilon", "delta", "b", "epsilon_achieved", "delta_achieved", "b_min"]
#: results/theta/gaussian_fig{3,4}.csv
GMM_THETA_COLUMNS = ["method", "epsilon", "delta", "b", "epsilon_achieved", "delta_achieved", "b_min"]
#: results/theta/gaussian_fig5.csv
FIG5_COLUMNS = ["delta", "tau_q", "tau_lambertw"]
#: the noise of every audit row of paper 004
NOISE = "laplace"


# ------------------------------------------------------------------------------ the audit of one scale
@dataclass(frozen=True)
class _Audited:
    """A calibrated scale's verdict, the tight scale b_min and its verdict (None when not found),
    and their rows of the audit table."""

    verdict: Verdict
    tight: BMin
    tight_verdict: Verdict | None
    rows: list


def _audit(pi: GMM, pj: GMM, *, b: float, target: Target, audit: AuditSettings, experiment: str, panel: str,
           method: str) -> _Audited:
    """``b`` audited on the pair (``audit_scale``), b_min from b, and the tight scale audited too."""
    auditor = LaplaceMixtureAuditor(pi, pj, rtol=audit.bisection_rtol, max_steps=audit.bisection_max_steps)
    verdict = audit_scale(auditor, b, target)
    tight = b_min(pi, pj, epsilon=target.epsilon, delta=target.delta, rtol=audit.bisection_rtol,
                  max_steps=audit.bisection_max_steps, b_start=b)
    where = f"{experiment}" + (f" {panel}" if panel else "")
    if not verdict.meets:
        log.warning("%s: %s b=%.6g at (epsilon, delta) = (%g, %g) gives delta=%.6g (violation)", where, method, b,
                    target.epsilon, target.delta, verdict.value)
    if tight.reason:
        log.info("%s eps=%g delta=%g: b_min = %g (%s)", where, target.epsilon, target.delta, tight.b, tight.reason)
    common = {"experiment": experiment, "panel": panel, "noise": NOISE, "scale_min": tight.b,
              "tight_note": tight.reason}
    rows = [audit_row(verdict, method=method, **common)]
    tight_verdict = None
    if math.isfinite(tight.b):
        tight_verdict = audit_scale(auditor, tight.b, target)
        rows.append(audit_row(tight_verdict, method="tight", **common))
    else:
        log.warning("%s eps=%g delta=%g: b_min not found (%s)", where, target.epsilon, target.delta, tight.reason)
    return _Audited(verdict, tight, tight_verdict, rows)


def _pure_epsilon(pi: GMM, pj: GMM, b: float) -> float:
    """The pure-epsilon loss of scale ``b`` (0: the priors' own)."""
    return prior_epsilon_achieved(pi, pj) if b == 0.0 else epsilon_achieved(pi, pj, b=b)


def _theta_rows(pi: GMM, pj: GMM, checked: _Audited, *, method: str, tight: bool = True, **keys) -> list[dict]:
    """The b-table rows of a calibrated scale and (``tight``) of its tight scale when found."""
    b = checked.verdict.scale
    rows = [{**keys, "method": method, "b": b, "epsilon_achieved": _pure_epsilon(pi, pj, b),
             "delta_achieved": checked.verdict.value, "b_min": checked.tight.b}]
    if tight and checked.tight_verdict is not None:
        t = checked.tight.b
        rows.append({**keys, "method": "tight", "b": t, "epsilon_achieved": _pure_epsilon(pi, pj, t),
                     "delta_achieved": checked.tight_verdict.value, "b_min": t})
    return rows


# ------------------------------------------------------------------------------ Fig. 1
def run_fig1(settings: Fig1Settings, *, theta_csv, png, pdf, csv) -> pd.DataFrame:
    """Fig. 1: two Gaussian priors, :math:`Y = X + \\mathcal{L}(b)` and :math:`Y = X + G(0, 2 b^2)` (equal variance).

    The paper states neither the priors nor the window, and no reading of its text gives both
    printed maxima (0.2992, 0.0156): the priors and window are config ``gaussian.fig1`` (our
    choice). Per noise: the max of :math:`|\\log p_i / p_j|` over the window and over all y
    (Laplace: :func:`~pufferfish.audit.mixture_privacy_loss.epsilon_achieved`; Gaussian: closed
    form, infinite when the prior variances differ), the total variation over all y, and
    :math:`W^*` (:mod:`pufferfish.gaussian.noise_ordering`, windows centred on the window's centre).

    Parameters
    ----------
    settings : Fig1Settings
        Config ``gaussian.fig1``.
    theta_csv, png, pdf, csv : str or os.PathLike
        The numbers (:data:`FIG1_COLUMNS`), the figure and the plotted curves.

    Returns
    -------
    pandas.DataFrame
        The table written to ``theta_csv``.

    Raises
    ------
    OutputError
        A file that cannot be written (:class:`pufferfish.errors.OutputError`).
    """
    from pufferfish.gaussian.noise_ordering import (crossover_half_width, gaussian_noise_total_variation,
                                                    laplace_noise_total_variation)
    from pufferfish.gaussian.plots import plot_fig1

    (mi, si), (mj, sj) = ((p.mean, p.std) for p in settings.priors)
    b, window = settings.laplace_b, settings.window
    noise_sd = math.sqrt(2.0) * b  # Laplace(b) has variance 2 b^2
    pi, pj = GMM.gaussian(mi, si), GMM.gaussian(mj, sj)
    crossover = crossover_half_width(mi, si, mj, sj, b=b, noise_sd=noise_sd, centre=0.5 * (window[0] + window[1]))
    frame = pd.DataFrame([
        {"noise": "laplace", "scale": b, "max_log_ratio_window": epsilon_achieved(pi, pj, b=b, window=window),
         "sup_log_ratio_all_y": epsilon_achieved(pi, pj, b=b),
         "total_variation": laplace_noise_total_variation(mi, si, mj, sj, b=b), "crossover_half_width": crossover},
        {"noise": "gaussian", "scale": noise_sd,
         "max_log_ratio_window": gaussian_noise_max_log_ratio(mi, si, mj, sj, noise_sd=noise_sd, window=window),
         "sup_log_ratio_all_y": gaussian_noise_max_log_ratio(mi, si, mj, sj, noise_sd=noise_sd),
         "total_variation": gaussian_noise_total_variation(mi, si, mj, sj, noise_sd=noise_sd),
         "crossover_half_width": crossover},
    ], columns=FIG1_COLUMNS)
    write_csv(frame, theta_csv)
    for row in frame.to_dict("records"):
        log.info("fig1: %s (scale %.6g): max over %s = %.6g, over all y = %.6g, total variation %.6g", row["noise"],
                 row["scale"], window, row["max_log_ratio_window"], row["sup_log_ratio_all_y"], row["total_variation"])
    log.info("fig1: Gaussian noise gives the smaller window maximum only over half-widths below W* = %.6g", crossover)
    plot_fig1(pi, pj, b=b, noise_sd=noise_sd, window=window, values=frame, png=png, pdf=pdf, csv=csv)
    return frame


# ------------------------------------------------------------------------------ Fig. 2
def _fig2_priors(mu: float, sigma2: float, K: int) -> tuple[GMM, GMM]:
    """(absent, present): G((K-1) mu, (K-1) sigma^2) (a point mass at 0 for K = 1) and G(K mu, K sigma^2)."""
    absent = GMM.gaussian((K - 1) * mu, math.sqrt((K - 1) * sigma2))
    present = GMM.gaussian(K * mu, math.sqrt(K * sigma2))
    return absent, present


def run_fig2(settings: Fig2Settings, *, audit: AuditSettings, theta_csv, audit_csv, png, pdf, csv) -> pd.DataFrame:
    """Fig. 2: eq. (11) against K for each :math:`\\sigma^2`, audited, with b_min.

    Audit priors (Corollary 1(a), eqs. 7-8, identical users): user absent
    :math:`X \\sim G((K-1)\\mu, (K-1)\\sigma^2)` (a point mass at 0 when K = 1) against present
    :math:`X \\sim G(K\\mu, K\\sigma^2)`; both directions of the hockey stick.

    Parameters
    ----------
    settings : Fig2Settings
        Config ``gaussian.fig2``.
    audit : AuditSettings
        Config ``audit``.
    theta_csv, audit_csv, png, pdf, csv : str or os.PathLike
        The b table (:data:`FIG2_COLUMNS`), the audit table (the shared schema), the figure.

    Returns
    -------
    pandas.DataFrame
        The b table.

    Raises
    ------
    ConfigError
        An epsilon or delta the grids refuse (one line).
    """
    from pufferfish.gaussian.plots import plot_fig2

    mu, eps, dl = settings.mu, settings.epsilon, settings.delta
    check_epsilons([eps], name="gaussian.fig2.epsilon")
    check_deltas([dl], name="gaussian.fig2.delta")
    target = target_for("epsilon_delta", eps, delta=dl)
    ks = np.arange(settings.K.start, settings.K.stop + 1)
    rows, audit_rows = [], []
    start = time.perf_counter()
    for sigma2 in settings.sigma2:
        bs = corollary1_identical(mu, math.sqrt(sigma2), ks, epsilon=eps, delta=dl)
        for K, b in zip(ks, np.atleast_1d(bs)):
            absent, present = _fig2_priors(mu, sigma2, int(K))
            checked = _audit(absent, present, b=float(b), target=target, audit=audit, experiment="gaussian_fig2",
                             panel=f"sigma2={sigma2:g}", method="corollary1_eq11")
            rows += _theta_rows(absent, present, checked, method="corollary1_eq11", tight=False, sigma2=sigma2,
                                K=int(K), epsilon=eps, delta=dl)
            audit_rows += checked.rows
    frame = pd.DataFrame(rows, columns=FIG2_COLUMNS)
    table = audit_frame(audit_rows)
    violations = int(table.violation.sum())
    log.info("fig2: %d scales audited in %.2f s, %d violation(s)", len(frame), time.perf_counter() - start,
             violations)
    write_csv(frame, theta_csv)
    write_csv(table, audit_csv)
    plot_fig2(frame, mu=mu, violations=violations, png=png, pdf=pdf, csv=csv)
    return frame


# ------------------------------------------------------------------------------ Figs. 3-4: GMMs
def _audit_grid(experiment: GMMExperimentSettings, gi: GMM, gj: GMM, audit: AuditSettings) -> tuple[pd.DataFrame,
                                                                                                     pd.DataFrame]:
    """Theorem 2 at every (epsilon, delta) of the experiment's grid, audited, with b_min: the b
    table (:data:`GMM_THETA_COLUMNS`) and the audit table."""
    tag = f"gaussian_{experiment.name}"  # the experiment column of the audit table
    theta_rows, audit_rows = [], []
    start = time.perf_counter()
    for eps, dl in experiment.privacy_grid():
        b = float(theorem2(gi, gj, epsilon=eps, delta=dl))
        checked = _audit(gi, gj, b=b, target=target_for("epsilon_delta", eps, delta=dl), audit=audit, experiment=tag,
                         panel="", method="theorem2")
        theta_rows += _theta_rows(gi, gj, checked, method="theorem2", epsilon=eps, delta=dl)
        audit_rows += checked.rows
    theta = pd.DataFrame(theta_rows, columns=GMM_THETA_COLUMNS)
    table = audit_frame(audit_rows)
    log.info("%s: %d scales audited in %.2f s, %d violation(s)", tag, len(table), time.perf_counter() - start,
             int(table.violation.sum()))
    return theta, table


def _privatized(experiment: GMMExperimentSettings, gi: GMM, gj: GMM, *, seed: int, data_csv) -> list[dict]:
    """Per secret, its data x and Y = X + Laplace(b) at each (epsilon, delta) of ``privacy``
    (b from Theorem 2; the noise from the stream [seed, figure, 2, secret, pair])."""
    frame = pd.read_csv(data_csv, low_memory=False)
    samples = []
    for k, secret in enumerate(experiment.secrets):
        cond = condition(frame, attribute=experiment.attribute, given=secret.given, dataset=experiment.dataset,
                         missing_values=list(experiment.missing_values))
        x = pd.to_numeric(cond.values, errors="coerce").to_numpy(dtype=float)
        if np.isnan(x).any():
            raise DataError(f"{experiment.dataset}: attribute {experiment.attribute!r} is not numeric")
        noisy = []
        for p, pair in enumerate(experiment.privacy):
            b = float(theorem2(gi, gj, epsilon=pair.epsilon, delta=pair.delta))
            rng = generator(seed, stream_id(experiment.name), STREAMS["noise"], k, p)
            noisy.append({"epsilon": pair.epsilon, "delta": pair.delta, "b": b,
                          "y": x + rng.laplace(0.0, b, size=x.size)})
        samples.append({"label": secret.label, "given": secret.given, "x": x, "noisy": noisy})
    return samples


def run_gmm_experiment(experiment: GMMExperimentSettings, *, audit: AuditSettings, seed: int, gmm_json, data_csv,
                       theta_csv, audit_csv, png, pdf, csv, theta_png, theta_pdf, theta_fig_csv) -> pd.DataFrame:
    """Figs. 3-4: Theorem 2 (eq. 13) on the fitted GMMs, its exact audit, b_min, privatized samples.

    Rows: ``theorem2`` at every (epsilon, delta) of
    :meth:`~pufferfish.gaussian.settings.GMMExperimentSettings.privacy_grid`, audited both
    directions, and ``tight`` (b = b_min, the smallest scale with delta_achieved <= delta).
    The figure has the paper's six panels: per secret, the data with its GMM, then
    Y = X + Laplace(b) with b from Theorem 2 at each of the figure's (epsilon, delta).

    Parameters
    ----------
    experiment : GMMExperimentSettings
        The experiment's config section.
    audit : AuditSettings
        Config ``audit``.
    seed : int
        Config ``seed``.
    gmm_json, data_csv : str or os.PathLike
        The fits (:func:`~pufferfish.gaussian.gmm_fits.fit_experiment_gmms`) and the dataset's table.
    theta_csv, audit_csv, png, pdf, csv, theta_png, theta_pdf, theta_fig_csv : str or os.PathLike
        The b table, the audit table (the shared schema) and the two figures with their numbers.

    Returns
    -------
    pandas.DataFrame
        The b table (:data:`GMM_THETA_COLUMNS`).

    Raises
    ------
    DataError
        The attribute is not numeric.
    """
    from pufferfish.gaussian.plots import plot_gmm_figure, plot_theta

    record, (gi, gj) = read_gmms(gmm_json)
    theta, table = _audit_grid(experiment, gi, gj, audit)
    write_csv(theta, theta_csv)
    write_csv(table, audit_csv)
    violations = int(table.violation.sum())
    samples = _privatized(experiment, gi, gj, seed=seed, data_csv=data_csv)
    title = f"{experiment.dataset}: {experiment.attribute}"
    plot_gmm_figure(samples, [gi, gj], record=record, title=title, violations=violations, png=png, pdf=pdf, csv=csv,
                    unit=experiment.unit)
    plot_theta(theta, title=f"{title}: Theorem 2 (eq. 13) vs exact smallest b", violations=violations,
               png=theta_png, pdf=theta_pdf, csv=theta_fig_csv, unit=experiment.unit)
    return theta


# ------------------------------------------------------------------------------ Fig. 5
def run_fig5(settings: Fig5Settings, *, theta_csv, png, pdf, csv) -> pd.DataFrame:
    """Fig. 5: :math:`\\tau^*(\\delta) = Q^{-1}(\\delta/2)` (eq. 20) and the Lambert-W bound :math:`\\sqrt{W_0(2/(\\pi\\delta^2))}` (eq. 23).

    Parameters
    ----------
    settings : Fig5Settings
        Config ``gaussian.fig5`` (its delta grid, checked when the settings were built).
    theta_csv, png, pdf, csv : str or os.PathLike
        The table (:data:`FIG5_COLUMNS`), the figure and its numbers.

    Returns
    -------
    pandas.DataFrame
        The table.

    Raises
    ------
    OutputError
        A file that cannot be written (:class:`pufferfish.errors.OutputError`).
    """
    from pufferfish.gaussian.plots import plot_fig5

    deltas = np.asarray(settings.deltas, dtype=float)
    frame = pd.DataFrame({"delta": deltas, "tau_q": np.atleast_1d(tau_star(deltas)),
                          "tau_lambertw": np.atleast_1d(tau_lambertw(deltas))}, columns=FIG5_COLUMNS)
    write_csv(frame, theta_csv)
    plot_fig5(frame, png=png, pdf=pdf, csv=csv)
    return frame


# ------------------------------------------------------------------------------ Figs. 1, 2, 5 by their settings
def run_figure(settings: Fig1Settings | Fig2Settings | Fig5Settings, *, audit: AuditSettings | None = None,
               theta_csv, png, pdf, csv, audit_csv=None) -> pd.DataFrame:
    """Fig. 1, 2 or 5 of paper 004, chosen by the type of ``settings`` (the workflow's rule ``gaussian_figure``).

    Parameters
    ----------
    settings : Fig1Settings, Fig2Settings or Fig5Settings
        The figure's config section.
    audit : AuditSettings, optional
        Config ``audit``: Fig. 2 only (the figure that calibrates a scale).
    theta_csv, png, pdf, csv : str or os.PathLike
        The figure's table, the figure and its numbers.
    audit_csv : str or os.PathLike, optional
        Fig. 2's audit table (Fig. 2 only).

    Returns
    -------
    pandas.DataFrame
        The figure's table.

    Raises
    ------
    TypeError
        Settings of another type; ``audit`` / ``audit_csv`` missing for Fig. 2 or given for another.
    """
    files = {"theta_csv": theta_csv, "png": png, "pdf": pdf, "csv": csv}
    if isinstance(settings, Fig2Settings):
        if audit is None or audit_csv is None:
            raise TypeError("run_figure: Fig. 2 audits every scale: pass audit= and audit_csv=")
        return run_fig2(settings, audit=audit, audit_csv=audit_csv, **files)
    if audit is not None or audit_csv is not None:
        raise TypeError(f"run_figure: {type(settings).__name__} has no scale to audit: do not pass audit or audit_csv")
    if isinstance(settings, Fig1Settings):
        return run_fig1(settings, **files)
    if isinstance(settings, Fig5Settings):
        return run_fig5(settings, **files)
    raise TypeError(f"run_figure: settings must be Fig1Settings, Fig2Settings or Fig5Settings, "
                    f"not {type(settings).__name__}")

"""Experiments of the Gaussian-priors paper (paper 004) as declared in config.yaml (``gaussian``).

N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024).
Each ``run_*`` function is one Snakemake job: it calibrates with the paper's method,
audits every scale exactly (:mod:`pufferfish.audit.laplace_mixture`), adds the tight scale b_min,
writes the CSVs and draws the figure (:mod:`pufferfish.gaussian.plots`). Each takes its
section of the config as a frozen dataclass of :mod:`pufferfish.gaussian.settings`.

* Fig. 1  :func:`run_fig1`  two Gaussian priors, Laplace vs Gaussian noise of equal variance.
* Fig. 2  :func:`run_fig2`  eq. (11) against the number of users K.
* Figs. 3-4 :func:`fit_experiment_gmms` (3-component GMMs of a data attribute given two
  secrets) then :func:`run_gmm_experiment` (Theorem 2, eq. 13, and privatized samples).
* Fig. 5  :func:`run_fig5`  tau*(delta): Q^{-1}(delta/2), eq. (20), and the Lambert-W bound (23).

:func:`run_figure` runs Fig. 1, 2 or 5 by its settings (the workflow's one rule for the three).

Randomness: every draw comes from ``numpy.random.Generator(PCG64(SeedSequence([seed, ...])))``
with ``seed`` = config ``seed`` and a fixed integer path per figure, secret and panel
(:data:`STREAMS`, :func:`stream_id`), so reruns are identical and changing one panel does not shift another.

A scale whose exact delta exceeds its target by more than config ``audit.rtol`` is a
violation: logged as a WARNING, flagged in the audit CSV and printed on the figure; the
job goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pufferfish.errors import DataError
from pufferfish.gaussian.methods import corollary1_identical, gaussian_noise_max_log_ratio, tau_lambertw, tau_star
from pufferfish.audit.laplace_mixture import b_min, epsilon_achieved, hockey_stick, prior_epsilon_achieved
from pufferfish.gaussian.gmm import fit_gmm, theorem2, theorem2_terms, w2_weights
from pufferfish.mixture import GMM
from pufferfish.grids import check_deltas, check_epsilons
from pufferfish.files import write_csv, write_json
from pufferfish.data_priors import condition
from pufferfish.gaussian.settings import (Fig1Settings, Fig2Settings, Fig5Settings, GMMExperimentSettings,
                                          GMMSettings)
from pufferfish.settings import AuditSettings

__all__ = [
    "FIG1_COLUMNS", "FIG2_COLUMNS", "GMM_THETA_COLUMNS", "FIG5_COLUMNS", "AUDIT_COLUMNS", "STREAMS",
    "generator", "stream_id", "run_fig1", "run_fig2", "fit_experiment_gmms", "read_gmms",
    "run_gmm_experiment", "run_fig5", "run_figure",
]

log = logging.getLogger("pufferfish")

#: results/theta/gaussian_fig1.csv
FIG1_COLUMNS = ["noise", "scale", "max_log_ratio_window", "sup_log_ratio_all_y"]
#: results/theta/gaussian_fig2.csv
FIG2_COLUMNS = ["sigma2", "K", "epsilon", "delta", "b", "epsilon_achieved", "delta_achieved", "b_min"]
#: results/theta/gaussian_fig{3,4}.csv
GMM_THETA_COLUMNS = ["method", "epsilon", "delta", "b", "epsilon_achieved", "delta_achieved", "b_min"]
#: results/theta/gaussian_fig5.csv
FIG5_COLUMNS = ["delta", "tau_q", "tau_lambertw"]
#: results/audit/<experiment>.csv, shared by both papers
AUDIT_COLUMNS = ["experiment", "panel", "method", "epsilon", "delta", "scale", "epsilon_achieved",
                 "delta_achieved", "scale_min", "violation"]

#: integer paths appended to config ``seed``: (figure, purpose) -> stream prefix
STREAMS = {
    "fig3": 3, "fig4": 4,      # figure ids
    "gmm_fit": 1,              # [seed, fig, 1, secret]          -> GaussianMixture random_state
    "noise": 2,                # [seed, fig, 2, secret, privacy] -> Laplace noise of a panel
}


def stream_id(name: str) -> int:
    """The integer path of GMM experiment ``name``: 3 and 4 for the paper's figures, else from its name.

    Any other key of config ``gaussian`` gets the first 4 bytes of sha256(name) (big-endian),
    so its draws do not depend on which other experiments exist.
    """
    if name in ("fig3", "fig4"):
        return STREAMS[name]
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "big")


def generator(seed: int, *path: int) -> np.random.Generator:
    """A PCG64 generator seeded by ``SeedSequence([seed, *path])``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), *map(int, path)])))


def _sklearn_seed(seed: int, *path: int) -> int:
    return int(np.random.SeedSequence([int(seed), *map(int, path)]).generate_state(1)[0])


def _violates(achieved: float, target: float, rtol: float) -> bool:
    return bool(achieved > target * (1.0 + rtol))


# ------------------------------------------------------------------------------ Fig. 1
def run_fig1(settings: Fig1Settings, *, theta_csv, png, pdf, csv) -> pd.DataFrame:
    """Fig. 1: two Gaussian priors, Y = X + Laplace(b) and Y = X + G(0, 2 b^2) (equal variance).

    The paper states neither the priors nor the plotted window, and its printed maxima
    (0.2992, 0.0156) cannot be recovered from the text: the priors and window are
    config ``gaussian.fig1`` (our choice). For Laplace noise the max over the window
    and the exact sup over all y (:func:`~pufferfish.audit.laplace_mixture.epsilon_achieved`)
    are reported; for Gaussian noise the max over the window (closed form) and, over all
    y, inf when the prior variances differ.
    """
    from pufferfish.gaussian.plots import plot_fig1

    (mi, si), (mj, sj) = ((p.mean, p.std) for p in settings.priors)
    b = settings.laplace_b
    window = settings.window
    noise_sd = math.sqrt(2.0) * b  # Laplace(b) has variance 2 b^2
    pi, pj = GMM.gaussian(mi, si), GMM.gaussian(mj, sj)
    lap_window = epsilon_achieved(pi, pj, b=b, window=window)
    lap_all = epsilon_achieved(pi, pj, b=b)
    gau_window = gaussian_noise_max_log_ratio(mi, si, mj, sj, noise_sd=noise_sd, window=window)
    gau_all = gaussian_noise_max_log_ratio(mi, si, mj, sj, noise_sd=noise_sd)
    frame = pd.DataFrame([
        {"noise": "laplace", "scale": b, "max_log_ratio_window": lap_window, "sup_log_ratio_all_y": lap_all},
        {"noise": "gaussian", "scale": noise_sd, "max_log_ratio_window": gau_window, "sup_log_ratio_all_y": gau_all},
    ], columns=FIG1_COLUMNS)
    write_csv(frame, theta_csv)
    log.info("fig1: Laplace(b=%g): max over %s = %.6g, sup over all y = %.6g; "
             "Gaussian(sd=%.6g): max over window = %.6g", b, window, lap_window, lap_all, noise_sd, gau_window)
    plot_fig1(pi, pj, b=b, noise_sd=noise_sd, window=window, values=frame, png=png, pdf=pdf, csv=csv)
    return frame


# ------------------------------------------------------------------------------ Fig. 2
def _fig2_priors(mu: float, sigma2: float, K: int) -> tuple[GMM, GMM]:
    """(absent, present): G((K-1) mu, (K-1) sigma^2) (a point mass at 0 for K = 1) and G(K mu, K sigma^2)."""
    absent = GMM.gaussian((K - 1) * mu, math.sqrt((K - 1) * sigma2))
    present = GMM.gaussian(K * mu, math.sqrt(K * sigma2))
    return absent, present


def _tight_epsilon(pi: GMM, pj: GMM, b: float) -> float:
    return prior_epsilon_achieved(pi, pj) if b == 0.0 else epsilon_achieved(pi, pj, b=b)


def run_fig2(settings: Fig2Settings, *, audit: AuditSettings, theta_csv, audit_csv, png, pdf, csv) -> pd.DataFrame:
    """Fig. 2: eq. (11) against K for each sigma^2, audited, with b_min.

    Audit priors (Corollary 1(a), eqs. 7-8, identical users): user absent
    X ~ G((K-1) mu, (K-1) sigma^2) (a point mass at 0 when K = 1) against present
    X ~ G(K mu, K sigma^2); both directions of the hockey stick are checked.
    """
    from pufferfish.gaussian.plots import plot_fig2

    mu, eps, dl = settings.mu, settings.epsilon, settings.delta
    check_epsilons([eps], name="gaussian.fig2.epsilon")
    check_deltas([dl], name="gaussian.fig2.delta")
    ks = np.arange(settings.K.start, settings.K.stop + 1)
    rtol = audit.rtol
    rows, audit_rows = [], []
    start = time.perf_counter()
    for sigma2 in settings.sigma2:
        bs = corollary1_identical(mu, math.sqrt(sigma2), ks, epsilon=eps, delta=dl)
        for K, b in zip(ks, np.atleast_1d(bs)):
            absent, present = _fig2_priors(mu, sigma2, int(K))
            delta_b = hockey_stick(absent, present, epsilon=eps, b=float(b)).delta
            eps_b = epsilon_achieved(absent, present, b=float(b))
            tight = b_min(absent, present, epsilon=eps, delta=dl, rtol=audit.bisection_rtol,
                          max_steps=audit.bisection_max_steps, b_start=float(b))
            if tight.reason:
                log.info("fig2 sigma2=%g K=%d: b_min = %g (%s)", sigma2, K, tight.b, tight.reason)
            rows.append({"sigma2": sigma2, "K": int(K), "epsilon": eps, "delta": dl, "b": float(b),
                         "epsilon_achieved": eps_b, "delta_achieved": delta_b, "b_min": tight.b})
            panel = f"sigma2={sigma2:g}"
            violation = _violates(delta_b, dl, rtol)
            if violation:
                log.warning("gaussian_fig2 %s K=%d: eq. (11) b=%.6g gives delta=%.6g > %g (violation)",
                            panel, K, b, delta_b, dl)
            audit_rows.append({"experiment": "gaussian_fig2", "panel": panel, "method": "corollary1_eq11",
                               "epsilon": eps, "delta": dl, "scale": float(b), "epsilon_achieved": eps_b,
                               "delta_achieved": delta_b, "scale_min": tight.b, "violation": violation})
            if math.isfinite(tight.b):
                t_delta = tight.achieved
                t_eps = _tight_epsilon(absent, present, tight.b)
                audit_rows.append({"experiment": "gaussian_fig2", "panel": panel, "method": "tight", "epsilon": eps,
                                   "delta": dl, "scale": tight.b, "epsilon_achieved": t_eps, "delta_achieved": t_delta,
                                   "scale_min": tight.b, "violation": _violates(t_delta, dl, rtol)})
    frame = pd.DataFrame(rows, columns=FIG2_COLUMNS)
    audit_frame = pd.DataFrame(audit_rows, columns=AUDIT_COLUMNS)
    log.info("fig2: %d scales audited in %.2f s, %d violation(s)", len(frame), time.perf_counter() - start,
             int(audit_frame.violation.sum()))
    write_csv(frame, theta_csv)
    write_csv(audit_frame, audit_csv)
    plot_fig2(frame, mu=mu, violations=int(audit_frame.violation.sum()), png=png, pdf=pdf, csv=csv)
    return frame


# ------------------------------------------------------------------------------ Figs. 3-4: GMMs
def _read_frame(data_csv) -> pd.DataFrame:
    return pd.read_csv(data_csv, low_memory=False)


def _dataset_record(data_json) -> dict:
    """sha256 and source of ``data/raw/{dataset}.json`` when it exists and has them."""
    if not data_json or not Path(data_json).exists():
        return {}
    with open(data_json, encoding="utf-8") as handle:
        record = json.load(handle)
    return {k: record[k] for k in ("sha256", "source", "url", "uci_id", "member", "citation", "rows") if k in record}


def fit_experiment_gmms(experiment: GMMExperimentSettings, *, gmm: GMMSettings, seed: int, data_csv, data_json=None,
                        out_json) -> dict:
    """Fit one GMM per secret of a GMM experiment (config ``gaussian.<name>``: fig3, fig4, ...) and write the JSON.

    The attribute values of the rows satisfying each secret's ``given`` come from
    :func:`pufferfish.data_priors.condition`, which drops (and counts) rows with the attribute
    or a conditioning column missing, or with the attribute in ``missing_values``.
    The JSON holds, per secret, the weights, means and standard deviations (sorted by
    mean), the rows used and dropped; the W2 weights w* of the pair; the dataset sha256.
    """
    frame = _read_frame(data_csv)
    name, attribute, dataset = experiment.name, experiment.attribute, experiment.dataset
    fig_id = stream_id(name)
    secrets, gmms = [], []
    missing = list(experiment.missing_values)
    for k, secret in enumerate(experiment.secrets):
        cond = condition(frame, attribute=attribute, given=secret.given, dataset=dataset, missing_values=missing)
        # rows of this secret whatever their attribute, to count the ones dropped as missing:
        # attribute absent (NaN) or equal to one of missing_values
        first = next(iter(secret.given))
        total = condition(frame, attribute=first, given=secret.given, dataset=dataset).rows_matching
        present = condition(frame, attribute=attribute, given=secret.given, dataset=dataset).rows_matching
        label = f"{attribute} | {secret.label}"
        model = fit_gmm(cond.values, components=gmm.components, n_init=gmm.n_init, max_iter=gmm.max_iter,
                        random_state=_sklearn_seed(seed, fig_id, STREAMS["gmm_fit"], k), label=label)
        if not model.converged:
            log.warning("%s: EM did not converge for %s within %d iterations", name, label, gmm.max_iter)
        gmms.append(model)
        secrets.append({"label": secret.label, "given": dict(secret.given), "rows_with_secret": int(total),
                        "rows_used": int(cond.rows_matching), "rows_dropped_missing": int(total - cond.rows_matching),
                        "rows_dropped_nan": int(total - present),
                        "rows_dropped_missing_value": int(present - cond.rows_matching),
                        **model.record()})
        log.info("%s: %s: %d rows used, %d dropped as missing; weights %s means %s stds %s", name, label,
                 cond.rows_matching, total - cond.rows_matching, np.round(model.weights, 4), np.round(model.means, 4),
                 np.round(model.stds, 4))
    weights = w2_weights(gmms[0], gmms[1])
    mean_term, std_term = theorem2_terms(gmms[0], gmms[1], weights)
    record = {
        "experiment": f"gaussian_{name}",
        "dataset": dataset,
        "dataset_record": _dataset_record(data_json),
        "dataset_sha256": _dataset_record(data_json).get("sha256"),
        "attribute": attribute,
        "missing_values": missing,
        "rows_in_dataset": int(len(frame)),
        "rows_dropped_missing_dataset": int(cond.rows_dropped_missing),
        "seed": int(seed),
        "gmm": {"components": gmm.components, "n_init": gmm.n_init, "max_iter": gmm.max_iter,
                "covariance_type": "full", "reg_covar": 1e-6, "init_params": "kmeans",
                "random_state": f"SeedSequence([seed, {fig_id}, {STREAMS['gmm_fit']}, secret]).generate_state(1)[0]",
                "library": "scikit-learn GaussianMixture"},
        "secrets": secrets,
        "w_star": weights.tolist(),
        "w_star_rows_cols": "rows: components of secret 0, columns: components of secret 1 (both sorted by mean)",
        "theorem2_terms": {"sum_w_abs_dmu": mean_term, "sum_w_abs_dsigma": std_term},
    }
    write_json(record, out_json)
    return record


def read_gmms(gmm_json) -> tuple[dict, list[GMM]]:
    """The record written by :func:`fit_experiment_gmms` and its two :class:`GMM`."""
    with open(gmm_json, encoding="utf-8") as handle:
        record = json.load(handle)
    gmms = [GMM(s["weights"], s["means"], s["stds"], n=s["rows_used"], converged=s["converged"],
                label=s["label"]) for s in record["secrets"]]
    return record, gmms


def run_gmm_experiment(experiment: GMMExperimentSettings, *, audit: AuditSettings, seed: int, gmm_json, data_csv,
                       theta_csv, audit_csv, png, pdf, csv, theta_png, theta_pdf, theta_fig_csv) -> pd.DataFrame:
    """Figs. 3-4: Theorem 2 (eq. 13) on the fitted GMMs, its exact audit, b_min, privatized samples.

    Rows: ``theorem2`` at every (epsilon, delta) of
    :meth:`~pufferfish.gaussian.settings.GMMExperimentSettings.privacy_grid`, audited both
    directions, and ``tight`` (b = b_min, the smallest scale with delta_achieved <= delta).
    The figure has the paper's six panels: per secret, the data with its GMM, then
    Y = X + Laplace(b) with b = theorem2 at each of the figure's (epsilon, delta).
    """
    from pufferfish.gaussian.plots import plot_gmm_figure, plot_theta

    record, gmms = read_gmms(gmm_json)
    gi, gj = gmms
    rtol = audit.rtol
    name = experiment.name
    tag = f"gaussian_{name}"  # the experiment column of the audit table
    theta_rows, audit_rows = [], []
    start = time.perf_counter()
    for eps, dl in experiment.privacy_grid():
        b = float(theorem2(gi, gj, epsilon=eps, delta=dl))
        hs = hockey_stick(gi, gj, epsilon=eps, b=b)
        eps_b = epsilon_achieved(gi, gj, b=b)
        tight = b_min(gi, gj, epsilon=eps, delta=dl, rtol=audit.bisection_rtol,
                      max_steps=audit.bisection_max_steps, b_start=b)
        if tight.reason:
            log.info("%s eps=%g delta=%g: b_min = %g (%s)", tag, eps, dl, tight.b, tight.reason)
        violation = _violates(hs.delta, dl, rtol)
        if violation:
            log.warning("%s: theorem2 b=%.6g at (epsilon, delta) = (%g, %g) gives delta=%.6g (violation)",
                        tag, b, eps, dl, hs.delta)
        theta_rows.append({"method": "theorem2", "epsilon": eps, "delta": dl, "b": b, "epsilon_achieved": eps_b,
                           "delta_achieved": hs.delta, "b_min": tight.b})
        audit_rows.append({"experiment": tag, "panel": "", "method": "theorem2", "epsilon": eps, "delta": dl,
                           "scale": b, "epsilon_achieved": eps_b, "delta_achieved": hs.delta, "scale_min": tight.b,
                           "violation": violation})
        if math.isfinite(tight.b):
            t_delta = tight.achieved
            t_eps = _tight_epsilon(gi, gj, tight.b)
            theta_rows.append({"method": "tight", "epsilon": eps, "delta": dl, "b": tight.b, "epsilon_achieved": t_eps,
                               "delta_achieved": t_delta, "b_min": tight.b})
            audit_rows.append({"experiment": tag, "panel": "", "method": "tight", "epsilon": eps, "delta": dl,
                               "scale": tight.b, "epsilon_achieved": t_eps, "delta_achieved": t_delta,
                               "scale_min": tight.b, "violation": _violates(t_delta, dl, rtol)})
        else:
            log.warning("%s eps=%g delta=%g: b_min not found (%s)", tag, eps, dl, tight.reason)
    theta = pd.DataFrame(theta_rows, columns=GMM_THETA_COLUMNS)
    audit_frame = pd.DataFrame(audit_rows, columns=AUDIT_COLUMNS)
    violations = int(audit_frame.violation.sum())
    log.info("%s: %d scales audited in %.2f s, %d violation(s)", tag, len(audit_frame),
             time.perf_counter() - start, violations)
    write_csv(theta, theta_csv)
    write_csv(audit_frame, audit_csv)

    # privatized samples of the figure's panels
    frame = _read_frame(data_csv)
    samples = []
    for k, secret in enumerate(experiment.secrets):
        cond = condition(frame, attribute=experiment.attribute, given=secret.given, dataset=experiment.dataset,
                         missing_values=list(experiment.missing_values))
        x = pd.to_numeric(cond.values, errors="coerce").to_numpy(dtype=float)
        if np.isnan(x).any():
            raise DataError(f"{experiment.dataset}: attribute {experiment.attribute!r} is not numeric")
        noisy = []
        for p, pair in enumerate(experiment.privacy):
            eps, dl = pair.epsilon, pair.delta
            b = float(theorem2(gi, gj, epsilon=eps, delta=dl))
            rng = generator(seed, stream_id(name), STREAMS["noise"], k, p)
            noisy.append({"epsilon": eps, "delta": dl, "b": b, "y": x + rng.laplace(0.0, b, size=x.size)})
        samples.append({"label": secret.label, "given": secret.given, "x": x, "noisy": noisy})
    title = f"{experiment.dataset}: {experiment.attribute}"
    unit = experiment.unit
    plot_gmm_figure(samples, gmms, record=record, title=title, violations=violations, png=png, pdf=pdf, csv=csv,
                    unit=unit)
    plot_theta(theta, title=f"{title}: Theorem 2 (eq. 13) vs exact smallest b", violations=violations,
               png=theta_png, pdf=theta_pdf, csv=theta_fig_csv, unit=unit)
    return theta


# ------------------------------------------------------------------------------ Fig. 5
def run_fig5(settings: Fig5Settings, *, theta_csv, png, pdf, csv) -> pd.DataFrame:
    """Fig. 5: tau*(delta) = Q^{-1}(delta/2) (eq. 20) and the Lambert-W bound sqrt(W0(2/(pi delta^2))) (eq. 23)."""
    from pufferfish.gaussian.plots import plot_fig5

    deltas = np.asarray(settings.deltas, dtype=float)  # checked when the settings were built
    frame = pd.DataFrame({"delta": deltas, "tau_q": np.atleast_1d(tau_star(deltas)),
                          "tau_lambertw": np.atleast_1d(tau_lambertw(deltas))}, columns=FIG5_COLUMNS)
    write_csv(frame, theta_csv)
    plot_fig5(frame, png=png, pdf=pdf, csv=csv)
    return frame


# ------------------------------------------------------------------------------ Figs. 1, 2, 5 by their settings
def run_figure(settings: Fig1Settings | Fig2Settings | Fig5Settings, *, audit: AuditSettings | None = None,
               theta_csv, png, pdf, csv, audit_csv=None) -> pd.DataFrame:
    """Fig. 1, 2 or 5 of paper 004, chosen by the type of ``settings`` (the workflow's rule
    ``gaussian_figure``). Fig. 2 is the one that calibrates a scale: it needs ``audit`` and
    ``audit_csv``, the others refuse them."""
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

"""The iteration experiments: the Fig. 6 analogue, a real series, the calibration, the audit tables.

All use noisy gradient descent with the quadratic loss (:mod:`.exact`: K = 1, c = 1 - eta) so
that every bound sits beside the exact divergence of the same run.

* :func:`fig6_table` -- paper 002, Fig. 6 (Appendix F.5.4): D_alpha against the number of
  steps T for the equal-correlation and the decaying-correlation priors, every accountant and
  the exact value (columns :data:`FIG6_COLUMNS`).
* :func:`series_table` -- a column of a dataset as the records, in file order (or sorted by a
  column); the prior is the stationary Gaussian of the column's biased sample autocovariance,
  D = max - min; secrets at the first, last and every ``secret_every``-th record
  (columns :data:`SERIES_COLUMNS`).
* :func:`calibration_table` -- the smallest sigma each accountant certifies for every
  (epsilon, delta) of the grid, each audited exactly (columns :data:`CALIBRATION_COLUMNS`;
  ``exact`` is the exact audit's own smallest sigma).
* :func:`fig6_audit`, :func:`series_audit` -- the same numbers in the project's audit-table
  format (``results/audit/*.csv``: one row per claim, ``violation`` from the exact audit), so
  that :func:`pufferfish.pipeline.report.audit_summary` counts the violations. Fig. 6 rows
  claim D_alpha <= bound (guarantee ``renyi``); series rows claim the calibrated sigma meets
  (epsilon, delta) (guarantee ``epsilon_delta``) and D_alpha <= epsilon (``renyi``). Column
  ``claimed``: True where the paper or the project says the bound or the scale attains the
  target (``paper_bound``, ``contraction_bound``, ``composition``, ``exact``), False for the
  ``dp_assumption`` baseline (:data:`UNCLAIMED`), shown on purpose to fail under correlation.
* :func:`run_fig6`, :func:`run_series` -- write the CSVs and the figures (the series also every
  record's exact audit: :mod:`.exposure`);
  :func:`~pufferfish.iteration.captions.rejection_summary` -- the exact audit's verdicts of a calibration
  table, for a caption.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np

from pufferfish.iteration.accountants import ACCOUNTANTS
from pufferfish.iteration.calibrate import audit_sigma, exact_sigma, sigma_for_epsilon_delta, sigma_for_renyi
from pufferfish.iteration.covariance import (EqualCorrelation, StationaryCovariance, biased_autocovariance,
                                             decaying_correlation)
from pufferfish.iteration.model import account_quadratic_model
from pufferfish.iteration.settings import Fig6Settings, SeriesSettings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FIG6_COLUMNS", "SERIES_COLUMNS", "CALIBRATION_COLUMNS", "AUDIT_COLUMNS", "UNCLAIMED", "FAMILIES",
           "fig6_table", "read_series", "series_prior", "series_table", "calibration_table", "fig6_audit", "series_audit",
           "sigma_figure_table", "run_fig6", "run_series"]

FIG6_COLUMNS = ["correlation", "rho", "steps", "secret_index", "eta", "sigma", "alpha", "paper_bound",
                "contraction_bound", "exact", "dp_assumption", "composition"]
SERIES_COLUMNS = ["dataset", "column", "records", "D", *FIG6_COLUMNS]
CALIBRATION_COLUMNS = ["accountant", "eta", "secret_index", "epsilon", "delta", "sigma", "exact_delta",
                       "meets_target"]
AUDIT_COLUMNS = ["experiment", "panel", "method", "epsilon", "delta", "scale", "epsilon_achieved", "delta_achieved",
                 "scale_min", "violation", "noise", "guarantee", "alpha", "renyi_achieved", "claimed"]
#: the accountants shown on purpose as baselines that do not hold under correlation: their audit rows
#: have ``claimed`` False (neither the paper nor the project says they attain the target)
UNCLAIMED = frozenset({"dp_assumption"})
#: the correlation families of Fig. 6
FAMILIES = ("equal", "decaying")
#: the ``correlation`` label of a series' prior (stationary, biased sample autocovariance)
SERIES_CORRELATION = "sample_autocovariance"


def _covariance(family: str, size: int, rho: float):
    return EqualCorrelation(size, rho) if family == "equal" else decaying_correlation(size, rho)


# ------------------------------------------------------------------------------ Fig. 6
def _fig6_accounts(settings: Fig6Settings):
    """(family, rho, T, account) for every curve point of Fig. 6."""
    for family in FAMILIES:
        for rho in getattr(settings, family):
            for steps in settings.steps:
                yield family, rho, steps, account_quadratic_model(
                    _covariance(family, steps, rho), secret_index=settings.secret_index, eta=settings.eta,
                    diameter=settings.diameter, sigma=settings.sigma)


def fig6_table(settings: Fig6Settings, *, accounts=None) -> pd.DataFrame:
    """D_alpha of every accountant and the exact value, per family, rho and T (:data:`FIG6_COLUMNS`)."""
    import pandas as pd

    rows = []
    for family, rho, steps, account in accounts or _fig6_accounts(settings):
        values = account.renyi(sigma=settings.sigma, alpha=settings.alpha)
        rows.append({"correlation": family, "rho": rho, "steps": steps, "secret_index": settings.secret_index,
                     "eta": settings.eta, "sigma": settings.sigma, "alpha": settings.alpha,
                     **{k: float(v) for k, v in values.items()}})
    return pd.DataFrame(rows, columns=FIG6_COLUMNS)


def fig6_audit(settings: Fig6Settings, *, rtol: float = 1e-9, experiment: str = "iteration_fig6",
               accounts=None) -> pd.DataFrame:
    """Every Fig. 6 bound as a claim D_alpha <= bound at sigma, audited against the exact D_alpha.

    ``scale_min`` is the smallest sigma at which the exact D_alpha is within the claim
    (:func:`~pufferfish.iteration.calibrate.exact_sigma` with the claim as the Renyi target), so
    ``scale / scale_min`` < 1 marks a claim the exact audit refutes (:data:`AUDIT_COLUMNS`).
    """
    import pandas as pd

    rows = []
    for family, rho, steps, account in accounts or _fig6_accounts(settings):
        values = account.renyi(sigma=settings.sigma, alpha=settings.alpha)
        exact = float(values["exact"])
        for name in ACCOUNTANTS:
            claim = float(values[name])
            if claim > 0:
                scale_min = exact_sigma(account.audit, epsilon=claim, alpha=settings.alpha)
            else:
                scale_min = 0.0 if account.audit.mean_gap == 0 else math.inf
            rows.append({"experiment": experiment, "panel": f"{family} rho={rho:g} T={steps}", "method": name,
                         "epsilon": claim, "delta": math.nan, "scale": settings.sigma, "epsilon_achieved": math.nan,
                         "delta_achieved": math.nan, "scale_min": scale_min,
                         "violation": bool(exact > claim * (1.0 + rtol)), "noise": "gaussian", "guarantee": "renyi",
                         "alpha": settings.alpha, "renyi_achieved": exact, "claimed": name not in UNCLAIMED})
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)


# ------------------------------------------------------------------------------ a real series
def read_series(path: str | os.PathLike, settings: SeriesSettings) -> np.ndarray:
    """The column ``settings.column`` of the CSV at ``path``, in ``settings.order`` (``file`` or a column to sort by).

    A missing column or a non-numeric / missing value is a :class:`~pufferfish.errors.DataError`
    naming the column (the series has no gaps: every record is a step).
    """
    import pandas as pd

    from pufferfish.errors import DataError

    frame = pd.read_csv(path, low_memory=False, float_precision="round_trip")
    for name in {settings.column, settings.order} - {"file"}:
        if name not in frame.columns:
            raise DataError(f"{settings.dataset}: no column {name!r} (iteration.series.{settings.name}); "
                            f"columns: {', '.join(map(str, frame.columns[:20]))}")
    if settings.order != "file":
        frame = frame.sort_values(settings.order, kind="stable")
    values = pd.to_numeric(frame[settings.column], errors="coerce")
    if values.isna().any():
        row = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise DataError(f"{settings.dataset}.{settings.column}: row {row} is missing or not a number "
                        f"(iteration.series.{settings.name} needs every record)")
    return values.to_numpy(dtype=float)


def series_prior(values) -> tuple[StationaryCovariance, float]:
    """The stationary Gaussian prior of a series (biased sample autocovariance) and D = max - min."""
    gamma = biased_autocovariance(values)
    values = np.asarray(values, dtype=float)
    return StationaryCovariance(gamma), float(values.max() - values.min())


def _series_accounts(values, settings: SeriesSettings):
    covariance, diameter = series_prior(values)
    secrets = settings.secret_indices(covariance.size)
    accounts = {(eta, k): account_quadratic_model(covariance, secret_index=k, eta=eta, diameter=diameter,
                                                  sigma=settings.sigma)
                for eta in settings.etas for k in secrets}
    return covariance, diameter, accounts


def series_table(values, settings: SeriesSettings, *, accounts=None) -> pd.DataFrame:
    """D_alpha of every accountant and the exact value per eta and secret (:data:`SERIES_COLUMNS`).

    ``rho`` is the lag-1 autocorrelation gamma(1) / gamma(0) of the series (for reading; the
    prior uses every lag).
    """
    import pandas as pd

    covariance, diameter, accounts = accounts or _series_accounts(values, settings)
    gamma = covariance.autocovariance
    rho = float(gamma[1] / gamma[0]) if gamma.size > 1 else 0.0
    rows = []
    for (eta, k), account in accounts.items():
        values_k = account.renyi(sigma=settings.sigma, alpha=settings.alpha)
        rows.append({"dataset": settings.dataset, "column": settings.column, "records": covariance.size,
                     "D": diameter, "correlation": SERIES_CORRELATION, "rho": rho, "steps": covariance.size,
                     "secret_index": k, "eta": eta, "sigma": settings.sigma, "alpha": settings.alpha,
                     **{name: float(v) for name, v in values_k.items()}})
    return pd.DataFrame(rows, columns=SERIES_COLUMNS)


def _calibrations(accounts, settings: SeriesSettings, *, rtol: float):
    """Per accountant (and ``exact``), eta, secret k and epsilon: (name, eta, k, epsilon, the (epsilon, delta)
    calibration audited, the exact smallest sigma for it, the Renyi calibration audited, the exact smallest
    sigma for that, the exact audit)."""
    out = []
    for (eta, k), account in accounts.items():
        audit = account.audit
        for epsilon in settings.epsilons:
            smallest = exact_sigma(audit, epsilon=epsilon, delta=settings.delta)
            smallest_renyi = exact_sigma(audit, epsilon=epsilon, alpha=settings.alpha)
            for name in (*ACCOUNTANTS, "exact"):
                if name == "exact":
                    sigma, sigma_r = smallest, smallest_renyi
                else:
                    sigma = sigma_for_epsilon_delta(account.costs[name], epsilon=epsilon, delta=settings.delta)
                    sigma_r = sigma_for_renyi(account.costs[name], alpha=settings.alpha, epsilon=epsilon)
                pair = audit_sigma(audit, sigma, epsilon=epsilon, delta=settings.delta, rtol=rtol)
                renyi = audit_sigma(audit, sigma_r, epsilon=epsilon, alpha=settings.alpha, rtol=rtol)
                out.append((name, eta, k, epsilon, pair, smallest, renyi, smallest_renyi, audit))
    return out


def calibration_table(values, settings: SeriesSettings, *, rtol: float = 1e-9, accounts=None,
                      calibrations=None) -> pd.DataFrame:
    """The smallest sigma per accountant, eta, secret and epsilon at ``delta``, audited exactly
    (:data:`CALIBRATION_COLUMNS`; ``exact`` rows: the exact audit's smallest sigma).

    ``accounts`` / ``calibrations``: already computed (by :func:`run_series`), else computed here.
    """
    import pandas as pd

    if calibrations is None:
        calibrations = _calibrations((accounts or _series_accounts(values, settings))[2], settings, rtol=rtol)
    rows = [{"accountant": name, "eta": eta, "secret_index": k, "epsilon": epsilon, "delta": settings.delta,
             "sigma": pair.sigma, "exact_delta": pair.exact, "meets_target": bool(pair.meets_target)}
            for name, eta, k, epsilon, pair, *_ in calibrations]
    return pd.DataFrame(rows, columns=CALIBRATION_COLUMNS)


def series_audit(values, settings: SeriesSettings, *, rtol: float = 1e-9, accounts=None,
                 calibrations=None) -> pd.DataFrame:
    """The calibrations of :func:`calibration_table` ((epsilon, delta) and Renyi targets) in the audit format.

    ``epsilon_achieved`` is the exact epsilon at the target delta, ``delta_achieved`` the exact
    delta at the target epsilon, ``scale_min`` the exact audit's smallest sigma.
    """
    import pandas as pd

    if calibrations is None:
        calibrations = _calibrations((accounts or _series_accounts(values, settings))[2], settings, rtol=rtol)
    experiment = f"iteration_{settings.name}"
    rows = []
    for name, eta, k, epsilon, pair, smallest, renyi, smallest_renyi, audit in calibrations:
        panel = f"eta={eta:g} k={k}"
        random = pair.sigma > 0 or audit.data_variance > 0
        achieved_eps = audit.at(pair.sigma).epsilon(delta=settings.delta) if random else math.inf
        rows.append({"experiment": experiment, "panel": panel, "method": name, "epsilon": epsilon,
                     "delta": settings.delta, "scale": pair.sigma, "epsilon_achieved": achieved_eps,
                     "delta_achieved": pair.exact, "scale_min": smallest, "violation": not pair.meets_target,
                     "noise": "gaussian", "guarantee": "epsilon_delta", "alpha": math.nan,
                     "renyi_achieved": math.nan, "claimed": name not in UNCLAIMED})
        rows.append({"experiment": experiment, "panel": panel, "method": name, "epsilon": epsilon,
                     "delta": math.nan, "scale": renyi.sigma, "epsilon_achieved": math.nan,
                     "delta_achieved": math.nan, "scale_min": smallest_renyi, "violation": not renyi.meets_target,
                     "noise": "gaussian", "guarantee": "renyi", "alpha": settings.alpha,
                     "renyi_achieved": renyi.exact, "claimed": name not in UNCLAIMED})
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)


def sigma_figure_table(sigmas: pd.DataFrame, accounts, settings: SeriesSettings, *,
                       rtol: float = 1e-9) -> pd.DataFrame:
    """The numbers of the sigma figure (:func:`~pufferfish.iteration.plots.plot_sigma`).

    ``panel == "all_secrets"``: per accountant, eta and epsilon, the sigma that protects every
    listed secret (the largest of the per-secret sigmas of :func:`calibration_table`), its
    largest exact delta over the secrets (``exact_delta``) and whether every secret meets the
    target. ``panel == "per_secret"``: the rows of :func:`calibration_table` at the largest
    epsilon of the grid. Columns ``panel, accountant, eta, secret_index, epsilon, delta,
    sigma, exact_delta, meets_target`` (``secret_index`` 0 for "all").
    """
    import pandas as pd

    rows = []
    for (name, eta, epsilon), group in sigmas.groupby(["accountant", "eta", "epsilon"], sort=False):
        sigma = float(group["sigma"].max())
        checks = [audit_sigma(accounts[(eta, int(k))].audit, sigma, epsilon=epsilon, delta=settings.delta, rtol=rtol)
                  for k in group["secret_index"]]
        rows.append({"panel": "all_secrets", "accountant": name, "eta": eta, "secret_index": 0, "epsilon": epsilon,
                     "delta": settings.delta, "sigma": sigma, "exact_delta": max(c.exact for c in checks),
                     "meets_target": all(c.meets_target for c in checks)})
    per_secret = sigmas[sigmas.epsilon == max(settings.epsilons)].assign(panel="per_secret")
    columns = ["panel", "accountant", "eta", "secret_index", "epsilon", "delta", "sigma", "exact_delta",
               "meets_target"]
    return pd.concat([pd.DataFrame(rows, columns=columns), per_secret[columns]], ignore_index=True)


# ------------------------------------------------------------------------------ runs
def _check_records(values, settings: SeriesSettings) -> None:
    """A series longer than this machine can hold is refused before any computation (:mod:`.limits`)."""
    from pufferfish.errors import DataError
    from pufferfish.iteration.limits import limit_message, max_records

    bound = max_records(len(settings.etas))
    if values.size > bound:
        raise DataError(limit_message(f"{settings.dataset}.{settings.column}: the records (iteration.series."
                                      f"{settings.name})", int(values.size), bound, "records"))


def run_fig6(settings: Fig6Settings, *, theta_csv, audit_csv, figure_png, figure_pdf, figure_csv,
             rtol: float = 1e-9) -> pd.DataFrame:
    """Write the Fig. 6 table (theta CSV and the figure's CSV), its audit table and the figure."""
    from pufferfish.iteration.plots import plot_fig6
    from pufferfish.files import write_csv

    accounts = list(_fig6_accounts(settings))
    frame = fig6_table(settings, accounts=accounts)
    write_csv(frame, theta_csv)
    write_csv(frame, figure_csv)
    write_csv(fig6_audit(settings, rtol=rtol, accounts=accounts), audit_csv)
    plot_fig6(frame, figure_png, figure_pdf)
    return frame


def run_series(settings: SeriesSettings, *, data_csv, theta_csv, sigma_csv, audit_csv, figure_png, figure_pdf,
               figure_csv, sigma_png, sigma_pdf, sigma_figure_csv, exposure_csv=None, exposure_png=None,
               exposure_pdf=None, exposure_figure_csv=None, rtol: float = 1e-9) -> None:
    """Write a series' bounds table, its calibration table, its audit table and the two figures; with the
    four ``exposure_*`` paths also every record's exact audit (:func:`.exposure.run_exposure`)."""
    from pufferfish.iteration.plots import plot_series, plot_sigma
    from pufferfish.files import write_csv

    values = read_series(data_csv, settings)
    _check_records(values, settings)
    accounts = _series_accounts(values, settings)
    calibrations = _calibrations(accounts[2], settings, rtol=rtol)
    bounds = series_table(values, settings, accounts=accounts)
    sigmas = calibration_table(values, settings, calibrations=calibrations)
    write_csv(bounds, theta_csv)
    write_csv(sigmas, sigma_csv)
    write_csv(series_audit(values, settings, calibrations=calibrations), audit_csv)
    write_csv(bounds, figure_csv)
    plot_series(bounds, figure_png, figure_pdf)
    figure = sigma_figure_table(sigmas, accounts[2], settings, rtol=rtol)
    write_csv(figure, sigma_figure_csv)
    plot_sigma(figure, sigma_png, sigma_pdf)
    exposure = (exposure_csv, exposure_png, exposure_pdf, exposure_figure_csv)
    if any(path is not None for path in exposure):
        from pufferfish.iteration.exposure import run_exposure

        run_exposure(accounts[0], accounts[1], bounds, settings, table_csv=exposure_csv, figure_png=exposure_png,
                     figure_pdf=exposure_pdf, figure_csv=exposure_figure_csv)

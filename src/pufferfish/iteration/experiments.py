"""The iteration experiments: the Fig. 6 analogue, a real series, the calibration, the audit tables.

All use noisy gradient descent with the quadratic loss (:mod:`pufferfish.iteration.exact`: K = 1, c = 1 - eta) so
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
  record's exact audit: :mod:`pufferfish.iteration.exposure`);
  :func:`~pufferfish.iteration.captions.rejection_summary` -- the exact audit's verdicts of a calibration
  table, for a caption.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np

from pufferfish.audit.target import target_for
from pufferfish.audit.verdict import audit_frame, audit_row
from pufferfish.iteration.accountants import ACCOUNTANTS
from pufferfish.iteration.calibrate import audit_sigma, calibrate_account, exact_sigma
from pufferfish.iteration.equal_correlation import EqualCorrelation
from pufferfish.iteration.model import account_quadratic_model
from pufferfish.iteration.settings import Fig6Settings, SeriesSettings
from pufferfish.iteration.stationary_covariance import StationaryCovariance, biased_autocovariance, decaying_correlation

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FIG6_COLUMNS", "SERIES_COLUMNS", "CALIBRATION_COLUMNS", "UNCLAIMED", "FAMILIES",
           "fig6_table", "read_series", "series_prior", "series_table", "calibration_table", "fig6_audit", "series_audit",
           "sigma_figure_table", "run_fig6", "run_series"]

FIG6_COLUMNS = ["correlation", "rho", "steps", "secret_index", "eta", "sigma", "alpha", "paper_bound",
                "contraction_bound", "exact", "dp_assumption", "composition"]
SERIES_COLUMNS = ["dataset", "column", "records", "D", *FIG6_COLUMNS]
CALIBRATION_COLUMNS = ["accountant", "eta", "secret_index", "epsilon", "delta", "sigma", "exact_delta",
                       "meets_target"]
#: the accountants shown on purpose as baselines that do not hold under correlation: their audit rows
#: have ``claimed`` False (neither the paper nor the project says they attain the target)
UNCLAIMED = frozenset({"dp_assumption"})
#: the correlation families of Fig. 6
FAMILIES = ("equal", "decaying")
#: the claim a bound that underflows to 0 is audited against (a Target needs epsilon > 0)
_TINY = 5e-324
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
    """D_alpha of every accountant and the exact value, per family, rho and T (:data:`FIG6_COLUMNS`).

    Parameters
    ----------
    settings : pufferfish.iteration.settings.Fig6Settings
        The typed config section ``iteration.fig6``.
    accounts : list, optional
        The accounts already computed (by the run function), else computed here.

    Returns
    -------
    pandas.DataFrame
        The rows of :data:`FIG6_COLUMNS`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Settings of the wrong type, or a size this machine cannot honour (job-level: the config was validated).
    """
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
    ``scale / scale_min`` < 1 marks a claim the exact audit refutes (the audit-table schema
    :data:`~pufferfish.audit.verdict.AUDIT_COLUMNS`). A bound below float64's range (0) is audited
    as the smallest positive float.

    Parameters
    ----------
    settings : pufferfish.iteration.settings.Fig6Settings
        The typed config section ``iteration.fig6``.
    rtol : float, optional
        The audit's relative tolerance (default 1e-9).
    experiment : str, optional
        The ``experiment`` of the rows.
    accounts : list, optional
        The accounts already computed (by the run function), else computed here.

    Returns
    -------
    pandas.DataFrame
        Rows of :data:`~pufferfish.audit.verdict.AUDIT_COLUMNS`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Settings of the wrong type, or a size this machine cannot honour (job-level: the config was validated).
    """
    rows = []
    for family, rho, steps, account in accounts or _fig6_accounts(settings):
        values = account.renyi(sigma=settings.sigma, alpha=settings.alpha)
        for name in ACCOUNTANTS:
            target = target_for("renyi", max(float(values[name]), _TINY), alpha=settings.alpha)
            verdict = audit_sigma(account.audit, settings.sigma, epsilon=target.epsilon, alpha=target.alpha, rtol=rtol)
            rows.append(audit_row(verdict, experiment=experiment, panel=f"{family} rho={rho:g} T={steps}", method=name,
                                  noise="gaussian", claimed=name not in UNCLAIMED,
                                  scale_min=exact_sigma(account.audit, epsilon=target.epsilon, alpha=target.alpha)))
    return audit_frame(rows)


# ------------------------------------------------------------------------------ a real series
def read_series(path: str | os.PathLike, settings: SeriesSettings) -> np.ndarray:
    """The column ``settings.column`` of the CSV at ``path``, in ``settings.order`` (``file`` or a column to sort by).

    A missing column or a non-numeric / missing value is a :class:`~pufferfish.errors.DataError`
    naming the column (the series has no gaps: every record is a step).

    Parameters
    ----------
    path : path-like
        The series' CSV.
    settings : pufferfish.iteration.settings.SeriesSettings
        The typed settings of one series.

    Returns
    -------
    numpy.ndarray
        The column's values as floats.

    Raises
    ------
    DataError
        One line naming the column: missing, a value missing or not numeric, or a sort column missing.
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
    r"""The stationary Gaussian prior of a series (biased sample autocovariance) and D = max - min.

    Parameters
    ----------
    values : array_like
        The series, finite, not constant.

    Returns
    -------
    (pufferfish.iteration.stationary_covariance.StationaryCovariance, float)
        The prior and :math:`D = \max - \min`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        As :func:`pufferfish.iteration.stationary_covariance.biased_autocovariance`.
    """
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

    Parameters
    ----------
    values : numpy.ndarray
        The series, in record order (:func:`read_series`).
    settings : pufferfish.iteration.settings.SeriesSettings
        The typed settings of one series.
    accounts : list, optional
        The accounts already computed (by the run function), else computed here.

    Returns
    -------
    pandas.DataFrame
        The rows of :data:`SERIES_COLUMNS`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Settings of the wrong type, or a size this machine cannot honour (job-level: the config was validated).
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


def _calibrations(accounts, settings: SeriesSettings, *, rtol: float) -> list:
    """Per (eta, secret k) and epsilon: (eta, k, the account, :func:`pufferfish.iteration.calibrate.calibrate_account`'s calibrations)."""
    out = []
    for (eta, k), account in accounts.items():
        for epsilon in settings.epsilons:
            group = calibrate_account(account, epsilon=epsilon, delta=settings.delta, alpha=settings.alpha, rtol=rtol)
            out.append((eta, k, account, group))
    return out


def calibration_table(values, settings: SeriesSettings, *, rtol: float = 1e-9, accounts=None,
                      calibrations=None) -> pd.DataFrame:
    """The smallest sigma per accountant, eta, secret and epsilon at ``delta``, audited exactly
    (:data:`CALIBRATION_COLUMNS`; ``exact`` rows: the exact audit's smallest sigma).

    ``accounts`` / ``calibrations``: already computed (by :func:`run_series`), else computed here.

    Parameters
    ----------
    values : numpy.ndarray
        The series, in record order (:func:`read_series`).
    settings : pufferfish.iteration.settings.SeriesSettings
        The typed settings of one series.
    rtol : float, optional
        The audit's relative tolerance (default 1e-9).
    accounts : list, optional
        The accounts already computed (by the run function), else computed here.
    calibrations : list, optional
        The calibrations already computed (by :func:`run_series`), else computed here.

    Returns
    -------
    pandas.DataFrame
        The rows of :data:`CALIBRATION_COLUMNS`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Settings of the wrong type, or a size this machine cannot honour (job-level: the config was validated).
    """
    import pandas as pd

    if calibrations is None:
        calibrations = _calibrations((accounts or _series_accounts(values, settings))[2], settings, rtol=rtol)
    rows = [{"accountant": c.accountant, "eta": eta, "secret_index": k, "epsilon": c.epsilon_delta.target.epsilon,
             "delta": settings.delta, "sigma": c.epsilon_delta.scale, "exact_delta": c.epsilon_delta.value,
             "meets_target": c.epsilon_delta.meets}
            for eta, k, _, group in calibrations for c in group]
    return pd.DataFrame(rows, columns=CALIBRATION_COLUMNS)


def series_audit(values, settings: SeriesSettings, *, rtol: float = 1e-9, accounts=None,
                 calibrations=None) -> pd.DataFrame:
    """The calibrations of :func:`calibration_table` ((epsilon, delta) and Renyi targets) in the audit-table
    schema (:data:`~pufferfish.audit.verdict.AUDIT_COLUMNS`).

    ``delta_achieved`` is the exact delta at the target epsilon (``renyi_achieved`` the exact
    D_alpha), ``scale_min`` the exact audit's smallest sigma; an (epsilon, delta) row's
    ``epsilon_achieved`` is the exact epsilon at the target delta.

    Parameters
    ----------
    values : numpy.ndarray
        The series, in record order (:func:`read_series`).
    settings : pufferfish.iteration.settings.SeriesSettings
        The typed settings of one series.
    rtol : float, optional
        The audit's relative tolerance (default 1e-9).
    accounts : list, optional
        The accounts already computed (by the run function), else computed here.
    calibrations : list, optional
        The calibrations already computed (by :func:`run_series`), else computed here.

    Returns
    -------
    pandas.DataFrame
        Rows of :data:`~pufferfish.audit.verdict.AUDIT_COLUMNS`.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Settings of the wrong type, or a size this machine cannot honour (job-level: the config was validated).
    """
    if calibrations is None:
        calibrations = _calibrations((accounts or _series_accounts(values, settings))[2], settings, rtol=rtol)
    experiment = f"iteration_{settings.name}"
    rows = []
    for eta, k, account, group in calibrations:
        for c in group:
            common = dict(experiment=experiment, panel=f"eta={eta:g} k={k}", method=c.accountant, noise="gaussian",
                          claimed=c.accountant not in UNCLAIMED)
            pair = audit_row(c.epsilon_delta, scale_min=c.smallest, **common)
            random = c.epsilon_delta.scale > 0 or account.audit.data_variance > 0
            pair["epsilon_achieved"] = (account.audit.at(c.epsilon_delta.scale).epsilon(delta=settings.delta)
                                        if random else math.inf)
            rows += [pair, audit_row(c.renyi, scale_min=c.smallest_renyi, **common)]
    return audit_frame(rows)


def sigma_figure_table(sigmas: pd.DataFrame, accounts, settings: SeriesSettings, *,
                       rtol: float = 1e-9) -> pd.DataFrame:
    """The numbers of the sigma figure (:func:`~pufferfish.iteration.plots.plot_sigma`).

    ``panel == "all_secrets"``: per accountant, eta and epsilon, the sigma that protects every
    listed secret (the largest of the per-secret sigmas of :func:`calibration_table`), its
    largest exact delta over the secrets (``exact_delta``) and whether every secret meets the
    target. ``panel == "per_secret"``: the rows of :func:`calibration_table` at the largest
    epsilon of the grid. Columns ``panel, accountant, eta, secret_index, epsilon, delta,
    sigma, exact_delta, meets_target`` (``secret_index`` 0 for "all").

    Parameters
    ----------
    sigmas : pandas.DataFrame
        The calibration table (:func:`calibration_table`).
    accounts : list
        The series' accounts (their exact audits).
    settings : pufferfish.iteration.settings.SeriesSettings
        The typed settings of one series.
    rtol : float, optional
        The audit's relative tolerance (default 1e-9).

    Returns
    -------
    pandas.DataFrame
        The figure's rows (columns above).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Settings of the wrong type, or a size this machine cannot honour (job-level: the config was validated).
    """
    import pandas as pd

    rows = []
    for (name, eta, epsilon), group in sigmas.groupby(["accountant", "eta", "epsilon"], sort=False):
        sigma = float(group["sigma"].max())
        checks = [audit_sigma(accounts[(eta, int(k))].audit, sigma, epsilon=epsilon, delta=settings.delta, rtol=rtol)
                  for k in group["secret_index"]]
        rows.append({"panel": "all_secrets", "accountant": name, "eta": eta, "secret_index": 0, "epsilon": epsilon,
                     "delta": settings.delta, "sigma": sigma, "exact_delta": max(c.value for c in checks),
                     "meets_target": all(c.meets for c in checks)})
    per_secret = sigmas[sigmas.epsilon == max(settings.epsilons)].assign(panel="per_secret")
    columns = ["panel", "accountant", "eta", "secret_index", "epsilon", "delta", "sigma", "exact_delta",
               "meets_target"]
    return pd.concat([pd.DataFrame(rows, columns=columns), per_secret[columns]], ignore_index=True)


# ------------------------------------------------------------------------------ runs
def _check_records(values, settings: SeriesSettings) -> None:
    """A series longer than this machine can hold is refused before any computation (:mod:`pufferfish.iteration.limits`)."""
    from pufferfish.errors import DataError
    from pufferfish.iteration.limits import limit_message, max_records

    bound = max_records(len(settings.etas))
    if values.size > bound:
        raise DataError(limit_message(f"{settings.dataset}.{settings.column}: the records (iteration.series."
                                      f"{settings.name})", int(values.size), bound, "records"))


def run_fig6(settings: Fig6Settings, *, theta_csv, audit_csv, figure_png, figure_pdf, figure_csv,
             rtol: float = 1e-9) -> pd.DataFrame:
    """Write the Fig. 6 table (theta CSV and the figure's CSV), its audit table and the figure.

    Parameters
    ----------
    settings : pufferfish.iteration.settings.Fig6Settings
        The typed config section ``iteration.fig6``.
    theta_csv, audit_csv, figure_png, figure_pdf, figure_csv : path-like
        The output paths.
    rtol : float, optional
        The audit's relative tolerance (default 1e-9).

    Returns
    -------
    pandas.DataFrame
        The Fig. 6 table (:func:`fig6_table`).

    Raises
    ------
    OSError
        An output path that cannot be written.
    """
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
    four ``exposure_*`` paths also every record's exact audit (:func:`pufferfish.iteration.exposure.run_exposure`).

    Parameters
    ----------
    settings : pufferfish.iteration.settings.SeriesSettings
        The typed settings of one series.
    data_csv : path-like
        The series' CSV (:func:`read_series`).
    theta_csv, sigma_csv, audit_csv, figure_png, figure_pdf, figure_csv, sigma_png, sigma_pdf, sigma_figure_csv : path-like
        The output paths.
    exposure_csv, exposure_png, exposure_pdf, exposure_figure_csv : path-like, optional
        The exposure outputs (all four, or none).
    rtol : float, optional
        The audit's relative tolerance (default 1e-9).

    Returns
    -------
    None
        The files are written.

    Raises
    ------
    DataError
        The series' data cannot be read (:func:`read_series`).
    """
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

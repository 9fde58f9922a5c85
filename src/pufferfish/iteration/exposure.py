"""Every record of a series as the secret: which one is most exposed (the series experiment's exposure outputs).

The series experiment (:mod:`pufferfish.iteration.experiments`) audits a few listed secrets with every accountant;
here the exact audit covers all T records at once (:func:`pufferfish.iteration.every_secret.all_secrets_audit`,
O(T) per eta for the stationary prior of a series), at the experiment's sigma and alpha:

* :func:`exposure_table` -- per eta, the most exposed record and its exact D_alpha, the least
  exposed and the median, the listed secret of largest D_alpha, and the smallest sigma the exact
  audit needs for (epsilon, delta) at the grid's largest epsilon to protect every record, beside
  the one that protects the listed secrets (:data:`EXPOSURE_COLUMNS`);
* :func:`exposure_curve` -- the numbers of the figure: the exact D_alpha of every record per eta,
  with the listed secrets' accountant bounds on their rows (:data:`CURVE_COLUMNS`);
* :func:`run_exposure` -- both CSVs and the figure (:func:`pufferfish.iteration.plots.plot_exposure`).

docs/math/iteration.md, "Every record at once".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pufferfish.iteration.accountants import ACCOUNTANTS
from pufferfish.iteration.every_secret import AllSecretsAudit, all_secrets_audit
from pufferfish.iteration.settings import SeriesSettings
from pufferfish.iteration.stationary_covariance import StationaryCovariance

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXPOSURE_COLUMNS", "CURVE_COLUMNS", "series_audits", "exposure_table", "exposure_curve", "run_exposure"]

EXPOSURE_COLUMNS = ["dataset", "column", "records", "eta", "sigma", "alpha", "most_exposed", "exact", "least_exposed",
                    "exact_min", "exact_median", "listed_worst", "listed_exact", "epsilon", "delta",
                    "sigma_every_record", "sigma_listed"]
CURVE_COLUMNS = ["eta", "secret_index", "exact", *ACCOUNTANTS]


def series_audits(covariance: StationaryCovariance, diameter: float, settings: SeriesSettings) -> dict:
    """{eta: :class:`~pufferfish.iteration.every_secret.AllSecretsAudit`} of every record at ``settings.sigma``.

    Parameters
    ----------
    covariance : StationaryCovariance
        The series' prior (:func:`pufferfish.iteration.experiments.series_prior`).
    diameter : float
        D = max - min of the series.
    settings : SeriesSettings
        The series' settings (its etas and sigma).

    Returns
    -------
    dict
        One audit of every record per eta.

    Raises
    ------
    InvalidArgumentError
        As :func:`pufferfish.iteration.every_secret.all_secrets_audit` (job-level: the
        arguments come from the schema-validated config and the series).
    """
    return {eta: all_secrets_audit(covariance, eta=eta, sigma=settings.sigma, diameter=diameter)
            for eta in settings.etas}


def _row(audit: AllSecretsAudit, settings: SeriesSettings, listed: tuple[int, ...]) -> dict:
    exact = audit.renyi(alpha=settings.alpha)
    order = np.argsort(exact, kind="stable")
    positions = np.asarray(listed) - 1
    worst = int(positions[np.argmax(exact[positions])])
    epsilon = max(settings.epsilons)
    sigmas = audit.smallest_sigma(epsilon=epsilon, delta=settings.delta)
    return {"most_exposed": audit.most_exposed(), "exact": float(exact.max()), "least_exposed": int(order[0]) + 1,
            "exact_min": float(exact[order[0]]), "exact_median": float(np.median(exact)),
            "listed_worst": worst + 1, "listed_exact": float(exact[worst]), "epsilon": epsilon,
            "delta": settings.delta, "sigma_every_record": float(sigmas.max()),
            "sigma_listed": float(sigmas[positions].max())}


def exposure_table(audits: dict, settings: SeriesSettings, *, records: int) -> pd.DataFrame:
    """One row per eta (:data:`EXPOSURE_COLUMNS`): the most exposed record of the series and its exact D_alpha.

    ``most_exposed`` has the largest D_alpha (the largest mu_k: also the largest delta at every
    epsilon); ``listed_worst`` is the largest among the listed secrets
    (:meth:`pufferfish.iteration.settings.SeriesSettings.secret_indices`). ``sigma_every_record`` is the exact audit's
    smallest sigma for (epsilon, delta) with epsilon the grid's largest, maximised over every
    record; ``sigma_listed`` the same over the listed secrets.

    Parameters
    ----------
    audits : dict
        {eta: :class:`~pufferfish.iteration.every_secret.AllSecretsAudit`} (:func:`series_audits`).
    settings : SeriesSettings
        The series' settings.
    records : int
        T, the series' records.

    Returns
    -------
    pandas.DataFrame
        One row per eta.

    Raises
    ------
    KeyError
        An eta of ``settings`` without an audit in ``audits`` (job-level: :func:`series_audits` builds
        one per eta).
    """
    import pandas as pd

    listed = settings.secret_indices(records)
    rows = [{"dataset": settings.dataset, "column": settings.column, "records": records, "eta": eta,
             "sigma": settings.sigma, "alpha": settings.alpha, **_row(audit, settings, listed)}
            for eta, audit in audits.items()]
    return pd.DataFrame(rows, columns=EXPOSURE_COLUMNS)


def exposure_curve(audits: dict, bounds: pd.DataFrame, settings: SeriesSettings) -> pd.DataFrame:
    """The exact D_alpha of every record per eta, the listed secrets' accountant bounds on their rows
    (:data:`CURVE_COLUMNS`; empty elsewhere).

    Parameters
    ----------
    audits : dict
        {eta: :class:`~pufferfish.iteration.every_secret.AllSecretsAudit`} (:func:`series_audits`).
    bounds : pandas.DataFrame
        The series table (:func:`pufferfish.iteration.experiments.series_table`).
    settings : SeriesSettings
        The series' settings (its alpha).

    Returns
    -------
    pandas.DataFrame
        T rows per eta.

    Raises
    ------
    KeyError
        An eta of ``settings`` without an audit in ``audits`` (job-level: :func:`series_audits` builds
        one per eta).
    """
    import pandas as pd

    frames = []
    for eta, audit in audits.items():
        frame = pd.DataFrame({"eta": eta, "secret_index": np.arange(1, audit.size + 1),
                              "exact": audit.renyi(alpha=settings.alpha)})
        listed = bounds[bounds.eta == eta].set_index("secret_index")
        for name in ACCOUNTANTS:
            frame[name] = frame.secret_index.map(listed[name])
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)[CURVE_COLUMNS]


def run_exposure(covariance: StationaryCovariance, diameter: float, bounds: pd.DataFrame, settings: SeriesSettings,
                 *, table_csv, figure_png, figure_pdf, figure_csv) -> pd.DataFrame:
    """Write the exposure table, the figure's CSV and the figure; return the table.

    Parameters
    ----------
    covariance : StationaryCovariance
        The series' prior.
    diameter : float
        D = max - min of the series.
    bounds : pandas.DataFrame
        The series table (the listed secrets' bounds).
    settings : SeriesSettings
        The series' settings.
    table_csv, figure_png, figure_pdf, figure_csv : path-like
        Where to write the table, the figure and the figure's numbers.

    Returns
    -------
    pandas.DataFrame
        The exposure table (:func:`exposure_table`).

    Raises
    ------
    InvalidArgumentError
        As :func:`series_audits`; an output path that cannot be written raises ``OSError``.
    """
    from pufferfish.files import write_csv
    from pufferfish.iteration.plots import plot_exposure

    audits = series_audits(covariance, diameter, settings)
    table = exposure_table(audits, settings, records=covariance.size)
    curve = exposure_curve(audits, bounds, settings)
    write_csv(table, table_csv)
    write_csv(curve, figure_csv)
    plot_exposure(curve, table, figure_png, figure_pdf)
    return table

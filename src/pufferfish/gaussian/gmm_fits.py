r"""The GMM priors of Figs. 3-4 of the Gaussian-priors paper (paper 004), fitted to data and read back.

N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024), Section V:
:func:`fit_experiment_gmms` fits one Gaussian mixture per secret to the attribute's values given
that secret (:mod:`pufferfish.gaussian.gmm`; the workflow's step ``gaussian_gmm``) and writes them
with :math:`w^*` and Theorem 2's two sums (eq. 13); :func:`read_gmms` reads them for
:func:`pufferfish.gaussian.experiments.run_gmm_experiment`. Each fit's seed is a stream of
:mod:`pufferfish.gaussian.streams`.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pandas as pd

from pufferfish.data_priors import condition
from pufferfish.files import write_json
from pufferfish.gaussian.gmm import (REG_COVAR, components_below_resolution, data_resolution, fit_gmm, numeric_values,
                                     theorem2_terms, w2_weights)
from pufferfish.gaussian.settings import GMMExperimentSettings, GMMSettings
from pufferfish.gaussian.streams import STREAMS, stream_id
from pufferfish.mixture import GMM

__all__ = ["fit_experiment_gmms", "read_gmms"]

log = logging.getLogger("pufferfish")


def _sklearn_seed(seed: int, *path: int) -> int:
    return int(np.random.SeedSequence([int(seed), *map(int, path)]).generate_state(1)[0])


def _read_frame(data_csv) -> pd.DataFrame:
    return pd.read_csv(data_csv, low_memory=False)


def _dataset_record(data_json) -> dict:
    """sha256 and source of ``data/raw/{dataset}.json`` when it exists and has them."""
    if not data_json or not Path(data_json).exists():
        return {}
    with open(data_json, encoding="utf-8") as handle:
        record = json.load(handle)
    return {k: record[k] for k in ("sha256", "source", "url", "uci_id", "member", "citation", "rows") if k in record}


def _secret_rows(frame: pd.DataFrame, experiment: GMMExperimentSettings, secret) -> tuple[np.ndarray, dict, int]:
    """The attribute values of one secret's rows (:func:`pufferfish.data_priors.condition`), the
    row accounting (rows with the secret, used, dropped: attribute absent, or in missing_values)
    and the rows of the dataset dropped for a missing value in a used column."""
    attribute, dataset, missing = experiment.attribute, experiment.dataset, list(experiment.missing_values)
    cond = condition(frame, attribute=attribute, given=secret.given, dataset=dataset, missing_values=missing)
    first = next(iter(secret.given))
    total = condition(frame, attribute=first, given=secret.given, dataset=dataset).rows_matching
    present = condition(frame, attribute=attribute, given=secret.given, dataset=dataset).rows_matching
    counts = {"label": secret.label, "given": dict(secret.given), "rows_with_secret": int(total),
              "rows_used": int(cond.rows_matching), "rows_dropped_missing": int(total - cond.rows_matching),
              "rows_dropped_nan": int(total - present), "rows_dropped_missing_value": int(present - cond.rows_matching)}
    return numeric_values(cond.values, name=f"{attribute} | {secret.label}"), counts, int(cond.rows_dropped_missing)


def _gmm_record(gmm: GMMSettings, fig_id: int, resolution: float | None) -> dict:
    """The ``gmm`` entry of the fits' record: the EM settings and the treatment of rounded data."""
    rounding = gmm.rounding if resolution is not None else "none"
    reg_covar = resolution ** 2 / 12.0 if rounding == "variance" else REG_COVAR
    treatment = {"dequantise": "x + h U, U uniform on [-1/2, 1/2], from SeedSequence([random_state, 1])",
                 "variance": "h^2 / 12 (the variance of rounding) added to every component's variance (reg_covar)",
                 "none": "the values as recorded"}[rounding]
    return {"components": gmm.components, "n_init": gmm.n_init, "max_iter": gmm.max_iter, "covariance_type": "full",
            "reg_covar": reg_covar, "init_params": "kmeans", "rounding": gmm.rounding, "fitted_values": treatment,
            "random_state": f"SeedSequence([seed, {fig_id}, {STREAMS['gmm_fit']}, secret]).generate_state(1)[0]",
            "library": "scikit-learn GaussianMixture"}


def fit_experiment_gmms(experiment: GMMExperimentSettings, *, gmm: GMMSettings, seed: int, data_csv, data_json=None,
                        out_json) -> dict:
    """Fit one GMM per secret of a GMM experiment (config ``gaussian.<name>``: fig3, fig4, ...), write the JSON.

    The attribute values of the rows satisfying each secret's ``given`` come from
    :func:`pufferfish.data_priors.condition` (rows missing the attribute or a conditioning
    column, or with the attribute in ``missing_values``, are dropped and counted). The data's
    resolution h (:func:`~pufferfish.gaussian.gmm.data_resolution` of both secrets' values)
    decides the treatment of rounded values (config ``gaussian.gmm.rounding``,
    :func:`~pufferfish.gaussian.gmm.fit_gmm`); a component narrower than the rounding,
    :math:`\\sigma < h / \\sqrt{12}`, is listed (``components_below_resolution``) and logged.

    Parameters
    ----------
    experiment : GMMExperimentSettings
        The experiment's config section.
    gmm : GMMSettings
        Config ``gaussian.gmm``.
    seed : int
        Config ``seed``.
    data_csv, data_json, out_json : str or os.PathLike
        The dataset's table and provenance record (optional), and the record written.

    Returns
    -------
    dict
        The record: per secret the rows used and dropped and the fit (weights, means, standard
        deviations sorted by mean); the resolution and its treatment; :math:`w^*` and Theorem 2's
        two sums; the dataset's sha256.

    Raises
    ------
    DataError
        A column absent or not numeric, no row with a secret, fewer values than components.
    """
    frame = _read_frame(data_csv)
    fig_id = stream_id(experiment.name)
    data = [_secret_rows(frame, experiment, secret) for secret in experiment.secrets]
    resolution = data_resolution(np.concatenate([x for x, _, _ in data]))
    secrets, gmms = [], []
    for k, (x, counts, _) in enumerate(data):
        label = f"{experiment.attribute} | {counts['label']}"
        model = fit_gmm(x, components=gmm.components, n_init=gmm.n_init, max_iter=gmm.max_iter, label=label,
                        random_state=_sklearn_seed(seed, fig_id, STREAMS["gmm_fit"], k), rounding=gmm.rounding,
                        resolution=resolution)
        narrow = components_below_resolution(model, resolution) if resolution is not None else []
        if not model.converged:
            log.warning("%s: EM did not converge for %s within %d iterations", experiment.name, label, gmm.max_iter)
        if narrow:
            log.warning("%s: %s: component(s) %s narrower than the data's rounding (sd < h/sqrt(12), h = %g): "
                        "a value, not a density", experiment.name, label, narrow, resolution)
        gmms.append(model)
        secrets.append({**counts, **model.record(), "components_below_resolution": narrow})
        log.info("%s: %s: %d rows used, %d dropped as missing; weights %s means %s stds %s", experiment.name, label,
                 counts["rows_used"], counts["rows_dropped_missing"], np.round(model.weights, 4),
                 np.round(model.means, 4), np.round(model.stds, 4))
    weights = w2_weights(gmms[0], gmms[1])
    mean_term, std_term = theorem2_terms(gmms[0], gmms[1], weights)
    dataset = _dataset_record(data_json)
    record = {
        "experiment": f"gaussian_{experiment.name}", "dataset": experiment.dataset, "dataset_record": dataset,
        "dataset_sha256": dataset.get("sha256"), "attribute": experiment.attribute,
        "missing_values": list(experiment.missing_values), "rows_in_dataset": int(len(frame)),
        "rows_dropped_missing_dataset": data[-1][2],
        "seed": int(seed), "resolution": resolution,
        "rounding_sd": None if resolution is None else resolution / math.sqrt(12.0),
        "gmm": _gmm_record(gmm, fig_id, resolution), "secrets": secrets, "w_star": weights.tolist(),
        "w_star_rows_cols": "rows: components of secret 0, columns: components of secret 1 (both sorted by mean)",
        "theorem2_terms": {"sum_w_abs_dmu": mean_term, "sum_w_abs_dsigma": std_term},
    }
    write_json(record, out_json)
    return record


def read_gmms(gmm_json) -> tuple[dict, list[GMM]]:
    """The record written by :func:`fit_experiment_gmms` and its two mixtures.

    Parameters
    ----------
    gmm_json : str or os.PathLike
        ``results/gmm/gaussian_<name>.json``.

    Returns
    -------
    (dict, list of pufferfish.mixture.GMM)
        The record, and the mixtures of the two secrets in config order.

    Raises
    ------
    OSError
        A file that cannot be read.
    KeyError, json.JSONDecodeError
        A file that is not such a record.
    """
    with open(gmm_json, encoding="utf-8") as handle:
        record = json.load(handle)
    gmms = [GMM(s["weights"], s["means"], s["stds"], n=s["rows_used"], converged=s["converged"],
                label=s["label"]) for s in record["secrets"]]
    return record, gmms

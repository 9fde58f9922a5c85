r"""The priors of paper 000's users (config ``multiuser.users`` and ``multiuser.data_users``), written and read.

A data user's prior is :math:`\Pr(\text{attribute} \mid \text{given})` of a dataset
(:func:`data_user_prior`; the workflow's step ``multiuser_data_user``, :func:`write_data_user`); a
lattice user's is given in config (Tables 2-4 of paper 000, :func:`config_user_prior`,
:func:`write_config_user`). Both are written as ``value,probability`` tables (:func:`prior_frame`)
with a provenance record, and read back exact (:func:`read_user_prior`, :func:`load_data_users`).
The methods and their derivations: docs/math/paper000-multiuser.md.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import numpy as np
import pandas as pd

from pufferfish.checks import instance
from pufferfish.data_priors import condition, describe_encoding, empirical_pmf, encode
from pufferfish.lattice.pmf import LatticePMF

__all__ = ["data_user_prior", "prior_frame", "read_user_prior", "load_data_users", "config_user_prior",
           "write_config_user", "write_data_user"]

log = logging.getLogger("pufferfish")


# ------------------------------------------------------------------------------ data users
def data_user_prior(frame: pd.DataFrame, spec: Mapping, *, name: str) -> tuple[LatticePMF, dict]:
    """Pr(attribute | given) of a dataset, encoded to integers (config ``multiuser.data_users``).

    Parameters
    ----------
    frame : pandas.DataFrame
        The dataset's records.
    spec : Mapping
        The user's validated config entry: ``dataset``, ``attribute``, ``given``, ``encoding``.
    name : str
        The user's key (messages, the record).

    Returns
    -------
    (LatticePMF, dict)
        The exact empirical pmf and its provenance record (dataset, condition, encoding, row
        counts, values and their counts).

    Raises
    ------
    DataError
        No rows meet the condition, or a value the encoding cannot code (naming the user).
    """
    cond = condition(frame, attribute=spec["attribute"], given=spec["given"], dataset=spec["dataset"])
    codes = encode(cond.values, spec["encoding"], name=f"multiuser.data_users.{name}", column=frame[spec["attribute"]])
    pmf = empirical_pmf(codes, name=f"multiuser.data_users.{name}")
    record = {
        "user": name,
        "dataset": spec["dataset"],
        "attribute": spec["attribute"],
        "given": dict(spec["given"]),
        "encoding": describe_encoding(spec["encoding"]),
        **cond.record(),
        "values": pmf.support.tolist(),
        "counts": [int(c) for c in np.unique(codes, return_counts=True)[1]],
    }
    return pmf, record


def prior_frame(pmf: LatticePMF) -> pd.DataFrame:
    """``value,probability`` rows of a pmf (atoms with positive mass).

    Parameters
    ----------
    pmf : LatticePMF

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ArgumentTypeError
        ``pmf`` is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    """
    instance(pmf, LatticePMF, name="pmf")
    mask = pmf.probs > 0
    return pd.DataFrame({"value": pmf.values[mask], "probability": pmf.probs[mask]})


def read_user_prior(path, *, name: str, record: Mapping | None = None) -> LatticePMF:
    """Read a ``value,probability`` prior written by the data-user rule.

    Parameters
    ----------
    path : path-like or None
        The prior's CSV (not read when ``record`` carries the counts).
    name : str
        The user's key.
    record : Mapping, optional
        Its provenance JSON: with ``values`` and ``counts``, the exact fractions are rebuilt.

    Returns
    -------
    LatticePMF

    Raises
    ------
    OSError, InvalidArgumentError
        A file that cannot be read, values that are not a pmf.
    """
    if record is not None and "counts" in record:
        return LatticePMF.from_counts(record["values"], record["counts"], name=name)
    frame = pd.read_csv(path, float_precision="round_trip")
    return LatticePMF.from_values(frame["value"].tolist(), frame["probability"].tolist(), name=name)


# ------------------------------------------------------------------------------ file-level steps
def load_data_users(records: Mapping[str, str]) -> dict[str, LatticePMF]:
    """The priors of data-derived users from their provenance JSONs, exact (:func:`read_user_prior`).

    Parameters
    ----------
    records : Mapping[str, str]
        User -> the path of its provenance JSON.

    Returns
    -------
    dict of str to LatticePMF

    Raises
    ------
    OSError, ValueError
        A file that cannot be read or is not JSON.
    """
    import json

    out = {}
    for name, path in records.items():
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
        out[name] = read_user_prior(None, name=name, record=record)
    return out


def write_data_user(*, name: str, spec: Mapping, data_csv, data_json, out_csv, out_json) -> dict:
    """Step ``multiuser_data_user``: the prior of one data-derived user, with its provenance.

    Parameters
    ----------
    name : str
        The user's key.
    spec : Mapping
        Its validated config entry.
    data_csv, data_json : path-like
        The dataset and its download record (its sha256 goes to the provenance).
    out_csv, out_json : path-like
        The prior (``value,probability``) and its provenance record.

    Returns
    -------
    dict
        The provenance record.

    Raises
    ------
    DataError, OutputError
        As :func:`data_user_prior`; a file that cannot be written.
    """
    import json

    from pufferfish.files import write_csv, write_json
    frame = pd.read_csv(data_csv)
    pmf, record = data_user_prior(frame, spec, name=name)
    with open(data_json, encoding="utf-8") as handle:
        source = json.load(handle)
    record["dataset_sha256"] = source.get("sha256")
    log.info("%s: %s rows in %s, %s dropped (missing), %s used; values %s", name, record["rows_in_dataset"],
             spec["dataset"], record["rows_dropped_missing"], record["rows_used"], record["values"])
    write_csv(prior_frame(pmf), out_csv)
    write_json(record, out_json)
    return record


def config_user_prior(spec: Mapping, *, name: str) -> tuple[LatticePMF, dict]:
    """A lattice user given in config (``multiuser.users``: Tables 2-4 of paper 000, Bernoulli users).

    Parameters
    ----------
    spec : Mapping
        The user's validated config entry (``values``, ``probabilities``, ``presence``).
    name : str
        Its key.

    Returns
    -------
    (LatticePMF, dict)
        The pmf and its provenance record (source, values and probabilities as written, presence).

    Raises
    ------
    InvalidArgumentError
        Values and probabilities that are not a pmf.
    """
    pmf = LatticePMF.from_values(spec["values"], spec["probabilities"], name=f"multiuser.users.{name}")
    record = {
        "user": name,
        "source": f"config.yaml multiuser.users.{name}",
        "values": [int(v) for v in spec["values"]],
        "probabilities": [float(p) for p in spec["probabilities"]],
        "presence": float(spec["presence"]),  # the schema's default is filled in when config leaves it out
    }
    return pmf, record


def write_config_user(*, name: str, spec: Mapping, out_csv, out_json) -> dict:
    """Step ``multiuser_config_users``: the prior of one config lattice user (``value,probability``).

    Parameters
    ----------
    name, spec
        As :func:`config_user_prior`.
    out_csv, out_json : path-like
        The prior and its provenance record.

    Returns
    -------
    dict
        The provenance record.

    Raises
    ------
    InvalidArgumentError, OutputError
        As :func:`config_user_prior`; a file that cannot be written.
    """
    from pufferfish.files import write_csv, write_json
    pmf, record = config_user_prior(spec, name=name)
    write_csv(pd.DataFrame({"value": record["values"], "probability": record["probabilities"]}), out_csv)
    write_json(record, out_json)
    return record

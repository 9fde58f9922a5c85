r"""Which noise for my secret pair? Every registered mechanism on one pair, each scale audited exactly.

For one secret pair (two query priors on the lattice) and a grid of :math:`\epsilon`, the methods of
the registry (:mod:`pufferfish.registry`) are grouped by their record's ``noise``
(:func:`methods_by_noise`, in the order of :func:`pufferfish.audit.auditor.noises`): paper 000's
methods, all Laplace, as one row, the best that applies to the pair at each :math:`\epsilon`
(:func:`paper000_best`, the note names it); then every other record of that noise (paper 002's
mechanisms, then the tight scales the exact audits derive). A new noise family or method
appears here with no edit. Each scale is audited against its record's own guarantee
(:func:`pufferfish.audit.target.target_for`, :func:`pufferfish.audit.verdict.audit_scale`); the rows are
written twice: the comparison's table (:data:`COLUMNS`) and the audit table in the one schema
(:data:`pufferfish.audit.verdict.AUDIT_COLUMNS`).

The rows of an :math:`(\epsilon, \delta)`-or-stronger guarantee (:data:`COMPARABLE`: pure
:math:`\epsilon` implies :math:`(\epsilon, \delta)` for every :math:`\delta`) whose noise has a
standard deviation are comparable: the least noise at an :math:`\epsilon` is the smallest standard deviation among them (:func:`least_noise`).
Rényi rows answer another guarantee and are compared among themselves, by scale.
Derivations of the mechanisms: docs/math/paper002-wasserstein.md and docs/math/mechanisms.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pufferfish import registry
from pufferfish.audit import audit_frame, audit_row, audit_scale, lattice_auditor, noise_std, noises, target_for
from pufferfish.checks import instance
from pufferfish.errors import NotApplicableError
from pufferfish.grids import check_epsilons

__all__ = ["PAPER000_BEST", "COLUMNS", "COMPARABLE", "PairComparison", "methods_by_noise", "paper000_best",
           "compare_audited", "compare_pair", "compare_pairs", "least_noise", "winner_lines", "coinciding",
           "as_flags"]

#: the name of the row holding the best paper-000 method at each epsilon
PAPER000_BEST = "paper000_best"
#: columns of results/theta/noise_comparison.csv: ``delta`` is the comparison's delta on the rows of
#: an (epsilon, delta)-or-stronger guarantee, ``alpha`` its Renyi order on the Renyi rows
COLUMNS = ["pair", "method", "noise", "epsilon", "delta", "alpha", "scale", "std", "guarantee", "achieved",
           "meets_target", "note"]
#: the guarantees whose rows are compared by standard deviation at (epsilon, delta)
COMPARABLE = ("epsilon", "epsilon_delta")


@dataclass(frozen=True, eq=False)
class PairComparison:
    """The comparison of one pair: ``rows`` (:data:`COLUMNS`) and the same verdicts as ``audit``
    rows (:data:`pufferfish.audit.verdict.AUDIT_COLUMNS`, ``scale_min`` the tight scale of the row's noise
    and guarantee where the comparison computed it)."""

    rows: pd.DataFrame
    audit: pd.DataFrame


def _paper000_records() -> list:
    """The records of paper 000's module (:mod:`pufferfish.multiuser.methods`)."""
    from pufferfish.multiuser.methods import METHODS

    return list(METHODS)


def _paper000_names() -> list[str]:
    """The methods of paper 000 as printed: its module's records, without this project's
    variants (``lemma6_best_grouping``, whose citation says "this project")."""
    return [m.name for m in _paper000_records() if "this project" not in m.citation]


def methods_by_noise() -> dict[str, tuple[str, ...]]:
    """The comparison's methods, grouped by their registry record's noise.

    Raises nothing (no numpydoc Raises section): it takes no input, and the registry's records
    are fixed once the method modules are imported.

    Returns
    -------
    dict of str to tuple of str
        Noise -> its methods, the noises in the order of :func:`pufferfish.audit.auditor.noises`:
        the noise of paper 000's methods starts with :data:`PAPER000_BEST`; then, in registry
        order, every record of that noise outside paper 000 (the closed forms, then the tight
        scales).
    """
    records = registry.methods()
    paper000 = {m.name for m in _paper000_records()}
    best_noise = {records[n].noise for n in _paper000_names()}
    out = {}
    for noise in noises():
        names = ([PAPER000_BEST] if noise in best_noise else [])
        names += [n for n, r in records.items() if r.noise == noise and n not in paper000]
        if names:
            out[noise] = tuple(names)
    return out


def paper000_best(pair, epsilons) -> tuple[np.ndarray, list[str]]:
    """The smallest Laplace scale among the paper-000 methods that apply to ``pair``, per epsilon.

    Parameters
    ----------
    pair : SecretPair
        The secret pair.
    epsilons : array-like
        The grid, each > 0.

    Returns
    -------
    (numpy.ndarray, list of str)
        The scales, and the name of the method that gives each (the first listed on ties).

    Raises
    ------
    NotApplicableError
        No method of paper 000 applies to the pair.
    InvalidArgumentError
        A bad grid or pair.
    """
    eps = check_epsilons(epsilons)
    _check_pair(pair)
    scales, names = [], []
    for name in _paper000_names():
        try:
            scales.append(registry.calibrate(name, pair, epsilons=eps))
            names.append(name)
        except NotApplicableError:
            continue
    if not scales:
        raise NotApplicableError("no method of paper 000 applies to this pair")
    table = np.vstack(scales)
    best = np.argmin(table, axis=0)
    return table[best, np.arange(eps.size)], [names[k] for k in best]


def _check_pair(pair):
    from pufferfish.lattice.system import SecretPair

    return instance(pair, SecretPair, name="pair")


def _chosen(methods: Sequence[str] | None) -> tuple[str, ...]:
    """``methods`` (default every one) in the order of :func:`methods_by_noise`."""
    every = tuple(m for group in methods_by_noise().values() for m in group)
    if methods is None:
        return every
    if isinstance(methods, str) or not all(isinstance(m, str) for m in methods):
        raise NotApplicableError(f"methods = {methods!r:.80}: must be a list of method names")
    unknown = [m for m in methods if m not in every]
    if unknown or not methods:
        raise NotApplicableError(f"methods = {list(methods)!r}: must be a non-empty list of {', '.join(every)}")
    return tuple(m for m in every if m in methods)


def compare_audited(name: str, pair, *, epsilons, delta: float, alpha: float, methods: Sequence[str] | None = None,
                    experiment: str = "comparison") -> PairComparison:
    r"""Every method of :func:`methods_by_noise` (or ``methods``) on ``pair``, each scale audited.

    Parameters
    ----------
    name : str
        The pair's name (column ``pair``).
    pair : SecretPair
        The secret pair.
    epsilons : array-like
        The grid, each > 0.
    delta, alpha : float
        The :math:`\delta` of the :math:`(\epsilon, \delta)` targets, in :math:`(0, 1)`, and the order :math:`\alpha > 1` of the Rényi ones.
    methods : sequence of str, optional
        Only these methods (in the order of :func:`methods_by_noise`), e.g. one noise's.
    experiment : str
        Column ``experiment`` of the audit rows (the audit table's name, ``comparison_<pair>``).

    Returns
    -------
    PairComparison
        One row per (method, epsilon) in both tables.

    Raises
    ------
    NotApplicableError
        An unknown method, a method not stated for the pair or for ``alpha``.
    ConfigError, InvalidArgumentError, ArgumentTypeError
        A bad grid, delta, alpha, pair or name.
    """

    instance(name, str, name="name")
    instance(experiment, str, name="experiment")
    _check_pair(pair)
    eps = check_epsilons(epsilons)
    target_for("epsilon", 1.0, delta=delta, alpha=alpha)      # both checked here, once
    rows, verdicts = [], []
    auditors: dict = {}
    for method in _chosen(methods):
        records, scales, notes = _calibrated(method, pair, eps, delta, alpha)
        for k, e in enumerate(eps):
            record = records[k]
            kind = (record.noise, record.guarantee)
            if kind not in auditors:
                auditors[kind] = lattice_auditor(*kind, pair.prior_i, pair.prior_j)
            target = target_for(record.guarantee, float(e), delta=delta, alpha=alpha)
            verdict = audit_scale(auditors[kind], float(scales[k]), target)
            verdicts.append((method, record, verdict))
            rows.append(_row(name, method, record, verdict, notes[k], delta=delta, alpha=alpha))
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return PairComparison(frame, audit_frame(_audit_rows(verdicts, frame, experiment)))


def _calibrated(method: str, pair, eps: np.ndarray, delta: float, alpha: float) -> tuple[list, np.ndarray, list]:
    """The record of each epsilon's row, the scales and the notes of one method of the comparison."""
    if method == PAPER000_BEST:
        # every paper-000 method adds Laplace noise for pure epsilon: the best one's record audits each row
        scales, names = paper000_best(pair, eps)
        return [registry.get(n) for n in names], scales, [f"= {n}" for n in names]
    record = registry.get(method)
    params = {k: v for k, v in (("delta", delta), ("alpha", alpha)) if k in record.needs}
    return [record] * eps.size, registry.calibrate(method, pair, epsilons=eps, **params), [""] * eps.size


def _row(name: str, method: str, record, verdict, note: str, *, delta: float, alpha: float) -> dict:
    """One row of :data:`COLUMNS`."""
    scale = verdict.scale
    return {"pair": name, "method": method, "noise": record.noise, "epsilon": float(verdict.target.epsilon),
            "delta": delta if record.guarantee in COMPARABLE else math.nan,
            "alpha": alpha if record.guarantee == "renyi" else math.nan, "scale": scale,
            "std": noise_std(record.noise, scale) if math.isfinite(scale) else math.nan,
            "guarantee": record.guarantee, "achieved": verdict.value, "meets_target": bool(verdict.meets),
            "note": "; ".join(x for x in (note, verdict.note) if x)}


def _audit_rows(verdicts: list, frame: pd.DataFrame, experiment: str) -> list[dict]:
    """The audit rows of the verdicts, ``scale_min`` from the rows of the tight record of each
    noise and guarantee (NaN where it was not computed)."""
    tight = {(r.noise, r.guarantee): n for n, r in registry.methods().items() if r.smallest}
    smallest = {(m, e): s for m, e, s in zip(frame.method, frame.epsilon, frame.scale)}
    out = []
    for method, record, verdict in verdicts:
        key = (tight.get((record.noise, record.guarantee)), float(verdict.target.epsilon))
        out.append(audit_row(verdict, experiment=experiment, panel="", method=method, noise=record.noise,
                             scale_min=smallest.get(key, math.nan), tight_note=verdict.note))
    return out


def compare_pair(name: str, pair, *, epsilons, delta: float, alpha: float,
                 methods: Sequence[str] | None = None) -> pd.DataFrame:
    """The comparison's rows (:data:`COLUMNS`) of :func:`compare_audited`.

    Parameters
    ----------
    name, pair, epsilons, delta, alpha, methods
        As :func:`compare_audited`.

    Returns
    -------
    pandas.DataFrame
        One row per (method, epsilon): the scale, its standard deviation and its exact audit.

    Raises
    ------
    NotApplicableError, ConfigError, InvalidArgumentError, ArgumentTypeError
        As :func:`compare_audited`.
    """
    return compare_audited(name, pair, epsilons=epsilons, delta=delta, alpha=alpha, methods=methods).rows


def compare_pairs(pairs: Mapping[str, object], *, epsilons, delta: float, alpha: float) -> pd.DataFrame:
    """:func:`compare_pair` for every named pair, concatenated in the given order.

    Parameters
    ----------
    pairs : Mapping[str, SecretPair]
        Name -> pair, at least one.
    epsilons, delta, alpha
        As :func:`compare_audited`.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InvalidArgumentError
        No pairs (and as :func:`compare_audited`).
    """
    from pufferfish.errors import InvalidArgumentError

    instance(pairs, Mapping, name="pairs")
    if not pairs:
        raise InvalidArgumentError("pairs = {}: must name at least one pair")
    return pd.concat([compare_pair(n, p, epsilons=epsilons, delta=delta, alpha=alpha) for n, p in pairs.items()],
                     ignore_index=True)


def as_flags(column: pd.Series) -> pd.Series:
    """A boolean column as booleans, whether it holds bools or the text a CSV gives back.

    Parameters
    ----------
    column : pandas.Series

    Returns
    -------
    pandas.Series of bool
        True where the value is True, ``"True"``/``"true"`` or 1.

    Raises
    ------
    ArgumentTypeError
        ``column`` is not a :class:`pandas.Series`.
    """
    instance(column, pd.Series, name="column")
    return column.astype(str).str.lower().isin(["true", "1"])


def _is_tight(method: str) -> bool:
    """Whether ``method``'s scale is the exact audit's own smallest one (not a closed form)."""
    record = registry.methods().get(method)
    return record is not None and record.smallest


def least_noise(frame: pd.DataFrame) -> pd.DataFrame:
    r"""Per (pair, epsilon), the least noise among the comparable rows that meet their target.

    Comparable: an :math:`(\epsilon, \delta)`-or-stronger guarantee (:data:`COMPARABLE`) and a noise with a
    standard deviation. Ties go to the first row of the table.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of :func:`compare_pair` (or read back from its CSV).

    Returns
    -------
    pandas.DataFrame
        ``pair, epsilon, method, noise, std``; ``other_method, other_noise, other_std``: the best
        of the other noises, and ``saving`` = 1 - std / other_std; ``closed_method, closed_noise,
        closed_std``: the best closed form (every method but the tight scales, which need the
        exact audit to compute).

    Raises
    ------
    KeyError
        A column of :data:`COLUMNS` missing.
    """
    rows = []
    keep = frame.guarantee.isin(COMPARABLE) & frame["std"].notna() & as_flags(frame.meets_target)
    for (pair, eps), group in frame[keep].groupby(["pair", "epsilon"], sort=False):
        group = group.sort_values("std", kind="stable")
        win = group.iloc[0]
        other = group[group.noise != win.noise]
        o = other.iloc[0] if len(other) else None
        closed = group[~group.method.map(_is_tight)]
        c = closed.iloc[0] if len(closed) else None
        rows.append({"pair": pair, "epsilon": eps, "method": win.method, "noise": win.noise, "std": win["std"],
                     "other_method": None if o is None else o.method, "other_noise": None if o is None else o.noise,
                     "other_std": math.nan if o is None else o["std"],
                     "saving": math.nan if o is None or not o["std"] > 0 else 1.0 - win["std"] / o["std"],
                     "closed_method": None if c is None else c.method, "closed_noise": None if c is None else c.noise,
                     "closed_std": math.nan if c is None else c["std"]})
    return pd.DataFrame(rows)


def winner_lines(frame: pd.DataFrame, *, with_pair: bool = True) -> list[str]:
    """One line per (pair, epsilon): the least noise (:func:`least_noise`) and by how much it beats
    the best of the other noises.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of :func:`compare_pair`.
    with_pair : bool
        Start each line with the pair's name (False: with the epsilon, for one pair's caption).

    Returns
    -------
    list of str
        ``"<pair>, epsilon = <e>: least noise ..."`` (``"epsilon = <e>: ..."`` without the pair).

    Raises
    ------
    KeyError
        A column of :data:`COLUMNS` missing.
    """
    lines = []
    for row in least_noise(frame).itertuples(index=False):
        text = f"{row.pair}, " if with_pair else ""
        text += f"epsilon = {row.epsilon:g}: least noise {row.method} ({row.noise}, std {row.std:.4g})"
        if row.other_method is not None and row.std == 0:
            text += f"; no noise needed (best {row.other_noise}: {row.other_method}, std {row.other_std:.4g})"
        elif row.other_method is not None:
            text += (f", {100 * row.saving:.0f} % less than the best {row.other_noise} mechanism "
                     f"({row.other_method}, std {row.other_std:.4g})")
        if row.closed_method is not None and row.closed_method != row.method:
            text += f"; of the closed-form mechanisms, {row.closed_method} ({row.closed_noise}, std {row.closed_std:.4g})"
        lines.append(text)
    return lines


def coinciding(frame: pd.DataFrame, *, rtol: float = 1e-3) -> list[tuple[str, str]]:
    r"""The pairs of methods drawn on the same panel whose curves coincide: the same value (the
    standard deviation of a comparable row, the scale of a Renyi row) to ``rtol`` at every epsilon.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of :func:`compare_pair` for one pair.
    rtol : float
        Relative difference below which two values are drawn on top of each other (default 1e-3).

    Returns
    -------
    list of (str, str)
        (first, second) in table order.

    Raises
    ------
    InvalidArgumentError
        ``rtol`` not finite and :math:`\ge 0`.
    """
    from pufferfish.checks import real

    rtol = real(rtol, name="rtol", lo=0.0)
    comparable = frame.guarantee.isin(COMPARABLE) & frame["std"].notna()
    value = np.where(comparable, frame["std"].to_numpy(float), frame["scale"].to_numpy(float))
    curves = {}
    for method, sub in frame.assign(value=value, panel=comparable).groupby("method", sort=False):
        curves[method] = (bool(sub.panel.iloc[0]), sub.epsilon.to_numpy(float), sub.value.to_numpy(float))
    out = []
    names = list(curves)
    for k, a in enumerate(names):
        for b in names[k + 1:]:
            (pa, ea, va), (pb, eb, vb) = curves[a], curves[b]
            if pa == pb and np.array_equal(ea, eb) and np.allclose(va, vb, rtol=rtol, atol=0.0):
                out.append((a, b))
    return out

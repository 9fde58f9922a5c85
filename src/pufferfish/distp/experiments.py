"""Paper 003's experiments on UCI data (config ``distp``): one job per case.

A case is the released column of a dataset among the records of two values of a protected
column: lambda0, lambda1 on the released column's domain (its sorted values over the whole
dataset), the marginal law over every record. :func:`case_laws` reads them;
:func:`case_table` computes delta(eps), the pure eps, the bound eps_A W_inf and the service
loss of every mechanism on the grids; :func:`calibration_table` the best-utility parameter of
each family for each target (eps, delta), each audited exactly (its rows in
:data:`pufferfish.audit.verdict.AUDIT_COLUMNS`); :func:`write_case` writes the three tables
and the figures. Laplace and Gaussian noise on the value are the project's lattice auditors
with the pair's laws as the priors (scale b = sigma = 1/eps_A in the curves).
Derivations: ``docs/math/paper003-distribution.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from pufferfish.errors import DataError

__all__ = ["TABLE_COLUMNS", "CALIBRATION_COLUMNS", "NOISE", "CaseLaws", "case_laws", "case_table", "evaluate",
           "calibrate", "calibration_table", "write_case"]

#: the columns of ``results/theta/distp_<case>.csv`` (issue 31)
TABLE_COLUMNS = ["case", "dataset", "released", "protected", "value0", "value1", "domain_size", "mechanism",
                 "base_epsilon", "scale", "dummies", "dummy_distribution", "epsilon", "delta", "delta_upper",
                 "pure_epsilon", "bound_epsilon", "service_loss", "w_inf", "w_1"]
#: the columns of ``results/theta/distp_<case>_calibration.csv``
CALIBRATION_COLUMNS = ["case", "mechanism", "target_epsilon", "target_delta", "base_epsilon", "dummy_distribution",
                       "parameter", "scale", "dummies", "service_loss", "delta", "delta_upper", "meets", "reason"]
#: the noise of each family in the audit table
NOISE = {"rr": "randomized_response", "geometric": "geometric", "laplace": "laplace", "gaussian": "gaussian",
         "tupling_rr": "randomized_response", "tupling_geometric": "geometric"}


@dataclass(frozen=True, eq=False)
class CaseLaws:
    """The laws of one case: ``domain`` (the released column's sorted values), ``lambda0`` and
    ``lambda1`` (its law among the records of each protected value), ``marginal`` (over every
    record), ``kind`` (``ordinal``: integer values; ``categorical``), ``counts`` (records per value)."""

    domain: tuple
    lambda0: np.ndarray
    lambda1: np.ndarray
    marginal: np.ndarray
    kind: str
    counts: tuple[int, int]


def case_laws(frame, spec: Mapping, *, name: str) -> CaseLaws:
    """The laws of case ``name`` (config ``distp.cases.<name>``) from the dataset's table ``frame``.

    Records with no released value are left out (the domain is the values it takes).

    Parameters
    ----------
    frame : pandas.DataFrame
        The dataset (at least the released and protected columns).
    spec : Mapping
        The case's validated config entry.
    name : str
        The case's name (for the messages).

    Returns
    -------
    CaseLaws

    Raises
    ------
    DataError
        A missing column, fewer than 2 released values, a protected value with no record, or
        non-integer values in an ordinal case (one line naming the case).
    """
    where = f"distp.cases.{name}"
    released, protected = spec["released"], spec["protected"]
    for column in (released, protected):
        if column not in frame.columns:
            raise DataError(f"{where}: no column {column!r} in the dataset")
    rows = frame[frame[released].notna()]
    values = sorted(rows[released].unique().tolist())
    if len(values) < 2:
        raise DataError(f"{where}: the released column {released!r} takes {len(values)} value(s); need at least 2")
    if spec["kind"] == "ordinal":
        if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                   and float(v).is_integer() for v in values):
            raise DataError(f"{where}: kind ordinal needs integer values of {released!r}")
        values = [int(v) for v in values]
    index = {v: k for k, v in enumerate(values)}
    codes = rows[released].map(lambda v: index[int(v) if spec["kind"] == "ordinal" else v]).to_numpy()
    laws, counts = [], []
    for value in spec["values"]:
        chosen = codes[(rows[protected] == value).to_numpy()]
        if chosen.size == 0:
            raise DataError(f"{where}: no record with {protected} = {value!r} and a released value")
        laws.append(np.bincount(chosen, minlength=len(values)) / chosen.size)
        counts.append(int(chosen.size))
    marginal = np.bincount(codes, minlength=len(values)) / codes.size
    return CaseLaws(tuple(values), laws[0], laws[1], marginal, spec["kind"], (counts[0], counts[1]))


def _families(kind: str) -> tuple[str, ...]:
    return ("rr", "geometric", "laplace", "gaussian") if kind == "ordinal" else ("rr",)


def _base(family: str, laws: CaseLaws, eps_a: float):
    """(base mechanism, channel, output values) of RR or the geometric mechanism at eps_A."""
    from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse

    if family.endswith("rr"):
        base = RandomizedResponse(len(laws.domain), eps_a)
        return base, base.matrix(), list(laws.domain)
    base = ClampedGeometric(laws.domain, eps_a)
    return base, base.matrix(), base.outputs.tolist()


def _service_loss(family: str, laws: CaseLaws, eps_a: float) -> float:
    """E|x - y| (ordinal) or P(y != x) (categorical) of the real output, x ~ the marginal law.
    Laplace: E|N| = b = 1/eps_A; Gaussian: E|N| = sigma sqrt(2/pi), sigma = 1/eps_A."""
    from pufferfish.distp.utility import service_loss

    if family == "laplace":
        return 1.0 / eps_a
    if family == "gaussian":
        return math.sqrt(2.0 / math.pi) / eps_a
    _, matrix, outputs = _base(family, laws, eps_a)
    return service_loss(matrix, laws.marginal, inputs=list(laws.domain), outputs=outputs, kind=laws.kind)


def _lattice_pair(laws: CaseLaws):
    from pufferfish.distp.pair import lattice_law

    return lattice_law(laws.domain, laws.lambda0, name="lambda0"), lattice_law(laws.domain, laws.lambda1, name="lambda1")


def _noise_deltas(family: str, laws: CaseLaws, eps_a: float, epsilons, delta: float) -> tuple[float, list]:
    """(pure eps, [(delta forward, delta backward) per eps]) of Laplace or Gaussian noise of scale 1/eps_A."""
    from pufferfish.audit import lattice_auditor
    from pufferfish.audit.target import target_for

    p, q = _lattice_pair(laws)
    scale = 1.0 / eps_a
    pure = math.inf
    if family == "laplace":
        got = lattice_auditor("laplace", "epsilon", p, q).achieved(scale, target_for("epsilon", 1.0))
        pure = max(got.forward, got.backward)
    auditor = lattice_auditor(family, "epsilon_delta", p, q)
    pairs = []
    for eps in epsilons:
        got = auditor.achieved(scale, target_for("epsilon_delta", eps, delta=delta))
        pairs.append((got.forward, got.backward))
    return pure, pairs


def case_table(laws: CaseLaws, case, grid) -> list[dict]:
    """The rows of ``results/theta/distp_<case>.csv``: every mechanism on the grids (:data:`TABLE_COLUMNS`).

    Parameters
    ----------
    laws : CaseLaws
        The case's laws (:func:`case_laws`).
    case : pufferfish.distp.settings.DistpCase
    grid : pufferfish.distp.settings.DistpGrid

    Returns
    -------
    list of dict
        RR and the geometric mechanism: the exact delta at every eps of ``grid.epsilons``;
        Laplace and Gaussian noise: the exact lattice audits; tupling over RR and over the
        geometric mechanism: for every eps_A, nu and k the delta (exact, or the certified
        interval [delta, delta_upper]) at ``grid.tupling_epsilons``.
    """
    head = {"case": case.name, "dataset": case.dataset, "released": case.released, "protected": case.protected,
            "value0": case.values[0], "value1": case.values[1], "domain_size": len(laws.domain)}
    rows = []
    for family in _families(laws.kind):
        for eps_a in grid.base_epsilons:
            rows += evaluate(laws, family, base_epsilon=eps_a, epsilons=grid.epsilons, delta=grid.delta)
            if family not in ("rr", "geometric"):
                continue
            for nu in grid.dummy_distributions:
                for k in grid.dummies:
                    rows += evaluate(laws, f"tupling_{family}", base_epsilon=eps_a, epsilons=grid.tupling_epsilons,
                                     dummies=k, dummy_distribution=nu, rtol=grid.rtol)
    return [{**head, **row} for row in rows]


def evaluate(laws: CaseLaws, mechanism: str, *, base_epsilon: float, epsilons, dummies: int = 0,
             dummy_distribution: str = "uniform", delta: float = 1e-5, rtol: float = 1e-6) -> list[dict]:
    """delta(eps) at each of ``epsilons``, the pure eps, the bound and the service loss of one mechanism.

    Parameters
    ----------
    laws : CaseLaws
    mechanism : str
        A key of :data:`NOISE` (``rr``, ``geometric``, ``laplace``, ``gaussian``, ``tupling_rr``,
        ``tupling_geometric``); only ``rr`` and ``tupling_rr`` for a categorical case.
    base_epsilon : float
        eps_A (Laplace and Gaussian: scale 1/eps_A).
    epsilons : sequence of float
        The eps of delta(eps).
    dummies, dummy_distribution : int, str
        The tupling mechanism's k and nu (ignored by the others).
    delta : float
        The delta handed to the lattice auditors' targets (their delta(eps) does not depend on it).
    rtol : float
        The certified route's relative tolerance (tupling).

    Returns
    -------
    list of dict
        One row per eps: the columns of :data:`TABLE_COLUMNS` from ``mechanism`` on.

    Raises
    ------
    InvalidArgumentError
        A mechanism the case's kind does not allow, or bad parameters (from the mechanisms).
    """
    from pufferfish.distp.pair import pair_privacy, transport_distances
    from pufferfish.distp.tupling import tupling_over
    from pufferfish.errors import InvalidArgumentError

    family = mechanism.removeprefix("tupling_")
    if mechanism not in NOISE or family not in _families(laws.kind):
        raise InvalidArgumentError(f"mechanism = {mechanism!r}: not one of {', '.join(_mechanisms(laws.kind))} "
                                   f"(a {laws.kind} column)")
    ordinal = laws.kind == "ordinal"
    w_inf, w_1 = transport_distances(laws.domain, laws.lambda0, laws.lambda1) if ordinal else (math.nan, math.nan)
    bound = base_epsilon if family == "rr" else (base_epsilon * w_inf if family != "gaussian" else math.nan)
    common = {"mechanism": mechanism, "base_epsilon": base_epsilon,
              "scale": math.nan if family == "rr" else 1.0 / base_epsilon, "dummies": math.nan,
              "dummy_distribution": "", "bound_epsilon": bound,
              "service_loss": _service_loss(family, laws, base_epsilon), "w_inf": w_inf, "w_1": w_1}
    if family in ("laplace", "gaussian"):
        pure, pairs = _noise_deltas(family, laws, base_epsilon, epsilons, delta)
        return [{**common, "epsilon": eps, "delta": max(pair), "delta_upper": max(pair), "pure_epsilon": pure}
                for eps, pair in zip(epsilons, pairs)]
    base, matrix, _ = _base(family, laws, base_epsilon)
    if mechanism == family:
        from pufferfish.distp.exact_laws import base_distp_delta   # certified, from the mechanism's definition

        pp = pair_privacy(matrix, laws.lambda0, laws.lambda1, domain=laws.domain if ordinal else None)
        deltas = [base_distp_delta(base, laws.lambda0, laws.lambda1, epsilon=eps) for eps in epsilons]
        return [{**common, "epsilon": eps, "delta": delta, "delta_upper": delta, "pure_epsilon": pp.pure_epsilon}
                for eps, delta in zip(epsilons, deltas)]
    mech = tupling_over(base, dummies=dummies, dummy_distribution=dummy_distribution,
                        marginal=laws.marginal if dummy_distribution == "marginal" else None)
    pure = mech.pure_epsilon(laws.lambda0, laws.lambda1)
    rows = []
    for eps in epsilons:
        got = mech.delta(laws.lambda0, laws.lambda1, epsilon=eps, rtol=rtol)
        rows.append({**common, "dummies": dummies, "dummy_distribution": dummy_distribution, "epsilon": eps,
                     "delta": got.delta, "delta_upper": got.delta_upper, "pure_epsilon": pure})
    return rows


def _mechanisms(kind: str) -> list[str]:
    return [m for m in NOISE if m.removeprefix("tupling_") in _families(kind)]


def _verdict(scale: float, target, forward: float, backward: float, rtol: float, note: str = ""):
    from pufferfish.audit.verdict import Verdict

    meets = max(forward, backward) <= target.delta            # certified values: no tolerance (issue 39)
    return Verdict(scale=scale, target=target, forward=forward, backward=backward, meets=bool(meets), note=note)


def _calibrate_base(family: str, laws: CaseLaws, target, rtol: float) -> tuple[dict, object | None]:
    """RR or the geometric mechanism: the largest eps_A meeting ``target``, audited exactly (both directions)."""
    from pufferfish.distp.calibrate import largest_geometric_epsilon, largest_rr_epsilon
    from pufferfish.distp.divergences import hockey_stick
    from pufferfish.distp.exact_laws import base_hockey_sticks

    if family == "rr":
        found = largest_rr_epsilon(len(laws.domain), laws.lambda0, laws.lambda1, epsilon=target.epsilon,
                                   delta=target.delta)
    else:
        found = largest_geometric_epsilon(laws.domain, laws.lambda0, laws.lambda1, epsilon=target.epsilon,
                                          delta=target.delta)
    eps_a = found.parameter
    row = {"mechanism": family, "parameter": eps_a, "reason": found.reason}
    if math.isnan(eps_a):
        return row, None
    if eps_a == math.inf:                                      # the identity: the laws themselves, no loss
        loss, forward = 0.0, hockey_stick(laws.lambda0, laws.lambda1, epsilon=target.epsilon)
        backward = hockey_stick(laws.lambda1, laws.lambda0, epsilon=target.epsilon)
    else:                                                      # certified, from the mechanism's definition
        loss = _service_loss(family, laws, eps_a)
        forward, backward = base_hockey_sticks(_base(family, laws, eps_a)[0], laws.lambda0, laws.lambda1,
                                               epsilon=target.epsilon)
    row.update(base_epsilon=eps_a, scale=1.0 / eps_a, service_loss=loss, delta=max(forward, backward),
               delta_upper=max(forward, backward))
    return row, _verdict(1.0 / eps_a, target, forward, backward, rtol, found.reason)


def _calibrate_noise(family: str, laws: CaseLaws, target, rtol: float) -> tuple[dict, object]:
    """Laplace or Gaussian noise: the smallest scale the project's exact lattice audit accepts, and its verdict."""
    from pufferfish.audit import lattice_auditor
    from pufferfish.audit.verdict import audit_scale

    auditor = lattice_auditor(family, "epsilon_delta", *_lattice_pair(laws))
    found = auditor.smallest_scale(target)
    verdict = audit_scale(auditor, found.scale, target)
    loss = found.scale if family == "laplace" else found.scale * math.sqrt(2.0 / math.pi)
    return ({"mechanism": family, "parameter": found.scale, "scale": found.scale, "service_loss": loss,
             "delta": verdict.value, "delta_upper": verdict.value, "reason": found.reason}, verdict)


def _calibrate_tupling(family: str, laws: CaseLaws, target, nu: str, grid, rtol: float) -> list:
    """Tupling over ``family``: from the largest eps_A down, the first whose k = max(dummies) meets
    ``target`` (delta does not increase with k), then its smallest k; (row, verdict) pairs."""
    from pufferfish.distp.calibrate import smallest_dummies
    from pufferfish.distp.tupling import tupling_over

    out, limit = [], max(grid.dummies)
    marginal = laws.marginal if nu == "marginal" else None
    for eps_a in sorted(grid.base_epsilons, reverse=True):
        base, _, _ = _base(family, laws, eps_a)
        row = {"mechanism": f"tupling_{family}", "base_epsilon": eps_a, "dummy_distribution": nu,
               "service_loss": _service_loss(family, laws, eps_a), "scale": 1.0 / eps_a}
        top = tupling_over(base, dummies=limit, dummy_distribution=nu, marginal=marginal).delta(
            laws.lambda0, laws.lambda1, epsilon=target.epsilon, rtol=grid.rtol)
        if top.delta_upper > target.delta:
            out.append(({**row, "parameter": math.nan, "delta": top.delta, "delta_upper": top.delta_upper,
                         "reason": f"k = {limit} does not meet the target"}, None))
            continue
        found = smallest_dummies(base, laws.lambda0, laws.lambda1, epsilon=target.epsilon, delta=target.delta,
                                 dummy_distribution=nu, marginal=marginal, max_dummies=limit, rtol=grid.rtol)
        row.update(parameter=found.parameter, dummies=found.parameter, delta=found.delta,
                   delta_upper=found.delta_upper, reason=found.reason)
        note = "certified upper end of the larger direction" if found.delta_upper > found.delta else ""
        out.append((row, _verdict(1.0 / eps_a, target, found.delta_upper, found.delta_upper, rtol, note)))
        break
    return out


def calibrate(laws: CaseLaws, mechanism: str, target, *, base_epsilon: float | None = None,
              dummy_distribution: str = "uniform", max_dummies: int = 200, rtol: float = 1e-6,
              audit_rtol: float = 1e-9) -> tuple[dict, object]:
    """One mechanism's best-utility parameter for ``target`` (an epsilon_delta target), and its audit verdict.

    Parameters
    ----------
    laws : CaseLaws
    mechanism : str
        As in :func:`evaluate`.
    target : pufferfish.audit.target.Target
    base_epsilon : float, optional
        The base's eps_A (tupling only: the smallest k is searched).
    dummy_distribution, max_dummies, rtol
        nu, the largest k tried and the certified route's rtol (tupling).
    audit_rtol : float
        The audit's relative tolerance.

    Returns
    -------
    tuple of (dict, pufferfish.audit.verdict.Verdict or None)
        The calibration row (``parameter`` eps_A, scale or k; NaN with a ``reason`` when none meets
        the target) and the exact audit's verdict of it (None when there is none).

    Raises
    ------
    InvalidArgumentError
        A mechanism the case's kind does not allow; tupling without ``base_epsilon``.
    """
    from pufferfish.distp.calibrate import smallest_dummies
    from pufferfish.errors import InvalidArgumentError

    family = mechanism.removeprefix("tupling_")
    if mechanism not in NOISE or family not in _families(laws.kind):
        raise InvalidArgumentError(f"mechanism = {mechanism!r}: not one of {', '.join(_mechanisms(laws.kind))}")
    if mechanism == family:
        return (_calibrate_base if family in ("rr", "geometric") else _calibrate_noise)(family, laws, target, audit_rtol)
    if base_epsilon is None:
        raise InvalidArgumentError(f"{mechanism}: the base mechanism's eps_A is needed (the smallest k is searched)")
    base, _, _ = _base(family, laws, base_epsilon)
    marginal = laws.marginal if dummy_distribution == "marginal" else None
    found = smallest_dummies(base, laws.lambda0, laws.lambda1, epsilon=target.epsilon, delta=target.delta,
                             dummy_distribution=dummy_distribution, marginal=marginal, max_dummies=max_dummies, rtol=rtol)
    row = {"mechanism": mechanism, "base_epsilon": base_epsilon, "dummy_distribution": dummy_distribution,
           "service_loss": _service_loss(family, laws, base_epsilon), "scale": 1.0 / base_epsilon,
           "parameter": found.parameter, "dummies": found.parameter, "delta": found.delta,
           "delta_upper": found.delta_upper, "reason": found.reason}
    if math.isnan(found.parameter):
        return row, None
    note = "certified upper end of the larger direction" if found.delta_upper > found.delta else ""
    return row, _verdict(1.0 / base_epsilon, target, found.delta_upper, found.delta_upper, audit_rtol, note)


def calibration_table(laws: CaseLaws, case, grid, *, rtol: float) -> tuple[list[dict], list[dict]]:
    """Each family's best-utility parameter for every target (eps, ``grid.delta``), and its audit rows.

    Parameters
    ----------
    laws : CaseLaws
    case : pufferfish.distp.settings.DistpCase
    grid : pufferfish.distp.settings.DistpGrid
    rtol : float
        The audit's relative tolerance (config ``audit.rtol``).

    Returns
    -------
    tuple of (list of dict, list of dict)
        The rows of :data:`CALIBRATION_COLUMNS` and the audit rows
        (:func:`pufferfish.audit.verdict.audit_row`), one per parameter found.
    """
    from pufferfish.audit.target import target_for
    from pufferfish.audit.verdict import audit_row

    rows, audits = [], []
    for eps in grid.targets:
        target = target_for("epsilon_delta", eps, delta=grid.delta)
        found = [_calibrate_base(f, laws, target, rtol) if f in ("rr", "geometric")
                 else _calibrate_noise(f, laws, target, rtol) for f in _families(laws.kind)]
        for family in (("rr", "geometric") if laws.kind == "ordinal" else ("rr",)):
            for nu in grid.dummy_distributions:
                found += _calibrate_tupling(family, laws, target, nu, grid, rtol)
        for row, verdict in found:
            full = {c: math.nan for c in CALIBRATION_COLUMNS} | {"dummy_distribution": "", "reason": ""} | row
            full.update(case=case.name, target_epsilon=eps, target_delta=grid.delta,
                        meets=bool(verdict.meets) if verdict is not None else False)
            rows.append(full)
            if verdict is not None:
                panel = full["dummy_distribution"] and f"{full['dummy_distribution']}, k = {int(full['dummies'])}"
                audits.append(audit_row(verdict, experiment=f"distp_{case.name}", panel=panel, method=row["mechanism"],
                                        noise=NOISE[row["mechanism"]], tight_note=verdict.note))
    return rows, audits


def write_case(*, name: str, spec: Mapping, grid_spec: Mapping, audit_rtol: float, data_csv, table_csv,
               calibration_csv, audit_csv, figures: Mapping) -> None:
    """One case's job: read its laws, write its table, calibration and audit tables and its figures.

    Parameters
    ----------
    name : str
        The case (config ``distp.cases.<name>``), ``spec`` its entry, ``grid_spec`` config ``distp.grid``.
    audit_rtol : float
        config ``audit.rtol``.
    data_csv, table_csv, calibration_csv, audit_csv : str or os.PathLike
        The dataset's cached table and the three outputs.
    figures : Mapping
        ``figure -> (png, pdf, csv)`` for every name of :data:`pufferfish.distp.plots.FIGURES`.

    Raises
    ------
    DataError, ConfigError
        Data the case cannot use; a bad section.
    """
    import pandas as pd

    from pufferfish.audit.verdict import audit_frame
    from pufferfish.distp import plots
    from pufferfish.distp.settings import DistpCase, DistpGrid
    from pufferfish.files import write_csv

    case, grid = DistpCase.from_config(name, spec), DistpGrid.from_config(grid_spec)
    frame = pd.read_csv(data_csv, usecols=[case.released, case.protected], low_memory=False)
    laws = case_laws(frame, spec, name=name)
    table = pd.DataFrame(case_table(laws, case, grid), columns=TABLE_COLUMNS)
    calibration, audits = calibration_table(laws, case, grid, rtol=audit_rtol)
    calibration = pd.DataFrame(calibration, columns=CALIBRATION_COLUMNS)
    plots.plot_delta(table, base_epsilon=grid.figure_base_epsilon, **_paths(figures["delta"]))
    plots.plot_loss(calibration, **_paths(figures["loss"]))
    plots.plot_dummies(table, epsilon=grid.figure_epsilon, **_paths(figures["dummies"]))
    plots.plot_bound(table, **_paths(figures["bound"]))
    write_csv(table, table_csv)
    write_csv(calibration, calibration_csv)
    write_csv(audit_frame(audits), audit_csv)


def _paths(triple) -> dict:
    png, pdf, csv = triple
    return {"png": png, "pdf": pdf, "csv": csv}

"""The verdict of an audit: one scale against one target, on one pair or the worst of several.

* :func:`audit_scale` -- what one scale achieves on one pair and whether it meets the target,
  for every scale a method can return: 0 (the noise-free audit of the priors), a finite
  scale > 0 (the exact audit), inf or NaN (cannot be audited: it does not meet the target);
* :func:`worst_case` -- the worst verdict over several pairs (the binding one), skipping the
  pairs whose sound upper bound cannot change the maximum;
* :data:`AUDIT_COLUMNS`, :func:`audit_row`, :func:`audit_frame` -- the one audit-table schema
  every paper, the comparison and the command write (results/audit/*.csv).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pufferfish.audit.target import Target
from pufferfish.errors import ArgumentTypeError

__all__ = ["Verdict", "audit_scale", "worst_case", "AUDIT_COLUMNS", "audit_row", "audit_frame", "NO_NOISE_NOTE",
           "NOT_MET_AT_ZERO_NOTE"]

#: the note of a scale 0 the priors meet without noise
NO_NOISE_NOTE = "no noise needed: the priors meet the target"
#: the note of a scale 0 the priors do not meet
NOT_MET_AT_ZERO_NOTE = "scale 0 but the priors do not meet the target"

#: the audit-table columns: the scale audited and its target (epsilon, delta, alpha), what it
#: achieves (the column of its guarantee, the two directions of the worst pair), the smallest
#: scale the exact audit accepts (``scale_min``, with the search's ``tight_note``), ``violation``
#: (the certified achieved value exceeds its bound: no tolerance), and ``claimed``: True
#: where the scale is claimed to attain its target, False for a baseline shown on purpose.
#: Every achieved value (``*_achieved``, ``loss_forward``, ``loss_backward``) is certified: an
#: upper bound on the true value, at most 1e-9 relative above it (:mod:`pufferfish.certified`)
AUDIT_COLUMNS = ["experiment", "panel", "method", "epsilon", "delta", "scale", "epsilon_achieved", "delta_achieved",
                 "scale_min", "violation", "loss_forward", "loss_backward", "tight_note", "noise", "guarantee", "alpha",
                 "renyi_achieved", "claimed"]


@dataclass(frozen=True)
class Verdict:
    """What ``scale`` achieves against ``target`` on one pair: ``forward`` (s_i against s_j) and
    ``backward`` (certified upper ends), whether it ``meets`` the target (the certified value is
    at most the target's bound, no tolerance), and a ``note`` (why a scale 0 or a scale that
    cannot be audited is judged as it is)."""

    scale: float
    target: Target
    forward: float
    backward: float
    meets: bool
    note: str = ""

    @property
    def value(self) -> float:
        """The larger direction (NaN when the scale cannot be audited)."""
        if math.isnan(self.forward) or math.isnan(self.backward):
            return math.nan
        return max(self.forward, self.backward)


def audit_scale(auditor, scale: float, target: Target) -> Verdict:
    """The verdict of ``scale`` on ``auditor``'s pair against ``target``.

    Parameters
    ----------
    auditor : Auditor
        The exact audit of one noise on one pair (:mod:`pufferfish.audit.auditor`).
    scale : float
        At least 0, inf or NaN: 0 is judged by the noise-free audit (the priors themselves), inf
        and NaN cannot be audited (not met, with a note).
    target : Target
        A guarantee the auditor audits: met when the certified achieved value is ``<= bound``
        (no tolerance).

    Returns
    -------
    Verdict

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        Not an auditor, a scale that is not a number or is negative, a target the auditor does
        not audit.
    """
    from pufferfish.audit.auditor import Auditor
    from pufferfish.checks import instance, is_real, real

    instance(auditor, Auditor, name="auditor")
    if not (is_real(scale) and not math.isfinite(float(scale)) and not float(scale) < 0):   # inf, NaN: kept
        scale = real(scale, name="scale", lo=0.0)
    scale = float(scale)
    if not math.isfinite(scale):
        auditor.check_target(target)
        return Verdict(scale, target, math.nan, math.nan, False, f"scale {scale!r} cannot be audited")
    got = auditor.decide(scale, target) if scale > 0 else auditor.noise_free(target)
    meets = bool(got.meets())
    note = "" if scale > 0 else (NO_NOISE_NOTE if meets else NOT_MET_AT_ZERO_NOTE)
    return Verdict(scale, target, got.forward, got.backward, meets, note)


def worst_case(auditors: Sequence, scale: float, target: Target, *,
               bound: Sequence[float] | None = None) -> tuple[Verdict, int]:
    """The worst verdict of ``scale`` over the pairs of ``auditors`` and the index of its pair.

    Parameters
    ----------
    auditors : sequence of Auditor
        One per pair, all of the same noise.
    scale, target
        As :func:`audit_scale`.
    bound : sequence of float, optional
        A sound upper bound of each pair's achieved value at ``scale`` (inf where none is
        known): the pairs are audited from the largest bound down, and a pair whose bound is
        at most the largest exact value found so far is not audited (it cannot change the
        maximum). Without it every pair is audited.

    Returns
    -------
    (Verdict, int)
        The verdict with the largest value (the first on ties; a pair that cannot be audited,
        NaN, is the worst) and its index in ``auditors``.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        No auditors or not auditors, ``bound`` of another length or with a NaN (and as
        :func:`audit_scale`).
    """
    auditors = _check_auditors(auditors)
    if bound is None:
        ranked = list(range(len(auditors)))
        uppers = [math.inf] * len(auditors)
    else:
        uppers = _bounds(bound, len(auditors))
        ranked = sorted(range(len(auditors)), key=lambda k: -uppers[k])
    worst, index = None, -1
    for k in ranked:
        if worst is not None and uppers[k] <= worst.value:
            break
        got = audit_scale(auditors[k], scale, target)
        if math.isnan(got.value):
            return got, k
        if worst is None or got.value > worst.value or (got.value == worst.value and k < index):
            worst, index = got, k
    return worst, index


def _check_auditors(auditors) -> list:
    """A non-empty sequence of auditors (one per pair)."""
    from pufferfish.audit.auditor import Auditor
    from pufferfish.checks import instance
    from pufferfish.errors import ArgumentTypeError, InvalidArgumentError

    if isinstance(auditors, (str, bytes, dict)) or not hasattr(auditors, "__len__"):
        raise ArgumentTypeError(f"auditors = {auditors!r:.60}: must be a list of auditors, one per pair")
    if len(auditors) == 0:
        raise InvalidArgumentError("auditors = []: at least one pair is needed")
    return [instance(a, Auditor, name=f"auditors[{k}]") for k, a in enumerate(auditors)]


def _bounds(bound: Sequence[float], count: int) -> list[float]:
    """Per-pair upper bounds: reals or inf, one per pair."""
    from pufferfish.checks import is_real
    from pufferfish.errors import ArgumentTypeError, InvalidArgumentError

    if isinstance(bound, (str, bytes, dict)) or not hasattr(bound, "__len__"):
        raise ArgumentTypeError(f"bound = {bound!r:.60}: must be a list of upper bounds, one per pair")
    values = list(bound)
    if len(values) != count:
        raise InvalidArgumentError(f"bound: {len(values)} values for {count} pairs")
    for k, v in enumerate(values):
        if not is_real(v) or math.isnan(float(v)):
            raise InvalidArgumentError(f"bound[{k}] = {v!r}: must be a real number or inf")
    return [float(v) for v in values]


def audit_row(verdict: Verdict, *, experiment: str, panel: str, method: str, noise: str,
              scale_min: float = math.nan, tight_note: str = "", claimed: bool = True) -> dict:
    """One row of the audit table (:data:`AUDIT_COLUMNS`) for ``verdict``.

    The achieved value goes to the column of the target's guarantee (``epsilon_achieved``,
    ``delta_achieved`` or ``renyi_achieved``, the others NaN), certified; ``violation`` is
    ``not meets`` (the certified value exceeds the target).

    Parameters
    ----------
    verdict : Verdict
        The verdict of one scale (:func:`audit_scale` or :func:`worst_case`).
    experiment, panel : str
        Where the row belongs (``panel`` may be empty).
    method, noise : str
        The registry method audited and its noise family (non-empty).
    scale_min : float
        The smallest scale meeting the target, if computed (NaN: not computed).
    tight_note : str
        Why ``scale_min`` is what it is (e.g. no noise needed), or empty.
    claimed : bool
        False for a baseline shown on purpose to fail.

    Returns
    -------
    dict
        Column -> value, every column of :data:`AUDIT_COLUMNS`.

    Raises
    ------
    ArgumentTypeError
        An argument of the wrong type (naming it).
    """
    from pufferfish.checks import instance, is_real

    instance(verdict, Verdict, name="verdict")
    for name, text in (("experiment", experiment), ("panel", panel), ("tight_note", tight_note)):
        instance(text, str, name=name)
    for name, text in (("method", method), ("noise", noise)):
        if not isinstance(text, str) or not text:
            raise ArgumentTypeError(f"{name} = {text!r:.60}: must be a non-empty string")
    if not is_real(scale_min) or float(scale_min) < 0:
        raise ArgumentTypeError(f"scale_min = {scale_min!r:.60}: must be a scale >= 0, inf or NaN (unknown)")
    if not isinstance(claimed, bool):
        raise ArgumentTypeError(f"claimed = {claimed!r:.60}: must be True or False")
    target = verdict.target
    guarantee = target.guarantee
    value = verdict.value
    return {"experiment": experiment, "panel": panel, "method": method, "epsilon": float(target.epsilon),
            "delta": target.delta if target.delta is not None else math.nan, "scale": float(verdict.scale),
            "epsilon_achieved": value if guarantee == "epsilon" else math.nan,
            "delta_achieved": value if guarantee == "epsilon_delta" else math.nan,
            "scale_min": float(scale_min), "violation": not verdict.meets,
            "loss_forward": verdict.forward, "loss_backward": verdict.backward, "tight_note": tight_note,
            "noise": noise, "guarantee": guarantee, "alpha": target.alpha if target.alpha is not None else math.nan,
            "renyi_achieved": value if guarantee == "renyi" else math.nan, "claimed": claimed}


def audit_frame(rows: Iterable[dict]):
    """The audit table of ``rows`` (dicts of :func:`audit_row`): a pandas DataFrame with exactly
    the columns :data:`AUDIT_COLUMNS`, in that order (no rows: an empty table).

    Parameters
    ----------
    rows : iterable of dict
        Rows of :func:`audit_row`.

    Returns
    -------
    pandas.DataFrame
        One row per dict, the columns :data:`AUDIT_COLUMNS` (missing ones empty).

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        ``rows`` not a list of dicts, or a row with a column outside :data:`AUDIT_COLUMNS`.
    """
    import pandas as pd

    from pufferfish.errors import ArgumentTypeError, InvalidArgumentError

    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
        raise ArgumentTypeError(f"rows = {rows!r:.60}: must be a list of audit rows (dicts)")
    rows = list(rows)
    for k, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ArgumentTypeError(f"rows[{k}] = {row!r:.60}: must be a dict (audit_row)")
        extra = sorted(set(row) - set(AUDIT_COLUMNS))
        if extra:
            raise InvalidArgumentError(f"rows[{k}]: columns {', '.join(map(str, extra))} are not audit columns")
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)

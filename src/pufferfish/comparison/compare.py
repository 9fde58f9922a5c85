"""Which noise for my secret pair? Every mechanism of papers 000 and 002 on one pair, audited.

For one secret pair (two query priors on the lattice) and a grid of epsilons, this module
calibrates, through the method registry (:mod:`pufferfish.registry`):

* Laplace noise (standard deviation sqrt(2) b): the best method of paper 000 that applies to
  the pair (the smallest of their scales at each epsilon, ``paper000_best``; the note names it),
  ``gwm_laplace``, ``gawm_laplace``, ``tight_laplace_delta`` and ``tight`` (pure epsilon);
* Gaussian noise (standard deviation sigma): ``gwm_gaussian_rdp``, ``gwm_gaussian_analytic``,
  ``tight_gaussian``;
* Cauchy noise (no standard deviation): ``dagwm_cauchy`` and ``tight_cauchy`` at
  (alpha, epsilon)-Renyi pufferfish privacy;

and audits every scale exactly with the auditor of its noise and guarantee
(:func:`pufferfish.audit.lattice_auditor`). The Laplace and Gaussian rows are comparable:
each guarantees (epsilon, delta)-PP (a pure-epsilon method, delta = 0, a fortiori), so the
least noise at an epsilon is the smallest standard deviation among them
(:func:`least_noise`). The Cauchy rows answer a different guarantee (Renyi) and are compared
among themselves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pufferfish import registry
from pufferfish.audit import noise_std
from pufferfish.errors import NotApplicableError
from pufferfish.grids import check_epsilons

__all__ = ["LAPLACE_METHODS", "GAUSSIAN_METHODS", "CAUCHY_METHODS", "PAPER000_BEST", "COLUMNS", "paper000_best",
           "compare_pair", "compare_pairs", "least_noise", "noise_std", "winner_lines", "as_flags"]

#: the name of the row holding the best paper-000 method at each epsilon
PAPER000_BEST = "paper000_best"
#: Laplace (epsilon, delta) or stronger: paper 000's best, then paper 002's and the tight scales
LAPLACE_METHODS = (PAPER000_BEST, "gwm_laplace", "gawm_laplace", "tight_laplace_delta", "tight")
GAUSSIAN_METHODS = ("gwm_gaussian_rdp", "gwm_gaussian_analytic", "tight_gaussian")
CAUCHY_METHODS = ("dagwm_cauchy", "tight_cauchy")
#: columns of results/theta/noise_comparison.csv (the issue's eight, then the audit's)
COLUMNS = ["pair", "method", "noise", "epsilon", "delta", "alpha", "scale", "std", "guarantee", "achieved",
           "meets_target", "note"]


def _paper000_names() -> list[str]:
    """The methods of paper 000 as printed: its module's records, without this project's
    variants (``lemma6_best_grouping``, whose citation says "this project")."""
    from pufferfish.multiuser.methods import METHODS

    return [m.name for m in METHODS if "this project" not in m.citation]


def paper000_best(pair, epsilons) -> tuple[np.ndarray, list[str]]:
    """The smallest Laplace scale among the paper-000 methods that apply to ``pair``, per epsilon,
    and the name of the method that gives it (the first listed on ties)."""
    eps = check_epsilons(epsilons)
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


def _audit(record, pair, scale: float, target) -> tuple[float, bool, str]:
    """The exact achieved value of ``scale`` against ``target`` (the noise-free value at scale 0)."""
    from pufferfish.audit import lattice_auditor

    auditor = lattice_auditor(record.noise, record.guarantee, pair.prior_i, pair.prior_j)
    if scale > 0 and math.isfinite(scale):
        got = auditor.achieved(scale, target)
        return got.value, got.meets(1e-9), ""
    if scale == 0:
        got = auditor.noise_free(target)
        if got.meets(1e-9):
            return got.value, True, "no noise needed: the priors meet the target"
        return got.value, False, "scale 0 but the priors do not meet the target"
    return math.nan, False, f"scale {scale!r} cannot be audited"


def compare_pair(name: str, pair, *, epsilons, delta: float, alpha: float,
                 methods: Sequence[str] | None = None) -> pd.DataFrame:
    """Every mechanism of the module docstring on ``pair`` over ``epsilons``: one row per
    (method, epsilon) with the scale, its standard deviation and its exact audit (:data:`COLUMNS`).

    ``methods``: only these of :data:`LAPLACE_METHODS`, :data:`GAUSSIAN_METHODS` and
    :data:`CAUCHY_METHODS` (in that order; default all), e.g. one noise family's.
    """
    from pufferfish.audit import Target
    from pufferfish.checks import instance

    instance(name, str, name="name")
    eps = check_epsilons(epsilons)
    every = LAPLACE_METHODS + GAUSSIAN_METHODS + CAUCHY_METHODS
    if methods is not None:
        unknown = [m for m in methods if m not in every]
        if unknown or not methods:
            raise NotApplicableError(f"methods = {list(methods)!r}: must be a non-empty list of {', '.join(every)}")
        every = tuple(m for m in every if m in methods)
    rows = []
    if PAPER000_BEST in every:
        best, best_names = paper000_best(pair, eps)
    for method in every:
        if method == PAPER000_BEST:
            # every paper-000 method adds Laplace noise for pure epsilon: one auditor serves them all
            record, scales, notes = registry.get(best_names[0]), best, [f"= {n}" for n in best_names]
        else:
            record = registry.get(method)
            params = {k: v for k, v in (("delta", delta), ("alpha", alpha)) if k in record.needs}
            scales, notes = registry.calibrate(method, pair, epsilons=eps, **params), [""] * eps.size
        for k, (e, scale) in enumerate(zip(eps, scales)):
            if record.guarantee == "renyi":
                target = Target(float(e), alpha=alpha)
            elif record.guarantee == "epsilon_delta":
                target = Target(float(e), delta=delta)
            else:
                target = Target(float(e))
            achieved, meets, why = _audit(record, pair, float(scale), target)
            rows.append({
                "pair": name, "method": method, "noise": record.noise, "epsilon": float(e),
                "delta": delta if record.noise != "cauchy" else math.nan,
                "alpha": alpha if record.noise == "cauchy" else math.nan,
                "scale": float(scale), "std": noise_std(record.noise, float(scale)),
                "guarantee": record.guarantee, "achieved": achieved, "meets_target": bool(meets),
                "note": "; ".join(x for x in (notes[k], why) if x),
            })
    return pd.DataFrame(rows, columns=COLUMNS)


def compare_pairs(pairs: Mapping[str, object], *, epsilons, delta: float, alpha: float) -> pd.DataFrame:
    """:func:`compare_pair` for every named pair, concatenated in the given order."""
    from pufferfish.checks import instance

    instance(pairs, Mapping, name="pairs")
    if not pairs:
        from pufferfish.errors import InvalidArgumentError
        raise InvalidArgumentError("pairs = {}: must name at least one pair")
    return pd.concat([compare_pair(n, p, epsilons=epsilons, delta=delta, alpha=alpha) for n, p in pairs.items()],
                     ignore_index=True)


def as_flags(column: pd.Series) -> pd.Series:
    """A boolean column as booleans, whether it holds bools or the text a CSV gives back."""
    return column.astype(str).str.lower().isin(["true", "1"])


def least_noise(frame: pd.DataFrame, *, families: Sequence[str] = ("laplace", "gaussian")) -> pd.DataFrame:
    """Per (pair, epsilon): the method with the smallest standard deviation among ``families``
    (ties: the first in the table), the runner-up from the *other* family, and their ratio;
    and the same among the closed-form mechanisms alone (every method but the tight scales,
    which need the exact audit to compute).

    Columns ``pair, epsilon, method, noise, std, other_method, other_noise, other_std, saving``
    with saving = 1 - std / other_std (how much less noise than the other family's best), then
    ``closed_method, closed_noise, closed_std``.
    """
    rows = []
    sub = frame[frame.noise.isin(families) & as_flags(frame.meets_target)]
    for (pair, eps), group in sub.groupby(["pair", "epsilon"], sort=False):
        group = group.sort_values("std", kind="stable")
        win = group.iloc[0]
        other = group[group.noise != win.noise]
        o = other.iloc[0] if len(other) else None
        closed = group[~group.method.str.startswith("tight")]
        c = closed.iloc[0] if len(closed) else None
        rows.append({"pair": pair, "epsilon": eps, "method": win.method, "noise": win.noise, "std": win["std"],
                     "other_method": None if o is None else o.method, "other_noise": None if o is None else o.noise,
                     "other_std": math.nan if o is None else o["std"],
                     "saving": math.nan if o is None or not o["std"] > 0 else 1.0 - win["std"] / o["std"],
                     "closed_method": None if c is None else c.method, "closed_noise": None if c is None else c.noise,
                     "closed_std": math.nan if c is None else c["std"]})
    return pd.DataFrame(rows)


def winner_lines(frame: pd.DataFrame) -> list[str]:
    """One line per (pair, epsilon) for captions: the least noise for (epsilon, delta)-PP and by
    how much it beats the other noise family's best (:func:`least_noise`)."""
    lines = []
    for row in least_noise(frame).itertuples(index=False):
        text = f"{row.pair}, epsilon = {row.epsilon:g}: least noise {row.method} ({row.noise}, std {row.std:.4g})"
        if row.other_method is not None and row.std == 0:
            text += f"; no noise needed (best {row.other_noise}: {row.other_method}, std {row.other_std:.4g})"
        elif row.other_method is not None:
            text += (f", {100 * row.saving:.0f} % less than the best {row.other_noise} mechanism "
                     f"({row.other_method}, std {row.other_std:.4g})")
        if row.closed_method is not None and row.closed_method != row.method:
            text += f"; of the closed-form mechanisms, {row.closed_method} ({row.closed_noise}, std {row.closed_std:.4g})"
        lines.append(text)
    return lines

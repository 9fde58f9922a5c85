r"""The binding pair: with many secret pairs, the scale that protects every one, audited on all of them.

When a secret takes more than two values, every pair of them is a secret pair. A noise scale
protects them all when it protects the pair that needs the most noise, since the achieved
value only falls as the scale grows (each auditor's module proves it for its noise:
docs/math/engine.md). For each method and :math:`\epsilon`, :func:`binding_rows` compares every pair
(:func:`~pufferfish.comparison.compare.compare_pair`), keeps the row of the pair whose scale is
the largest (ties as in paper 002's Table 1: the larger :math:`W_\infty`, then the larger
:math:`W_2`, then the first listed) and audits that scale on every pair
(:func:`pufferfish.audit.verdict.worst_case`): the row's ``achieved`` is the worst of them, and
``meets_target`` says whether the worst meets the target. The ``pufferfish calibrate``
command prints these rows.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from pufferfish.audit import lattice_auditor, target_for, worst_case
from pufferfish.comparison.compare import compare_pair

__all__ = ["NamedPair", "Binding", "conditional_pairs", "binding_rows"]


@dataclass(frozen=True)
class NamedPair:
    """One secret pair of several: its two secret values (as the data writes them) and the
    :class:`~pufferfish.lattice.SecretPair` of their query priors."""

    secret_i: object
    secret_j: object
    pair: object

    @property
    def text(self) -> str:
        """``"<secret_i> vs <secret_j>"``."""
        return f"{self.secret_i} vs {self.secret_j}"


@dataclass(frozen=True, eq=False)
class Binding:
    """The rows of :func:`binding_rows`: ``secret_i, secret_j`` (the binding pair of the row) and
    the columns of :data:`~pufferfish.comparison.compare.COLUMNS`; ``pairs`` how many pairs were compared."""

    rows: pd.DataFrame
    pairs: int

    def binding(self) -> list[tuple[object, object, int]]:
        """Each binding pair ``(secret_i, secret_j, rows)`` with the number of rows it binds, in table order."""
        counts = self.rows.groupby(["secret_i", "secret_j"], sort=False).size()
        return [(i, j, int(n)) for (i, j), n in counts.items()]


def conditional_pairs(conditionals: Sequence, *, column: str) -> list[NamedPair]:
    """Every pair of the conditional priors Pr(X | ``column`` = s) (i < j, in the order given).

    The pair is built as the comparison job builds a Table 1 pair
    (:func:`pufferfish.comparison.experiments.resolve_pair`): each secret draws from its
    conditional, nobody else.

    Parameters
    ----------
    conditionals : sequence of pufferfish.wasserstein.table1.SecretConditional
        :attr:`pufferfish.wasserstein.conditionals.ConditionalPriors.conditionals`, at least two.
    column : str
        The secret column (the secrets' names, ``column=value``).

    Returns
    -------
    list of NamedPair

    Raises
    ------
    InvalidArgumentError
        Fewer than two secret values.
    """
    from pufferfish.errors import InvalidArgumentError
    from pufferfish.lattice import Draws, SecretPair

    by_secret = {c.secret: c for c in conditionals}
    if len(by_secret) < 2:
        raise InvalidArgumentError(f"conditionals: {len(by_secret)} secret value(s), a pair needs two")

    def draws(c):
        return Draws(c.pmf, f"{column}={c.secret}")

    return [NamedPair(a.secret, b.secret, SecretPair.of(draws(a), draws(b), []))
            for a, b in itertools.combinations(conditionals, 2)]


def binding_rows(pairs: Sequence[NamedPair], *, epsilons, delta: float, alpha: float,
                 methods: Sequence[str] | None = None, progress: Callable[[int, str], None] | None = None) -> Binding:
    """Per method and epsilon, the row of the binding pair, its scale audited on every pair.

    Parameters
    ----------
    pairs : sequence of NamedPair
        At least one pair (with one, its rows are returned as they are).
    epsilons, delta, alpha, methods
        As :func:`pufferfish.comparison.compare.compare_audited`.
    progress : callable, optional
        Called as ``progress(k, text)`` before the k-th pair (1-based) is compared.

    Returns
    -------
    Binding
        Rows in the order of :func:`~pufferfish.comparison.compare.methods_by_noise` and of ``epsilons``.

    Raises
    ------
    InvalidArgumentError
        No pairs, or an element that is not a :class:`NamedPair` (and as :func:`compare_pair`).
    """
    pairs = _check_pairs(pairs)
    frames = []
    for k, named in enumerate(pairs):
        if progress is not None:
            progress(k + 1, named.text)
        frame = compare_pair(named.text, named.pair, epsilons=epsilons, delta=delta, alpha=alpha, methods=methods)
        frame.insert(0, "secret_j", named.secret_j)
        frame.insert(0, "secret_i", named.secret_i)
        frame["rank"] = k
        frames.append(frame)
    rows = pd.concat(frames, ignore_index=True)
    if len(pairs) > 1:
        rows = _worst_over_pairs(_largest_scales(rows, pairs), pairs, delta=delta, alpha=alpha)
    return Binding(rows.drop(columns="rank").reset_index(drop=True), len(pairs))


def _check_pairs(pairs) -> list[NamedPair]:
    from pufferfish.checks import instance
    from pufferfish.errors import InvalidArgumentError

    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__len__") or len(pairs) == 0:
        raise InvalidArgumentError(f"pairs = {pairs!r:.60}: must be a non-empty list of NamedPair")
    return [instance(p, NamedPair, name=f"pairs[{k}]") for k, p in enumerate(pairs)]


def _largest_scales(rows: pd.DataFrame, pairs: Sequence[NamedPair]) -> pd.DataFrame:
    r"""Per (method, epsilon) the row with the largest scale; ties by Table 1's
    (:math:`W_\infty`, :math:`W_2`), then order."""
    from pufferfish.lattice.distances import wasserstein_inf, wasserstein_p

    keys = [(int(wasserstein_inf(n.pair.prior_i, n.pair.prior_j)), float(wasserstein_p(n.pair.prior_i, n.pair.prior_j, 2)))
            for n in pairs]
    ranked = rows.assign(w_inf=rows["rank"].map(lambda k: keys[k][0]), w_2=rows["rank"].map(lambda k: keys[k][1]),
                         order=-rows["rank"])
    chosen = (ranked.sort_values(["scale", "w_inf", "w_2", "order"], ascending=False, kind="stable")
              .groupby(["method", "epsilon"], sort=False).head(1))
    chosen = chosen.sort_values(["method", "epsilon"], key=lambda c: c.map(_first_position(rows[c.name])),
                                kind="stable")
    return chosen.drop(columns=["w_inf", "w_2", "order"])


def _first_position(column: pd.Series) -> dict:
    """The first position of each value of ``column`` (to keep the comparison's order)."""
    first: dict = {}
    for value in column:
        first.setdefault(value, len(first))
    return first


def _worst_over_pairs(chosen: pd.DataFrame, pairs: Sequence[NamedPair], *, delta: float,
                      alpha: float) -> pd.DataFrame:
    """``achieved`` and ``meets_target`` of each chosen scale: the worst audit over every pair."""
    auditors: dict = {}
    out = chosen.copy()
    for idx, row in chosen.iterrows():
        kind = (row.noise, row.guarantee)
        if kind not in auditors:
            auditors[kind] = [lattice_auditor(*kind, n.pair.prior_i, n.pair.prior_j) for n in pairs]
        target = target_for(row.guarantee, float(row.epsilon), delta=delta, alpha=alpha)
        verdict, _ = worst_case(auditors[kind], float(row.scale), target)
        out.loc[idx, "achieved"] = verdict.value
        out.loc[idx, "meets_target"] = bool(verdict.meets)
    return out

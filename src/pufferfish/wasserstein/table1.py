"""Paper 002's Table 1: the sensitivity each mechanism needs to hide a secret attribute.

Pierquin, Bellet, Tommasi, Boussard, "Renyi Pufferfish Privacy" (ICML 2024), Section 6.2
and Appendix F.2 (attribute privacy, Definition F.1). A record's released attribute X
(a student's final grade G3, a patient's age, an adult's salary label) is published with
additive noise, while the value of another column S of the same record (extra paid
classes, the diagnosis, the race) is the secret. For a secret pair (s_i, s_j) the
adversary's priors of the released value are the conditionals P_i = Pr(X | S = s_i) and
P_j = Pr(X | S = s_j). Table 1 compares three sensitivities, each the maximum over the
secret pairs of a setting:

* DP: the range of X's domain (max - min of the values X can take), the sensitivity of
  releasing X under differential privacy whatever the secret;
* GWM (Theorem 3.3, Corollary 3.1): W_inf(P_i, P_j), the sensitivity of the General
  Wasserstein Mechanism (Laplace, Gaussian and other noise);
* DAGWM with Cauchy noise (Theorem 4.5, Corollary 4.1 at alpha = 2): W_2(P_i, P_j).

Both distances are computed exactly on the integer lattice from the monotone coupling
(:mod:`pufferfish.lattice.distances`), which is optimal for every W_p in one dimension.
The pipeline reads the conditionals off the data (:mod:`pufferfish.wasserstein.conditionals`);
everything here takes them as :class:`SecretConditional` and knows no dataset.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from pufferfish.lattice.distances import wasserstein_inf, wasserstein_p
from pufferfish.lattice.pmf import LatticePMF

__all__ = ["SecretConditional", "PairSensitivity", "TABLE1_COLUMNS", "MAX_LABEL", "pair_sensitivity",
           "setting_sensitivities", "binding_pair", "table1_frame"]

#: columns of results/theta/wasserstein_table1.csv
TABLE1_COLUMNS = ["setting", "secret_i", "secret_j", "rows_i", "rows_j", "range", "w_inf", "w_2"]
#: ``secret_i`` and ``secret_j`` of a setting's row of maxima (the numbers Table 1 prints)
MAX_LABEL = "max"


@dataclass(frozen=True, eq=False)
class SecretConditional:
    """Pr(X | S = secret): the released attribute's prior given one value of the secret column.

    Attributes:
        secret: the secret value, as text (e.g. ``"yes"``, ``"2"``, ``"Black"``).
        pmf: the prior of X on the integer lattice (exact fractions count / rows).
        rows: the number of records with S = secret it was estimated from.
    """

    secret: str
    pmf: LatticePMF
    rows: int

    def __post_init__(self):
        if not isinstance(self.secret, str) or not self.secret:
            raise TypeError(f"secret = {self.secret!r}: must be a non-empty string")
        if self.secret == MAX_LABEL:
            raise ValueError(f"secret = {MAX_LABEL!r}: reserved for the row of maxima; rename the secret value")
        if not isinstance(self.pmf, LatticePMF):
            raise TypeError(f"pmf = {self.pmf!r}: must be a LatticePMF")
        if isinstance(self.rows, bool) or not isinstance(self.rows, int) or self.rows < 1:
            raise ValueError(f"rows = {self.rows!r}: must be an integer >= 1")


@dataclass(frozen=True)
class PairSensitivity:
    """One row of ``results/theta/wasserstein_table1.csv``.

    For a secret pair: its two secret values and row counts, the DP range, W_inf and W_2
    of its conditionals. For a setting's row of maxima (``secret_i = secret_j = "max"``,
    no row counts): the largest W_inf and the largest W_2 over its pairs (possibly of two
    different pairs), the numbers Table 1 prints.
    """

    setting: str
    secret_i: str
    secret_j: str
    rows_i: int | None
    rows_j: int | None
    range: float
    w_inf: int
    w_2: float

    @property
    def is_max(self) -> bool:
        """Whether this is a setting's row of maxima."""
        return self.secret_i == MAX_LABEL


def _check_range(attribute_range) -> float:
    if isinstance(attribute_range, bool) or not isinstance(attribute_range, (int, float)):
        raise TypeError(f"attribute_range = {attribute_range!r}: must be a number")
    value = float(attribute_range)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"attribute_range = {attribute_range!r}: must be finite and > 0")
    return value


def pair_sensitivity(first: SecretConditional, second: SecretConditional, *, setting: str,
                     attribute_range: float) -> PairSensitivity:
    r"""W_inf (GWM, Cor. 3.1) and W_2 (DAGWM with Cauchy noise, Cor. 4.1 at alpha = 2) of one secret pair.

    ``attribute_range`` is the DP sensitivity (the range of the released attribute's
    domain); it must cover the values of both conditionals.

    Parameters
    ----------
    first, second : SecretConditional
        The conditionals :math:`\Pr(X \mid S = s)` of the two secret values.
    setting : str
        The setting's name, copied into the row.
    attribute_range : float
        The DP sensitivity (> 0), covering both conditionals' values.

    Returns
    -------
    PairSensitivity
        The pair's row: rows counted, range, :math:`W_\infty` and :math:`W_2`.

    Raises
    ------
    TypeError
        A conditional of the wrong type, or a range that is not a number.
    ValueError
        A range not finite and positive, or narrower than the values' span.
    """
    for name, cond in (("first", first), ("second", second)):
        if not isinstance(cond, SecretConditional):
            raise TypeError(f"{name} = {cond!r}: must be a SecretConditional")
    value = _check_range(attribute_range)
    _check_covers(value, [first, second])
    return PairSensitivity(setting=setting, secret_i=first.secret, secret_j=second.secret, rows_i=first.rows,
                           rows_j=second.rows, range=value, w_inf=int(wasserstein_inf(first.pmf, second.pmf)),
                           w_2=float(wasserstein_p(first.pmf, second.pmf, 2)))


def _check_covers(attribute_range: float, conditionals: Sequence[SecretConditional]) -> None:
    lo = min(c.pmf.lo for c in conditionals)
    hi = max(c.pmf.hi for c in conditionals)
    if hi - lo > attribute_range:
        raise ValueError(f"attribute_range = {attribute_range:g}: smaller than the span {hi - lo} of the values "
                         f"observed ({lo}..{hi}); DP's sensitivity must cover every value the attribute takes")


def setting_sensitivities(setting: str, conditionals: Sequence[SecretConditional], *,
                          attribute_range: float) -> list[PairSensitivity]:
    r"""Every secret pair of a setting (in the order given, i < j), then its row of maxima.

    Args:
        setting: the setting's name (``student``, ``heart``, ``adult``...).
        conditionals: Pr(X | S = s) for each secret value s, at least two, distinct values.
        attribute_range: the DP sensitivity, the range of X's domain (must cover the data).

    Returns:
        ``C(n, 2)`` pair rows, then one row with ``secret_i = secret_j = "max"``, the range,
        max W_inf and max W_2 over the pairs (Table 1's three numbers).

    Parameters
    ----------
    setting : str
        The setting's name (``student``, ``heart``, ``adult``...).
    conditionals : sequence of SecretConditional
        :math:`\Pr(X \mid S = s)` for each secret value, at least two, distinct.
    attribute_range : float
        The DP sensitivity, the range of X's domain (must cover the data).

    Returns
    -------
    list of PairSensitivity
        ``C(n, 2)`` pair rows, then one row with ``secret_i = secret_j = \"max\"``: the range, max :math:`W_\infty` and max :math:`W_2` (Table 1's three numbers).

    Raises
    ------
    TypeError
        An empty or non-string setting, or a conditional of the wrong type.
    ValueError
        Fewer than two secret values, a value given twice, or a bad range.
    """
    if not isinstance(setting, str) or not setting:
        raise TypeError(f"setting = {setting!r}: must be a non-empty string")
    conditionals = list(conditionals)
    if len(conditionals) < 2:
        raise ValueError(f"conditionals of setting {setting}: {len(conditionals)} secret value(s); a secret pair "
                         "needs at least two")
    for k, cond in enumerate(conditionals):
        if not isinstance(cond, SecretConditional):
            raise TypeError(f"conditionals[{k}] = {cond!r}: must be a SecretConditional")
    labels = [c.secret for c in conditionals]
    repeated = sorted({s for s in labels if labels.count(s) > 1})
    if repeated:
        raise ValueError(f"conditionals of setting {setting}: secret value(s) {', '.join(repeated)} given twice")
    value = _check_range(attribute_range)
    _check_covers(value, conditionals)
    pairs = [pair_sensitivity(a, b, setting=setting, attribute_range=value)
             for a, b in itertools.combinations(conditionals, 2)]
    maxima = PairSensitivity(setting=setting, secret_i=MAX_LABEL, secret_j=MAX_LABEL, rows_i=None, rows_j=None,
                             range=value, w_inf=max(p.w_inf for p in pairs), w_2=max(p.w_2 for p in pairs))
    return [*pairs, maxima]


def binding_pair(rows: Sequence[PairSensitivity]) -> PairSensitivity:
    r"""The secret pair that binds a setting: the largest W_inf, ties broken by the largest W_2.

    Rows of maxima are skipped; remaining ties (equal W_inf and W_2) keep the first pair.

    Parameters
    ----------
    rows : sequence of PairSensitivity
        Rows of :func:`setting_sensitivities` (rows of maxima are skipped).

    Returns
    -------
    PairSensitivity
        The pair with the largest :math:`W_\infty`, then the largest :math:`W_2`; the first of equal ones.

    Raises
    ------
    ValueError
        No secret pair among ``rows``.
    """
    pairs = [r for r in rows if not r.is_max]
    if not pairs:
        raise ValueError("rows: no secret pair (only rows of maxima, or nothing)")
    return max(pairs, key=lambda r: (r.w_inf, r.w_2))


def table1_frame(rows: Sequence[PairSensitivity]) -> pd.DataFrame:
    r"""The rows as ``results/theta/wasserstein_table1.csv`` (:data:`TABLE1_COLUMNS`; empty row counts on maxima).

    Parameters
    ----------
    rows : sequence of PairSensitivity
        The rows of one or several settings.

    Returns
    -------
    pandas.DataFrame
        The columns :data:`TABLE1_COLUMNS`, integer counts (empty on the maxima).

    Raises
    ------
    AttributeError
        A row that is not a :class:`PairSensitivity` (internal callers pass typed rows).
    """
    frame = pd.DataFrame([{"setting": r.setting, "secret_i": r.secret_i, "secret_j": r.secret_j,
                           "rows_i": r.rows_i, "rows_j": r.rows_j, "range": r.range, "w_inf": r.w_inf,
                           "w_2": r.w_2} for r in rows], columns=TABLE1_COLUMNS)
    for column in ("rows_i", "rows_j"):
        frame[column] = frame[column].astype("Int64")
    frame["w_inf"] = frame["w_inf"].astype("int64")
    if len(frame) and all(float(v).is_integer() for v in frame["range"]):
        frame["range"] = frame["range"].astype("int64")  # 20, not 20.0
    return frame

"""The multi-user system of paper 000, Section 3: users, secrets and query priors.

Users i in V report independent D_i ~ P_i, each present with probability zeta_i; the query
is X = f(D) = sum of the reports. For user i the secrets of Table 1 are

* ``Reports(a)``   s_{a_i}:  user i is present and reports a          (eq. 7)
* ``Absent()``     s_{perp_i}: user i is absent                        (eq. 8)
* ``Draws(P)``     s_{P_i}:  user i is present and reports D_i ~ P     (eq. 9)

and the prior of X given a secret is the law of f(D_-i) (+ a, or + D_i), times the common
factor prod_{j != i} zeta_j. That factor is the same for both secrets of a pair, so it
cancels in every condition of Section 4; :class:`QueryPrior` carries it as ``weight``
and the calibration methods work with the normalized ``pmf``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from collections.abc import Sequence

from pufferfish.errors import InvalidDistributionError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import sum_of_users

__all__ = ["User", "Reports", "Absent", "Draws", "Secret", "QueryPrior", "query_prior", "SecretPair"]


@dataclass(frozen=True)
class User:
    """A user of the system: the law of its report and its presence probability zeta."""

    pmf: LatticePMF
    presence: float = 1.0
    name: str = ""

    def __post_init__(self):
        if not (0.0 < self.presence <= 1.0):
            raise InvalidDistributionError(f"user {self.name or '?'}: presence {self.presence!r} must be in (0, 1]")


@dataclass(frozen=True)
class Reports:
    """s_{a_i}: user i is present and reports the value ``value``."""

    value: int

    def label(self) -> str:
        return f"reports {self.value}"


@dataclass(frozen=True)
class Absent:
    """s_{perp_i}: user i is not in the system."""

    def label(self) -> str:
        return "absent"


@dataclass(frozen=True)
class Draws:
    """s_{P_i}: user i is present and reports D_i ~ ``pmf``."""

    pmf: LatticePMF
    name: str = ""

    def label(self) -> str:
        return f"D_i ~ {self.name or 'P'}"


Secret = Reports | Absent | Draws


@dataclass(frozen=True, eq=False)
class QueryPrior:
    """P_{X|S}(.|s) = ``weight`` * ``pmf``, with ``weight`` = prod_{j != i} zeta_j (eqs. 7-9)."""

    pmf: LatticePMF
    weight: float = 1.0


def _user_part(secret: Secret) -> LatticePMF:
    if isinstance(secret, Reports):
        return LatticePMF.point(secret.value)
    if isinstance(secret, Absent):
        return LatticePMF.point(0)
    if isinstance(secret, Draws):
        return secret.pmf
    raise TypeError(f"not a secret: {secret!r}")


def query_prior(secret: Secret, rest: Sequence[User] | LatticePMF, *, method: str = "auto") -> QueryPrior:
    """The prior of X = f(D) given ``secret`` of user i, the other users being ``rest``.

    ``rest`` is the list of the other users, or the law of their sum f(D_-i) when it is
    already known (then the presence weight is 1).
    """
    if isinstance(rest, LatticePMF):
        rest_sum, weight = rest, 1.0
    else:
        rest_sum = sum_of_users([u.pmf for u in rest], method=method)
        weight = math.prod(u.presence for u in rest)
    return QueryPrior(sum_of_users([rest_sum, _user_part(secret)], method=method), weight)


@dataclass(frozen=True, eq=False)
class SecretPair:
    """A discriminative pair (s_i, s_j) of user i, with f(D_-i) ~ ``rest_sum``.

    ``prior_i`` and ``prior_j`` are the two normalized query priors P_{X|S}(.|s_i), P_{X|S}(.|s_j).
    """

    first: Secret
    second: Secret
    rest_sum: LatticePMF
    weight: float = 1.0

    @classmethod
    def of(cls, first: Secret, second: Secret, rest: Sequence[User], *, method: str = "auto") -> "SecretPair":
        rest_sum = sum_of_users([u.pmf for u in rest], method=method)
        return cls(first, second, rest_sum, math.prod(u.presence for u in rest))

    @cached_property
    def prior_i(self) -> LatticePMF:
        return query_prior(self.first, self.rest_sum).pmf

    @cached_property
    def prior_j(self) -> LatticePMF:
        return query_prior(self.second, self.rest_sum).pmf

    def kinds(self) -> tuple[str, str]:
        return (type(self.first).__name__, type(self.second).__name__)

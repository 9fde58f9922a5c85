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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from pufferfish.checks import choice, instance, integer, real
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError
from pufferfish.lattice.pmf import LatticePMF, check_lattice_size
from pufferfish.lattice.sums import sum_of_users

__all__ = ["User", "Reports", "Absent", "Draws", "Secret", "QueryPrior", "query_prior", "SecretPair"]

_PMF_HINT = "build it with LatticePMF.from_values(values, probabilities)"


def _name(value, *, name: str) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} = {value!r}: must be a string, not {type(value).__name__}")
    return value


@dataclass(frozen=True)
class User:
    """A user of the system: the law of its report and its presence probability zeta in (0, 1]."""

    pmf: LatticePMF
    presence: float = 1.0
    name: str = ""

    def __post_init__(self):
        _name(self.name, name="User.name")
        who = f"User {self.name}" if self.name else "User"
        instance(self.pmf, LatticePMF, name=f"{who}.pmf", hint=_PMF_HINT)
        object.__setattr__(self, "presence", real(self.presence, name=f"{who}.presence", lo=0.0, hi=1.0, lo_open=True,
                                                       error=InvalidDistributionError))


@dataclass(frozen=True)
class Reports:
    """s_{a_i}: user i is present and reports the integer ``value``."""

    value: int

    def __post_init__(self):
        object.__setattr__(self, "value", integer(self.value, name="Reports.value"))

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

    def __post_init__(self):
        instance(self.pmf, LatticePMF, name="Draws.pmf", hint=_PMF_HINT)
        _name(self.name, name="Draws.name")

    def label(self) -> str:
        return f"D_i ~ {self.name or 'P'}"


Secret = Reports | Absent | Draws
_SECRETS = (Reports, Absent, Draws)


@dataclass(frozen=True, eq=False)
class QueryPrior:
    """P_{X|S}(.|s) = ``weight`` * ``pmf``, with ``weight`` = prod_{j != i} zeta_j (eqs. 7-9).

    ``weight`` is in [0, 1]: a product of presences in (0, 1], which can underflow to 0 for
    very many users (it cancels in every condition of Section 4).
    """

    pmf: LatticePMF
    weight: float = 1.0

    def __post_init__(self):
        instance(self.pmf, LatticePMF, name="QueryPrior.pmf")
        object.__setattr__(self, "weight", real(self.weight, name="QueryPrior.weight", lo=0.0, hi=1.0))


def _user_part(secret: Secret) -> LatticePMF:
    if isinstance(secret, Reports):
        return LatticePMF.point(secret.value)
    if isinstance(secret, Absent):
        return LatticePMF.point(0)
    if isinstance(secret, Draws):
        return secret.pmf
    raise ArgumentTypeError(f"secret = {secret!r}: must be Reports, Absent or Draws, not {type(secret).__name__}")


def _check_secret(secret, *, name: str):
    return instance(secret, _SECRETS, name=name)


def _part_hull(secret: Secret) -> tuple[int, int]:
    """Smallest and largest report of user i under ``secret``."""
    if isinstance(secret, Reports):
        return secret.value, secret.value
    if isinstance(secret, Absent):
        return 0, 0
    return secret.pmf.lo, secret.pmf.hi


def _users(rest, *, name: str = "rest") -> list[User]:
    """``rest`` as a list of :class:`User`; a pmf in place of a user is named, with the way to wrap it."""
    if isinstance(rest, (str, bytes, Mapping, User, LatticePMF)) or not isinstance(rest, Iterable):
        raise ArgumentTypeError(f"{name} = {rest!r}: must be a list of User, not {type(rest).__name__}")
    users = list(rest)
    for k, user in enumerate(users):
        if not isinstance(user, User):
            hint = "wrap it: User(pmf)" if isinstance(user, LatticePMF) else ""
            instance(user, User, name=f"{name}[{k}]", hint=hint)
    return users


def query_prior(secret: Secret, rest: Sequence[User] | LatticePMF, *, method: str = "auto") -> QueryPrior:
    r"""The prior of X = f(D) given ``secret`` of user i, the other users being ``rest``.

    ``rest`` is the list of the other users, or the law of their sum f(D_-i) when it is
    already known (then the presence weight is 1).

    Parameters
    ----------
    secret : pufferfish.lattice.system.Secret
        The secret of user :math:`i`.
    rest : sequence of pufferfish.lattice.system.User or pufferfish.lattice.pmf.LatticePMF
        The other users, or the law of their sum.
    method : str
        One of ``"auto"``, ``"direct"``, ``"fft"``, ``"tilted"``
        (:func:`pufferfish.lattice.sums.sum_of_users`).

    Returns
    -------
    QueryPrior
        The prior of the query given the secret, with its presence weight.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        A bad secret, user list or method (naming it).
    """
    _check_secret(secret, name="secret")
    choice(method, ("auto", "direct", "fft", "tilted"), name="method")
    if isinstance(rest, LatticePMF):
        rest_sum, weight = rest, 1.0
    else:
        users = _users(rest)
        rest_sum = sum_of_users([u.pmf for u in users], method=method)
        weight = math.prod(u.presence for u in users)
    return QueryPrior(sum_of_users([rest_sum, _user_part(secret)], method=method), weight)


@dataclass(frozen=True, eq=False)
class SecretPair:
    """A discriminative pair (s_i, s_j) of user i, with f(D_-i) ~ ``rest_sum``.

    ``prior_i`` and ``prior_j`` are the two normalized query priors P_{X|S}(.|s_i), P_{X|S}(.|s_j).
    The two secrets must differ, and the two priors together may span at most
    :data:`~pufferfish.lattice.pmf.MAX_LATTICE_POINTS` lattice points (checked here, before
    either prior is computed).
    """

    first: Secret
    second: Secret
    rest_sum: LatticePMF
    weight: float = 1.0

    def __post_init__(self):
        _check_secret(self.first, name="first")
        _check_secret(self.second, name="second")
        instance(self.rest_sum, LatticePMF, name="rest_sum")
        object.__setattr__(self, "weight", real(self.weight, name="weight", lo=0.0, hi=1.0))
        if self.first == self.second:
            raise InvalidArgumentError(f"second = {self.second!r}: the same secret as first (a discriminative "
                                       "pair needs two different secrets)")
        (a_lo, a_hi), (b_lo, b_hi) = _part_hull(self.first), _part_hull(self.second)
        lo, hi = self.rest_sum.lo + min(a_lo, b_lo), self.rest_sum.hi + max(a_hi, b_hi)
        check_lattice_size(hi - lo + 1, name="secret pair", what=f"the two query priors span {lo} to {hi}")

    @classmethod
    def of(cls, first: Secret, second: Secret, rest: Sequence[User], *, method: str = "auto") -> "SecretPair":
        """The pair (``first``, ``second``) of user i, the other users being ``rest`` (a list of :class:`User`)."""
        _check_secret(first, name="first")
        _check_secret(second, name="second")
        users = _users(rest)
        rest_sum = sum_of_users([u.pmf for u in users], method=method)
        return cls(first, second, rest_sum, math.prod(u.presence for u in users))

    @cached_property
    def prior_i(self) -> LatticePMF:
        return query_prior(self.first, self.rest_sum).pmf

    @cached_property
    def prior_j(self) -> LatticePMF:
        return query_prior(self.second, self.rest_sum).pmf

    def kinds(self) -> tuple[str, str]:
        return (type(self.first).__name__, type(self.second).__name__)

"""DistP and XDistP of a finite channel for one pair of input laws (paper 003, Def. 11, 12, 16, 17).

A local mechanism A on a finite domain X is a channel (row x: the law of A(x)); an input law
lambda gives the output law lambda A (:func:`pufferfish.mechanisms.output_law`). For a pair
(lambda0, lambda1):

* (eps, delta)-DistP (Def. 11) holds iff delta >= max of the two hockey sticks of
  (lambda0 A, lambda1 A) at eps (:func:`~pufferfish.distp.divergences.distp_delta`); pure
  DistP (delta = 0) iff eps >= max_y |log lambda0 A(y) / lambda1 A(y)|;
* (eps, d)-XDistP (Def. 12) with the utility distance d = W_inf on the lifted relation holds
  for the pair iff eps W_inf(lambda0, lambda1) >= that pure eps: the pair's XDistP constant is
  the pure eps over W_inf;
* D-DistP (Def. 16, 17): any divergence of Table I of the two output laws.

W_inf and W_1 of the input laws are those of the metric |x - x'| on an integer domain,
computed by :mod:`pufferfish.lattice.distances` (the monotone coupling, optimal for both in
one dimension). Derivations: ``docs/math/paper003-distribution.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.certified import upper
from pufferfish.checks import instance, integer
from pufferfish.distp.divergences import check_channel, check_law, distp_delta, f_divergence, pure_epsilon
from pufferfish.errors import InvalidArgumentError
from pufferfish.lattice.distances import wasserstein_inf, wasserstein_p
from pufferfish.lattice.pmf import LatticePMF, check_lattice_size

__all__ = ["check_domain", "lattice_law", "transport_distances", "PairPrivacy", "pair_privacy"]


def check_domain(domain) -> tuple[int, ...]:
    """An ordered integer domain: at least 2 strictly increasing integers (the inputs, in order).

    Parameters
    ----------
    domain : sequence of int
        The values x of the domain.

    Returns
    -------
    tuple of int

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        Not such a sequence, or a hull wider than ``MAX_LATTICE_POINTS``.
    """
    instance(domain, (list, tuple, np.ndarray), name="domain")
    values = tuple(integer(v, name=f"domain[{k}]") for k, v in enumerate(domain))
    if len(values) < 2 or any(b <= a for a, b in zip(values, values[1:])):
        raise InvalidArgumentError(f"domain = {values!r}: must be at least 2 strictly increasing integers")
    check_lattice_size(values[-1] - values[0] + 1, name="domain", what=f"values from {values[0]} to {values[-1]}")
    return values


def lattice_law(domain: tuple[int, ...], pmf, *, name: str = "pmf") -> LatticePMF:
    """The pmf on a checked domain's values as a :class:`~pufferfish.lattice.LatticePMF` (zeros between them)."""
    masses = check_law(pmf, name=name, size=len(domain))
    dense = np.zeros(domain[-1] - domain[0] + 1)
    dense[np.asarray(domain) - domain[0]] = masses
    return LatticePMF(domain[0], dense)


def transport_distances(domain, lambda0, lambda1) -> tuple[float, float]:
    """W_inf and W_1 of (lambda0, lambda1) on an integer domain with the metric |x - x'|.

    Parameters
    ----------
    domain : sequence of int
        The ordered domain (:func:`check_domain`).
    lambda0, lambda1 : array_like
        Two pmfs on it, one mass per value in its order.

    Returns
    -------
    tuple of float
        (W_inf, W_1): the largest move of the monotone coupling, and its mean move.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        A bad domain or laws.
    """
    values = check_domain(domain)
    p, q = lattice_law(values, lambda0, name="lambda0"), lattice_law(values, lambda1, name="lambda1")
    return float(wasserstein_inf(p, q)), float(wasserstein_p(p, q, 1))


@dataclass(frozen=True, eq=False)
class PairPrivacy:
    """The output laws of a pair through a channel, their pure eps, and W_inf, W_1 of the inputs.

    ``w_inf``/``w_1`` are NaN without a domain (a categorical column). :meth:`delta` and
    :meth:`divergence` compute the DistP delta and the divergences of Table I on demand.
    """

    output0: np.ndarray
    output1: np.ndarray
    pure_epsilon: float
    w_inf: float
    w_1: float

    def delta(self, *, epsilon) -> float:
        """The DistP delta(eps): the larger hockey stick of the two output laws (see :func:`distp_delta`)."""
        return distp_delta(self.output0, self.output1, epsilon=epsilon)

    def divergence(self, name: str) -> float:
        """D_f(lambda0 A || lambda1 A) for a divergence of Table I (see :func:`f_divergence`)."""
        return f_divergence(self.output0, self.output1, name)

    @property
    def xdistp_epsilon(self) -> float:
        """pure eps / W_inf: the smallest eps of (eps, W_inf)-XDistP for the pair, rounded up (0 for equal laws; NaN
        without W_inf)."""
        if math.isnan(self.w_inf):
            return math.nan
        if self.w_inf == 0:
            return 0.0 if self.pure_epsilon == 0 else math.inf
        return upper(self.pure_epsilon / self.w_inf, rel_error=2.0 ** -53)   # the quotient's rounding, upward


def pair_privacy(channel, lambda0, lambda1, *, domain=None) -> PairPrivacy:
    """DistP of a finite channel for the pair (lambda0, lambda1): output laws, pure eps, W_inf and W_1.

    Parameters
    ----------
    channel : array_like
        The mechanism A, a row-stochastic matrix (inputs x outputs).
    lambda0, lambda1 : array_like
        The two input laws, one mass per input (row).
    domain : sequence of int, optional
        The inputs' values (ordered integers), for W_inf and W_1; none for a categorical domain.

    Returns
    -------
    PairPrivacy

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        A bad channel, laws that do not fit it, or a domain of another length.
    """
    matrix = check_channel(channel)
    p0 = check_law(lambda0, name="lambda0", size=matrix.shape[0])
    p1 = check_law(lambda1, name="lambda1", size=matrix.shape[0])
    out0, out1 = p0 @ matrix, p1 @ matrix
    w_inf = w_1 = math.nan
    if domain is not None:
        values = check_domain(domain)
        if len(values) != matrix.shape[0]:
            raise InvalidArgumentError(f"domain: {len(values)} values for {matrix.shape[0]} inputs of the channel")
        w_inf, w_1 = transport_distances(values, p0, p1)
    return PairPrivacy(out0, out1, pure_epsilon(out0, out1), w_inf, w_1)

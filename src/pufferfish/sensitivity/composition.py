"""Parallel composition of Renyi pufferfish privacy over independent parts of the data.

Paper 002 (Pierquin et al., ICML 2024), Proposition E.1 (Appendix E.1). The dataset is
split into parts X = (X_1, ..., X_K) that the adversary's priors make independent; every
secret concerns one part only and is independent of the other parts (the pairs of secrets
are of the form (s_i^k, s_j^k) within one part k). Mechanisms M_k acting on part k alone,
each (alpha, eps_k)-RPP for its part, released together, are (alpha, max_k eps_k)-RPP.

Proof. For a pair of secrets of part k, the outputs of the other parts have the same law
under both secrets and are independent of M_k's output (the parts are independent and
each mechanism uses fresh randomness), so the joint output law is P_k x R under s_i and
Q_k x R under s_j with the same R. The Renyi divergence is additive over products and
D_alpha(R || R) = 0: D_alpha(P_k x R || Q_k x R) = D_alpha(P_k || Q_k) <= eps_k <= max eps.
(Without the separation of the secrets this fails: a secret that moves two parts adds
their divergences, which is sequential composition.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pufferfish.checks import is_real, real
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["RenyiGuarantee", "parallel_composition"]


@dataclass(frozen=True)
class RenyiGuarantee:
    """(alpha, epsilon)-RPP: D_alpha(P_Y|s_i || P_Y|s_j) <= epsilon for every secret pair, both orders."""

    alpha: float
    epsilon: float


def parallel_composition(epsilons: Sequence, *, alpha) -> RenyiGuarantee:
    r""":math:`(\alpha, \max_k \epsilon_k)`-RPP of mechanisms on independent parts with separable secrets (paper 002, Prop. E.1).

    Parameters
    ----------
    epsilons : sequence of float
        :math:`\epsilon_k \ge 0` of each part's mechanism (at least one), each finite.
    alpha : float
        The common Renyi order :math:`\alpha > 1` (``inf`` allowed: pure :math:`\epsilon`-PP).

    Returns
    -------
    RenyiGuarantee
        The order and :math:`\max_k \epsilon_k`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        No epsilon, one negative or not finite, :math:`\alpha \le 1`.
    """
    if isinstance(epsilons, (str, bytes)) or not isinstance(epsilons, Sequence):
        raise ArgumentTypeError(f"epsilons = {epsilons!r:.60}: must be a sequence of numbers (one per part)")
    if not epsilons:
        raise InvalidArgumentError("epsilons = []: at least one part is needed")
    eps = [real(e, name=f"epsilons[{k}]", lo=0.0) for k, e in enumerate(epsilons)]
    a = math.inf if is_real(alpha) and float(alpha) == math.inf else real(alpha, name="alpha", lo=1.0, lo_open=True)
    return RenyiGuarantee(alpha=a, epsilon=max(eps))

"""The claims of paper 003's introduction, each computed beside the exact value of the pair.

* :func:`xdp_claim` -- an eps_A d-XDP mechanism gives pure DistP eps <= eps_A W_inf(lambda0, lambda1);
* :func:`dp_claim` -- an (eps_A, 0)-DP mechanism gives (eps_A, 0)-DistP for every pair;
* :func:`divergence_claim` -- an eps_f d-D_f-private mechanism (D_f(A(x) || A(x')) <= eps_f |x - x'|)
  gives D_f(lambda0 A || lambda1 A) <= eps_f W_1(lambda0, lambda1) (the paper states it for KL;
  the proof, joint convexity over the W_1-optimal coupling, holds for every f-divergence of
  Table I), with the coupling's own bound sum_(x, x') gamma(x, x') D_f(A(x) || A(x')) between.

The constant of each premise is the channel's own (the smallest that holds), so the premise
holds by construction. A bound below the exact value beyond rounding would be a defect of the
claim (or of this code): :attr:`Claim.holds` is False and the note says so. Proofs:
``docs/math/paper003-distribution.md`` (section "The claims").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pufferfish.checks import choice, instance, is_real, real
from pufferfish.errors import InvalidArgumentError
from pufferfish.distp.divergences import F_DIVERGENCES, check_channel, f_divergence
from pufferfish.distp.pair import check_domain, lattice_law, pair_privacy
from pufferfish.lattice.transport import kantorovich_plan
from pufferfish.mechanisms.channel import channel_epsilons

__all__ = ["CLAIM_RTOL", "Claim", "make_claim", "xdp_claim", "dp_claim", "divergence_claim"]

#: the exact value may exceed the bound by this relative amount (rounding) before the claim counts as failed
CLAIM_RTOL = 1e-9


@dataclass(frozen=True)
class Claim:
    """One claim on one pair: ``exact`` <= ``bound`` = ``constant`` x ``distance`` (``coupling`` between, if known)."""

    name: str
    exact: float
    bound: float
    constant: float
    distance: float
    coupling: float
    holds: bool
    note: str


def _nonneg_or_inf(value, *, name: str) -> float:
    if is_real(value) and float(value) == math.inf:
        return math.inf
    return real(value, name=name, lo=0.0)


def _below(a: float, b: float) -> bool:
    """a <= b up to rounding (CLAIM_RTOL relative)."""
    return a <= b * (1.0 + CLAIM_RTOL) + 1e-300 or math.isinf(b)


def make_claim(name: str, exact: float, constant: float, distance: float, coupling: float = math.nan) -> Claim:
    """The claim exact <= (coupling <=) constant x distance, checked to ``CLAIM_RTOL``; flagged as a defect if not.

    Parameters
    ----------
    name : str
        The claim's name (a column value).
    exact : float
        The exact value of the pair.
    constant, distance : float
        The bound is their product (0 when the distance is 0: equal input laws).
    coupling : float
        The intermediate bound of the proof, NaN if none.

    Returns
    -------
    Claim

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A name that is not a non-empty string, or values that are not reals >= 0 (inf allowed; the
        coupling NaN or that).
    """
    if not instance(name, str, name="name"):
        raise InvalidArgumentError("name = '': must be a non-empty string")
    exact, constant, distance = (_nonneg_or_inf(v, name=k) for k, v in
                                 (("exact", exact), ("constant", constant), ("distance", distance)))
    coupling = coupling if is_real(coupling) and math.isnan(coupling) else _nonneg_or_inf(coupling, name="coupling")
    bound = constant * distance if distance > 0 else 0.0
    chain = (exact, bound) if math.isnan(coupling) else (exact, coupling, bound)
    holds = all(_below(a, b) for a, b in zip(chain, chain[1:]))
    note = "holds" if holds else f"DEFECT: a bound is below the value it bounds ({' <= '.join(map(repr, chain))} fails)"
    if holds and math.isfinite(bound) and exact >= bound * (1.0 - CLAIM_RTOL):
        note = "holds with equality"
    return Claim(name, exact, bound, constant, distance, coupling, holds, note)


def _log_channel(matrix: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(matrix)


def _gaps(domain: tuple[int, ...]) -> np.ndarray:
    x = np.asarray(domain, dtype=float)
    return np.abs(x[:, None] - x[None, :])


def xdp_claim(channel, domain, lambda0, lambda1) -> Claim:
    """Pure DistP eps of the pair <= eps_A W_inf, eps_A = max_{x != x'} eps(x, x') / |x - x'| of the channel.

    Parameters
    ----------
    channel : array_like
        A row-stochastic matrix (inputs x outputs), e.g. the clamped geometric mechanism.
    domain : sequence of int
        The inputs' values (ordered integers).
    lambda0, lambda1 : array_like
        The two input laws.

    Returns
    -------
    Claim
        ``constant`` eps_A (the channel's smallest XDP constant), ``distance`` W_inf.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Bad arguments.
    """
    matrix = check_channel(channel)
    values = check_domain(domain)
    pair = pair_privacy(matrix, lambda0, lambda1, domain=values)
    gaps = _gaps(values)
    off = gaps > 0
    constant = float(np.max(channel_epsilons(_log_channel(matrix))[off] / gaps[off]))
    return make_claim("xdp_pure_epsilon", pair.pure_epsilon, constant, pair.w_inf)


def dp_claim(channel, lambda0, lambda1) -> Claim:
    """Pure DistP eps of the pair <= eps_A, the channel's eps of (eps_A, 0)-DP (max over pairs of inputs).

    Parameters
    ----------
    channel : array_like
        A row-stochastic matrix (inputs x outputs).
    lambda0, lambda1 : array_like
        The two input laws.

    Returns
    -------
    Claim
        ``constant`` eps_A, ``distance`` 1.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Bad arguments.
    """
    matrix = check_channel(channel)
    pair = pair_privacy(matrix, lambda0, lambda1)
    constant = float(np.max(channel_epsilons(_log_channel(matrix))))
    return make_claim("dp_pure_epsilon", pair.pure_epsilon, constant, 1.0)


def divergence_claim(channel, domain, lambda0, lambda1, name: str = "kl") -> Claim:
    """D_f(lambda0 A || lambda1 A) <= sum gamma D_f(A(x) || A(x')) <= eps_f W_1 (gamma the monotone coupling).

    Parameters
    ----------
    channel : array_like
        A row-stochastic matrix (inputs x outputs).
    domain : sequence of int
        The inputs' values (ordered integers).
    lambda0, lambda1 : array_like
        The two input laws.
    name : str
        A divergence of Table I (:data:`~pufferfish.distp.divergences.F_DIVERGENCES`), default KL.

    Returns
    -------
    Claim
        ``constant`` eps_f = max_{x != x'} D_f(A(x) || A(x')) / |x - x'|, ``distance`` W_1,
        ``coupling`` the middle term.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        Bad arguments.
    """
    kind = choice(name, F_DIVERGENCES, name="name")
    rows = check_channel(channel)
    values = check_domain(domain)
    pair = pair_privacy(rows, lambda0, lambda1, domain=values)
    size = len(values)
    table = np.array([[f_divergence(rows[i], rows[j], kind) for j in range(size)] for i in range(size)])
    gaps = _gaps(values)
    off = gaps > 0
    constant = float(np.max(table[off] / gaps[off]))
    plan = kantorovich_plan(lattice_law(values, lambda0, name="lambda0"), lattice_law(values, lambda1, name="lambda1"))
    where = {v: k for k, v in enumerate(values)}
    coupling = math.fsum(float(m) * table[where[int(a)], where[int(b)]]
                         for a, b, m in zip(plan.x, plan.x_prime, plan.mass) if m > 0)
    return make_claim(f"divergence_{kind}", pair.divergence(kind), constant, pair.w_1, coupling)

"""Noise scales from a closed-form sensitivity, through the project's existing GWM calibrations.

A closed form of this package gives a number, the GWM sensitivity W_inf (and W_2, which
it also bounds); the scale is then the one paper 002's Wasserstein mechanisms give for that
number, computed by the same one-shift mechanisms the registry's methods
(:mod:`pufferfish.wasserstein.methods`) call on the W_inf / W_2 of two lattice priors
(:mod:`pufferfish.mechanisms`): nothing is re-derived here. The closed forms are
not registry methods themselves: a registry method calibrates a :class:`SecretPair` of
lattice priors, while a closed form takes a covariance or a diffusion's constants, so it
is a way of obtaining the sensitivity that any of these methods then uses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pufferfish.checks import choice, real
from pufferfish.errors import InvalidArgumentError, NotApplicableError
from pufferfish.grids import check_epsilons
from pufferfish.mechanisms.cauchy import cauchy_renyi2_scale
from pufferfish.mechanisms.gaussian import analytic_gaussian_sigma
from pufferfish.mechanisms.laplace import laplace_scale
from pufferfish.wasserstein.methods import CAUCHY_ALPHA

__all__ = ["GWM_METHODS", "ScaleMethod", "scales_from_sensitivity"]


@dataclass(frozen=True)
class ScaleMethod:
    """One registry method driven by a sensitivity: its ``name`` (a :mod:`pufferfish.registry` record),
    and which distance it reads (``"w_inf"`` or ``"w_2"``)."""

    name: str
    distance: str


#: the registry methods fed by a closed form: GWM Laplace (eps-PP), analytic GWM Gaussian
#: ((eps, delta)-PP) from W_inf, DAGWM Cauchy ((2, eps)-RPP) from W_2
GWM_METHODS = (ScaleMethod("gwm_laplace", "w_inf"), ScaleMethod("gwm_gaussian_analytic", "w_inf"),
               ScaleMethod("dagwm_cauchy", "w_2"))


def scales_from_sensitivity(method: str, *, w_inf, w_2, epsilons, delta=None, alpha=None) -> np.ndarray:
    r"""The scale of registry method ``method`` for the sensitivities ``w_inf`` / ``w_2``, for every epsilon.

    ``gwm_laplace``: :math:`b = W_\infty / \epsilon` (paper 002, Cor. 3.1); ``gwm_gaussian_analytic``: the
    Balle-Wang :math:`\sigma` of one shift :math:`W_\infty` at ``delta``; ``dagwm_cauchy``:
    :math:`\gamma = W_2 / \sqrt{2 (e^\epsilon - 1)}` at :math:`\alpha = 2` (Cor. 4.1).

    Parameters
    ----------
    method : str
        One of :data:`GWM_METHODS`.
    w_inf, w_2 : float
        The sensitivities :math:`W_\infty, W_2 \ge 0`.
    epsilons : float or array_like
        :math:`\epsilon > 0`, one or a grid.
    delta : float, optional
        :math:`\delta \in (0, 1)`, needed by ``gwm_gaussian_analytic``.
    alpha : float, optional
        The Renyi order, needed by ``dagwm_cauchy`` (2 only).

    Returns
    -------
    numpy.ndarray
        One scale per epsilon.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        An unknown method, a value out of range, a missing ``delta`` / ``alpha``.
    NotApplicableError
        ``dagwm_cauchy`` at an order other than 2.
    """
    choice(method, [m.name for m in GWM_METHODS], name="method")
    eps = check_epsilons(epsilons)
    w_inf = real(w_inf, name="w_inf", lo=0.0)
    w_2 = real(w_2, name="w_2", lo=0.0)
    d = None if delta is None else real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    a = None if alpha is None else real(alpha, name="alpha", lo=1.0, lo_open=True)
    if method == "gwm_laplace":
        return laplace_scale(w_inf, epsilons=eps)
    if method == "gwm_gaussian_analytic":
        if d is None:
            raise InvalidArgumentError("delta = None: gwm_gaussian_analytic needs a delta in (0, 1)")
        return np.array([analytic_gaussian_sigma(w_inf, epsilon=float(e), delta=d) for e in eps])
    if a is None:   # dagwm_cauchy
        raise InvalidArgumentError("alpha = None: dagwm_cauchy needs alpha = 2 (paper 002, Cor. 4.1)")
    if a != CAUCHY_ALPHA:
        raise NotApplicableError(f"dagwm_cauchy is stated for alpha = 2 (paper 002, Cor. 4.1), not alpha = {alpha!r}")
    return cauchy_renyi2_scale(w_2, epsilons=eps)

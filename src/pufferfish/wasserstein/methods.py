"""The Wasserstein-mechanism family of paper 002 on lattice priors, and its registry records.

Paper 002 is C. Pierquin, A. Bellet, M. Tommasi, M. Boussard, "Renyi Pufferfish Privacy"
(ICML 2024). It generalizes the Wasserstein mechanism of Song, Wang and Chaudhuri (SIGMOD
2017) to any additive noise and to Renyi pufferfish privacy (RPP: D_alpha(P_Y|s_i || P_Y|s_j)
<= epsilon for every secret pair, both orders). Every method here takes the two query priors
P = P_{X|S}(.|s_i), Q = P_{X|S}(.|s_j) of a secret pair and returns the noise scale for every
epsilon of a grid:

==========================  =========  ===================  ============================================
method                      noise      guarantee            scale
==========================  =========  ===================  ============================================
``gwm_laplace``             Laplace    epsilon-PP           b = W_inf / eps (Cor. 3.1; Song et al. 2017)
``gawm_laplace``            Laplace    (epsilon, delta)-PP  b = Delta_delta / eps (Thm 4.3, Def. 4.2)
``gwm_gaussian_rdp``        Gaussian   (epsilon, delta)-PP  (alpha, alpha W_inf^2 / 2 sigma^2)-RPP (Cor. 3.1),
                                                            converted (Mironov 2017, Prop. 3), best alpha
``gwm_gaussian_analytic``   Gaussian   (epsilon, delta)-PP  the exact curve of one shift W_inf (Balle and
                                                            Wang 2018, Thm 8)
``dagwm_cauchy``            Cauchy     (2, epsilon)-RPP     gamma = W_2 / sqrt(2 (e^eps - 1)) (Cor. 4.1)
==========================  =========  ===================  ============================================

Laplace(b) has density exp(-|z|/b) / (2b) (the theta of paper 000), Gaussian N(0, sigma^2),
Cauchy(0, gamma) density gamma / (pi (gamma^2 + z^2)).

One argument serves every mechanism (paper 002, proofs of Thm 3.3, Thm 4.3 and Thm 4.5).
Take a coupling pi of P and Q. Then P_Y = sum pi(x, x') N_x and Q_Y = sum pi(x, x') N_{x'},
N_x the noise law shifted by x: the two outputs are mixtures with the same weights. A
divergence that is jointly convex (the hockey-stick H_{e^eps}(A || B) = sup_S A(S) -
e^eps B(S), a sup of linear functionals; exp((alpha - 1) D_alpha), an integral of a
perspective function) is at most the pi-average of the divergences of the shifted noises,
each a function of the shift |x - x'| alone. The monotone (quantile) coupling is optimal
for W_p and W_inf on the line (:mod:`pufferfish.lattice.distances`).

Every scale is audited exactly by :func:`pufferfish.audit.lattice_auditor` in the workflow
(:mod:`pufferfish.multiuser.experiments`): no method's claim is trusted.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pufferfish.checks import instance, real
from pufferfish.errors import NotApplicableError
from pufferfish.grids import check_epsilons
from pufferfish.lattice.distances import wasserstein_inf, wasserstein_p
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.mechanisms.cauchy import cauchy_renyi2_scale
from pufferfish.mechanisms.gaussian import analytic_gaussian_sigma, gaussian_rdp_sigma
from pufferfish.mechanisms.laplace import laplace_scale
from pufferfish.registry import Method, register

__all__ = [
    "gwm_laplace", "gawm_laplace", "gwm_gaussian_rdp", "gwm_gaussian_analytic", "dagwm_cauchy",
    "METHODS", "CAUCHY_ALPHA",
]

#: the only Renyi order at which :func:`dagwm_cauchy` is stated (paper 002, Cor. 4.1 at alpha = 2)
CAUCHY_ALPHA = 2.0


# ------------------------------------------------------------------------------ checks
def _check_pmfs(p, q) -> None:
    instance(p, LatticePMF, name="p")
    instance(q, LatticePMF, name="q")


def _check_delta(delta) -> float:
    return real(delta, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def _check_alpha(alpha) -> float:
    return real(alpha, name="alpha", lo=1.0, lo_open=True)


# ------------------------------------------------------------------------------ Laplace
def gwm_laplace(p: LatticePMF, q: LatticePMF, *, epsilons) -> np.ndarray:
    """General Wasserstein mechanism with Laplace noise: b = W_inf(P, Q) / epsilon gives epsilon-PP.

    Paper 002, Cor. 3.1 (Laplace, alpha = inf), which is the Wasserstein mechanism of Song et
    al. (2017). Proof: along a W_inf-optimal coupling every shift is at most W_inf, and
    Laplace(b) shifted by s has density ratio at most e^{s/b} <= e^eps everywhere; a ratio
    bound holding for every component of two mixtures with the same weights holds for the
    mixtures. On the lattice W_inf is the span of the monotone plan pi*, so this equals
    paper 000's ``kantorovich`` (eq. 5).
    """
    _check_pmfs(p, q)
    return laplace_scale(float(wasserstein_inf(p, q)), epsilons=epsilons)


def gawm_laplace(p: LatticePMF, q: LatticePMF, *, epsilons, delta) -> np.ndarray:
    """General approximate Wasserstein mechanism with Laplace noise: b = Delta_delta / epsilon
    gives (epsilon, delta)-PP.

    Paper 002, Thm 4.3 with Def. 4.2 (Delta-delta-proximity; "closeness" in Chen and
    Ohrimenko, AISTATS 2023, Thm C.2 of paper 002). Delta_delta is the smallest Delta such
    that some coupling pi puts mass >= 1 - delta on |x - x'| <= Delta
    (:func:`pufferfish.lattice.distances.delta_near`).

    Proof. Split pi into its near part (|x - x'| <= Delta_delta, mass >= 1 - delta) and the
    rest (mass <= delta). For any set S, P_Y(S) = sum pi(x, x') L_x(S), L_x = Laplace(b)
    shifted by x. On the near part L_x(S) <= e^{|x - x'|/b} L_{x'}(S) <= e^eps L_{x'}(S); off
    it, L_x(S) <= 1: the coupling loses at most delta there. So P_Y(S) <= e^eps Q_Y(S) +
    delta, and the same in the other direction. With Delta_delta = 0 (the near part is the
    diagonal) no noise is needed: b = 0.
    """
    from pufferfish.lattice.distances import delta_near

    _check_pmfs(p, q)
    return laplace_scale(delta_near(p, q, _check_delta(delta)), epsilons=epsilons)


# ------------------------------------------------------------------------------ Gaussian via RDP
def gwm_gaussian_rdp(p: LatticePMF, q: LatticePMF, *, epsilons, delta) -> np.ndarray:
    """General Wasserstein mechanism with Gaussian noise, through RPP: (epsilon, delta)-PP.

    Paper 002, Cor. 3.1: N(0, sigma^2) is (alpha, alpha W_inf^2 / (2 sigma^2))-RPP for every
    alpha > 1 (along the W_inf coupling each shift is at most W_inf, D_alpha of two Gaussians
    shifted by s is alpha s^2 / (2 sigma^2), and exp((alpha - 1) D_alpha) is jointly convex).
    Converted to (eps_alpha + log(1/delta) / (alpha - 1), delta)-PP (Mironov 2017, Prop. 3)
    and minimised over alpha > 1 in closed form
    (:func:`pufferfish.mechanisms.gaussian.gaussian_rdp_sigma`; the order used is
    :func:`pufferfish.mechanisms.gaussian.gaussian_rdp_alpha`). sigma = 0 when P = Q (W_inf = 0).
    """
    _check_pmfs(p, q)
    delta = _check_delta(delta)
    w = float(wasserstein_inf(p, q))
    return np.array([gaussian_rdp_sigma(w, epsilon=float(e), delta=delta) for e in check_epsilons(epsilons)])


# ------------------------------------------------------------------------------ Gaussian, analytic
def gwm_gaussian_analytic(p: LatticePMF, q: LatticePMF, *, epsilons, delta) -> np.ndarray:
    """Gaussian noise for (epsilon, delta)-PP from the exact (epsilon, delta) curve of one shift W_inf.

    sigma solves Phi(W/(2 sigma) - eps sigma/W) - e^eps Phi(-W/(2 sigma) - eps sigma/W) = delta,
    W = W_inf(P, Q) (Balle and Wang 2018, the analytic Gaussian mechanism;
    :func:`pufferfish.mechanisms.gaussian.analytic_gaussian_sigma`). Valid for pufferfish
    because the hockey-stick divergence is jointly convex: along the W_inf coupling,
    H_{e^eps}(P_Y || Q_Y) <= sum pi(x, x') H_{e^eps}(N_x || N_{x'}) <= the delta of one shift
    of size W_inf (the delta of a Gaussian shift grows with its size). sigma = 0 when P = Q.
    """
    _check_pmfs(p, q)
    delta = _check_delta(delta)
    w = float(wasserstein_inf(p, q))
    return np.array([analytic_gaussian_sigma(w, epsilon=float(e), delta=delta) for e in check_epsilons(epsilons)])


# ------------------------------------------------------------------------------ Cauchy
def dagwm_cauchy(p: LatticePMF, q: LatticePMF, *, epsilons, alpha=CAUCHY_ALPHA) -> np.ndarray:
    """Distribution-aware GWM with Cauchy noise: gamma = W_2 / sqrt(2 (e^eps - 1)) gives (2, epsilon)-RPP.

    Paper 002, Cor. 4.1 (Cauchy mechanism) at alpha = 2, via Thm 4.5 (DAGWM). For Cauchy(0,
    gamma) shifted by s, exp(D_2) = int f(z - s)^2 / f(z) dz = 1 + s^2 / (2 gamma^2) (the
    chi-square divergence of a Cauchy shift plus 1), linear in s^2. exp((alpha - 1) D_alpha)
    is jointly convex, so along the W_2-optimal coupling pi, exp(D_2(P_Y || Q_Y)) <= sum
    pi(x, x') (1 + (x - x')^2 / (2 gamma^2)) = 1 + W_2^2 / (2 gamma^2) <= e^eps for the gamma
    above (and the same with P and Q swapped). Stated here for alpha = 2 only: another
    ``alpha`` is refused (the registry record says so before any work). gamma = 0 when P = Q.
    """
    _check_pmfs(p, q)
    if _check_alpha(alpha) != CAUCHY_ALPHA:
        raise NotApplicableError(f"dagwm_cauchy is stated for alpha = 2 (paper 002, Cor. 4.1 at alpha = 2), "
                                 f"not alpha = {alpha!r}")
    return cauchy_renyi2_scale(float(wasserstein_p(p, q, 2)), epsilons=epsilons)


def _cauchy_alpha_refused(params: Mapping) -> str:
    alpha = params.get("alpha")
    if alpha is None:
        return ""
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        return f"needs a number alpha, not {alpha!r}"
    if value != CAUCHY_ALPHA:
        return f"is stated for alpha = 2 (paper 002, Cor. 4.1 at alpha = 2), not alpha = {alpha!r}"
    return ""


# ------------------------------------------------------------------------------ registry
_PAPER = "Pierquin, Bellet, Tommasi, Boussard, Renyi Pufferfish Privacy, ICML 2024 (paper 002)"


def _on_priors(function, *keys):
    """apply(pair, epsilons, **params) of a method that reads the two query priors and ``keys`` of params."""
    def apply(pair, epsilons, **params):
        return function(pair.prior_i, pair.prior_j, epsilons=epsilons, **{k: params[k] for k in keys})
    apply.__name__ = apply.__qualname__ = function.__name__
    apply.__doc__ = function.__doc__
    return apply


#: paper 002's methods in the registry (:mod:`pufferfish.registry`)
METHODS = register(
    Method("gwm_laplace", _on_priors(gwm_laplace), pairs=None, noise="laplace", guarantee="epsilon",
           label="GWM Laplace, ε-PP: b = W∞ / ε",
           citation=f"{_PAPER}, Cor. 3.1 (Song, Wang, Chaudhuri 2017)"),
    Method("gawm_laplace", _on_priors(gawm_laplace, "delta"), pairs=None, noise="laplace",
           guarantee="epsilon_delta", needs=("delta",),
           label="GAWM Laplace, (ε, δ)-PP: b = Δ_δ / ε",
           citation=f"{_PAPER}, Thm 4.3 and Def. 4.2 (Chen and Ohrimenko 2023)"),
    Method("gwm_gaussian_rdp", _on_priors(gwm_gaussian_rdp, "delta"), pairs=None, noise="gaussian",
           guarantee="epsilon_delta", needs=("delta",),
           label="GWM Gaussian via RPP, (ε, δ)-PP, best α",
           citation=f"{_PAPER}, Cor. 3.1; Mironov 2017, Prop. 3"),
    Method("gwm_gaussian_analytic", _on_priors(gwm_gaussian_analytic, "delta"), pairs=None, noise="gaussian",
           guarantee="epsilon_delta", needs=("delta",),
           label="GWM analytic Gaussian, (ε, δ)-PP (Balle-Wang)",
           citation=f"{_PAPER}, Cor. 3.1 with Balle and Wang 2018, Thm 8"),
    Method("dagwm_cauchy", _on_priors(dagwm_cauchy, "alpha"), pairs=None, noise="cauchy", guarantee="renyi",
           needs=("alpha",), refuses=_cauchy_alpha_refused,
           label="DAGWM Cauchy, (2, ε)-RPP: γ = W₂ / √(2 (exp ε − 1))",
           citation=f"{_PAPER}, Cor. 4.1 at alpha = 2 (Thm 4.5)"),
)

"""The exact computations of the package and the regions of their inputs, for the fault-injection check.

Each :class:`Computation` names the function that computes one exact number, at the level
every route to that number goes through (a private core when the public function and the
auditor both call it), and the regions of its accepted inputs: a :class:`Region` is a name
and a predicate on the call's arguments by name (defaults applied; ``self`` for a method).
The regions along a computation's scale (or its main argument) cut the whole range at the
code's own thresholds, so that every path is one region; the extremes of the other
arguments (epsilon near 0 and large, alpha near 1 and large, T = 1 and huge, eta tiny and
1, rho near 1) are regions of their own. ``fields`` names the fields of a dataclass result
that the fault multiplies (the computed numbers, not the echoed inputs).

A new exact computation is one entry of :data:`CATALOG` (here, or in :mod:`tests.faults.catalog_certified` for
the computations added since issue 35: paper 003's, the certified ones). ``tests/unit/test_fault_catalog.py``
holds the catalog to every public function of the package that returns a privacy value (the rule and the
tables of routes and reasoned exclusions: :mod:`tests.faults.coverage`). A region removed from the list (an
input the function refuses, or one no public route gives it) goes to :data:`REMOVED` with the reason.
"""
from __future__ import annotations

import math

import numpy as np


from tests.faults.regions import (Computation, Region, above, alpha_regions, at_most, bands,  # noqa: F401
                                 eps_regions)


# ------------------------------------------------------------------------------ what the predicates read
def _hull(a: dict) -> int:
    """The number of lattice points of a lattice auditor's pair (``self`` or ``pair``)."""
    owner = a.get("self") or a.get("pair")
    return int(owner.logp.shape[1])


def _atoms_hull(a: dict) -> float:
    """The width of the hull of a PairAtoms ``at``."""
    x = a["at"].x
    return float(x[-1] - x[0])


def _one_support(a: dict) -> bool:
    at = a["at"]
    return bool(np.array_equal(at.pa > 0, at.pb > 0))


def _mixture_spread(a: dict) -> float:
    """The smallest positive component std of the two mixtures (inf when both are point masses)."""
    stds = np.concatenate([np.atleast_1d(_gmm(a["prior_i"]).stds), np.atleast_1d(_gmm(a["prior_j"]).stds)])
    positive = stds[stds > 0]
    return float(positive.min()) if positive.size else math.inf


def _gmm(prior):
    from pufferfish.audit.emg_density import as_prior

    return as_prior(prior)


def _has_point_mass(a: dict) -> bool:
    return bool(np.any(_gmm(a["prior_i"]).stds == 0) or np.any(_gmm(a["prior_j"]).stds == 0))


def _size(a: dict) -> int:
    return int(a["covariance"].size)


def _correlation(cov) -> float:
    """The largest correlation between two records of a covariance of :mod:`pufferfish.iteration.covariance`."""
    if hasattr(cov, "rho"):
        return float(cov.rho) if cov.size > 1 else 0.0
    if hasattr(cov, "autocovariance"):
        g = np.asarray(cov.autocovariance)
        return float(np.max(np.abs(g[1:])) / g[0]) if g.size > 1 else 0.0
    m = np.asarray(cov.matrix)
    d = np.sqrt(np.diag(m))
    c = np.abs(m / np.outer(d, d))
    np.fill_diagonal(c, 0.0)
    return float(c.max())


def _shifts_size(a: dict) -> int:
    return int(np.size(a.get("shifts", a.get("s"))))


def _iteration_regions() -> tuple[Region, ...]:
    return (Region("T = 1", lambda a: _size(a) == 1),
            Region("T >= 1e4", lambda a: _size(a) >= 10_000),
            at_most("eta", 1e-3, "eta"),
            Region("eta = 1", lambda a: a["eta"] == 1.0),
            Region("rho >= 0.999", lambda a: _correlation(a["covariance"]) >= 0.999),
            Region("typical (1 < T < 1e4, 1e-3 < eta < 1, rho < 0.999)",
                   lambda a: 1 < _size(a) < 10_000 and 1e-3 < a["eta"] < 1.0
                   and _correlation(a["covariance"]) < 0.999))


def _shift_regions() -> tuple[Region, ...]:
    return (Region("T = 1", lambda a: _shifts_size(a) == 1),
            Region("1 < T < 1e4", lambda a: 1 < _shifts_size(a) < 10_000),
            Region("T >= 1e4", lambda a: _shifts_size(a) >= 10_000))


def _mu(a: dict) -> float:
    return a["w"] / a["sigma"]


def _rr_eps(a: dict) -> float:
    return a["self"].epsilon


# ------------------------------------------------------------------------------ the catalog
_LAPLACE_THETA = [1.25e-3, 0.125, 100.0]
_SIGMA = [1e-3, 0.1, 10.0]

CATALOG: tuple[Computation, ...] = (
    # --- audits: Laplace noise on lattice priors (paper 000)
    Computation("audit/laplace_lattice.loss", "pufferfish.audit.laplace_lattice:_Auditor.loss",
                (*bands("theta", _LAPLACE_THETA),
                 Region("hull > 1e4 points", lambda a: _hull(a) > 10_000)),
                fields=("forward", "backward")),
    Computation("audit/laplace_lattice.hockey_stick", "pufferfish.audit.laplace_lattice:_Auditor.hockey",
                (*bands("theta", _LAPLACE_THETA), *eps_regions())),
    Computation("audit/laplace_lattice.mgf_tail_loss", "pufferfish.audit.laplace_lattice:mgf_tail_loss",
                bands("theta", [0.125, 100.0])),
    # --- audits: the noise-free limit (every lattice auditor's scale -> 0)
    Computation("audit/zero_noise.directions", "pufferfish.audit.zero_noise:zero_noise_directions",
                (Region("any", lambda a: True),)),
    Computation("audit/zero_noise.loss", "pufferfish.audit.zero_noise:zero_noise_loss",
                (Region("any", lambda a: True),)),
    Computation("audit/zero_noise.hockey_stick", "pufferfish.audit.zero_noise:zero_noise_hockey_stick",
                bands("epsilon", [0.01, 5.0])),
    Computation("audit/zero_noise.renyi", "pufferfish.audit.zero_noise:zero_noise_renyi",
                bands("alpha", [1.1, 20.0])),
    # --- audits: Gaussian noise on lattice priors (paper 002)
    Computation("audit/gaussian_lattice.hockey_stick", "pufferfish.audit.gaussian_lattice:_hockey_gauss",
                (*bands("sigma", _SIGMA), *eps_regions("eps"))),
    Computation("audit/gaussian_lattice.renyi", "pufferfish.audit.gaussian_lattice:_renyi_gauss",
                (*bands("sigma", _SIGMA), *alpha_regions(),
                 Region("one support", _one_support), Region("different supports", lambda a: not _one_support(a)))),
    # --- audits: Cauchy noise on lattice priors (paper 002)
    Computation("audit/cauchy_lattice.renyi", "pufferfish.audit.cauchy_lattice:_renyi_cauchy",
                (*bands("gamma", [1e-3, 0.1, 10.0]), *alpha_regions())),
    # --- audits: two-sided geometric noise on lattice priors
    Computation("audit/geometric_lattice.loss", "pufferfish.audit.geometric_lattice:_loss",
                (*bands("b", [0.05, 1.0, 100.0]), Region("hull > 1e4 points", lambda a: _hull(a) > 10_000))),
    Computation("audit/geometric_lattice.hockey_stick", "pufferfish.audit.geometric_lattice:_hockey",
                (*bands("b", [0.05, 1.0, 100.0]), *eps_regions("eps"))),
    Computation("audit/geometric_lattice.renyi", "pufferfish.audit.geometric_lattice:_renyi",
                (*bands("b", [0.05, 1.0, 100.0]), *alpha_regions())),
    # --- audits: Laplace noise on Gaussian-mixture priors (paper 004)
    Computation("audit/mixture_hockey_stick.hockey_stick", "pufferfish.audit.mixture_hockey_stick:hockey_stick",
                (*bands("b", [0.01, 100.0], "b / smallest std", lambda a: a["b"] / _mixture_spread(a)),
                 Region("point masses", _has_point_mass), *eps_regions()),
                fields=("forward", "backward")),
    Computation("audit/mixture_hockey_stick.prior_hockey_stick",
                "pufferfish.audit.mixture_hockey_stick:prior_hockey_stick",
                (Region("point masses", _has_point_mass), Region("Gaussians only", lambda a: not _has_point_mass(a)),
                 *eps_regions()),
                fields=("forward", "backward")),
    Computation("audit/mixture_privacy_loss.epsilon_achieved",
                "pufferfish.audit.mixture_privacy_loss:epsilon_achieved",
                (*bands("b", [0.01, 100.0], "b / smallest std", lambda a: a["b"] / _mixture_spread(a)),
                 Region("point masses", _has_point_mass), Region("window given", lambda a: a["window"] is not None))),
    Computation("audit/mixture_privacy_loss.prior_epsilon_achieved",
                "pufferfish.audit.mixture_privacy_loss:prior_epsilon_achieved",
                (Region("point masses", _has_point_mass), Region("Gaussians only", lambda a: not _has_point_mass(a)))),
    # --- mechanisms: closed forms of one shift
    Computation("mechanisms/gaussian.balle_wang_delta", "pufferfish.mechanisms.gaussian:_balle_wang_delta",
                (*bands("mu", [1e-3, 1.0, 30.0], "w / sigma", _mu), *eps_regions(small=1e-3, large=20.0),
                 Region("tail integral (delta < 1e-6 Phi(a))", lambda a: _bw_tail(a)))),
    Computation("mechanisms/gaussian.analytic_gaussian_sigma", "pufferfish.mechanisms.gaussian:_analytic_gaussian_sigma",
                (*bands("delta", [1e-12, 0.1]), *eps_regions(small=1e-3, large=20.0),
                 Region("w < 1e-100 or w > 1e100", lambda a: not 1e-100 <= a["w"] <= 1e100))),
    Computation("mechanisms/gaussian.gaussian_rdp_sigma", "pufferfish.mechanisms.gaussian:_gaussian_rdp_sigma",
                (*bands("delta", [1e-12, 0.1]), *eps_regions(small=1e-3, large=20.0))),
    Computation("mechanisms/gaussian.gaussian_rdp_sigma_at", "pufferfish.mechanisms.gaussian:gaussian_rdp_sigma_at",
                (*bands("epsilon", [1e-3, 20.0]),)),
    Computation("mechanisms/gaussian.gaussian_rdp_alpha", "pufferfish.mechanisms.gaussian:gaussian_rdp_alpha",
                (*bands("epsilon", [1e-3, 20.0]),)),
    Computation("mechanisms/laplace.laplace_delta", "pufferfish.mechanisms.laplace:laplace_delta",
                (*bands("shift / scale", [1e-3, 30.0], value=lambda a: a["shift"] / a["scale"]),
                 Region("epsilon within 1e-3 of shift / scale",
                        lambda a: 0 < a["shift"] / a["scale"] - a["epsilon"] <= 1e-3))),
    Computation("mechanisms/laplace.laplace_scale", "pufferfish.mechanisms.laplace:laplace_scale",
                (Region("any", lambda a: True),)),
    Computation("mechanisms/cauchy.cauchy_renyi2", "pufferfish.mechanisms.cauchy:_cauchy_renyi2",
                (*bands("shift / scale", [1e-8, 1e150], value=lambda a: a["shift"] / a["scale"]),
                 Region("shift or scale outside [1e-150, 1e150]",
                        lambda a: not (1e-150 <= a["shift"] <= 1e150 and 1e-150 <= a["scale"] <= 1e150)))),
    Computation("mechanisms/cauchy.cauchy_renyi2_scale", "pufferfish.mechanisms.cauchy:cauchy_renyi2_scale",
                (Region("epsilon <= 1e-3", lambda a: np.min(a["epsilons"]) <= 1e-3),
                 Region("epsilon > 20", lambda a: np.max(a["epsilons"]) > 20),
                 Region("any", lambda a: True))),
    Computation("mechanisms/randomized_response.matrix",
                "pufferfish.mechanisms.randomized_response:RandomizedResponse.matrix",
                bands("epsilon", [1e-3, 20.0], value=_rr_eps)),
    Computation("mechanisms/randomized_response.log_matrix",
                "pufferfish.mechanisms.randomized_response:RandomizedResponse.log_matrix",
                bands("epsilon", [1e-3, 20.0], value=_rr_eps)),
    Computation("mechanisms/geometric.pmf", "pufferfish.mechanisms.geometric:TwoSidedGeometric.pmf",
                bands("epsilon", [1e-3, 20.0], value=_rr_eps)),
    Computation("mechanisms/geometric.log_pmf", "pufferfish.mechanisms.geometric:TwoSidedGeometric.log_pmf",
                bands("epsilon", [1e-3, 20.0], value=_rr_eps)),
    Computation("mechanisms/geometric.sf", "pufferfish.mechanisms.geometric:TwoSidedGeometric.sf",
                bands("epsilon", [1e-3, 20.0], value=_rr_eps)),
    Computation("mechanisms/geometric.log_sf", "pufferfish.mechanisms.geometric:TwoSidedGeometric.log_sf",
                bands("epsilon", [1e-3, 20.0], value=_rr_eps)),
    Computation("mechanisms/geometric.clamped_log_matrix", "pufferfish.mechanisms.geometric:ClampedGeometric.log_matrix",
                bands("epsilon", [1e-3, 20.0], value=_rr_eps)),
    Computation("mechanisms/channel.channel_epsilons", "pufferfish.mechanisms.channel:_channel_epsilons",
                (Region("any", lambda a: True),)),
    # --- amplification by iteration: the exact audit and the accountants (paper 002, Sec. 5)
    Computation("iteration/exact.exact_audit", "pufferfish.iteration.exact:exact_audit",
                _iteration_regions(), fields=("mean_gap",)),
    Computation("iteration/exact.noise_gain", "pufferfish.iteration.geometric:noise_gain",
                (Region("T = 1", lambda a: a["size"] == 1), Region("T >= 1e4", lambda a: a["size"] >= 10_000),
                 at_most("eta", 1e-3), Region("eta = 1", lambda a: a["eta"] == 1.0),
                 Region("typical", lambda a: 1 < a["size"] < 10_000 and 1e-3 < a["eta"] < 1))),
    Computation("iteration/exact.ExactAudit.renyi", "pufferfish.iteration.exact:ExactAudit.renyi",
                bands("alpha", [1.1, 20.0])),
    Computation("iteration/exact.ExactAudit.epsilon", "pufferfish.iteration.exact:ExactAudit.epsilon",
                bands("delta", [1e-10, 0.1])),
    Computation("iteration/every_secret.all_secrets_audit", "pufferfish.iteration.every_secret:all_secrets_audit",
                _iteration_regions(), fields=("mean_gap",)),
    Computation("iteration/every_secret.hockey_stick", "pufferfish.iteration.every_secret:_hockey_stick",
                bands("epsilon", [1e-3, 5.0])),
    Computation("iteration/minorant.minimal_cost", "pufferfish.iteration.minorant:minimal_cost",
                (*_shift_regions(), Region("contraction < 1", lambda a: a["contraction"] < 1.0))),
    Computation("iteration/minorant.minimal_costs", "pufferfish.iteration.minorant:minimal_costs",
                (*_shift_regions(), Region("a contraction < 1", lambda a: min(a["contractions"]) < 1.0))),
    Computation("iteration/accountants.cost", "pufferfish.iteration.accountants:_cost",
                (Region("composition", lambda a: a["name"] == "composition"),
                 Region("dp_assumption", lambda a: a["name"] == "dp_assumption"),
                 Region("composition, T >= 1e4", lambda a: a["name"] == "composition" and a["s"].size >= 10_000))),
    Computation("iteration/accountants.renyi_bound", "pufferfish.iteration.accountants:renyi_bound",
                (*bands("alpha", [1.1, 20.0]), at_most("sigma", 1e-3), above("sigma", 1e3))),
    Computation("iteration/accountants.rdp_epsilon", "pufferfish.iteration.accountants:rdp_epsilon",
                bands("delta", [1e-10, 0.1])),
    Computation("iteration/accountants.rdp_delta", "pufferfish.iteration.accountants:_rdp_delta",
                bands("epsilon", [0.01, 5.0])),
    Computation("iteration/calibrate.sigma_for_renyi", "pufferfish.iteration.calibrate:sigma_for_renyi",
                bands("alpha", [1.1, 20.0])),
    Computation("iteration/calibrate.sigma_for_epsilon_delta", "pufferfish.iteration.calibrate:sigma_for_epsilon_delta",
                bands("delta", [1e-10, 0.1])),
    Computation("iteration/calibrate.exact_sigma", "pufferfish.iteration.calibrate:exact_sigma",
                (Region("(epsilon, delta)", lambda a: a["delta"] is not None),
                 Region("Renyi", lambda a: a["delta"] is None))),
    # --- closed-form sensitivities (paper 002, Sec. 6)
    Computation("sensitivity/attribute.attribute_coefficients", "pufferfish.sensitivity.attribute:attribute_coefficients",
                (Region("one protected attribute", lambda a: np.size(a["protected"]) == 1),
                 Region("several protected attributes", lambda a: np.size(a["protected"]) > 1))),
    Computation("sensitivity/attribute.gaussian_attribute_sensitivity",
                "pufferfish.sensitivity.attribute:gaussian_attribute_sensitivity",
                (Region("one protected attribute", lambda a: np.size(a["protected"]) == 1),
                 Region("several protected attributes", lambda a: np.size(a["protected"]) > 1))),
    Computation("sensitivity/attribute.conditional_query_law", "pufferfish.sensitivity.attribute:conditional_query_law",
                (Region("any", lambda a: True),)),
    Computation("sensitivity/attribute.two_column_sensitivity", "pufferfish.sensitivity.attribute:two_column_sensitivity",
                (Region("any", lambda a: True),), fields=("beta", "sensitivity")),
    Computation("sensitivity/diffusion.diffusion_sensitivity", "pufferfish.sensitivity.diffusion:diffusion_sensitivity",
                (Region("norm 1", lambda a: float(a["norm"]) == 1.0), Region("norm 2", lambda a: float(a["norm"]) == 2.0),
                 Region("norm inf", lambda a: float(a["norm"]) == math.inf),
                 Region("rate * max time > 50", lambda a: a["rate"] * float(np.max(a["times"])) > 50))),
    Computation("sensitivity/diffusion.ou_law", "pufferfish.sensitivity.diffusion:ou_law",
                bands("rate * time", [1e-3, 10.0], value=lambda a: a["rate"] * a["time"])),
    Computation("sensitivity/diffusion.ou_w_inf", "pufferfish.sensitivity.diffusion:ou_w_inf",
                (Region("any", lambda a: True),)),
    Computation("sensitivity/scales.scales_from_sensitivity", "pufferfish.sensitivity.scales:scales_from_sensitivity",
                (Region("gwm_laplace", lambda a: a["method"] == "gwm_laplace"),
                 Region("gwm_gaussian_analytic", lambda a: a["method"] == "gwm_gaussian_analytic"),
                 Region("dagwm_cauchy", lambda a: a["method"] == "dagwm_cauchy"))),
    Computation("sensitivity/composition.parallel_composition", "pufferfish.sensitivity.composition:parallel_composition",
                (Region("any", lambda a: True),), fields=("epsilon",)),
)


def _bw_tail(a: dict) -> bool:
    """The arguments of _balle_wang_delta where it integrates (delta < CANCELLATION Phi(a))."""
    from scipy.special import log_ndtr, ndtr

    from pufferfish.mechanisms.gaussian import CANCELLATION

    w, sigma, eps = a["w"], a["sigma"], a["epsilon"]
    if w == 0:
        return False
    first = float(ndtr(w / (2 * sigma) - eps * sigma / w))
    delta = first - math.exp(eps + float(log_ndtr(-w / (2 * sigma) - eps * sigma / w)))
    return not delta > CANCELLATION * first


from tests.faults.catalog_certified import CERTIFIED  # noqa: E402 - the second half of the catalog

CATALOG = (*CATALOG, *CERTIFIED)

#: the region table's removals: ``computation@region`` -> why it is not a fault (an input the function refuses, or
#: one no public route can give it); tests/unit/test_fault_catalog.py holds each to a reason and out of the list
REMOVED: dict[str, str] = {}


def faults() -> list[tuple[Computation, Region]]:
    """Every (computation, region) of the catalog, in order."""
    return [(c, r) for c in CATALOG for r in c.regions]


def key(computation: Computation, region: Region) -> str:
    return f"{computation.name}@{region.name}"


def find(value: str) -> tuple[Computation, Region]:
    """The (computation, region) of a :func:`key`."""
    for computation, region in faults():
        if key(computation, region) == value:
            return computation, region
    raise KeyError(value)

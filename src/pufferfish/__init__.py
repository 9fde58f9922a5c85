"""Noise calibration for pufferfish privacy, with an exact audit of every calibrated scale.

Laplace, Gaussian, Cauchy and two-sided geometric noise, calibrated by the methods of the papers
(see the documentation, docs/). Each paper is a subpackage that declares itself once
(:mod:`pufferfish.papers`; a paper may also come from another distribution); those of this
package are:

* N. Ding, S. Lu, W. Yang, Z. Zhang, "Multi-user Pufferfish Privacy" -> :mod:`pufferfish.multiuser`
* N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024)
  -> :mod:`pufferfish.gaussian`
* C. Pierquin, A. Bellet, M. Tommasi, M. Boussard, "Renyi Pufferfish Privacy", ICML 2024
  -> :mod:`pufferfish.wasserstein` (its calibration), :mod:`pufferfish.iteration` and
  :mod:`pufferfish.sensitivity` (its iterative and sensitivity parts)
* Y. Kawamoto, T. Murakami, distribution privacy of local obfuscation and the tupling mechanism
  -> :mod:`pufferfish.distp`

Modules and subpackages, from the bottom layer up (a module imports only from layers below it):

1. :mod:`~pufferfish.errors`, :mod:`~pufferfish.checks` (argument checks), :mod:`~pufferfish.grids`
   (epsilon / delta grids);
2. :mod:`~pufferfish.mechanisms`: classical mechanisms, no prior (analytic Gaussian, Laplace,
   Cauchy, randomized response, geometric); prior types: :mod:`~pufferfish.lattice` (lattice
   pmfs, sums of users, secrets, transport, :math:`W_p`), :mod:`~pufferfish.mixture` (the GMM
   prior of paper 004);
3. :mod:`~pufferfish.audit` (the target of a guarantee, the verdict of a scale and the one
   audit-table schema, the one smallest-scale search, one auditor module per noise x prior);
   :mod:`~pufferfish.registry` (one record per calibration method; the tight ones derived from
   the auditors);
4. shared experiment helpers: :mod:`~pufferfish.settings` (typed settings shared by the
   experiments), :mod:`~pufferfish.files` (atomic CSV / JSON output, tables read back),
   :mod:`~pufferfish.plotting` (figure conventions), :mod:`~pufferfish.data_priors` (priors
   read off a data table: conditioning, encodings);
5. the papers, each a subpackage (above; :func:`pufferfish.papers.declared` lists those
   installed): its declaration (``paper``: :class:`pufferfish.papers.Paper`), methods, the
   typed settings it consumes and checks (``settings``), its experiments, figures and
   subcommands (``command``, on :mod:`~pufferfish.command_line`);
6. :mod:`~pufferfish.pipeline`: config.yaml validated and typed (``config``), downloads
   (``fetch``), the report (``report``, ``front_page``), the Snakemake scripts' glue (``jobs``),
   each derived from the declared papers; :mod:`~pufferfish.cli` is the ``pufferfish``
   command's skeleton, which adds the papers' subcommands.

The names below are imported on first use (``import pufferfish`` itself loads numpy and
nothing heavier: every workflow job is a new interpreter and pays for what it imports).
"""

from pkgutil import iter_modules

from pufferfish._lazy import attach

__version__ = "0.1.0"

_EXPORTS = {
    **dict.fromkeys(["LatticePMF"], "pufferfish.lattice.pmf"),
    **dict.fromkeys(["convolve", "sum_of_users"], "pufferfish.lattice.sums"),
    **dict.fromkeys(["Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior"],
                    "pufferfish.lattice.system"),
    **dict.fromkeys(["TransportPlan", "delta_star", "kantorovich_plan", "plan_span"], "pufferfish.lattice.transport"),
    **dict.fromkeys(["Achieved", "Smallest", "Target"], "pufferfish.audit.target"),
    **dict.fromkeys(["Auditor"], "pufferfish.audit.auditor"),
    **dict.fromkeys(["PrivacyLoss", "lattice_privacy_loss", "theta_min", "tight"], "pufferfish.audit.laplace_lattice"),
    **dict.fromkeys(["lattice_auditor"], "pufferfish.audit"),
    **dict.fromkeys(["calibrate"], "pufferfish.registry"),
}

__all__ = [
    "LatticePMF", "convolve", "sum_of_users",
    "Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior",
    "TransportPlan", "delta_star", "kantorovich_plan", "plan_span",
    "Achieved", "Auditor", "PrivacyLoss", "Smallest", "Target", "lattice_auditor",
    "lattice_privacy_loss", "theta_min", "tight", "calibrate",
]

#: every module and subpackage, found in the package's directory (a new paper's package included)
_SUBMODULES = tuple(info.name for info in iter_modules(__path__) if not info.name.startswith("_"))

__getattr__, __dir__ = attach(__name__, _EXPORTS, _SUBMODULES)

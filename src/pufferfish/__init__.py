"""Noise calibration for pufferfish privacy, with an exact audit of every calibrated scale.

Laplace, Gaussian and Cauchy noise, calibrated by the methods of three papers (see the documentation, docs/):

* N. Ding, S. Lu, W. Yang, Z. Zhang, "Multi-user Pufferfish Privacy" -> :mod:`pufferfish.multiuser`
* N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024)
  -> :mod:`pufferfish.gaussian`
* C. Pierquin, A. Bellet, M. Tommasi, M. Boussard, "Renyi Pufferfish Privacy", ICML 2024
  -> :mod:`pufferfish.wasserstein`

Modules and subpackages, from the bottom layer up (a module imports only from layers below it):

1. :mod:`~pufferfish.errors`, :mod:`~pufferfish.checks` (argument checks), :mod:`~pufferfish.grids`
   (epsilon / delta grids);
2. prior types: :mod:`~pufferfish.lattice` (lattice pmfs, sums of users, secrets, transport,
   W_p), :mod:`~pufferfish.mixture` (the GMM prior of paper 004);
3. :mod:`~pufferfish.audit` (one auditor per noise: exact loss, smallest scale);
   :mod:`~pufferfish.registry` (one record per calibration method);
4. shared experiment helpers: :mod:`~pufferfish.settings` (typed settings shared by the
   experiments), :mod:`~pufferfish.files` (atomic CSV / JSON output, tables read back),
   :mod:`~pufferfish.plotting` (figure conventions), :mod:`~pufferfish.data_priors` (priors
   read off a data table: conditioning, encodings);
5. the papers: :mod:`~pufferfish.multiuser` (paper 000), :mod:`~pufferfish.gaussian`
   (paper 004), :mod:`~pufferfish.wasserstein` (paper 002), then
   :mod:`~pufferfish.comparison` (every mechanism on one secret pair); each holds its
   methods, the typed settings it consumes (``settings``), its experiments and figures;
6. :mod:`~pufferfish.pipeline`: config.yaml validated and typed (``config``), downloads
   (``fetch``), the report (``report``), the Snakemake scripts' glue (``cli``).

The names below are imported on first use (``import pufferfish`` itself loads numpy and
nothing heavier: every workflow job is a new interpreter and pays for what it imports).
"""

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

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("errors", "checks", "grids", "lattice", "mixture", "audit", "registry",
                                                   "settings", "files", "plotting", "data_priors", "multiuser",
                                                   "gaussian", "wasserstein", "iteration", "sensitivity", "comparison",
                                                   "pipeline"))

"""Closed-form GWM sensitivities under structured priors (paper 002, Sections 6.1-6.3, Appendices E.1, F.1-F.4).

Paper 002 is Pierquin, Bellet, Tommasi, Boussard, "Renyi Pufferfish Privacy" (ICML 2024).
The General Wasserstein Mechanism needs W_inf between the query's laws given two secrets;
for some priors it has a closed form:

* :mod:`pufferfish.sensitivity.attribute` -- attribute privacy with Gaussian data (Prop. 6.2, Prop. F.1):
  sum_i |beta_i| w_i with beta = a_S + Sigma_SS^-1 Sigma_S,-S a_-S;
* :mod:`pufferfish.sensitivity.diffusion` -- the initial point of a Langevin diffusion (Prop. 6.3, App. F.4):
  L D ||(e^(-lambda t_1), ..., e^(-lambda t_m))||, exact for Ornstein-Uhlenbeck;
* :mod:`pufferfish.sensitivity.weak_dependence` -- weakly dependent records (Prop. 6.1, App. F.1): Delta + 2 max_s
  W_inf(F|theta,s ; F|theta_bar,s), on lattice priors;
* :mod:`pufferfish.sensitivity.composition` -- parallel composition over independent parts (Prop. E.1);
* :mod:`pufferfish.sensitivity.scales` -- the noise scales of the existing GWM methods for such a sensitivity;
* :mod:`pufferfish.sensitivity.experiments` -- attribute privacy on UCI data and the diffusion check
  (:mod:`pufferfish.sensitivity.settings`: their typed config; :mod:`pufferfish.sensitivity.plots`: their figures; :mod:`pufferfish.sensitivity.captions`: the
  readers of their written tables that the workflow calls for captions).
"""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["GaussianRecord", "TwoColumnFit", "attribute_coefficients", "conditional_query_law",
                     "gaussian_attribute_sensitivity", "two_column_sensitivity"], "pufferfish.sensitivity.attribute"),
    **dict.fromkeys(["NOISE_NORMS", "POTENTIALS", "Potential", "coupled_distances", "diffusion_sensitivity",
                     "euler_step", "noise_norm", "ou_law", "ou_w_inf", "potential"], "pufferfish.sensitivity.diffusion"),
    **dict.fromkeys(["JointLatticePrior", "RecordSecret", "WeakDependenceBound", "product_of_marginals",
                     "query_given", "weak_dependence_bound"], "pufferfish.sensitivity.weak_dependence"),
    **dict.fromkeys(["RenyiGuarantee", "parallel_composition"], "pufferfish.sensitivity.composition"),
    **dict.fromkeys(["GWM_METHODS", "ScaleMethod", "scales_from_sensitivity"], "pufferfish.sensitivity.scales"),
    **dict.fromkeys(["AttributePrivacySettings", "AttributeTriple", "DiffusionSettings", "SensitivitySettings"],
                    "pufferfish.sensitivity.settings"),
    **dict.fromkeys(["run_attribute_privacy", "run_diffusion"], "pufferfish.sensitivity.experiments"),
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("attribute", "diffusion", "weak_dependence", "composition", "scales",
                                                  "settings", "experiments", "plots", "captions", "paper"))

"""Paper 002, "Renyi Pufferfish Privacy" (Pierquin, Bellet, Tommasi, Boussard, ICML 2024): the
Wasserstein-mechanism family on lattice priors (:mod:`.methods`): Laplace for epsilon- and
(epsilon, delta)-PP, Gaussian for (epsilon, delta)-PP, Cauchy for Renyi PP, and the tight
scales of the exact audits (:mod:`pufferfish.audit`). Every method is a record of
:mod:`pufferfish.registry`.

:mod:`pufferfish.wasserstein.table1` -- the sensitivities of its Table 1 (Section 6.2,
Appendix F.2): the released attribute's range (DP), W_inf (the GWM, Theorem 3.3 /
Corollary 3.1) and W_2 (the DAGWM with Cauchy noise at alpha = 2, Theorem 4.5 /
Corollary 4.1) between the conditional priors of every secret pair; the conditional priors
read off the data and the table written (:mod:`.conditionals`); the typed form of config
``wasserstein.settings`` (:mod:`.settings`). Names are imported on first use."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["METHODS", "CAUCHY_ALPHA", "dagwm_cauchy", "gawm_laplace",
                     "gwm_gaussian_analytic", "gwm_gaussian_rdp", "gwm_laplace"], "pufferfish.wasserstein.methods"),
    **dict.fromkeys(["SecretConditional", "PairSensitivity", "TABLE1_COLUMNS", "pair_sensitivity",
                     "setting_sensitivities", "binding_pair", "table1_frame"], "pufferfish.wasserstein.table1"),
    **dict.fromkeys(["ConditionalPriors", "conditional_priors", "declared_range", "read_conditional_priors"],
                    "pufferfish.wasserstein.conditionals"),
    **dict.fromkeys(["WassersteinSetting"], "pufferfish.wasserstein.settings"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("methods", "table1", "conditionals", "settings", "paper"))

"""Paper 004, "Approximation of Pufferfish Privacy for Gaussian Priors" (Ding, IEEE TIFS 2024):
Theorem 1, Remark 1, Corollary 1 (:mod:`.methods`), GMM priors fitted to data, Theorem 2 and
Corollary 2 (:mod:`.gmm`; the GMM type is :class:`pufferfish.mixture.GMM`), Laplace against
Gaussian noise on Fig. 1's priors (:mod:`.noise_ordering`), the typed settings
of its figures (:mod:`.settings`), the random streams of its draws (:mod:`.streams`), the GMM
fits of Figs. 3-4 (:mod:`.gmm_fits`), the experiments (:mod:`.experiments`) and figures
(:mod:`.plots`). The exact audit is :mod:`pufferfish.audit.laplace_mixture`. Names are
imported on first use."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["tau_star", "tau_lambertw", "theorem1", "remark1", "corollary1a", "corollary1b",
                     "corollary1_identical", "check_epsilon", "check_delta", "gaussian_noise_max_log_ratio"],
                    "pufferfish.gaussian.methods"),
    **dict.fromkeys(["fit_gmm", "numeric_values", "data_resolution", "components_below_resolution", "w2_cost",
                     "w2_weights", "theorem2_terms", "theorem2", "corollary2"], "pufferfish.gaussian.gmm"),
    **dict.fromkeys(["gaussian_noise_total_variation", "laplace_noise_total_variation", "crossover_half_width"],
                    "pufferfish.gaussian.noise_ordering"),
    **dict.fromkeys(["GMM"], "pufferfish.mixture"),
    **dict.fromkeys(["GaussianPrior", "Fig1Settings", "IntRange", "Fig2Settings", "Fig5Settings", "GMMSettings",
                     "ConditionalSecret", "PrivacyPair", "GMMExperimentSettings", "GaussianSettings", "PAPER_FIGURES",
                     "GAUSSIAN_FIXED_KEYS", "ROUNDINGS", "gmm_experiment_names"], "pufferfish.gaussian.settings"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("methods", "gmm", "noise_ordering", "settings", "streams", "gmm_fits",
                                                   "experiments", "plots", "captions", "paper"))

"""Paper 004, "Approximation of Pufferfish Privacy for Gaussian Priors" (Ding, IEEE TIFS 2024):
Theorem 1, Remark 1, Corollary 1 (:mod:`.methods`), GMM priors, Theorem 2 and Corollary 2
(:mod:`.gmm`), the experiments (:mod:`.experiments`) and figures (:mod:`.plots`). The exact
audit is :mod:`pufferfish.audit.gaussian_prior`."""

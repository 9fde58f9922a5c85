"""Wasserstein mechanisms of paper 002 (Pierquin, Bellet, Tommasi, Boussard, Renyi Pufferfish
Privacy, ICML 2024).

* :mod:`pufferfish.wasserstein.table1` -- the sensitivities of its Table 1 (Section 6.2,
  Appendix F.2): the released attribute's range (DP), W_inf (the GWM, Theorem 3.3 /
  Corollary 3.1) and W_2 (the DAGWM with Cauchy noise at alpha = 2, Theorem 4.5 /
  Corollary 4.1) between the conditional priors of every secret pair.
"""

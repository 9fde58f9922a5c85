"""Which noise for my secret pair? Every mechanism of papers 000 and 002 on one pair, each
scale audited exactly (:mod:`.compare`), and its figure (:mod:`.plots`)."""

from pufferfish.comparison.compare import (CAUCHY_METHODS, COLUMNS, GAUSSIAN_METHODS, LAPLACE_METHODS, PAPER000_BEST,
                                           compare_pair, compare_pairs, least_noise, noise_std, paper000_best)

__all__ = ["CAUCHY_METHODS", "COLUMNS", "GAUSSIAN_METHODS", "LAPLACE_METHODS", "PAPER000_BEST", "compare_pair",
           "compare_pairs", "least_noise", "noise_std", "paper000_best"]

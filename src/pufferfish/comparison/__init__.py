"""Which noise for my secret pair? Every mechanism of papers 000 and 002 on one pair, each
scale audited exactly (:mod:`.compare`), its typed settings (:mod:`.settings`), the pairs of
config ``comparison`` run and written (:mod:`.experiments`) and its figure (:mod:`.plots`).
Names are imported on first use."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["CAUCHY_METHODS", "COLUMNS", "GAUSSIAN_METHODS", "LAPLACE_METHODS", "PAPER000_BEST",
                     "compare_pair", "compare_pairs", "least_noise", "noise_std", "paper000_best", "winner_lines",
                     "as_flags"], "pufferfish.comparison.compare"),
    **dict.fromkeys(["ComparisonSettings"], "pufferfish.comparison.settings"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("compare", "settings", "experiments", "plots"))

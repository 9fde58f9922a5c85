"""Which noise for my secret pair? Every registered mechanism on one pair, grouped by noise, each
scale audited exactly (:mod:`.compare`); with several secret pairs, the binding one
(:mod:`.binding`); its typed settings (:mod:`.settings`), the pairs of config ``comparison`` run
and written (:mod:`.experiments`) and its figure (:mod:`.plots`). Names are imported on first use."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["COLUMNS", "COMPARABLE", "PAPER000_BEST", "PairComparison", "methods_by_noise",
                     "compare_audited", "compare_pair", "compare_pairs", "least_noise", "paper000_best",
                     "winner_lines", "coinciding", "as_flags"], "pufferfish.comparison.compare"),
    **dict.fromkeys(["NamedPair", "Binding", "conditional_pairs", "binding_rows"], "pufferfish.comparison.binding"),
    **dict.fromkeys(["ComparisonSettings"], "pufferfish.comparison.settings"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("compare", "binding", "settings", "experiments", "plots", "paper",
                                                  "command"))

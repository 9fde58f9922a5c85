"""Paper 000, "Multi-user Pufferfish Privacy" (Ding, Lu, Yang, Zhang): its calibration methods
(:mod:`.methods`), the typed settings of its experiments (:mod:`.settings`), the users' priors
(:mod:`.user_priors`), the users and secret pairs of an experiment (:mod:`.secret_pairs`), the
experiments declared in config (:mod:`.experiments`), figures (:mod:`.plots`) and the reader of the
data users' records for figure titles (:mod:`.captions`).
Names are imported on first use."""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["METHODS", "BRENT_RTOL", "LEMMA6_GROUPINGS", "bernoulli_eq15", "kantorovich", "lemma5", "lemma6",
                     "lemma6_best_grouping", "lemma6_psi", "theorem1", "theorem2", "theorem3_brent", "theorem3_max",
                     "theorem4"], "pufferfish.multiuser.methods"),
    **dict.fromkeys(["calibrate"], "pufferfish.registry"),
    **dict.fromkeys(["LatticeUserSettings", "DataUserSettings", "Secret", "Panel", "ExperimentSettings",
                     "users_from_config", "MultiuserSettings"], "pufferfish.multiuser.settings"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("methods", "settings", "user_priors", "secret_pairs", "experiments",
                                                   "plots", "captions", "paper"))

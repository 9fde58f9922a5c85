"""Lattice priors: pmfs on the integers (:mod:`.pmf`), sums of independent users (:mod:`.sums`),
secrets and query priors (:mod:`.system`, paper 000 eqs. 7-9) and the monotone transport plan
(:mod:`.transport`, eq. 6 and Lemma 7)."""

from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import convolve, sum_of_users
from pufferfish.lattice.system import Absent, Draws, QueryPrior, Reports, SecretPair, User, query_prior
from pufferfish.lattice.transport import TransportPlan, delta_star, kantorovich_plan, plan_span

__all__ = [
    "LatticePMF", "convolve", "sum_of_users",
    "Absent", "Draws", "QueryPrior", "Reports", "SecretPair", "User", "query_prior",
    "TransportPlan", "delta_star", "kantorovich_plan", "plan_span",
]

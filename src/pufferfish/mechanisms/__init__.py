"""Classical closed-form mechanisms, below the papers (they know no paper).

* :mod:`.gaussian` -- one Gaussian shift: the exact (epsilon, delta) curve (Balle and Wang
  2018), the analytic Gaussian sigma, and the sigma of the Renyi route (Mironov 2017);
* :mod:`.laplace` -- one Laplace shift: b = sensitivity / epsilon, and its exact hockey stick;
* :mod:`.cauchy` -- one Cauchy shift at Renyi order 2: D_2 and the scale for a target;
* :mod:`.randomized_response` -- k-ary randomized response on a finite domain;
* :mod:`pufferfish.mechanisms.geometric` -- two-sided geometric noise and the geometric
  mechanism clamped to an integer domain;
* :mod:`.channel` -- the output law and the pairwise epsilon of a finite channel.

The derivations are in ``docs/math/mechanisms.md``. Names are imported on first use.
"""

from pufferfish._lazy import attach

_EXPORTS = {
    **dict.fromkeys(["balle_wang_delta", "analytic_gaussian_sigma", "gaussian_rdp_sigma", "gaussian_rdp_sigma_at",
                     "gaussian_rdp_alpha"], "pufferfish.mechanisms.gaussian"),
    **dict.fromkeys(["laplace_scale", "laplace_delta"], "pufferfish.mechanisms.laplace"),
    **dict.fromkeys(["cauchy_renyi2", "cauchy_renyi2_scale"], "pufferfish.mechanisms.cauchy"),
    **dict.fromkeys(["RandomizedResponse"], "pufferfish.mechanisms.randomized_response"),
    **dict.fromkeys(["TwoSidedGeometric", "ClampedGeometric"], "pufferfish.mechanisms.geometric"),
    **dict.fromkeys(["output_law", "channel_epsilons", "check_input_pmf"], "pufferfish.mechanisms.channel"),
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = attach(__name__, _EXPORTS, ("gaussian", "laplace", "cauchy", "randomized_response",
                                                  "geometric", "channel"))

"""Exact audits: every noise family has an :class:`~pufferfish.audit.auditor.Auditor` with the same verbs.

* :mod:`.target` -- the guarantee and its target (:func:`~.target.target_for`), what a scale achieves;
* :mod:`.verdict` -- the verdict of a scale on one pair or the worst of several, the audit-table schema;
* :mod:`.search` -- the one search for the smallest scale (bracketing strategies, :func:`~.search.close_bracket`);
* :mod:`.auditor` -- the interface, the registry of families (:func:`~.auditor.auditor_classes`,
  :func:`~.auditor.noises`, :func:`~.auditor.lattice_auditor`, :func:`~.auditor.noise_std`);
* :mod:`.zero_noise` -- the noise-free limit: the divergences of two lattice priors themselves;
* :mod:`.kernel`, :mod:`.quadrature`, :mod:`.atoms` -- shared numerics (exponential-kernel sums,
  Gauss-Kronrod in log space, the atoms of two lattice priors);
* one module per noise family and prior, named ``<noise>_<prior>``: :mod:`.laplace_lattice`
  (pure epsilon, paper 000, and (epsilon, delta)), :mod:`.gaussian_lattice` ((epsilon, delta)
  and Renyi, paper 002), :mod:`.cauchy_lattice` (Renyi, paper 002), :mod:`.geometric_lattice`
  (all three), :mod:`.laplace_mixture` (Laplace noise on Gaussian-mixture priors, paper 004: the
  auditor and ``b_min``; its numerics in :mod:`.emg_density`, :mod:`.log_ratio_envelope`,
  :mod:`.mixture_hockey_stick`, :mod:`.mixture_privacy_loss`).
  A new family is one new module ``<noise>_lattice.py`` (its class registers itself when the module is
  imported) and one import line below: importing any module of this package imports this file first, so
  :func:`~.auditor.auditor_classes` sees every family, without looking for modules by name.
"""

from pufferfish.audit.auditor import Auditor, LatticeAuditor, auditor_classes, lattice_auditor, noise_std, noises
from pufferfish.audit.cauchy_lattice import CauchyLatticeAuditor, cauchy_renyi
from pufferfish.audit.gaussian_lattice import GaussianLatticeAuditor, gaussian_hockey_stick, gaussian_renyi
from pufferfish.audit.geometric_lattice import (GeometricLatticeAuditor, geometric_hockey_stick, geometric_privacy_loss,
                                                geometric_renyi)
from pufferfish.audit.laplace_mixture import BMin, LaplaceMixtureAuditor, b_min
from pufferfish.audit.laplace_lattice import (LaplaceLatticeAuditor, PrivacyLoss, TightResult, laplace_hockey_stick,
                                              lattice_privacy_loss, theta_min, tight)
from pufferfish.audit.target import GUARANTEES, Achieved, Smallest, Target, target_for
from pufferfish.audit.verdict import AUDIT_COLUMNS, Verdict, audit_frame, audit_row, audit_scale, worst_case
from pufferfish.audit.zero_noise import (zero_noise_directions, zero_noise_hockey_stick, zero_noise_loss,
                                         zero_noise_renyi)

__all__ = [
    "Achieved", "Auditor", "LatticeAuditor", "Smallest", "Target", "GUARANTEES", "target_for",
    "Verdict", "audit_scale", "worst_case", "AUDIT_COLUMNS", "audit_row", "audit_frame",
    "auditor_classes", "noises", "lattice_auditor", "noise_std",
    "LaplaceLatticeAuditor", "PrivacyLoss", "TightResult", "laplace_hockey_stick", "lattice_privacy_loss", "theta_min",
    "tight", "LaplaceMixtureAuditor", "BMin", "b_min",
    "GaussianLatticeAuditor", "gaussian_hockey_stick", "gaussian_renyi", "CauchyLatticeAuditor", "cauchy_renyi",
    "GeometricLatticeAuditor", "geometric_privacy_loss", "geometric_hockey_stick", "geometric_renyi",
    "zero_noise_directions", "zero_noise_hockey_stick", "zero_noise_loss", "zero_noise_renyi",
]

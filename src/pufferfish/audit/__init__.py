"""Exact audits: every noise has an :class:`~pufferfish.audit.base.Auditor` with the same two verbs.

* :mod:`.zero_noise` -- the noise-free limit: the divergences of two lattice priors themselves;
* :mod:`.base` -- the interface (:class:`Target`, :class:`Achieved`, :class:`Smallest`);
* :mod:`.laplace` -- Laplace noise on lattice priors, pure epsilon (paper 000) and (epsilon, delta);
* :mod:`.gaussian_prior` -- Laplace noise on Gaussian / GMM priors, (epsilon, delta) (paper 004);
* :mod:`.gaussian_noise` -- Gaussian noise on lattice priors, (epsilon, delta) and Renyi (paper 002);
* :mod:`.cauchy` -- Cauchy noise on lattice priors, Renyi (paper 002).

:func:`lattice_auditor` finds the auditor of a noise and guarantee on two lattice priors.
"""

from pufferfish.audit.base import Achieved, Auditor, Smallest, Target, smallest_by_bisection
from pufferfish.audit.cauchy import CauchyLatticeAuditor, cauchy_renyi
from pufferfish.audit.gaussian_noise import GaussianLatticeAuditor, gaussian_hockey_stick, gaussian_renyi
from pufferfish.audit.laplace import (LaplaceLatticeAuditor, PrivacyLoss, TightResult, laplace_hockey_stick,
                                      lattice_privacy_loss, theta_min, tight)
from pufferfish.audit.zero_noise import (zero_noise_directions, zero_noise_hockey_stick, zero_noise_loss,
                                         zero_noise_renyi)

__all__ = [
    "Achieved", "Auditor", "Smallest", "Target", "smallest_by_bisection",
    "LaplaceLatticeAuditor", "PrivacyLoss", "TightResult", "laplace_hockey_stick", "lattice_privacy_loss", "theta_min",
    "tight",
    "GaussianLatticeAuditor", "gaussian_hockey_stick", "gaussian_renyi", "CauchyLatticeAuditor", "cauchy_renyi",
    "zero_noise_directions", "zero_noise_hockey_stick", "zero_noise_loss", "zero_noise_renyi",
    "LATTICE_AUDITORS", "lattice_auditor",
]

#: the auditors of noise on two lattice priors (one class per noise; each lists its guarantees)
LATTICE_AUDITORS: list[type[Auditor]] = [LaplaceLatticeAuditor, GaussianLatticeAuditor, CauchyLatticeAuditor]


def lattice_auditor(noise: str, guarantee: str, p, q, **options) -> Auditor:
    """The auditor of ``noise`` for ``guarantee`` on the lattice priors ``p``, ``q``."""
    from pufferfish.checks import instance

    instance(noise, str, name="noise")
    instance(guarantee, str, name="guarantee")
    for cls in LATTICE_AUDITORS:
        if cls.noise == noise and guarantee in cls.guarantees:
            return cls(p, q, **options)
    known = ", ".join(f"{c.noise} ({'/'.join(c.guarantees)})" for c in LATTICE_AUDITORS)
    from pufferfish.errors import InvalidArgumentError

    raise InvalidArgumentError(f"noise = {noise!r}, guarantee = {guarantee!r}: no lattice auditor (known: {known})")

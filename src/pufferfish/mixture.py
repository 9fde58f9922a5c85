"""The Gaussian mixture prior type: a one-dimensional GMM (paper 004, Section IV).

N. Ding, "Approximation of Pufferfish Privacy for Gaussian Priors", IEEE TIFS 19 (2024):
the adversary's prior for secret s_i is sum_m alpha_im g(x; mu_im, sigma_im^2). A prior
type, as :class:`~pufferfish.lattice.pmf.LatticePMF` is for the lattice: the audits
(:mod:`pufferfish.audit.laplace_mixture` and its numerics) and paper 004's methods (:mod:`pufferfish.gaussian`)
both build on it. Fitting one to data is :func:`pufferfish.gaussian.gmm.fit_gmm`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pufferfish.checks import is_real, reals
from pufferfish.errors import InvalidDistributionError

__all__ = ["GMM"]


def _typed(values, *, name: str) -> np.ndarray:
    """``values`` as a float array, a string, bool or None entry refused (ArgumentTypeError naming it)."""
    if not is_real(values):
        array = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
        if values is None or isinstance(values, (str, bytes)) or array.dtype.kind not in "iufO" or (
                array.dtype.kind == "O" and not all(is_real(v) for v in array.ravel())):
            reals(values, name=name, empty=True)   # raises the type error, naming the argument
    return np.asarray(values, dtype=float)


def _frozen(values) -> np.ndarray:
    out = np.array(values, dtype=float)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class GMM:
    """A one-dimensional Gaussian mixture: ``weights`` (sum 1), ``means``, ``stds`` (>= 0).

    Components are sorted by mean. A standard deviation of 0 is a point mass. ``n`` is the
    number of rows the mixture was fitted on (0 when given directly), ``converged`` whether
    EM converged, ``log_likelihood`` the mean log-likelihood per row of the fit.
    """

    weights: np.ndarray
    means: np.ndarray
    stds: np.ndarray
    n: int = 0
    converged: bool = True
    log_likelihood: float = math.nan
    label: str = field(default="")

    def __post_init__(self):
        w, m, s = (np.atleast_1d(_typed(v, name=k)) for k, v in
                   (("weights", self.weights), ("means", self.means), ("stds", self.stds)))
        name = self.label or "GMM"
        if not (w.ndim == m.ndim == s.ndim == 1 and w.size == m.size == s.size and w.size >= 1):
            raise InvalidDistributionError(f"{name}: weights, means and stds must be lists of the same length >= 1")
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(m)) and np.all(np.isfinite(s))):
            raise InvalidDistributionError(f"{name}: weights, means and stds must be finite")
        if np.any(w < 0):
            raise InvalidDistributionError(f"{name}: weight {w[w < 0][0]!r} is negative")
        if np.any(s < 0):
            raise InvalidDistributionError(f"{name}: standard deviation {s[s < 0][0]!r} is negative")
        total = w.sum()
        if not abs(total - 1.0) <= 1e-9:
            raise InvalidDistributionError(f"{name}: weights sum to {total!r}, not 1")
        order = np.argsort(m, kind="stable")
        object.__setattr__(self, "weights", _frozen(w[order] / total))
        object.__setattr__(self, "means", _frozen(m[order]))
        object.__setattr__(self, "stds", _frozen(s[order]))

    @classmethod
    def gaussian(cls, mean: float, std: float, *, label: str = "") -> "GMM":
        """A single Gaussian G(mean, std^2) (a point mass when std = 0)."""
        return cls([1.0], [mean], [std], label=label)

    @property
    def components(self) -> int:
        """Number of components D."""
        return int(self.weights.size)

    def mean(self) -> float:
        """E[X]."""
        return float(self.weights @ self.means)

    def pdf(self, x) -> np.ndarray:
        """Density of X at ``x`` (components with std 0 are skipped: they are atoms)."""
        x = np.asarray(x, dtype=float)[..., None]
        s = np.where(self.stds > 0, self.stds, 1.0)
        z = (x - self.means) / s
        dens = np.exp(-0.5 * z ** 2) / (s * math.sqrt(2.0 * math.pi))
        return np.sum(np.where(self.stds > 0, self.weights * dens, 0.0), axis=-1)

    def record(self) -> dict:
        """JSON-friendly parameters."""
        return {"weights": self.weights.tolist(), "means": self.means.tolist(), "stds": self.stds.tolist(),
                "rows": int(self.n), "converged": bool(self.converged),
                "mean_log_likelihood": None if math.isnan(self.log_likelihood) else float(self.log_likelihood)}

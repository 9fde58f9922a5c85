r"""Which noise of equal variance hides a secret better, Laplace or Gaussian (paper 004, Fig. 1)?

Paper 004 (Sec. VI, its Fig. 1) says that Gaussian noise of the same variance gives the smaller
maximum of :math:`|\log p_Y(y \mid s_i) / p_Y(y \mid s_j)|`. For two Gaussian priors this module
computes what decides it beyond the window the figure plots:

* :func:`crossover_half_width`: the half-width :math:`W^*` of the windows
  :math:`[c - W, c + W]` over which Gaussian noise gives the smaller maximum (:math:`W < W^*`);
  over all :math:`y` the Gaussian log-ratio is a quadratic and unbounded when the prior
  variances differ, while the Laplace one is bounded;
* :func:`gaussian_noise_total_variation` (closed form) and :func:`laplace_noise_total_variation`
  (the certified hockey-stick engine of :mod:`pufferfish.audit.mixture_hockey_stick` as
  :math:`\epsilon \to 0`): the same comparison in total variation, over all :math:`y`.

The derivations are in docs/math/paper004-gaussian.md ("Fig. 1: the order of the two noises").
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.certified import upper
from pufferfish.checks import real
from pufferfish.errors import InvalidArgumentError
from pufferfish.gaussian.certified_values import total_variation_upper
from pufferfish.mixture import GMM

__all__ = ["gaussian_noise_total_variation", "laplace_noise_total_variation", "crossover_half_width",
           "TV_EPSILON"]

#: the epsilon at which the hockey-stick divergence stands for the total variation:
#: TV - (e^eps - 1) <= H_eps <= TV, and e^eps - 1 = 1e-300 is below double precision
TV_EPSILON = 1e-300
#: above e^TV_EPSILON - 1 (= TV_EPSILON (1 + TV_EPSILON / 2 + ...)): TV <= H_eps + this
_TV_GAP = 1.000001e-300
#: points of the scan of W (from 0 to a width where Gaussian noise is surely worse)
_SCAN = 2000
#: at most this many doublings of W to pass the Laplace supremum
_MAX_DOUBLINGS = 200


def _prior(mu: float, sd: float, *, name: str) -> tuple[float, float]:
    return real(mu, name=f"mu_{name}"), real(sd, name=f"sd_{name}", lo=0.0)


def _gauss_coefficients(mi: float, vi: float, mj: float, vj: float) -> tuple[float, float, float]:
    """(A, B, C) of log N(y; mi, vi) - log N(y; mj, vj) = A y^2 + B y + C (vi, vj > 0)."""
    a = 0.5 / vj - 0.5 / vi
    b = mi / vi - mj / vj
    c = 0.5 * mj ** 2 / vj - 0.5 * mi ** 2 / vi - 0.5 * math.log(vi / vj)
    return a, b, c


def gaussian_noise_total_variation(mu_i: float, sd_i: float, mu_j: float, sd_j: float, *, noise_sd: float) -> float:
    r"""Total variation between :math:`Y = X + G(0, s^2)` under two Gaussian priors, in closed form.

    :math:`Y \mid s_k \sim G(\mu_k, v_k)`, :math:`v_k = \sigma_k^2 + s^2`. The log-ratio is a
    quadratic :math:`A y^2 + B y + C`; between its real roots the sign of
    :math:`p_i - p_j` is constant, so

    .. math::

       \mathrm{TV} = \tfrac12 \sum_{J} \bigl|P_i(J) - P_j(J)\bigr|

    over the intervals :math:`J` the roots cut the line into, with normal CDFs.

    Parameters
    ----------
    mu_i, sd_i, mu_j, sd_j : float
        The priors :math:`G(\mu_i, \sigma_i^2)`, :math:`G(\mu_j, \sigma_j^2)` (standard
        deviations :math:`\ge 0`; 0 is a point mass).
    noise_sd : float
        :math:`s > 0`, the standard deviation of the noise.

    Returns
    -------
    float
        The total variation, certified from above (arb balls, the roots' uncertainty added:
        :func:`pufferfish.gaussian.certified_values.total_variation_upper`).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, a negative standard deviation, :math:`s \le 0`.
    """
    mi, si = _prior(mu_i, sd_i, name="i")
    mj, sj = _prior(mu_j, sd_j, name="j")
    s = real(noise_sd, name="noise_sd", lo=0.0, lo_open=True)
    return total_variation_upper(mi, si, mj, sj, s)


def laplace_noise_total_variation(mu_i: float, sd_i: float, mu_j: float, sd_j: float, *, b: float) -> float:
    r"""Total variation between :math:`Y = X + \mathcal{L}(b)` under two Gaussian priors.

    The hockey-stick divergence :math:`H_\epsilon(P \| Q) = \int [p - e^\epsilon q]_+` satisfies
    :math:`\mathrm{TV} - (e^\epsilon - 1) \le H_\epsilon \le \mathrm{TV}`; at
    :math:`\epsilon` = :data:`TV_EPSILON` the gap is below double precision, and
    :func:`pufferfish.audit.mixture_hockey_stick.hockey_stick` computes :math:`H_\epsilon` exactly
    (certified roots of the log-ratio, closed-form CDFs). The larger of its two directions.

    Parameters
    ----------
    mu_i, sd_i, mu_j, sd_j : float
        The priors (standard deviations :math:`\ge 0`; 0 is a point mass).
    b : float
        The Laplace scale, :math:`b > 0`.

    Returns
    -------
    float
        The larger hockey stick plus :math:`e^\epsilon - 1` (``_TV_GAP``, above it): an upper
        bound on the total variation whenever the hockey sticks are.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, a negative standard deviation, :math:`b \le 0`.
    """
    from pufferfish.audit.mixture_hockey_stick import hockey_stick

    mi, si = _prior(mu_i, sd_i, name="i")
    mj, sj = _prior(mu_j, sd_j, name="j")
    b = real(b, name="b", lo=0.0, lo_open=True)
    hs = hockey_stick(GMM.gaussian(mi, si), GMM.gaussian(mj, sj), epsilon=TV_EPSILON, b=b)
    return upper(float(max(hs.forward, hs.backward)), _TV_GAP)


def crossover_half_width(mu_i: float, sd_i: float, mu_j: float, sd_j: float, *, b: float, noise_sd: float,
                         centre: float = 0.0) -> float:
    r"""The half-width :math:`W^*` below which Gaussian noise gives the smaller window maximum.

    With :math:`M_N(W) = \max_{|y - c| \le W} |\log p_Y(y \mid s_i) / p_Y(y \mid s_j)|` for
    noise :math:`N`, :math:`W^*` is the first :math:`W \ge 0` at which
    :math:`M_G(W) > M_L(W)` for :math:`G = G(0, s^2)` and :math:`L = \mathcal{L}(b)`: over every
    window :math:`[c - W, c + W]` with :math:`W < W^*` Gaussian noise gives the smaller maximum
    (0: not even at :math:`c`). Both maxima grow with :math:`W`; :math:`M_L` is bounded by the
    Laplace supremum over all :math:`y` and :math:`M_G` is not (distinct priors), so
    :math:`W^*` is finite. Found by a scan of :math:`W` on a 2000-point grid (the log-ratios on a
    grid of :math:`y`), then Brent's method on the exact maxima
    (:func:`~pufferfish.gaussian.methods.gaussian_noise_max_log_ratio`,
    :func:`~pufferfish.audit.mixture_privacy_loss.epsilon_achieved` with a window); a second crossing
    closer than the scan's step would be missed.

    Parameters
    ----------
    mu_i, sd_i, mu_j, sd_j : float
        The priors (standard deviations :math:`\ge 0`).
    b : float
        The Laplace scale, :math:`b > 0`.
    noise_sd : float
        The Gaussian noise's standard deviation :math:`s > 0` (Fig. 1: :math:`s = \sqrt2 b`).
    centre : float
        :math:`c`, the centre of the windows.

    Returns
    -------
    float
        :math:`W^* \ge 0`; inf when the priors are the same (both log-ratios vanish).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite number, a negative standard deviation, :math:`b \le 0` or
        :math:`s \le 0`.
    """
    mi, si = _prior(mu_i, sd_i, name="i")
    mj, sj = _prior(mu_j, sd_j, name="j")
    b = real(b, name="b", lo=0.0, lo_open=True)
    s = real(noise_sd, name="noise_sd", lo=0.0, lo_open=True)
    c = real(centre, name="centre")
    if mi == mj and si == sj:
        return math.inf
    return _crossover(_Orders(mi, si, mj, sj, b, s, c))


class _Orders:
    """The two window maxima of one Fig. 1 setting (validated values)."""

    def __init__(self, mi: float, si: float, mj: float, sj: float, b: float, s: float, c: float):
        from pufferfish.audit.mixture_privacy_loss import epsilon_achieved

        self.pi, self.pj = GMM.gaussian(mi, si), GMM.gaussian(mj, sj)
        self.gauss = (mi, si * si + s * s, mj, sj * sj + s * s)
        self.b, self.c = b, c
        self.coefficients = _gauss_coefficients(*self.gauss)
        self.laplace_sup = epsilon_achieved(self.pi, self.pj, b=b)
        self._laplace = epsilon_achieved

    def gauss_max(self, w: float) -> float:
        """M_G(w): the quadratic's largest modulus on [c - w, c + w] (end points or vertex)."""
        a, bb, cc = self.coefficients
        points = [self.c - w, self.c + w]
        if a != 0.0 and abs(-bb / (2 * a) - self.c) < w:
            points.append(-bb / (2 * a))
        return max(abs(a * y * y + bb * y + cc) for y in points)

    def laplace_max(self, w: float) -> float:
        """M_L(w), exact (the window maximum of the audit module); at w = 0 the value at c."""
        if w == 0.0:
            return float(abs(self.log_ratios(np.array([self.c]))[0][0]))
        return self._laplace(self.pi, self.pj, b=self.b, window=(self.c - w, self.c + w))

    def difference(self, w: float) -> float:
        return self.gauss_max(w) - self.laplace_max(w)

    def log_ratios(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(Laplace, Gaussian) log-ratios at the points ``y``."""
        from pufferfish.audit.emg_density import emg_logpdf

        a, bb, cc = self.coefficients
        return emg_logpdf(y, self.pi, self.b) - emg_logpdf(y, self.pj, self.b), a * y * y + bb * y + cc


def _crossover(orders: _Orders) -> float:
    """W* of :func:`crossover_half_width` (distinct priors)."""
    from scipy.optimize import brentq

    top = max(orders.b, math.sqrt(max(orders.gauss[1], orders.gauss[3])), abs(orders.gauss[0] - orders.gauss[2]))
    for _ in range(_MAX_DOUBLINGS):
        if orders.gauss_max(top) > orders.laplace_sup:
            break
        top *= 2.0
    else:  # pragma: no cover - M_G grows without bound for distinct priors
        raise InvalidArgumentError("crossover_half_width: the Gaussian maximum never passes the Laplace one")
    widths = np.linspace(0.0, top, _SCAN + 1)
    y = orders.c + np.concatenate([-widths[::-1], widths[1:]])
    lap, gau = (np.abs(r) for r in orders.log_ratios(y))
    mid = _SCAN

    def running(r):
        return np.maximum.accumulate(np.maximum(r[mid:], r[mid::-1]))

    above = np.flatnonzero(running(gau) > running(lap))
    k = int(above[0]) if above.size else _SCAN
    while k > 0 and orders.difference(widths[k - 1]) > 0.0:      # the grid maxima are approximate
        k -= 1
    if k == 0:
        return 0.0
    while k < _SCAN and orders.difference(widths[k]) <= 0.0:
        k += 1
    return float(brentq(orders.difference, widths[k - 1], widths[k], xtol=1e-12, rtol=1e-12))

"""The Gaussian mechanism of one shift: its exact (epsilon, delta) curve and two calibrations.

N(0, sigma^2) added to a value that moves by a ``sensitivity`` w between two inputs:

* :func:`balle_wang_delta` -- the exact delta(epsilon) of one shift (Balle and Wang 2018, Thm 8);
* :func:`analytic_gaussian_sigma` -- the smallest sigma with that delta at most a target (the
  analytic Gaussian mechanism);
* :func:`gaussian_rdp_sigma`, :func:`gaussian_rdp_sigma_at`, :func:`gaussian_rdp_alpha` -- the
  sigma of the Renyi route: (alpha, alpha w^2 / (2 sigma^2))-RDP converted to (epsilon, delta)
  by Mironov (2017), Prop. 3, at one order or at the best order in closed form.

The derivations are in ``docs/math/mechanisms.md`` (section "Gaussian"). Nothing here knows a
paper: paper 002's Wasserstein mechanisms (:mod:`pufferfish.wasserstein.methods`) feed them
W_inf, paper 002's Section 6 (:mod:`pufferfish.iteration`, :mod:`pufferfish.sensitivity`) a
closed-form sensitivity. Public functions validate their arguments; the private ``_`` cores
take validated floats (scipy is imported on first use).

Certified (issue 39): :func:`balle_wang_delta` is at least the true delta of the floats given and
at most 1e-9 relative above it (arb balls, :func:`pufferfish.mechanisms.scales.arb_certified`);
every sigma returned is at or above its closed form's true value (the rounding bound added,
:func:`~pufferfish.mechanisms.scales.scale_up`) and the analytic sigma meets its delta by the
certified value, no tolerance.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from pufferfish.checks import real, reals
from pufferfish.mechanisms.scales import arb_certified, scale_up

__all__ = ["balle_wang_delta", "analytic_gaussian_sigma", "gaussian_rdp_sigma", "gaussian_rdp_sigma_at",
           "gaussian_rdp_alpha", "ANALYTIC_RTOL", "SMALLEST", "LARGEST", "CANCELLATION"]

#: relative tolerance of the root of the Balle-Wang equation (on log sigma)
ANALYTIC_RTOL = 1e-14
#: the range of scales computed (beyond it a scale would lose digits to underflow or overflow)
SMALLEST, LARGEST = 1e-290, 1e290
#: below CANCELLATION Phi(a), the two terms of the closed form cancel: delta is integrated instead
CANCELLATION = 1e-6
#: the unit roundoff of float64
_U = 2.0 ** -53


def _sensitivity(value, name: str = "sensitivity") -> float:
    return real(value, name=name, lo=0.0)


def _epsilon(value) -> float:
    return real(value, name="epsilon", lo=0.0, lo_open=True)


def _delta(value) -> float:
    return real(value, name="delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def _representable(sigma: float, w: float, epsilon: float) -> float:
    """``sigma`` if w = 0 or it lies in [SMALLEST, LARGEST], else one line naming the sensitivity."""
    if w > 0 and not SMALLEST <= sigma <= LARGEST:
        from pufferfish.errors import InvalidArgumentError

        raise InvalidArgumentError(f"sensitivity = {w!r}: with epsilon = {epsilon!r} the scale ({sigma!r}) is outside "
                                   f"[{SMALLEST:g}, {LARGEST:g}]")
    return sigma


# ------------------------------------------------------------------------------ the exact curve
def balle_wang_delta(shift, scale, *, epsilon) -> float:
    """delta(epsilon) of one Gaussian shift: Phi(w/(2 s) - eps s/w) - e^eps Phi(-w/(2 s) - eps s/w).

    The hockey-stick divergence H_{e^eps}(N(w, s^2) || N(0, s^2)) (Balle and Wang, ICML 2018,
    Thm 8): the smallest delta for which one shift of size w under N(0, s^2) noise is
    (epsilon, delta)-indistinguishable, in both orders. Decreasing in the scale s (the
    divergence of N(w/s, 1) from N(0, 1) grows with the shift w/s).

    Parameters
    ----------
    shift : float
        The size w >= 0 of the shift (0: delta = 0).
    scale : float
        The standard deviation s > 0 of the noise.
    epsilon : float
        epsilon >= 0 (keyword).

    Returns
    -------
    float
        delta(epsilon) in [0, 1]. The second term is computed as exp(eps + log Phi(.)) so that it
        neither overflows nor underflows early; where the two terms agree to more than 6 digits
        (delta < :data:`CANCELLATION` Phi(a)) delta is integrated instead (no subtraction). The
        relative error is about 1e-15 (Phi(a) / delta) (2 + eps + |log Phi(b)|) at most
        (``docs/math/mechanisms.md``); a delta below the smallest normal float may be 0.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value that is not a finite real in its range.
    """
    shift = _sensitivity(shift, "shift")
    scale = real(scale, name="scale", lo=0.0, lo_open=True)
    return _certified_delta(shift, scale, real(epsilon, name="epsilon", lo=0.0))


def _certified_delta(w: float, sigma: float, epsilon: float) -> float:
    """Phi(a) - e^eps Phi(b) of the floats given, in arb balls (Phi(x) = erfc(-x / sqrt 2) / 2), certified."""
    if w == 0:
        return 0.0

    def make():
        from flint import arb

        ww, ss, ee = arb(w), arb(sigma), arb(epsilon)
        a = ww / (2 * ss) - ee * ss / ww
        b = -ww / (2 * ss) - ee * ss / ww
        root = arb(2).sqrt()
        value = (-a / root).erfc() / 2 - ee.exp() * (-b / root).erfc() / 2
        return value if value > 0 else arb(0) if value.upper() <= 0 else arb(0).union(value.upper())

    # a hockey stick is at most 1: the rounding up never crosses it
    return min(arb_certified(make, what=f"balle_wang_delta(shift={w!r}, scale={sigma!r}, epsilon={epsilon!r})"), 1.0)


def _balle_wang_delta(w: float, sigma: float, epsilon: float) -> float:
    from scipy.special import log_ndtr, ndtr

    if w == 0:
        return 0.0
    a = w / (2.0 * sigma) - epsilon * sigma / w
    b = -w / (2.0 * sigma) - epsilon * sigma / w
    first = float(ndtr(a))
    delta = first - math.exp(epsilon + float(log_ndtr(b)))
    if delta > CANCELLATION * first:
        return delta
    if first < sys.float_info.min:     # 0 <= delta <= Phi(a): below the normal floats
        return 0.0
    return _tail_delta(w / sigma, epsilon)


def _tail_delta(mu: float, epsilon: float) -> float:
    """delta = int_0^inf -expm1(-mu s) phi(z0 + s) ds, z0 = epsilon / mu - mu / 2: no cancellation.

    The privacy loss of one shift is L ~ N(mu^2 / 2, mu^2) and delta = E[(1 - e^(eps - L))^+];
    put L = eps + mu s. For z0 > 1, phi(z0) is taken out in logarithms and s = x / z0 scales
    the integrand (e^(-z0 s - s^2 / 2)) to width 1, so that a delta below the smallest float
    rounds to 0 instead of failing.
    """
    from scipy.integrate import quad

    z0 = epsilon / mu - mu / 2.0
    if z0 <= 1.0:
        value = quad(lambda s: -math.expm1(-mu * s) * math.exp(-0.5 * (z0 + s) ** 2), 0.0, math.inf,
                     epsabs=0.0, epsrel=1e-13, limit=200)[0]
        return value / math.sqrt(2.0 * math.pi)
    integral = quad(lambda x: -math.expm1(-mu * x / z0) * math.exp(-x - 0.5 * (x / z0) ** 2), 0.0, math.inf,
                    epsabs=0.0, epsrel=1e-13, limit=200)[0]
    if integral <= 0.0:
        return 0.0
    return math.exp(-0.5 * z0 * z0 - 0.5 * math.log(2.0 * math.pi) + math.log(integral / z0))


def analytic_gaussian_sigma(sensitivity, *, epsilon, delta) -> float:
    """The smallest sigma whose :func:`balle_wang_delta` (sensitivity, sigma) is at most ``delta``.

    delta(sigma) falls from 1 (sigma -> 0) to 0 (sigma -> inf) and is strictly decreasing, so
    the root of delta(sigma) = delta is unique (Balle and Wang 2018, the analytic Gaussian
    mechanism). The bracket starts from the RDP scale (:func:`gaussian_rdp_sigma`, sound, hence
    delta(sigma_rdp) <= delta) and is halved until delta(lo) > delta; Brent's method
    (:func:`scipy.optimize.brentq`) solves on log sigma to :data:`ANALYTIC_RTOL`; the result is
    nudged up by 1e-15 relative steps until delta(sigma) <= delta holds (rounding).

    Parameters
    ----------
    sensitivity : float
        The largest shift w >= 0 (0: no noise is needed, sigma = 0).
    epsilon : float
        epsilon > 0 (keyword).
    delta : float
        The target delta in (0, 1) (keyword).

    Returns
    -------
    float
        sigma, with balle_wang_delta(w, sigma, epsilon=epsilon) <= delta.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of its range, or a sigma outside [:data:`SMALLEST`, :data:`LARGEST`].
    """
    w, epsilon, delta = _sensitivity(sensitivity), _epsilon(epsilon), _delta(delta)
    _representable(_gaussian_rdp_sigma(w, epsilon, delta), w, epsilon)
    return _representable(_analytic_gaussian_sigma(w, epsilon, delta), w, epsilon)


def _analytic_gaussian_sigma(w: float, epsilon: float, delta: float) -> float:
    from scipy.optimize import brentq

    if w == 0:
        return 0.0

    def excess(log_sigma: float) -> float:
        return _balle_wang_delta(w, math.exp(log_sigma), epsilon) - delta

    hi = math.log(_gaussian_rdp_sigma(w, epsilon, delta))
    while excess(hi) > 0:  # never for a sound conversion; kept for safety
        hi += math.log(2.0)
    lo = hi - math.log(2.0)
    while excess(lo) <= 0:
        lo -= math.log(2.0)
    root = brentq(excess, lo, hi, xtol=1e-300, rtol=ANALYTIC_RTOL, maxiter=500)
    sigma = base = math.exp(root)
    step = 2.0 ** -52
    # meets by the certified delta, no tolerance: raised by 2^-52, 2^-51, ... relative (the float root
    # is within a few ulps of the certified one: the first steps suffice, and the last overshoots by 2x at most)
    while _certified_delta(w, sigma, epsilon) > delta:
        if step > 2.0 ** -20:
            from pufferfish.errors import ComputationError

            raise ComputationError(f"analytic_gaussian_sigma(sensitivity={w!r}, epsilon={epsilon!r}, delta={delta!r}): "
                                   f"no sigma within 1e-6 of {base!r} certified to meet delta")
        sigma = base * (1.0 + step)
        step *= 2.0
    return sigma


# ------------------------------------------------------------------------------ the Renyi route
def gaussian_rdp_sigma_at(sensitivity, *, epsilon, delta, alpha) -> np.ndarray:
    """sigma(alpha): the Gaussian scale whose RDP at order ``alpha`` converts to (epsilon, delta).

    N(0, sigma^2) on a shift w is (alpha, alpha w^2 / (2 sigma^2))-RDP, and (alpha, e_a)-RDP
    implies (e_a + log(1/delta) / (alpha - 1), delta)-DP (Mironov 2017, Prop. 3; paper 002,
    Prop. 2.2). Solving e_a + log(1/delta)/(alpha - 1) = epsilon for sigma:
    sigma^2 = alpha w^2 / (2 (epsilon - log(1/delta)/(alpha - 1))), finite only for
    alpha > 1 + log(1/delta)/epsilon.

    Parameters
    ----------
    sensitivity : float
        The shift w >= 0.
    epsilon, delta : float
        The target: epsilon > 0, delta in (0, 1) (keywords).
    alpha : float or array_like
        Renyi orders > 1 (keyword).

    Returns
    -------
    numpy.ndarray
        sigma(alpha) in the shape of ``alpha``; inf where the order cannot reach the target
        (alpha <= 1 + log(1/delta)/epsilon).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of its range (every order is checked), or a finite sigma outside
        [:data:`SMALLEST`, :data:`LARGEST`].
    """
    w, epsilon, delta = _sensitivity(sensitivity), _epsilon(epsilon), _delta(delta)
    alpha = reals(alpha, name="alpha", lo=1.0, lo_open=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_inv = -math.log(delta)
        room = epsilon - log_inv / (alpha - 1.0)
        out = np.where((alpha > 1.0) & (room > 0), w * np.sqrt(alpha / (2.0 * room)), np.inf)
        # room errs by 4u (epsilon + log(1/delta) / (alpha - 1)) (log, the difference alpha - 1, the
        # quotient, the subtraction); sigma by half its relative error plus 4u (the rest)
        rel = 2.0 * _U * (epsilon + log_inv / (alpha - 1.0)) / room + 4.0 * _U
        out = np.where(np.isfinite(out) & (rel < 0.5), scale_up(out, 0.0) * (1.0 + 2.0 * rel), out)
        out = np.where(np.isfinite(out) & ~(rel < 0.5), np.inf, out)
    for sigma in out[(room > 0)].ravel():
        _representable(float(sigma), w, epsilon)
    return out


def gaussian_rdp_alpha(*, epsilon, delta) -> float:
    """The order alpha* minimising :func:`gaussian_rdp_sigma_at`: 1 + (L + sqrt(L (L + epsilon))) / epsilon.

    L = log(1/delta). With a = alpha - 1 > L / epsilon, sigma^2 is proportional to
    f(a) = a (a + 1) / (epsilon a - L); f'(a) has the sign of epsilon a^2 - 2 L a - L, whose one
    root above L / epsilon is the a above (f falls before it and rises after it).

    Parameters
    ----------
    epsilon, delta : float
        The target: epsilon > 0, delta in (0, 1) (keywords).

    Returns
    -------
    float
        alpha* > 1.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of its range.
    """
    epsilon, delta = _epsilon(epsilon), _delta(delta)
    log_inv = -math.log(delta)
    return 1.0 + (log_inv + math.sqrt(log_inv * (log_inv + epsilon))) / epsilon


def gaussian_rdp_sigma(sensitivity, *, epsilon, delta) -> float:
    """min over alpha > 1 of :func:`gaussian_rdp_sigma_at`: w (sqrt(L) + sqrt(L + epsilon)) / (sqrt(2) epsilon).

    L = log(1/delta). At alpha* (:func:`gaussian_rdp_alpha`), epsilon a* - L = s := sqrt(L (L +
    epsilon)) and (L + s)(L + s + epsilon) = s (2 s + 2 L + epsilon) (use s^2 = L^2 + epsilon L),
    so f(a*) = (2 L + epsilon + 2 s) / epsilon^2 = (sqrt(L) + sqrt(L + epsilon))^2 / epsilon^2.

    Parameters
    ----------
    sensitivity : float
        The shift w >= 0 (0: sigma = 0).
    epsilon, delta : float
        The target: epsilon > 0, delta in (0, 1) (keywords).

    Returns
    -------
    float
        sigma.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of its range, or a sigma outside [:data:`SMALLEST`, :data:`LARGEST`].
    """
    w, epsilon, delta = _sensitivity(sensitivity), _epsilon(epsilon), _delta(delta)
    return _representable(_gaussian_rdp_sigma(w, epsilon, delta), w, epsilon)


def _gaussian_rdp_sigma(w: float, epsilon: float, delta: float) -> float:
    log_inv = -math.log(delta)
    sigma = w * (math.sqrt(log_inv) + math.sqrt(log_inv + epsilon)) / (math.sqrt(2.0) * epsilon)
    # 8 roundings, each within 2 ulps of its result, none cancelling (all terms > 0): at most 16u
    return float(scale_up(sigma, 16.0 * _U))

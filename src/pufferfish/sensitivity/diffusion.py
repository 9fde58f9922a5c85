r"""Privacy of the initial point of a diffusion: the GWM sensitivity by synchronous coupling.

Paper 002 (Pierquin et al., ICML 2024), Proposition 6.3 and its proof in Appendix F.4
(restated, with the derivations, in docs/math/closed-forms.md, "Diffusions"). The secret is
the initial point :math:`x_0 \in \Theta` (diameter :math:`D`) of the Langevin diffusion
:math:`dX_t = -V'(X_t)\,dt + \sqrt{2}\,dB_t` with :math:`V` :math:`\lambda`-strongly convex;
the release is an :math:`L`-Lipschitz query of :math:`(X_{t_1}, \dots, X_{t_m})`. Paths driven
by the same Brownian motion contract, so the GWM sensitivity is at most

.. math::

   L\, D\, \bigl\|\bigl(e^{-\lambda t_1}, \dots, e^{-\lambda t_m}\bigr)\bigr\|

(:func:`diffusion_sensitivity`), in the norm the noise needs: :math:`\ell_1` for Laplace,
:math:`\ell_2` for Gaussian (:data:`NOISE_NORMS`). Ornstein-Uhlenbeck
(:math:`V = \lambda x^2 / 2`) attains it (:func:`ou_law`, :func:`ou_w_inf`).

The discrete check (:func:`coupled_paths`, :func:`coupled_distances`): Euler-Maruyama paths
from :math:`x_0` and :math:`x_0 + D` with the same Gaussian increments, the same paths at every
release time. With :math:`\lambda \le V'' \le \beta` and a step :math:`h \le 2 / (\lambda + \beta)`
(:func:`euler_step`) each step multiplies the difference by at most
:math:`1 - h\lambda \le e^{-h\lambda}`, so the scheme keeps the bound on every path and a
coupled distance above it is an error in the code. Potentials (:data:`POTENTIALS`): quadratic
(:math:`\beta = \lambda`) and :math:`\lambda x^2/2 + \log\cosh x` (:math:`\beta = \lambda + 1`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pufferfish.certified import upper
from pufferfish.checks import integer, real
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["POTENTIALS", "NOISE_NORMS", "Potential", "potential", "diffusion_sensitivity", "noise_norm", "ou_law",
           "ou_w_inf", "euler_step", "coupled_distances", "CoupledPaths", "coupled_paths"]

#: the norm of the release each noise's calibration needs (module docstring)
NOISE_NORMS = {"laplace": 1.0, "gaussian": 2.0}

#: how messages name the strong-convexity argument ``rate`` (the paper's lambda)
_RATE = "rate (lambda)"


def _potential_name(name) -> str:
    if not isinstance(name, str):
        raise ArgumentTypeError(f"name = {name!r}: the potential must be a string ({', '.join(POTENTIALS)})")
    if name not in POTENTIALS:
        raise InvalidArgumentError(f"name = {name!r}: the potential must be one of {', '.join(POTENTIALS)}")
    return name


@dataclass(frozen=True)
class Potential:
    """A lambda-strongly convex potential V on the line, with lambda <= V'' <= ``curvature_max``.

    Checked: ``name`` one of :data:`POTENTIALS`, ``rate`` = lambda > 0 and ``curvature_max`` at
    least the potential's sup V'' (lambda, or lambda + 1 for ``logcosh``), so that the Euler
    step :func:`euler_step` derives from it keeps the contraction of the module docstring.
    """

    name: str
    rate: float
    curvature_max: float

    def __post_init__(self):
        _potential_name(self.name)
        rate = real(self.rate, name=_RATE, lo=0.0, lo_open=True)
        least = rate if self.name == "quadratic" else rate + 1.0   # the largest V'' of the potential
        curvature = real(self.curvature_max, name="curvature_max", lo=0.0, lo_open=True)
        if curvature < least:
            raise InvalidArgumentError(f"curvature_max = {self.curvature_max!r}: below sup V'' = {least!r} "
                                       f"of the {self.name} potential")
        object.__setattr__(self, "rate", rate)
        object.__setattr__(self, "curvature_max", curvature)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """V'(x)."""
        if self.name == "quadratic":
            return self.rate * x
        return self.rate * x + np.tanh(x)

    @property
    def exact(self) -> bool:
        """Whether the laws of X_t are known in closed form (Ornstein-Uhlenbeck)."""
        return self.name == "quadratic"


#: the potentials of the experiment: OU and a non-quadratic strongly convex one
POTENTIALS = {
    "quadratic": "V(x) = λx²/2 (Ornstein-Uhlenbeck); V'' = λ",
    "logcosh": "V(x) = λx²/2 + log cosh x; λ <= V'' = λ + sech² x <= λ + 1",
}


def potential(name: str, *, rate) -> Potential:
    r"""The potential ``name`` with strong-convexity constant :math:`\lambda` = ``rate``.

    Parameters
    ----------
    name : str
        One of :data:`POTENTIALS`.
    rate : float
        :math:`\lambda > 0`.

    Returns
    -------
    Potential
        Its gradient and curvature bounds :math:`\lambda \le V'' \le \beta`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        An unknown name, :math:`\lambda \le 0` or not finite.
    """
    _potential_name(name)
    lam = real(rate, name=_RATE, lo=0.0, lo_open=True)
    return Potential(name, lam, lam if name == "quadratic" else lam + 1.0)


def _times(times) -> np.ndarray:
    if isinstance(times, (str, bytes)):
        raise ArgumentTypeError(f"times = {times!r}: must be a sequence of release times")
    if not isinstance(times, Sequence | np.ndarray):
        times = [times]
    out = np.array([real(t, name=f"times[{k}]", lo=0.0) for k, t in enumerate(times)], dtype=float)
    if out.size == 0:
        raise InvalidArgumentError("times = []: at least one release time is needed")
    return out


def noise_norm(noise: str) -> float:
    r"""The :math:`\ell_p` norm (:math:`p = 1` or 2) the calibration of ``noise`` needs for an :math:`m`-time release (module docstring).

    Parameters
    ----------
    noise : str
        One of :data:`NOISE_NORMS`.

    Returns
    -------
    float
        1.0 (Laplace) or 2.0 (Gaussian).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A noise without an :math:`m`-time statement, or not a string.
    """
    if not isinstance(noise, str):
        raise ArgumentTypeError(f"noise = {noise!r:.60}: must be a string ({', '.join(NOISE_NORMS)})")
    if noise not in NOISE_NORMS:
        raise InvalidArgumentError(f"noise = {noise!r}: the m-time release is stated for "
                                   f"{', '.join(NOISE_NORMS)} (one time: any noise, any norm)")
    return NOISE_NORMS[noise]


def diffusion_sensitivity(*, lipschitz, diameter, rate, times, norm) -> float:
    r""":math:`L D \|(e^{-\lambda t_1}, \dots, e^{-\lambda t_m})\|_p` (paper 002, Prop. 6.3).

    Parameters
    ----------
    lipschitz : float
        :math:`L \ge 0`, the query's Lipschitz constant in the norm.
    diameter : float
        :math:`D \ge 0`, the diameter of the set :math:`\Theta` of secret initial points.
    rate : float
        :math:`\lambda > 0`, the strong convexity of :math:`V`.
    times : sequence of float
        The release times :math:`t_1, \dots, t_m \ge 0`.
    norm : float
        :math:`p \in \{1, 2, \infty\}` (:func:`noise_norm` says which one a noise needs).

    Returns
    -------
    float
        The bound on the GWM sensitivity.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value out of range, no time, a norm other than 1, 2 or inf.
    """
    lip = real(lipschitz, name="lipschitz", lo=0.0)
    diam = real(diameter, name="diameter", lo=0.0)
    lam = real(rate, name=_RATE, lo=0.0, lo_open=True)
    t = _times(times)
    if isinstance(norm, (bool, np.bool_)) or not isinstance(norm, (int, float, np.integer, np.floating)):
        raise ArgumentTypeError(f"norm = {norm!r}: must be 1, 2 or inf")
    if float(norm) not in (1.0, 2.0, math.inf):
        raise InvalidArgumentError(f"norm = {norm!r}: must be 1, 2 or inf")
    # rounded upward: a sensitivity is an upper bound (exp, the norm and two products each within a few
    # units of roundoff; 2^-50 relative covers them and the rounding of the laws' means it bounds)
    return upper(lip * diam * float(np.linalg.norm(np.exp(-lam * t), ord=float(norm))), rel_error=2.0 ** -50)


def ou_law(x0, *, rate, time) -> tuple[float, float]:
    r"""The law of the Ornstein-Uhlenbeck :math:`X_t` from :math:`x_0`: :math:`N\bigl(e^{-\lambda t} x_0,\ (1 - e^{-2\lambda t}) / \lambda\bigr)`.

    :math:`dX = -\lambda X\,dt + \sqrt{2}\,dB`: the mean solves :math:`m' = -\lambda m`, the variance
    :math:`v' = -2\lambda v + 2`, :math:`v(0) = 0`.

    Parameters
    ----------
    x0 : float
        :math:`x_0`.
    rate : float
        :math:`\lambda > 0`.
    time : float
        :math:`t \ge 0`.

    Returns
    -------
    (float, float)
        The mean and the variance.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value not finite or out of range.
    """
    x = real(x0, name="x0")
    lam = real(rate, name=_RATE, lo=0.0, lo_open=True)
    t = real(time, name="time", lo=0.0)
    return math.exp(-lam * t) * x, -math.expm1(-2.0 * lam * t) / lam


def ou_w_inf(x0, x0_prime, *, rate, time) -> float:
    r""":math:`W_\infty` of the two OU laws at ``time`` from ``x0`` and ``x0_prime``: :math:`e^{-\lambda t} |x_0 - x_0'|`.

    The laws have the same variance, so they are translates and :math:`W_\infty` is the distance of
    their means.

    Parameters
    ----------
    x0, x0_prime : float
        The two initial points.
    rate : float
        :math:`\lambda > 0`.
    time : float
        :math:`t \ge 0`.

    Returns
    -------
    float
        :math:`W_\infty \ge 0`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A value not finite or out of range.
    """
    real(x0_prime, name="x0_prime")
    m1, v1 = ou_law(x0, rate=rate, time=time)
    m2, v2 = ou_law(x0_prime, rate=rate, time=time)
    assert v1 == v2  # the variance does not depend on x_0
    return abs(m1 - m2)


def euler_step(pot: Potential, time, *, max_step) -> tuple[float, int]:
    r"""The Euler step :math:`h = t / n` and the number :math:`n` of steps over ``time``.

    :math:`n` is the smallest with :math:`h \le \min(m, 2 / (\lambda + \beta))`, :math:`m` = ``max_step``, where the
    discrete difference contracts by :math:`1 - h\lambda` per step (module docstring); ``time`` = 0
    gives (0, 0).

    Parameters
    ----------
    pot : Potential
        The potential (:func:`potential`).
    time : float
        :math:`t \ge 0`.
    max_step : float
        The cap of the step (> 0).

    Returns
    -------
    (float, int)
        :math:`h` and :math:`n`.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        ``pot`` not a Potential, a value not finite or out of range.
    """
    if not isinstance(pot, Potential):
        raise ArgumentTypeError(f"pot = {pot!r:.60}: must be a Potential (pufferfish.sensitivity.potential)")
    t = real(time, name="time", lo=0.0)
    cap = min(real(max_step, name="max_step", lo=0.0, lo_open=True), 2.0 / (pot.rate + pot.curvature_max))
    if t == 0:
        return 0.0, 0
    n = max(1, math.ceil(t / cap))
    h = t / n
    while h > cap:  # t / ceil(t / cap) can exceed cap by rounding
        n += 1
        h = t / n
    return h, n


def coupled_distances(pot: Potential, *, start, diameter, time, paths, max_step, seed) -> np.ndarray:
    """|X_t - X'_t| at one release time ``time`` on ``paths`` synchronously coupled Euler-Maruyama paths
    (:func:`coupled_paths` with one time).

    Parameters
    ----------
    pot : Potential
        The potential (:func:`potential`).
    start, diameter, time, paths, max_step, seed
        As :func:`coupled_paths` (``time`` >= 0 one release time).

    Returns
    -------
    numpy.ndarray
        ``paths`` distances.

    Raises
    ------
    ArgumentTypeError, InvalidArgumentError
        As :func:`coupled_paths`.
    """
    t = real(time, name="time", lo=0.0)
    return _coupled(pot, *_coupling_args(pot, start, diameter, paths, max_step, seed), np.array([t])).distances[0]


@dataclass(frozen=True)
class CoupledPaths:
    """|X_t - X'_t| of the same coupled paths at every release time (:func:`coupled_paths`).

    ``distances[i]`` holds the ``paths`` distances at ``times[i]``; ``steps[i]`` is the Euler step
    of the stretch that ends at ``times[i]`` and ``counts[i]`` the steps taken from 0 to it.
    """

    times: np.ndarray
    distances: np.ndarray
    steps: np.ndarray
    counts: np.ndarray


def coupled_paths(pot: Potential, *, start, diameter, times, paths, max_step, seed) -> CoupledPaths:
    """|X_t - X'_t| at every release time of ``times`` on ``paths`` synchronously coupled Euler-Maruyama paths
    from ``start`` and ``start + diameter`` (the same Gaussian increments for both; docs/math/closed-forms.md).

    The *same* paths serve every time (a coupling over time): the paths run from 0 through the
    times in increasing order, each stretch in whole Euler steps of :func:`euler_step`'s size for
    that stretch. Every step contracts the difference by a factor in
    [1 - h sup V'', 1 - h lambda] (:func:`euler_step` keeps h <= 2 / (lambda + beta)), so each path's
    distance, and their maximum, never increases from one time to the next.

    Parameters
    ----------
    pot : Potential
        The potential (:func:`potential`).
    start : float
        The lower initial point.
    diameter : float
        D >= 0: the upper initial point is ``start + diameter``.
    times : sequence of float
        The release times t >= 0, distinct, in any order.
    paths : int
        How many coupled pairs of paths (>= 1).
    max_step : float
        The cap of the Euler step (> 0).
    seed : int or numpy.random.SeedSequence
        The paths' seed (an int >= 0), so reruns give identical paths.

    Returns
    -------
    CoupledPaths
        The times in increasing order, and the distances on each path at each.

    Raises
    ------
    ArgumentTypeError
        ``pot`` is not a :class:`Potential`, or an argument of the wrong type.
    InvalidArgumentError
        A value out of range, or a repeated time.
    """
    t = np.sort(_times(times))
    if np.any(np.diff(t) == 0):
        raise InvalidArgumentError(f"times = {list(times)!r:.60}: a release time is repeated")
    return _coupled(pot, *_coupling_args(pot, start, diameter, paths, max_step, seed), t)


def _coupling_args(pot, start, diameter, paths, max_step, seed) -> tuple:
    """The validated (start, diameter, paths, max_step, seed) of :func:`coupled_paths`."""
    if not isinstance(pot, Potential):
        raise ArgumentTypeError(f"pot = {pot!r:.60}: must be a Potential (pufferfish.sensitivity.potential)")
    x = real(start, name="start")
    diam = real(diameter, name="diameter", lo=0.0)
    n_paths = integer(paths, name="paths", lo=1)
    cap = real(max_step, name="max_step", lo=0.0, lo_open=True)
    if not isinstance(seed, np.random.SeedSequence):
        seed = integer(seed, name="seed", lo=0)
    return x, diam, n_paths, cap, seed


def _coupled(pot: Potential, x: float, diam: float, n_paths: int, cap: float, seed, t: np.ndarray) -> CoupledPaths:
    """The core of :func:`coupled_paths` on validated values, ``t`` sorted and distinct."""
    rng = np.random.default_rng(seed)
    a, b = np.full(n_paths, x), np.full(n_paths, x + diam)
    out, steps, counts, done, total = np.empty((t.size, n_paths)), np.empty(t.size), np.empty(t.size, int), 0.0, 0
    for i, time in enumerate(t):
        h, n = euler_step(pot, time - done, max_step=cap)
        root = math.sqrt(2.0 * h)
        for _ in range(n):
            noise = root * rng.standard_normal(n_paths)
            a = a - h * pot.gradient(a) + noise
            b = b - h * pot.gradient(b) + noise
        done, total = float(time), total + n
        out[i], steps[i], counts[i] = np.abs(b - a), h, total
    return CoupledPaths(t, out, steps, counts)

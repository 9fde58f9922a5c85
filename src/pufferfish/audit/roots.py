r"""Roots of many bracketed functions at once: the one bracketing root finder of the audits.

The exact hockey-stick audits (:mod:`pufferfish.audit.gaussian_lattice`,
:mod:`pufferfish.audit.mixture_hockey_stick`) split the output line where the privacy loss
:math:`r(y)` crosses :math:`\pm\epsilon`; each split needs a root of :math:`r - \text{level}`
in a bracket where it changes sign, for thousands of brackets at a time. :func:`illinois_roots`
runs the Illinois variant of regula falsi on all of them as one vectorised iteration.

Why not SciPy: :func:`scipy.optimize.brentq` solves one bracket per call (one Python call
per root was 20 times slower on the audits' hot path), and
:func:`scipy.optimize.elementwise.find_root` (Chandrupatla's method) is vectorised but takes
other steps, so its roots differ from these in the last digits and the audits' outputs would
change; the tests compare the roots found here with ``brentq``. Derivation of the splits:
docs/math/engine.md.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["illinois_roots"]


def illinois_roots(f: Callable[[np.ndarray, np.ndarray], np.ndarray], a: np.ndarray, c: np.ndarray,
                   fa: np.ndarray, fc: np.ndarray, xtol, *, max_iter: int,
                   bisect_after: int | None = None) -> np.ndarray:
    r"""Roots of :math:`f` in the brackets :math:`[a_k, c_k]`, all at once (Illinois regula falsi).

    Each step takes the secant through the bracket's ends, halving the value kept at an end
    that did not move the step before (the Illinois rule), and falls back to the midpoint
    when the secant leaves the bracket or is not finite.

    Parameters
    ----------
    f : callable
        ``f(x, idx)``: the values at ``x`` of the functions of the brackets ``idx`` (indices
        into ``a``), an array of the shape of ``x``.
    a, c : numpy.ndarray
        The ends of the brackets, ``a < c``.
    fa, fc : numpy.ndarray
        :math:`f` at ``a`` and ``c``, of opposite signs.
    xtol : float or numpy.ndarray
        A bracket is done when it is narrower than ``xtol`` (per bracket, or one for all).
    max_iter : int
        At most this many steps.
    bisect_after : int, optional
        Take a midpoint step when the same end has been kept this many times in a row (each
        bracket then at least halves every ``bisect_after + 1`` steps); ``None``: never.

    Returns
    -------
    numpy.ndarray
        The last point evaluated in each bracket: a root, or a point of a bracket narrower
        than ``xtol``, or the last iterate after ``max_iter`` steps.

    Raises
    ------
    ValueError
        If ``a``, ``c``, ``fa`` and ``fc`` do not have one shape.
    """
    if not (np.shape(a) == np.shape(c) == np.shape(fa) == np.shape(fc)):
        raise ValueError("illinois_roots: a, c, fa and fc must have one shape")
    a, c, fa, fc = (np.array(v, dtype=float) for v in (a, c, fa, fc))
    xtol = np.broadcast_to(np.asarray(xtol, dtype=float), a.shape)
    x = 0.5 * (a + c)
    side = np.zeros(a.size, dtype=int)   # +1: c kept last time, -1: a kept last time
    stale = np.zeros(a.size, dtype=int)
    active = np.ones(a.size, dtype=bool)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        aa, cc, ffa, ffc = a[idx], c[idx], fa[idx], fc[idx]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            xs = (aa * ffc - cc * ffa) / (ffc - ffa)
        bad = ~np.isfinite(xs) | (xs <= aa) | (xs >= cc)
        if bisect_after is not None:
            bad |= stale[idx] >= bisect_after
        xs = np.where(bad, 0.5 * (aa + cc), xs)
        fx = f(xs, idx)
        x[idx] = xs
        right = np.sign(fx) == np.sign(ffa)            # the root is in [x, c]
        fa[idx] = np.where(right, fx, np.where(side[idx] == -1, 0.5 * ffa, ffa))
        fc[idx] = np.where(right, np.where(side[idx] == 1, 0.5 * ffc, ffc), fx)
        a[idx] = np.where(right, xs, aa)
        c[idx] = np.where(right, cc, xs)
        kept = np.where(right, 1, -1)
        if bisect_after is not None:
            stale[idx] = np.where(bad, 0, np.where(kept == side[idx], stale[idx] + 1, 0))
        side[idx] = kept
        active[idx] = (fx != 0) & (c[idx] - a[idx] > xtol[idx])
    return x

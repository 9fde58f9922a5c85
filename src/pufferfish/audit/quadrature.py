"""Shared numerics of the Renyi audits: adaptive Gauss-Kronrod in log space and log-sum-exp.

* :func:`gk_log` -- the integrals of exp(log f) over panels, adaptive Gauss-Kronrod 7-15
  (QUADPACK's qk15 nodes), every panel evaluated at once, values kept as logs;
* :func:`log_psi` -- log psi(e^l), psi(t) = t^alpha - 1 - alpha (t - 1), the integrand of
  J = integral q psi(p / q) without cancellation (D_alpha = log(1 + J) / (alpha - 1));
* :func:`lse`, :func:`lse_rows` -- log-sum-exp of a vector and over the last axis.

The log-sum-exps are plain numpy: ``scipy.special.logsumexp`` measured 2.4 to 15 times
slower on the arrays of the hot paths (30 to 3e5 entries; 2 to 4 components a row).
These are the audit package's internal helpers: they take validated values.
Derivation: docs/math/paper002-wasserstein.md ("Exact audits").
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.errors import ComputationError

__all__ = ["gk_log", "log_psi", "lse", "lse_rows", "MAX_PANELS", "QUAD_RTOL"]

#: relative tolerance of :func:`gk_log` (sum of |K15 - G7| over the integral)
QUAD_RTOL = 1e-12
#: :func:`gk_log` refines at most this many panels at once
MAX_PANELS = 2_000_000

# Gauss-Kronrod 7-15 on [-1, 1] (QUADPACK qk15): Kronrod nodes and weights, Gauss weights
_XGK = np.array([0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                 0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                 0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                 0.207784955007898467600689403773245, 0.0])
_WGK = np.array([0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                 0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                 0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                 0.204432940075298892414161999234649, 0.209482141084727828012999174891714])
_WG = np.array([0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                0.381830050505118944950369775488975, 0.417959183673469387755102040816327])
_NODES = np.concatenate((-_XGK[:-1], _XGK[::-1]))
_WK = np.concatenate((_WGK[:-1], _WGK[::-1]))
_WG15 = np.zeros(15)
_WG15[[1, 3, 5, 13, 11, 9]] = np.concatenate((_WG[:3], _WG[:3]))
_WG15[7] = _WG[3]


def log_psi(ell: np.ndarray, alpha: float) -> np.ndarray:
    r"""log psi(e^l), psi(t) = t^alpha - 1 - alpha (t - 1) >= 0, accurate for all l.

    |alpha l| <= 1: the series psi(e^l) = sum_{k >= 2} (alpha^k - alpha) l^k / k! (terms shrink
    by alpha |l| / k; 40 terms leave < 1e-40), alpha^k - alpha = alpha expm1((k - 1) log alpha).
    l > 1/alpha: psi = e^{alpha l} (1 - ((1 - alpha) e^{-alpha l} + alpha e^{(1 - alpha) l})),
    no overflow. l < -1/alpha: expm1(alpha l) - alpha expm1(l), between 0 and alpha - 1.

    Parameters
    ----------
    ell : numpy.ndarray
        The log ratios :math:`l` (finite).
    alpha : float
        The Renyi order, :math:`\alpha > 1`.

    Returns
    -------
    numpy.ndarray
        :math:`\log \psi(e^l)` (``-inf`` where :math:`l = 0`).
    """
    ell = np.asarray(ell, dtype=float)
    out = np.empty(ell.shape)
    small = np.abs(alpha * ell) <= 1.0
    big = ~small & (ell > 0)
    neg = ~small & (ell < 0)
    if small.any():
        l = ell[small]
        total = np.zeros(l.size)
        log_a = math.log(alpha)
        power = l * l / 2.0                           # l^k / k!
        for k in range(2, 42):
            total += alpha * math.expm1((k - 1) * log_a) * power
            power = power * l / (k + 1)
        with np.errstate(divide="ignore"):
            out[small] = np.log(np.maximum(total, 0.0))
    if big.any():
        l = ell[big]
        inner = (1.0 - alpha) * np.exp(-alpha * l) + alpha * np.exp((1.0 - alpha) * l)
        with np.errstate(divide="ignore"):
            out[big] = alpha * l + np.log1p(-inner)
    if neg.any():
        l = ell[neg]
        out[neg] = np.log(np.expm1(alpha * l) - alpha * np.expm1(l))
    return out



def gk_log(log_f, edges: np.ndarray, *, rtol: float = QUAD_RTOL, log_atol=-math.inf,
           max_rounds: int = 60) -> np.ndarray:
    r"""log of the integrals of exp(log_f) over [edges[0], edges[-1]], adaptive Gauss-Kronrod 7-15.

    ``log_f(y)`` returns an (m, len(y)) array: m integrands sharing their nodes. Every panel
    is evaluated at once; the panels whose |K15 - G7| is above their share of ``rtol``
    times the running estimate (in any of the m) are halved until, for each integrand, the
    sum of |K15 - G7| over the panels is below ``rtol`` times the integral or below
    exp(``log_atol``) (a piece of a larger integral: its share of the tolerance). ``rtol`` is
    raised to 16 machine epsilons times the largest |log f| seen, the rounding of the
    integrand itself (a log integrand of 5e4, as for D_alpha of thousands, is only good to
    1e-11 relative). Values are kept as logs (each panel's maximum factored out), so nothing
    overflows.

    Parameters
    ----------
    log_f : callable
        ``log_f(y)`` for a 1-D array ``y``: an (m, len(y)) array of log integrands.
    edges : numpy.ndarray
        The initial panels' edges, increasing.
    rtol : float
        The relative tolerance (raised to the integrand's rounding, see above).
    log_atol : float
        The log of an absolute tolerance (``-inf``: none).
    max_rounds : int
        Refinement rounds allowed.

    Returns
    -------
    numpy.ndarray
        The m log integrals.

    Raises
    ------
    pufferfish.errors.ComputationError
        More than :data:`MAX_PANELS` panels would be needed, or ``max_rounds`` rounds do not
        reach the tolerance.
    """
    a, b = edges[:-1].astype(float), edges[1:].astype(float)
    k_done, e_done = [], []
    log_rtol = math.log(rtol)
    size = 0
    for _ in range(max_rounds):
        if a.size > MAX_PANELS:
            raise ComputationError(f"Renyi quadrature: more than {MAX_PANELS} panels to refine")
        half = 0.5 * (b - a)
        y = 0.5 * (a + b)[:, None] + half[:, None] * _NODES[None, :]
        lv = np.asarray(log_f(y.ravel()))
        lv = lv.reshape(lv.shape[0], a.size, _NODES.size)
        top = lv.max(axis=2)
        safe = np.where(np.isfinite(top), top, 0.0)
        v = np.exp(lv - safe[:, :, None])
        kron, gauss = v @ _WK, v @ _WG15
        with np.errstate(divide="ignore"):
            log_k = np.where(np.isfinite(top), safe + np.log(kron * half), -np.inf)
            log_e = np.where(np.isfinite(top), safe + np.log(np.abs(kron - gauss) * half), -np.inf)
        # the log integrand is rounded to about 1e-16 of its magnitude: no tolerance below that
        finite = lv[np.isfinite(lv)]
        size = max(size, float(np.max(np.abs(finite))) if finite.size else 0.0)
        log_rtol = max(math.log(rtol), math.log(16 * np.finfo(float).eps * size) if size > 0 else -math.inf)
        all_k = np.concatenate(k_done + [log_k], axis=1)
        all_e = np.concatenate(e_done + [log_e], axis=1)
        log_total = np.array([lse(row) for row in all_k])
        log_err = np.array([lse(row) for row in all_e])
        goal = np.maximum(log_rtol + log_total, log_atol)
        settled = ~np.isfinite(log_total) | (log_err <= goal)
        if settled.all():
            return log_total
        share = (goal - math.log(all_e.shape[1]))[:, None]
        bad = np.any((log_e > share) & ~settled[:, None], axis=0)
        k_done.append(log_k[:, ~bad])
        e_done.append(log_e[:, ~bad])
        a, b = a[bad], b[bad]
        mid = 0.5 * (a + b)
        a, b = np.concatenate((a, mid)), np.concatenate((mid, b))
    raise ComputationError(f"Renyi quadrature did not reach rtol {rtol:g} in {max_rounds} rounds")



def lse(v: np.ndarray) -> float:
    r"""log sum exp of a vector (-inf when empty; the largest entry when it is not finite).

    Parameters
    ----------
    v : numpy.ndarray
        A 1-D array.

    Returns
    -------
    float
        :math:`\log \sum_k e^{v_k}`.
    """
    if v.size == 0:
        return -math.inf
    top = float(np.max(v))
    if not math.isfinite(top):
        return top
    return top + math.log(float(np.sum(np.exp(v - top))))


def lse_rows(x: np.ndarray) -> np.ndarray:
    r"""log sum exp over the last axis (-inf where a row is all -inf).

    Parameters
    ----------
    x : numpy.ndarray
        An array of at least one axis.

    Returns
    -------
    numpy.ndarray
        :math:`\log \sum e^{x}` over the last axis.
    """
    if x.shape[-1] == 1:
        return x[..., 0]
    m = np.max(x, axis=-1)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(x - safe[..., None]), axis=-1))

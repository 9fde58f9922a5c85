r"""Certified upper ends of the lattice audits: the error bound of the float routes, and arb routes from the definitions.

Every audit of :mod:`pufferfish.audit` on lattice priors reports, for each direction, a float
``>= `` the true value of the quantity for the float masses and scale given, and
``<= true (1 + 1e-9)`` (the smallest subnormal above a true 0) (:mod:`pufferfish.certified`):

* the float route's value ``v`` plus a bound ``E`` on its rounding error
  (:func:`kernel_log_error`, derived in docs/math/audits.md, "Certified values"), kept when
  ``E <= 2^-34 v`` (:func:`from_float`);
* else, from the definition in arb ball arithmetic (python-flint), the precision doubled until
  the ball is narrower than ``2^-36`` of its value; its upper end rounded up
  (:func:`arb_kernel_sums`, :func:`arb_loss`, :func:`arb_laplace_hockey`, :func:`arb_geometric`,
  :func:`arb_zero_noise`). A ball that does not narrow at 4096 bits raises
  :class:`~pufferfish.errors.ComputationError`.

The masses are floats, hence exact rationals: the arb routes start from exact inputs.
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.audit.kernel import SCAN_MAX_BLOCK, scan_block
from pufferfish.certified import arb_upper_float, upper
from pufferfish.errors import ComputationError

__all__ = ["U", "ACCEPT", "kernel_log_error", "from_float", "arb_kernel_sums", "arb_loss", "arb_laplace_hockey",
           "arb_geometric", "arb_zero_noise"]

#: the unit roundoff of float64
U = 2.0 ** -53
#: a float route is kept where its error bound is at most this fraction of its value (so that the
#: certified value is at most 1 + 2^-33 above the truth)
ACCEPT = 2.0 ** -34
#: the precisions (bits) of the arb routes, tried in turn
PRECISIONS = (128, 256, 512, 1024, 2048, 4096)
#: an arb ball is accepted when its radius is at most this fraction of its midpoint
_BALL = 2.0 ** -36
_SMALLEST = 5e-324


def kernel_log_error(logp: np.ndarray, log_s: np.ndarray, rate: float, *, nearest: bool = False) -> float:
    r"""A bound on the absolute error of every log kernel sum computed by :mod:`pufferfish.audit.kernel`.

    Each output is a chain of at most n log-sum-exps of positive terms (n the hull's points),
    anchored by exponents of size at most :math:`\Lambda` = the largest finite \|log mass\|, plus
    the largest \|output\|, plus the largest in-block exponent ``j rate``
    (:math:`\min(n \cdot rate, \max(1024, 64\, rate))`). A log-sum-exp of positive terms does not
    amplify the errors of its arguments (its weights sum to 1) and adds at most
    :math:`3u(\Lambda + 1)`; so the error is at most :math:`3 n u (\Lambda + 1)`. The bound
    returned, :math:`u (4n + 64)(\Lambda + 4)`, has a margin over it (docs/math/audits.md).

    Parameters
    ----------
    logp : numpy.ndarray
        The log masses (m x n, -inf for none).
    log_s : numpy.ndarray
        The log sums computed (m x n).
    rate : float
        The kernel's decay per step.
    nearest : bool
        The sums of :func:`~pufferfish.audit.kernel.nearest_sums` (rate >= 800): two terms, whose
        exponents matter only when within 1024 of each other (the in-block term is 1024).

    Returns
    -------
    float
        The bound (>= 0).
    """
    n = logp.shape[-1]
    finite_p = logp[np.isfinite(logp)]
    finite_s = log_s[np.isfinite(log_s)]
    lam = (float(np.max(np.abs(finite_p), initial=0.0)) + float(np.max(np.abs(finite_s), initial=0.0))
           + (1024.0 if nearest else min(n * rate, max(1024.0, 64.0 * rate))))
    block = scan_block(n, rate)
    if nearest or block is None:
        return U * (4.0 * n + 64.0) * (lam + 4.0)
    # the blocked scans: in a block, exponents formed by 2 roundings (2u lam), exp (2u), a cumulative sum
    # of at most 256 positive terms (256u relative), log; the log-space chain is the carry over the
    # ceil(n / block) block ends and the final log-sum-exps
    chain = -(-n // block) + 2
    return U * ((4.0 * chain + 16.0) * (lam + 4.0) + 4.0 * (SCAN_MAX_BLOCK + 4))


def from_float(values, error: float):
    """The certified upper ends of float ``values`` with absolute error at most ``error`` each, or
    None where the bound is above :data:`ACCEPT` of a value (an arb route must decide).

    Parameters
    ----------
    values : iterable of float
        The float route's values (>= 0, or inf).
    error : float
        Their error bound.

    Returns
    -------
    tuple of float or None
    """
    out = []
    for v in values:
        v = float(v)
        if math.isnan(v):
            return None
        if v == math.inf:
            out.append(v)
            continue
        if error > ACCEPT * v:
            return None
        out.append(upper(max(v, 0.0), error))
    return tuple(out)


def _precisions():
    from flint import ctx

    old = ctx.prec
    try:
        for prec in PRECISIONS:
            ctx.prec = prec
            yield prec
    finally:
        ctx.prec = old


def _narrow(ball) -> bool:
    """Whether the arb ``ball`` is narrow enough to report (or below the smallest subnormal)."""
    from flint import arb

    rad = ball.rad()
    if rad <= _BALL * abs(ball.mid()):
        return True
    return bool(ball.upper() < arb(2) ** -1075)


def _report(ball) -> float:
    """The certified float of a narrow ball of a value >= 0 (the smallest subnormal above a true 0)."""
    from flint import arb

    value = arb_upper_float(ball)
    if ball.upper() <= 0:
        return 0.0                                      # a true 0 enclosed exactly
    if ball.upper() < arb(2) ** -1075:
        return _SMALLEST
    return max(value, 0.0) if value > 0 else _SMALLEST if ball.upper() > 0 else 0.0


def _arb_masses(values: np.ndarray) -> list:
    from flint import arb

    return [arb(float(v)) for v in values]


def arb_kernel_sums(masses: np.ndarray, scale: float) -> tuple[list, list, list]:
    r"""In arb at the current precision: F(k) = sum_{x<=k} P(x) r^(k-x), H(k) = sum_{x>=k} P(x) r^(x-k)
    and S(k) = F(k) + H(k) - P(k), r = e^(-1/scale), for every row of ``masses`` (m x n floats, exact).

    Returns
    -------
    tuple of list
        ``(F, H, S)``, each a list (rows) of lists of arb balls.
    """
    from flint import arb

    r = (-1 / arb(scale)).exp()
    fs, hs, ss = [], [], []
    for row in masses:
        p = _arb_masses(row)
        n = len(p)
        f, h = [arb(0)] * n, [arb(0)] * n
        acc = arb(0)
        for k in range(n):
            acc = p[k] + r * acc
            f[k] = acc
        acc = arb(0)
        for k in range(n - 1, -1, -1):
            acc = p[k] + r * acc
            h[k] = acc
        fs.append(f)
        hs.append(h)
        ss.append([f[k] + h[k] - p[k] for k in range(n)])
    return fs, hs, ss


def _directions(make, masses: np.ndarray | None = None, bound: float | None = None) -> tuple[float, float]:
    """Both directions from ``make()`` -> (ball, ball), at the first precision where both are narrow
    (identical rows of ``masses``: every divergence is exactly 0). With a ``bound`` (a verdict to
    decide), at the first precision where also the larger direction is decided: its upper end at
    most ``bound`` or its lower end above it (a value equal to the bound is never decided: the
    last precision's ends are reported)."""
    from flint import arb

    if masses is not None and np.array_equal(masses[0], masses[1]):
        return 0.0, 0.0
    for prec in _precisions():
        fwd, bwd = make()
        if _narrow(fwd) and _narrow(bwd):
            if bound is None:
                return _report(fwd), _report(bwd)
            top = max(fwd.upper(), bwd.upper(), key=lambda x: x.mid())
            low = max(fwd.lower(), bwd.lower(), key=lambda x: x.mid())
            if top <= arb(bound) or low > arb(bound):
                return _report(fwd), _report(bwd)
            if prec == PRECISIONS[-1]:
                # undecided at 4096 bits: the value is the bound to 2^-4000 relative (a closed form's
                # exact scale, e.g. W / eps on a shift): reported as the bound (docs/math/audits.md)
                return tuple(min(_report(x), bound) if x.lower() <= arb(bound) else _report(x) for x in (fwd, bwd))
    raise ComputationError(f"audit not certified: the arb balls stay wider than {_BALL:g} of their value "
                           f"at {PRECISIONS[-1]} bits")


def _max(balls: list):
    """A ball containing the max of the values of ``balls`` (arb's own max is not used: it may widen)."""
    hi = max((b.upper() for b in balls), key=lambda x: x.mid())
    lo = max((b.lower() for b in balls), key=lambda x: x.mid())
    return lo.union(hi)


def arb_loss(masses: np.ndarray, scale: float, bound: float | None = None) -> tuple[float, float]:
    r"""(max_k log S_P(k)/S_Q(k), max_k log S_Q(k)/S_P(k)) over the hull, certified (the pure-epsilon
    loss of Laplace noise of scale theta and of geometric noise of ratio e^(-1/scale): the sup over all
    outputs is at the lattice points, docs/math/audits.md). Rows of ``masses``: P and Q (positive
    on the same points; inf where not, handled by the caller)."""
    def make():
        _, _, s = arb_kernel_sums(masses, scale)
        d = [s[0][k].log() - s[1][k].log() for k in range(len(s[0]))]
        return _max(d), _max([-x for x in d])

    return _directions(make, masses, bound)


def _positive_part_ball(a, beta, rate, e):
    r"""An enclosure of \int_0^1 [a e^{-rate t} + beta e^{-rate (1-t)}]_+ rate dt / 2 (a, beta balls)."""
    from flint import arb

    zero = arb(0)
    whole = 0.5 * (a + beta) * (1 - e)              # the integral of the bracket over [0, 1]
    if a > 0 and beta > 0:
        return whole
    if a < 0 and beta < 0:
        return zero
    if (a > 0 and beta < 0) or (a < 0 and beta > 0):
        # one sign change, at t* = 1/2 + (log|a| - log|beta|) / (2 rate), clipped to [0, 1]
        t = 0.5 + ((abs(a)).log() - (abs(beta)).log()) / (2 * rate)
        t = _clip01(t.lower()).union(_clip01(t.upper()))
        if a > 0:                                   # positive on [0, t*]
            part = 0.5 * a * (1 - (-rate * t).exp()) + 0.5 * beta * ((-rate * (1 - t)).exp() - e)
        else:                                       # positive on [t*, 1]
            part = 0.5 * a * ((-rate * t).exp() - e) + 0.5 * beta * (1 - (-rate * (1 - t)).exp())
        return part.union(zero) if not part > 0 else part
    # a sign not decided: the positive parts of the two terms bound it from above
    up = 0.5 * (1 - e) * (_pos(a) + _pos(beta))
    return up.union(zero)


def _clip01(point):
    """An exact arb point moved into [0, 1]."""
    from flint import arb

    return arb(0) if point < 0 else arb(1) if point > 1 else point


def _pos(ball):
    """A ball containing max(x, 0) for every x of ``ball``."""
    from flint import arb

    if ball > 0:
        return ball
    if ball.upper() <= 0:
        return arb(0)
    return arb(0).union(ball.upper())


def arb_laplace_hockey(masses: np.ndarray, scale: float, epsilon: float,
                       bound: float | None = None) -> tuple[float, float]:
    r"""(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y)) of Y = X + Laplace(scale), certified: the closed
    form of every unit interval between lattice points and of the two tails (docs/math/audits.md)."""
    from flint import arb

    def one(fp, hp, fq, hq, c, rate, e):
        n = len(fp)
        pieces = [0.5 * _pos(hp[0] - c * hq[0]), 0.5 * _pos(fp[-1] - c * fq[-1])]
        for k in range(n - 1):
            pieces.append(_positive_part_ball(fp[k] - c * fq[k], hp[k + 1] - c * hq[k + 1], rate, e))
        total = arb(0)
        for piece in pieces:
            total += piece
        return _clip(total)

    def make():
        f, h, _ = arb_kernel_sums(masses, scale)
        c = arb(epsilon).exp()
        rate = 1 / arb(scale)
        e = (-rate).exp()
        return one(f[0], h[0], f[1], h[1], c, rate, e), one(f[1], h[1], f[0], h[0], c, rate, e)

    return _directions(make, masses, bound)


def _clip(ball):
    """``ball`` intersected with [0, inf) (a divergence is >= 0)."""
    from flint import arb

    if ball >= 0:
        return ball
    hi = ball.upper()
    if hi < 0:
        return arb(0)
    return arb(0).union(hi)


def arb_geometric(masses: np.ndarray, scale: float, guarantee: str, *, epsilon: float = 0.0,
                  alpha: float = 2.0, bound: float | None = None) -> tuple[float, float]:
    r"""Both directions of the hockey stick (``"epsilon_delta"``) or of D_alpha (``"renyi"``) of
    Y = X + G, G two-sided geometric with ratio r = e^(-1/scale), certified: p_Y = c K on the hull,
    c = (1 - r) / (1 + r), and the tails beyond the hull are geometric series (module
    :mod:`pufferfish.audit.geometric_lattice`)."""
    from flint import arb

    def make():
        _, _, k = arb_kernel_sums(masses, scale)
        r = (-1 / arb(scale)).exp()
        c = (1 - r) / (1 + r)
        tail = r / (1 + r)
        out = []
        for top, bot in ((0, 1), (1, 0)):
            kp, kq = k[top], k[bot]
            if guarantee == "epsilon_delta":
                e = arb(epsilon).exp()
                total = arb(0)
                for j in range(len(kp)):
                    total += c * _pos(kp[j] - e * kq[j])
                total += tail * (_pos(kp[0] - e * kq[0]) + _pos(kp[-1] - e * kq[-1]))
                out.append(_clip(total))
            else:
                a = arb(alpha)

                def term(x, y):            # q psi(p / q), psi(t) = t^alpha - 1 - alpha (t - 1), as the float route
                    return (a * x.log() + (1 - a) * y.log()).exp() - y - a * (x - y)

                total = arb(0)
                for j in range(len(kp)):
                    total += c * term(kp[j], kq[j])
                total += tail * (term(kp[0], kq[0]) + term(kp[-1], kq[-1]))
                out.append(_clip((1 + _clip(total)).log() / (a - 1)))
        return out[0], out[1]

    return _directions(make, masses, bound)


def arb_zero_noise(a: np.ndarray, b: np.ndarray, guarantee: str, *, epsilon: float = 0.0,
                   alpha: float = 2.0) -> tuple[float, float]:
    r"""The divergences of the priors themselves, certified: max_x log a/b (``"epsilon"``),
    sum_x [a - e^eps b]_+ (``"epsilon_delta"``), D_alpha (``"renyi"``), both directions; masses on
    the union of the supports (a direction that is infinite comes back as 0: the caller reports inf)."""
    from flint import arb

    pa, pb = _arb_masses(a), _arb_masses(b)

    def one(u, v, fu, fv):
        if guarantee == "epsilon":
            both = [k for k in range(len(u)) if fu[k] > 0 and fv[k] > 0]
            return _clip(_max([u[k].log() - v[k].log() for k in both] + [arb(0)]))
        if guarantee == "epsilon_delta":
            e = arb(epsilon).exp()
            total = arb(0)
            for k in range(len(u)):
                total += _pos(u[k] - e * v[k])
            return _clip(total)
        al = arb(alpha)
        if any(fu[k] > 0 and fv[k] == 0 for k in range(len(u))):
            return arb(0)                               # infinite: the caller reports inf, not this
        total = arb(0)
        for k in range(len(u)):
            if fu[k] > 0:
                total += (al * u[k].log() + (1 - al) * v[k].log()).exp()
        return _clip(total.log() / (al - 1))

    return _directions(lambda: (one(pa, pb, a, b), one(pb, pa, b, a)), np.vstack((a, b)))

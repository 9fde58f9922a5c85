r"""Calibration methods of the multi-user pufferfish paper (000: Ding, Lu, Yang, Zhang), and their registry records.

Each method returns the Laplace scale :math:`\theta` (noise density
:math:`e^{-|z|/\theta} / (2\theta)`, eq. 2) for every epsilon of a grid, as the paper states it.
Every method is a sufficient condition; :mod:`pufferfish.audit.laplace_lattice` computes the
privacy loss each :math:`\theta` really achieves. The statements, their secret pairs and the
derivations: docs/math/paper000-multiuser.md.

========================  ============================  ==============================================
method                    secret pair                   scale
========================  ============================  ==============================================
``theorem1``              :math:`(s_a, s_b)`            eq. (10)
``theorem2``              :math:`(s_a, s_\perp)`        eq. (12)
``theorem3_max``          :math:`(s_P, s_\perp)`        eq. (14)
``theorem3_brent``        :math:`(s_P, s_\perp)`        eq. (13), by Brent's method
``theorem4``              :math:`(s_P, s_Q)`            eqs. (16)-(17)
``lemma5``                Bernoulli :math:`(s_P, s_Q)`  eq. (18)
``lemma6``                Bernoulli :math:`(s_P, s_Q)`  eq. (21), :math:`\psi` as printed
``lemma6_best_grouping``  Bernoulli :math:`(s_P, s_Q)`  eq. (21), the better grouping of :math:`\pi^*`
``kantorovich``           any pair                      eq. (5) / (28)
========================  ============================  ==============================================
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from pufferfish.certified import quotient_upper, quotients_upper, upper
from pufferfish.checks import choice, instance, reals
from pufferfish.errors import InvalidArgumentError, NotApplicableError
from pufferfish.grids import check_epsilons
from pufferfish.registry import Method, pair_of, register
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.system import Draws, Reports
from pufferfish.lattice.transport import delta_star, plan_span

__all__ = [
    "theorem1", "theorem2", "theorem3_max", "theorem3_brent", "theorem4", "lemma5", "lemma6",
    "lemma6_best_grouping", "kantorovich", "lemma6_psi", "LEMMA6_GROUPINGS", "bernoulli_eq15", "METHODS", "BRENT_RTOL",
]

#: relative tolerance of Brent's method (scipy.optimize.brentq) for eq. (13) (4 * machine epsilon)
BRENT_RTOL = 4 * np.finfo(float).eps


def _eps(epsilons) -> np.ndarray:
    return check_epsilons(epsilons)


def _pmfs(**pmfs) -> None:
    """Every argument a :class:`LatticePMF`, else an ArgumentTypeError naming it."""
    for name, pmf in pmfs.items():
        instance(pmf, LatticePMF, name=name)


def _over(numerator: float, eps: np.ndarray) -> np.ndarray:
    """``numerator / eps`` rounded upward (never below its theorem's scale), refusing one that overflows float64."""
    _finite_scales(numerator, eps)
    return quotients_upper(numerator, eps)


def _finite_scales(numerator: float, eps: np.ndarray) -> None:
    """Refuse an epsilon so small that ``numerator / epsilon`` (a Laplace scale) overflows float64."""
    with np.errstate(over="ignore", divide="ignore"):
        bad = np.flatnonzero(~np.isfinite(numerator / eps))
    if bad.size:
        k = int(bad[0])
        raise InvalidArgumentError(f"epsilons[{k}] = {float(eps[k])!r}: theta = {numerator:g} / epsilon "
                                   "overflows float64")


def theorem1(a, b, *, epsilons) -> np.ndarray:
    r"""Theorem 1, eq. (10): the scale for the secrets :math:`(s_{a_i}, s_{b_i})`.

    .. math::

       \theta = \max_i |a_i - b_i| / \epsilon

    Parameters
    ----------
    a, b : float or array-like
        The two reported values (or arrays of them, one per user), finite.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    InvalidArgumentError
        ``a`` and ``b`` of different lengths, a value that is not finite, a bad grid, or an
        epsilon so small that the scale overflows float64 (naming it).
    """
    a, b = reals(a, name="a"), reals(b, name="b")
    eps = _eps(epsilons)
    if a.shape != b.shape and a.ndim and b.ndim:
        raise InvalidArgumentError(f"a, b: {a.size} and {b.size} values, must be as many (one per user)")
    gap = float(np.max(np.abs(a - b)))
    return _over(gap, eps)


def theorem2(a, *, epsilons) -> np.ndarray:
    r"""Theorem 2, eq. (12): the scale for the secrets :math:`(s_{a_i}, s_{\perp_i})`.

    .. math::

       \theta = \max_i |a_i| / \epsilon

    Parameters
    ----------
    a : float or array-like
        The reported value (or one per user), finite.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    InvalidArgumentError
        A bad grid, or an epsilon so small that the scale overflows float64 (naming it).
    """
    a = reals(a, name="a")
    return _over(float(np.max(np.abs(a))), _eps(epsilons))


def theorem3_max(pmf: LatticePMF, *, epsilons) -> np.ndarray:
    r"""Theorem 3, eq. (14): the scale for the secrets :math:`(s_{P_i}, s_{\perp_i})`.

    .. math::

       \theta = \max_{t \in \operatorname{supp} P_i} |t| / \epsilon

    Parameters
    ----------
    pmf : LatticePMF
        :math:`P_i`.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    ArgumentTypeError
        ``pmf`` is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    InvalidArgumentError
        A bad grid, or an epsilon so small that the scale overflows float64 (naming it).
    """
    _pmfs(pmf=pmf)
    return _over(float(np.max(np.abs(pmf.support))), _eps(epsilons))


def theorem3_brent(pmf: LatticePMF, *, epsilons) -> np.ndarray:
    r"""Theorem 3, eq. (13): the scale solving

    .. math::

       \mathbb{E}_{D_i \sim P_i}\bigl[e^{|D_i| / \theta}\bigr] = e^{\epsilon}.

    Written as :math:`h(1/\theta) = \epsilon` with :math:`h(u) = \log \mathbb{E}[e^{|D| u}]`, computed as
    :math:`\mathrm{log1p}(\mathbb{E}[\mathrm{expm1}(|D| u)])` (a few ulps of relative error for every
    :math:`\epsilon` down to 1e-300; a log-sum-exp where :math:`|D| u > 700`), and solved by Brent's method
    (``scipy.optimize.brentq``, relative tolerance :data:`BRENT_RTOL`) in the bracket
    :math:`[\max(\mathbb{E}|D| / \epsilon, M / (\epsilon - \log p_M)), M / \epsilon]`,
    :math:`M = \max |t|`, :math:`p_M = \Pr(|D| = M)` (docs/math/paper000-multiuser.md). If the left
    end already meets (13) as computed it is the answer; if :math:`|D| = M` almost surely the root
    is :math:`M / \epsilon`; :math:`D = 0` almost surely needs no noise (:math:`\theta = 0`). For
    Bernoulli(:math:`p`) the root is eq. (15) (:func:`bernoulli_eq15`).

    Parameters
    ----------
    pmf : LatticePMF
        :math:`P_i`.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    ArgumentTypeError
        ``pmf`` is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    InvalidArgumentError
        A bad grid, or an epsilon so small that the scale overflows float64 (naming it).
    """
    from scipy.optimize import brentq
    from scipy.special import logsumexp

    instance(pmf, LatticePMF, name="pmf")
    eps = _eps(epsilons)
    keep = pmf.probs > 0
    abs_t = np.abs(pmf.values[keep]).astype(float)
    probs = pmf.probs[keep] / float(np.sum(pmf.probs[keep]))
    logp = np.log(probs)
    big = float(abs_t.max())
    if big == 0.0:
        return np.zeros_like(eps)
    _finite_scales(big, eps)
    log_pm = float(logsumexp(logp[abs_t == big]))
    mean_abs = float(np.dot(probs, abs_t))

    def h(u: float) -> float:                   # log E[exp(|D| u)], relative error of a few ulps
        if u * big <= 700.0:
            return float(np.log1p(np.dot(probs, np.expm1(abs_t * u))))
        return float(logsumexp(logp + abs_t * u))

    out = np.empty_like(eps)
    for k, e in enumerate(eps):
        def g(theta, e=e):
            return h(1.0 / theta) - e
        hi = quotient_upper(big, float(e))     # the scale of the bound (14), rounded upward
        lo = min(hi, max(quotient_upper(mean_abs, float(e)), upper(big / (e - log_pm), rel_error=2.0 ** -51)))
        if not g(lo) > 0.0:     # lo meets (13) (as computed), no smaller theta can: E|D| / eps at tiny eps
            out[k] = lo
        elif not g(hi) < 0.0:   # |D| = M almost surely: lo = hi up to rounding and the bound (14) is exact
            out[k] = hi
        else:
            root = brentq(g, lo, hi, xtol=BRENT_RTOL * lo, rtol=BRENT_RTOL, maxiter=500)   # within xtol + rtol |root|
            out[k] = min(hi, upper(root, BRENT_RTOL * lo, rel_error=BRENT_RTOL))     # the upper end of that interval
    return out


def bernoulli_eq15(p: float, *, epsilons) -> np.ndarray:
    r"""Eq. (15): the root of (13) for :math:`D \sim` Bernoulli(:math:`p`),

    .. math::

       \theta = 1 / \log\frac{e^{\epsilon} - (1 - p)}{p},

    computed as :math:`1 / \mathrm{log1p}(\mathrm{expm1}(\epsilon) / p)` (a few ulps for every
    :math:`\epsilon`), and as :math:`1 / (\epsilon - \log p + \mathrm{log1p}(-(1 - p) e^{-\epsilon}))`
    where the quotient overflows. For :math:`p = 0` the user always reports 0, as an absent
    user adds: :math:`\theta = 0`.

    Parameters
    ----------
    p : float
        In :math:`[0, 1]`.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    InvalidArgumentError
        ``p`` not a real number in :math:`[0, 1]`, a bad grid.
    """
    from pufferfish.checks import real

    p = real(p, name="p", lo=0.0, hi=1.0)
    eps = _eps(epsilons)
    if p == 0.0:
        return np.zeros_like(eps)
    with np.errstate(over="ignore"):
        ratio = np.expm1(eps) / p
    stable = eps - np.log(p) + np.log1p(-(1.0 - p) * np.exp(-eps))
    return 1.0 / np.where(np.isfinite(ratio), np.log1p(ratio), stable)


def theorem4(p: LatticePMF, q: LatticePMF, *, epsilons) -> np.ndarray:
    r"""Theorem 4, eqs. (16)-(17): the scale for the secrets :math:`(s_{P_i}, s_{Q_i})`,

    .. math::

       \theta = \sup_t \Delta^*(t) / \epsilon,

    :math:`\Delta^*` from the CDFs :math:`F_{P_i}`, :math:`F_{Q_i}` alone: the other users do not enter,
    :math:`W_\infty(R + P, R + Q) \le W_\infty(P, Q)` for any independent :math:`R`.

    Parameters
    ----------
    p, q : LatticePMF
        :math:`P_i` and :math:`Q_i`.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    ArgumentTypeError
        ``p`` or ``q`` is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    InvalidArgumentError
        A bad grid, or an epsilon so small that the scale overflows float64 (naming it).
    """
    _pmfs(p=p, q=q)
    eps = _eps(epsilons)
    return _over(float(np.max(delta_star(p, q)[1])), eps)


def _require_bernoulli(p: LatticePMF, q: LatticePMF, method: str) -> tuple[Fraction, Fraction]:
    """P_i(1) and Q_i(1), exactly, of two lattice pmfs supported in {0, 1} (else NotApplicableError)."""
    for name, pmf in (("P_i", p), ("Q_i", q)):
        if not pmf.is_binary():
            raise NotApplicableError(f"{method} needs Bernoulli users, but {name} has support "
                                     f"{pmf.support.tolist()} (not within {{0, 1}})")
    def prob_one(pmf: LatticePMF) -> Fraction:
        if pmf.exact is not None:
            return pmf.exact_on(1, 1)[0]
        return Fraction(float(pmf.pmf_on(1, 1)[0]))
    return prob_one(p), prob_one(q)


def lemma5(p: LatticePMF, q: LatticePMF, *, epsilons) -> np.ndarray:
    r"""Lemma 5, eq. (18): :math:`\theta = 1 / \epsilon` when :math:`P_i` and :math:`Q_i` are Bernoulli.

    Parameters
    ----------
    p, q : LatticePMF
        :math:`P_i` and :math:`Q_i`, supported in :math:`\{0, 1\}`.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    NotApplicableError
        A prior not supported in :math:`\{0, 1\}`.
    InvalidArgumentError
        A bad grid, or an epsilon so small that the scale overflows float64 (naming it).
    """
    _pmfs(p=p, q=q)
    _require_bernoulli(p, q, "lemma5")
    return _over(1.0, _eps(epsilons))


#: the two ways of grouping the entries of pi* in Lemma 6's relaxed condition (20), and the paper's choice
LEMMA6_GROUPINGS = ("printed", "columns", "rows")


def lemma6_psi(p: LatticePMF, q: LatticePMF, rest_sum: LatticePMF, *,
               grouping: str = "printed") -> tuple[np.ndarray, np.ndarray]:
    r"""Lemma 6's :math:`\psi_i(x)` = stay / shift at every :math:`x` of the support hull of :math:`X = f(D_{-i}) + D_i`.

    With :math:`r = \Pr(f(D_{-i}) = \cdot)`, :math:`p = P_i(1)`, :math:`q = Q_i(1)`, the monotone plan
    :math:`\pi^*` moves mass at most one step; its diagonal is
    :math:`\pi^*(x, x) = \min(p, q)\, r(x-1) + (1 - \max(p, q))\, r(x)` and its off-diagonal entries
    :math:`\pi^*(x, x+1) = (q - p)\, r(x)` (:math:`p < q`) or :math:`\pi^*(x+1, x) = (p - q)\, r(x)` (:math:`p > q`).
    ``grouping`` says which entries share one inequality of the relaxed condition (20):
    ``"columns"`` (fixed :math:`x'`, (20) as written), ``"rows"`` (fixed :math:`x`), or ``"printed"``,
    :math:`\psi_i` exactly as the lemma prints it (the column grouping for :math:`p < q`, the row
    grouping for :math:`p > q`: the proof's entry :math:`\pi^*(x'+1, x')` is right for the row
    :math:`x'+1`, not the column :math:`x'`). Either grouping proves both directions of
    :math:`\epsilon`-pufferfish privacy (docs/math/paper000-multiuser.md, "Lemmas 5 and 6"), so every
    :math:`\psi` here gives a valid eq. (21). Where the shift vanishes :math:`\psi = +\infty` (no
    constraint).

    Parameters
    ----------
    p, q : LatticePMF
        :math:`P_i` and :math:`Q_i`, supported in :math:`\{0, 1\}`.
    rest_sum : LatticePMF
        The law of the other users' sum :math:`f(D_{-i})`.
    grouping : str
        One of :data:`LEMMA6_GROUPINGS`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        :math:`x` over :math:`[\min f(D_{-i}), \max f(D_{-i}) + 1]` and :math:`\psi_i(x)` there
        (the tests check every value against :func:`pufferfish.lattice.transport.kantorovich_plan`).

    Raises
    ------
    InvalidArgumentError
        An unknown grouping.
    ArgumentTypeError
        An argument that is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    NotApplicableError
        ``p`` or ``q`` not supported in :math:`\{0, 1\}`.
    """
    choice(grouping, LEMMA6_GROUPINGS, name="grouping")
    _pmfs(p=p, q=q, rest_sum=rest_sum)
    pp, qq = _require_bernoulli(p, q, "lemma6")
    return _psi(pp, qq, rest_sum, grouping)


def _psi(pp: Fraction, qq: Fraction, rest_sum: LatticePMF, grouping: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`lemma6_psi` on validated values: P_i(1), Q_i(1) as fractions and a known grouping."""
    if grouping == "printed":
        grouping = "columns" if pp < qq else "rows"
    lo, hi = rest_sum.lo, rest_sum.hi + 1
    xs = np.arange(lo, hi + 1)
    r = rest_sum.exact_on(lo - 1, hi) if rest_sum.exact is not None else [Fraction(float(v)) for v in rest_sum.pmf_on(lo - 1, hi)]
    psi = np.full(xs.size, np.inf)
    if pp == qq:
        return xs, psi   # pi* is the identity: nothing moves
    small, big = min(pp, qq), max(pp, qq)
    # the shifted mass sits at r(x-1) or r(x): r(x-1) for columns when p < q and rows when p > q
    use_prev = (grouping == "columns") == (pp < qq)
    for k in range(xs.size):
        r_prev, r_here = r[k], r[k + 1]        # r(x-1), r(x)
        shift = (big - small) * (r_prev if use_prev else r_here)
        if shift > 0:
            psi[k] = float((small * r_prev + (1 - big) * r_here) / shift)
    return xs, psi


def _eq21(psi_min: float, eps: np.ndarray) -> np.ndarray:
    r"""Eq. (21) at the smallest :math:`\psi`, :math:`1 / \log(e^{\epsilon} + (e^{\epsilon} - 1) \psi_{\min})`,
    written as :math:`1 / (\epsilon + \mathrm{log1p}((1 - e^{-\epsilon}) \psi_{\min}))` for accuracy at small
    :math:`\epsilon` (validated values)."""
    _finite_scales(1.0, eps)   # theta <= 1 / eps
    return 1.0 / (eps + np.log1p(-np.expm1(-eps) * psi_min))


def lemma6(p: LatticePMF, q: LatticePMF, rest_sum: LatticePMF, *, epsilons) -> np.ndarray:
    r"""Lemma 6 (relaxed sufficient condition), eq. (21), with :math:`\psi_i` exactly as printed:

    .. math::

       \theta = \sup_x \frac{1}{\log\bigl(e^{\epsilon} + (e^{\epsilon} - 1)\,\psi(x)\bigr)}
              = \frac{1}{\log\bigl(e^{\epsilon} + (e^{\epsilon} - 1) \min_x \psi(x)\bigr)},

    :math:`\psi` from :func:`lemma6_psi` (``grouping="printed"``). Over the whole support the
    minimum is at an end, :math:`\min \psi = \min(p, q) / |p - q|`, whatever the other users:
    symmetric in the two secrets. :math:`P_i = Q_i` needs no noise (:math:`\theta = 0`).
    :func:`lemma6_best_grouping` is never larger.

    Parameters
    ----------
    p, q : LatticePMF
        :math:`P_i` and :math:`Q_i`, supported in :math:`\{0, 1\}`.
    rest_sum : LatticePMF
        The law of the other users' sum.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    NotApplicableError
        ``p`` or ``q`` not supported in :math:`\{0, 1\}`.
    ArgumentTypeError
        An argument that is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    InvalidArgumentError
        A bad grid, or an epsilon so small that the scale overflows float64 (naming it).
    """
    _pmfs(p=p, q=q, rest_sum=rest_sum)
    eps = _eps(epsilons)
    pp, qq = _require_bernoulli(p, q, "lemma6")
    if pp == qq:
        return np.zeros_like(eps)
    return _eq21(float(np.min(_psi(pp, qq, rest_sum, "printed")[1])), eps)


def lemma6_best_grouping(p: LatticePMF, q: LatticePMF, rest_sum: LatticePMF, *, epsilons) -> np.ndarray:
    r"""Eq. (21) with the better of the two groupings of :math:`\pi^*` (this project):
    :math:`\min(\theta_{\text{columns}}, \theta_{\text{rows}})`.

    Each grouping alone proves :math:`\epsilon`-pufferfish privacy in both directions (the proof
    is in docs/math/paper000-multiuser.md, "Lemmas 5 and 6"), so the larger
    :math:`\min \psi = \max(\min(p, q), 1 - \max(p, q)) / |p - q|` is valid too: never above
    :func:`lemma6`, equal to it exactly when :math:`p + q \ge 1` (e.g. Fig. 8's :math:`p = 0.2`,
    :math:`q = 0.9`).

    Parameters
    ----------
    p, q : LatticePMF
        :math:`P_i` and :math:`Q_i`, supported in :math:`\{0, 1\}`.
    rest_sum : LatticePMF
        The law of the other users' sum.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    NotApplicableError
        ``p`` or ``q`` not supported in :math:`\{0, 1\}`.
    ArgumentTypeError
        An argument that is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    InvalidArgumentError
        A bad grid, or an epsilon so small that the scale overflows float64 (naming it).
    """
    _pmfs(p=p, q=q, rest_sum=rest_sum)
    eps = _eps(epsilons)
    pp, qq = _require_bernoulli(p, q, "lemma6_best_grouping")
    if pp == qq:
        return np.zeros_like(eps)
    psi_min = max(float(np.min(_psi(pp, qq, rest_sum, g)[1])) for g in ("columns", "rows"))
    return _eq21(psi_min, eps)


def kantorovich(prior_i: LatticePMF, prior_j: LatticePMF, *, epsilons) -> np.ndarray:
    r"""Proposition 1, eq. (5) (= Proposition 2, eq. 28): the scale for any secret pair,

    .. math::

       \theta = \frac{1}{\epsilon} \sup_{(x, x') \in \operatorname{supp}(\pi^*)} |x - x'|,

    the span of the monotone plan :math:`\pi^*` computed by Lemma 7 (:math:`\sup \Delta^*`).

    Parameters
    ----------
    prior_i, prior_j : LatticePMF
        The two full query priors :math:`P_{X|S}(\cdot \mid s_i)`, :math:`P_{X|S}(\cdot \mid s_j)`.
    epsilons : array-like
        The grid, each :math:`\epsilon > 0`.

    Returns
    -------
    numpy.ndarray
        :math:`\theta` for each :math:`\epsilon`.

    Raises
    ------
    ArgumentTypeError
        A prior that is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    InvalidArgumentError
        A bad grid, or an epsilon so small that the scale overflows float64 (naming it).
    """
    _pmfs(prior_i=prior_i, prior_j=prior_j)
    return _over(float(plan_span(prior_i, prior_j)), _eps(epsilons))


def _drawn(pair, method: str) -> tuple[LatticePMF, LatticePMF]:
    r""":math:`P_i` and :math:`Q_i` of a pair :math:`(s_{P_i}, s_{Q_i})`."""
    for secret in (pair.first, pair.second):
        if not isinstance(secret, Draws):
            raise NotApplicableError(f"{method} needs secrets of the form 'user i draws from P', got {secret.label()!r}")
    return pair.first.pmf, pair.second.pmf


def _reported(pair) -> list[int]:
    return [s.value for s in (pair.first, pair.second) if isinstance(s, Reports)]


def _drawn_one(pair) -> LatticePMF:
    return next(s.pmf for s in (pair.first, pair.second) if isinstance(s, Draws))


_PAPER = "Ding, Lu, Yang, Zhang, Multi-user Pufferfish Privacy (paper 000)"

#: paper 000's methods in the registry (:mod:`pufferfish.registry`)
METHODS = register(
    Method("kantorovich", lambda pair, eps, **_: kantorovich(pair.prior_i, pair.prior_j, epsilons=eps), pairs=None,
           label="Kantorovich, eq. (5): (sup |x − x′| on supp π*) / ε", citation=f"{_PAPER}, Proposition 1, eq. (5)"),
    Method("theorem1", lambda pair, eps, **_: theorem1(pair.first.value, pair.second.value, epsilons=eps),
           pairs=pair_of("value", "value"), label="Theorem 1, eq. (10): |a − b| / ε",
           citation=f"{_PAPER}, Theorem 1, eq. (10)"),
    Method("theorem2", lambda pair, eps, **_: theorem2(_reported(pair)[0], epsilons=eps),
           pairs=pair_of("value", "absent"), label="Theorem 2, eq. (12): |a| / ε",
           citation=f"{_PAPER}, Theorem 2, eq. (12)"),
    Method("theorem3_max", lambda pair, eps, **_: theorem3_max(_drawn_one(pair), epsilons=eps),
           pairs=pair_of("user", "absent"), label="Theorem 3, eq. (14): max |t| / ε",
           citation=f"{_PAPER}, Theorem 3, eq. (14)"),
    Method("theorem3_brent", lambda pair, eps, **_: theorem3_brent(_drawn_one(pair), epsilons=eps),
           pairs=pair_of("user", "absent"), label="Theorem 3, eq. (13), Brent's method",
           citation=f"{_PAPER}, Theorem 3, eq. (13)"),
    Method("theorem4", lambda pair, eps, **_: theorem4(*_drawn(pair, "theorem4"), epsilons=eps),
           pairs=pair_of("user", "user"), label="Theorem 4, eq. (16): sup Δ* / ε",
           citation=f"{_PAPER}, Theorem 4, eqs. (16)-(17)"),
    Method("lemma5", lambda pair, eps, **_: lemma5(*_drawn(pair, "lemma5"), epsilons=eps),
           pairs=pair_of("user", "user"), bernoulli=True, label="Lemma 5, eq. (18): 1 / ε",
           citation=f"{_PAPER}, Lemma 5, eq. (18)"),
    Method("lemma6", lambda pair, eps, **_: lemma6(*_drawn(pair, "lemma6"), pair.rest_sum, epsilons=eps),
           pairs=pair_of("user", "user"), bernoulli=True, label="Lemma 6, eq. (21), ψ as printed",
           citation=f"{_PAPER}, Lemma 6, eq. (21)"),
    Method("lemma6_best_grouping",
           lambda pair, eps, **_: lemma6_best_grouping(*_drawn(pair, "lemma6_best_grouping"), pair.rest_sum,
                                                       epsilons=eps),
           pairs=pair_of("user", "user"), bernoulli=True,
           label="eq. (21), better of the row/column groupings of π*",
           citation=f"{_PAPER}, Lemma 6, eq. (21); this project: psi from the better of pi*'s row and column groupings"),
)

"""Calibration methods of the multi-user pufferfish paper (000: Ding, Lu, Yang, Zhang), and their registry records.

Each method returns the Laplace scale theta (noise density exp(-|z|/theta) / (2 theta),
eq. 2) for every epsilon of a grid, as the paper states it. Every method is a sufficient
condition; :mod:`pufferfish.audit.laplace_lattice` computes the privacy loss each theta really achieves.

========================  =====================  ===================================================================
method                    secret pair            condition
========================  =====================  ===================================================================
``theorem1``              (s_a, s_b)             eq. (10): max |a_i - b_i| / eps
``theorem2``              (s_a, s_perp)          eq. (12): max |a_i| / eps
``theorem3_max``          (s_P, s_perp)          eq. (14): max_t |t| / eps
``theorem3_brent``        (s_P, s_perp)          eq. (13): E[exp(|D_i| / theta)] = exp(eps)
``theorem4``              (s_P, s_Q)             eqs. (16)-(17): sup_t Delta*(t) of F_P, F_Q / eps
``lemma5``                (s_P, s_Q), Bernoulli  eq. (18): 1 / eps
``lemma6``                (s_P, s_Q), Bernoulli  eq. (21): sup_x 1 / log(e^eps + (e^eps - 1) psi(x)), psi as printed
``lemma6_best_grouping``  (s_P, s_Q), Bernoulli  eq. (21), psi of the better of pi*'s column and row groupings
``kantorovich``           any pair               eq. (5)/(28): sup over supp(pi*) |x - x'| / eps
========================  =====================  ===================================================================
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

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
    """``numerator / eps``, refusing an epsilon whose scale overflows float64."""
    _finite_scales(numerator, eps)
    return numerator / eps


def _finite_scales(numerator: float, eps: np.ndarray) -> None:
    """Refuse an epsilon so small that ``numerator / epsilon`` (a Laplace scale) overflows float64."""
    with np.errstate(over="ignore", divide="ignore"):
        bad = np.flatnonzero(~np.isfinite(numerator / eps))
    if bad.size:
        k = int(bad[0])
        raise InvalidArgumentError(f"epsilons[{k}] = {float(eps[k])!r}: theta = {numerator:g} / epsilon "
                                   "overflows float64")


def theorem1(a, b, *, epsilons) -> np.ndarray:
    """Theorem 1, eq. (10): theta = max_i |a_i - b_i| / epsilon for secrets (s_{a_i}, s_{b_i}).

    ``a`` and ``b`` are the two reported values (or arrays of them, one per user/prior).
    """
    a, b = reals(a, name="a"), reals(b, name="b")
    eps = _eps(epsilons)
    if a.shape != b.shape and a.ndim and b.ndim:
        raise InvalidArgumentError(f"a, b: {a.size} and {b.size} values, must be as many (one per user)")
    gap = float(np.max(np.abs(a - b)))
    return _over(gap, eps)


def theorem2(a, *, epsilons) -> np.ndarray:
    """Theorem 2, eq. (12): theta = max_i |a_i| / epsilon for secrets (s_{a_i}, s_{perp_i})."""
    a = reals(a, name="a")
    return _over(float(np.max(np.abs(a))), _eps(epsilons))


def theorem3_max(pmf: LatticePMF, *, epsilons) -> np.ndarray:
    """Theorem 3, eq. (14): theta = max_{t in supp(P_i)} |t| / epsilon for (s_{P_i}, s_{perp_i})."""
    _pmfs(pmf=pmf)
    return _over(float(np.max(np.abs(pmf.support))), _eps(epsilons))


def theorem3_brent(pmf: LatticePMF, *, epsilons) -> np.ndarray:
    """Theorem 3, eq. (13): the theta solving E_{D_i ~ P_i}[exp(|D_i| / theta)] = exp(epsilon).

    Written as h(1/theta) = epsilon with h(u) = log E[exp(|D| u)], computed as
    log1p(E[expm1(|D| u)]) (the masses divided by their sum, so E[1] = 1 exactly): every
    term is positive and known to a few ulps, so h has a few ulps of relative error for
    every epsilon, down to 1e-300 (the printed form, a log of a sum near 1, loses all
    digits below eps ~ 1e-16 and about 1e-16 / eps of them above). Where |D| u would
    overflow expm1 (|D| u > 700), h is the log-sum-exp of log P(t) + |t| u instead.
    h is increasing in u, so g(theta) = h(1/theta) - epsilon is decreasing in theta. With
    M = max|t|, p_M = Pr(|D| = M) and E|D| the root lies in
    [max(E|D| / eps, M / (eps - log p_M)), M / eps]: h(u) <= M u (right end), h(u) >= u E|D|
    (Jensen) and h(u) >= log p_M + M u (left end). Brent's method (``scipy.optimize.brentq``)
    solves it to a relative tolerance of 4 machine epsilons (:data:`BRENT_RTOL`, also as
    xtol relative to the left end). If the left end already meets (13) as computed (at tiny
    epsilon the root is E|D| / eps to float precision) it is the answer; if |D| = M almost
    surely the root is M / epsilon (the ends coincide up to rounding). D = 0 almost surely needs no noise
    (theta = 0). For Bernoulli(p) the root is eq. (15) (:func:`bernoulli_eq15`). An epsilon
    so small that M / epsilon overflows float64 is refused.
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
        hi = big / e
        lo = min(hi, max(mean_abs / e, big / (e - log_pm)))
        if not g(lo) > 0.0:     # lo meets (13) (as computed), no smaller theta can: E|D| / eps at tiny eps
            out[k] = lo
        elif not g(hi) < 0.0:   # |D| = M almost surely: lo = hi up to rounding and the bound (14) is exact
            out[k] = hi
        else:
            out[k] = brentq(g, lo, hi, xtol=BRENT_RTOL * lo, rtol=BRENT_RTOL, maxiter=500)
    return out


def bernoulli_eq15(p: float, *, epsilons) -> np.ndarray:
    """Eq. (15): theta = 1 / log((e^eps - (1 - p)) / p), the root of (13) for D ~ Bernoulli(p).

    ``p`` is a real number in [0, 1] (a string, bool, NaN or a value outside is refused);
    for p = 0 the user always reports 0, as an absent user adds, and theta = 0. The log is
    computed as log1p(expm1(eps) / p), accurate to a few ulps for every eps (the quotient
    as printed loses all digits for eps below 1e-16), and as eps - log p + log1p(-(1 - p) e^{-eps})
    where expm1(eps) / p overflows.
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
    """Theorem 4, eqs. (16)-(17): theta = sup_t Delta*(t) / epsilon, Delta* from F_{P_i}, F_{Q_i} only.

    The other users do not enter: W_inf(R + P, R + Q) <= W_inf(P, Q) for any independent R.
    """
    _pmfs(p=p, q=q)
    eps = _eps(epsilons)
    return _over(float(np.max(delta_star(p, q)[1])), eps)


def _require_bernoulli(p: LatticePMF, q: LatticePMF, method: str) -> tuple[Fraction, Fraction]:
    _pmfs(p=p, q=q)
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
    """Lemma 5, eq. (18): theta = 1 / epsilon when P_i and Q_i are Bernoulli."""
    _require_bernoulli(p, q, "lemma5")
    return _over(1.0, _eps(epsilons))


#: the two ways of grouping the entries of pi* in Lemma 6's relaxed condition (20), and the paper's choice
LEMMA6_GROUPINGS = ("printed", "columns", "rows")


def lemma6_psi(p: LatticePMF, q: LatticePMF, rest_sum: LatticePMF, *,
               grouping: str = "printed") -> tuple[np.ndarray, np.ndarray]:
    """psi_i(x) = stay / shift of Lemma 6 at every x of the support hull of X = f(D_-i) + D_i.

    With r = Pr(f(D_-i) = .), p = P_i(1), q = Q_i(1), the monotone plan pi* (x under s_{P_i},
    x' under s_{Q_i}) moves mass at most one step (proof of Lemma 6). Its diagonal entry is,
    in both orders of p and q,

        stay(x) = pi*(x, x) = min(p, q) r(x-1) + (1 - max(p, q)) r(x),

    and its off-diagonal entries are

    * p < q: pi*(x, x+1) = (q - p) r(x)   (proof of Lemma 6: pi*(x'-1, x') = (q-p) r(x'-1));
    * p > q: pi*(x+1, x) = (p - q) r(x)   (F_Q(x) - F_P(x) = (p - q) r(x) by eq. 19). The
      proof writes this entry pi*(x'+1, x') as (p - q) Pr(f(D_-i) = x - 1), which is right
      when x is the entry's row x'+1, not x': its psi for p > q is then the ratio of row x,
      pi*(x, x) / pi*(x, x-1), not of column x'. That ratio is also valid (below).

    ``grouping`` says which entries share one inequality of the relaxed condition:

    * ``"columns"`` (fixed x' under s_{Q_i}; condition (20) as written, ``forall x'``):
      shift(x') = pi*(x'-1, x') = (q-p) r(x'-1) (p < q) or pi*(x'+1, x') = (p-q) r(x') (p > q);
    * ``"rows"`` (fixed x under s_{P_i}): shift(x) = pi*(x, x+1) = (q-p) r(x) (p < q) or
      pi*(x, x-1) = (p-q) r(x-1) (p > q);
    * ``"printed"`` (the default): Lemma 6's psi_i(x) exactly as printed,
      [(1-q) r(x)/r(x-1) + p] / (q-p) for p < q and [(1-p) r(x)/r(x-1) + q] / (p-q) for p > q.
      Both cases have the denominator r(x-1): for p < q that is the column grouping, for
      p > q the row grouping (pi*(x, x) / pi*(x, x-1)).

    Either grouping proves both directions of epsilon-pufferfish privacy (see
    :func:`lemma6_best_grouping`), so every psi here gives a valid eq. (21). Where the shift
    vanishes the group moves no mass and psi = +inf (no constraint). x runs over
    [min f(D_-i), max f(D_-i) + 1], which holds every group. Returns ``(x, psi)``; the tests
    check every value against :func:`pufferfish.lattice.transport.kantorovich_plan`.
    """
    choice(grouping, LEMMA6_GROUPINGS, name="grouping")
    _pmfs(p=p, q=q, rest_sum=rest_sum)
    pp, qq = _require_bernoulli(p, q, "lemma6")
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
    """Eq. (21) at the smallest psi: 1 / log(e^eps + (e^eps - 1) psi_min), written as
    1 / (eps + log1p((1 - e^-eps) psi_min)) for accuracy at small epsilon."""
    _finite_scales(1.0, eps)   # theta <= 1 / eps
    return 1.0 / (eps + np.log1p(-np.expm1(-eps) * psi_min))


def lemma6(p: LatticePMF, q: LatticePMF, rest_sum: LatticePMF, *, epsilons) -> np.ndarray:
    """Lemma 6 (relaxed sufficient condition), eq. (21), with psi_i exactly as printed.

    theta = sup_x 1 / log(e^eps + (e^eps - 1) psi(x)) = 1 / log(e^eps + (e^eps - 1) min_x psi(x))
    with psi from :func:`lemma6_psi` (``grouping="printed"``). Because x runs over the whole
    support of X, min psi is reached at an end of the support, where one of r(x), r(x-1)
    vanishes: p / (q - p) for p < q (the column grouping) and q / (p - q) for p > q (the row
    grouping), i.e. min(p, q) / |p - q|, for any finite rest: the value does not depend on the
    other users, and exchanging the two secrets leaves it unchanged.
    P_i = Q_i needs no noise (theta = 0). :func:`lemma6_best_grouping` is never larger.
    """
    _pmfs(p=p, q=q, rest_sum=rest_sum)
    eps = _eps(epsilons)
    pp, qq = _require_bernoulli(p, q, "lemma6")
    if pp == qq:
        return np.zeros_like(eps)
    return _eq21(float(np.min(lemma6_psi(p, q, rest_sum, grouping="printed")[1])), eps)


def lemma6_best_grouping(p: LatticePMF, q: LatticePMF, rest_sum: LatticePMF, *, epsilons) -> np.ndarray:
    """Eq. (21) with the better of the two groupings of pi*: min(theta_columns, theta_rows).

    Why each grouping alone proves epsilon-pufferfish privacy in both directions. Write L
    for the Laplace density, so p_Y(y) = sum pi*(x, x') L(y - x) and
    q_Y(y) = sum pi*(x, x') L(y - x'). Take one column x' (p < q; the other cases are the
    same with the roles of x and x' or of the step's sign exchanged): stay s = pi*(x', x'),
    shift h = pi*(x'-1, x'), psi = s / h. Its contributions are s L(y-x') + h L(y-x'+1) to
    p_Y and (s + h) L(y-x') to q_Y, and L(y-x'+1) / L(y-x') lies in [e^(-1/theta), e^(1/theta)],
    so their ratio lies in [(psi + e^(-1/theta)) / (psi + 1), (psi + e^(1/theta)) / (psi + 1)].

    * upper end <= e^eps  <=>  e^(1/theta) <= e^eps + (e^eps - 1) psi: eq. (23), i.e. (21);
    * lower end >= e^-eps  <=>  e^(-1/theta) >= e^-eps - (1 - e^-eps) psi, implied by (21):
      with a = psi (1 - e^-eps), (21) gives e^(-1/theta) >= e^-eps / (1 + a) >= e^-eps (1 - a)
      >= e^-eps - a (the last step: e^-eps a <= a).

    Summing over the columns, e^-eps <= p_Y / q_Y <= e^eps for all y. A row x contributes
    (s + h) L(y - x) to p_Y and s L(y - x) + h L(y - x -+ 1) to q_Y: the same bounds with p_Y
    and q_Y exchanged, from the same inequality. So (21) holds with psi taken from either
    grouping, and the smaller theta (the larger min psi) is also valid. Over the whole
    support, min psi is

    =========  =================  =================
    grouping   p < q              p > q
    =========  =================  =================
    columns    p / (q - p)        (1 - p) / (p - q)
    rows       (1 - q) / (q - p)  q / (p - q)
    =========  =================  =================

    that is, min(p, q) / |p - q| for one grouping and (1 - max(p, q)) / |p - q| for the other
    (exchanging the secrets transposes pi*, so columns and rows trade places). Lemma 6 as
    printed (:func:`lemma6`) takes min(p, q) / |p - q| in both cases (so it is symmetric in
    the two secrets, as a pufferfish bound must be), and this method
    max(min(p, q), 1 - max(p, q)) / |p - q|: it is never above :func:`lemma6`, and equal to it
    exactly when p + q >= 1, e.g. Fig. 8's p = 0.2, q = 0.9.
    """
    _pmfs(p=p, q=q, rest_sum=rest_sum)
    eps = _eps(epsilons)
    pp, qq = _require_bernoulli(p, q, "lemma6_best_grouping")
    if pp == qq:
        return np.zeros_like(eps)
    psi_min = max(float(np.min(lemma6_psi(p, q, rest_sum, grouping=g)[1])) for g in ("columns", "rows"))
    return _eq21(psi_min, eps)


def kantorovich(prior_i: LatticePMF, prior_j: LatticePMF, *, epsilons) -> np.ndarray:
    """Proposition 1, eq. (5) (= Proposition 2, eq. 28): sup_{(x,x') in supp(pi*)} |x - x'| / epsilon.

    ``prior_i`` and ``prior_j`` are the two full query priors P_{X|S}(.|s_i), P_{X|S}(.|s_j);
    the span of the monotone plan pi* is computed by Lemma 7 (sup Delta*).
    """
    _pmfs(prior_i=prior_i, prior_j=prior_j)
    return _over(float(plan_span(prior_i, prior_j)), _eps(epsilons))


def _drawn(pair, method: str) -> tuple[LatticePMF, LatticePMF]:
    """P_i and Q_i of a pair (s_{P_i}, s_{Q_i})."""
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

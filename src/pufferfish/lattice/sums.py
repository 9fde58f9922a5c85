"""Sums of independent lattice users: the law of X = f(D) = sum_i D_i (paper 000, Section 3, eqs. 7-9).

Exact fractions while the problem is small (the transport plan and Delta* of Lemma 7
compare CDF values for equality), direct convolution for moderate sizes, and for large
systems exponentially tilted, batched FFTs whose lower levels are shared between tilts;
users that share a prior are summed as one power (see :func:`sum_of_users`).

Users are given as a sequence of :class:`~pufferfish.lattice.pmf.LatticePMF` (each a user),
of ``(LatticePMF, count)`` groups (``count`` users with that prior), or as one 2-D array of
probabilities with a row per user (row k: Pr(D_k = j) for j = 0, 1, ..., m - 1), which
avoids a Python object per user when there are millions of them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from pufferfish.checks import choice, instance, integer
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError
from pufferfish.lattice.pmf import MAX_LATTICE_POINTS, PMF_ATOL, LatticePMF, check_lattice_size, check_sum_size

__all__ = ["convolve", "sum_of_users", "tail_mass_bound", "EXACT_MAX_WORK", "DIRECT_LEVEL_WORK", "TILT_FLOOR"]

#: the exact (fraction) convolution is kept while len(p) * len(q) stays below this
EXACT_MAX_WORK = 200_000
#: direct (np.convolve) below this many multiply-adds, FFT above
DIRECT_MAX_WORK = 5_000_000
_METHODS = ("auto", "direct", "fft", "tilted")


def _exact_convolve(p: Sequence[Fraction], q: Sequence[Fraction]) -> tuple[Fraction, ...]:
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for j, b in enumerate(q):
                if b:
                    out[i + j] += a * b
    return tuple(out)


def convolve(p: LatticePMF, q: LatticePMF, *, method: str = "auto") -> LatticePMF:
    """The law of X + X' for independent X ~ p and X' ~ q.

    ``method``: ``"direct"`` (``np.convolve``, every entry to a few ulps, no cancellation),
    ``"fft"`` (``scipy.signal.fftconvolve``; negative round-off clipped, mass
    renormalized; absolute error about 1e-16 of the largest mass), ``"tilted"`` (FFT of
    exponentially tilted pmfs, every resolved mass to about 1e-10 relative, see
    :func:`sum_of_users`), or ``"auto"`` (direct while ``len(p) * len(q)`` is below 5e6,
    tilted above). Exact fractions are propagated while ``len(p) * len(q)`` is below
    :data:`EXACT_MAX_WORK`.
    """
    instance(p, LatticePMF, name="p")
    instance(q, LatticePMF, name="q")
    choice(method, _METHODS, name="method")
    check_sum_size([p, q], name="convolve(p, q)")  # the whole hull is allocated
    work = p.probs.size * q.probs.size
    if method == "auto":
        method = "direct" if work <= DIRECT_MAX_WORK else "tilted"
    if method == "direct":
        probs, offset = np.convolve(p.probs, q.probs), p.offset + q.offset
    elif method == "fft":
        from scipy import signal   # imported here: scipy.signal costs ~0.5 s of start-up per workflow job
        probs, offset = signal.fftconvolve(p.probs, q.probs), p.offset + q.offset
        np.clip(probs, 0.0, None, out=probs)
        probs /= probs.sum()
    elif method == "tilted":
        offset, probs = _tilted_sum(*_stack_rows([p.probs, q.probs], np.array([p.offset, q.offset])))
    else:
        raise InvalidArgumentError(f"method = {method!r}: must be one of {', '.join(_METHODS)}")
    exact = None
    if p.exact is not None and q.exact is not None and work <= EXACT_MAX_WORK:
        exact = _exact_convolve(p.exact, q.exact)
        probs, offset = np.array([float(f) for f in exact]), p.offset + q.offset
    return LatticePMF(offset, probs, exact)


def _tree_stays_exact(users: Sequence[LatticePMF]) -> bool:
    """Would the pairwise tree of :func:`convolve` keep exact fractions up to the root?"""
    if any(u.exact is None for u in users):
        return False
    sizes = np.fromiter((u.probs.size for u in users), dtype=np.int64, count=len(users))
    while sizes.size > 1:
        a, b = sizes[0:-1:2], sizes[1::2]
        if np.any(a * b > EXACT_MAX_WORK):
            return False
        sizes = np.concatenate((a + b - 1, sizes[-1:] if sizes.size % 2 else sizes[:0]))
    return True


def sum_of_users(users, *, method: str = "auto") -> LatticePMF:
    """The law of the sum of independent users (Section 3: f(D) = sum_i D_i).

    ``users``: a sequence whose items are :class:`LatticePMF` (one user each) or
    ``(LatticePMF, count)`` pairs (``count`` users with that prior); or a 2-D array of
    probabilities, a row per user, row k giving Pr(D_k = j) for j = 0 .. m - 1 (each row
    must sum to 1 within :data:`~pufferfish.lattice.pmf.PMF_ATOL`; shift the result for
    another origin). Bad input raises :class:`InvalidDistributionError`, ``TypeError`` or
    ``ValueError`` naming the offending item.

    Small systems (at most :data:`SMALL_SYSTEM` users, or any system whose sum stays
    exact) are convolved pair by pair in a balanced tree with :func:`convolve`, exact
    fractions kept as long as they are cheap (groups are expanded first). Larger systems
    go through the batched engine, ``method``:

    * ``"auto"``: batched direct convolution (``np.convolve`` semantics: every mass to a
      few ulps, all users of a tree level at once) while a level costs at most
      :data:`DIRECT_LEVEL_WORK` multiply-adds, then the tilted FFT (below); a group is
      powered directly while its sum is at most sqrt(:data:`DIRECT_LEVEL_WORK`) points wide;
    * ``"direct"``: batched direct convolution up to the root (groups by direct binary
      powering), whatever it costs;
    * ``"tilted"``: direct only while the partial sums are at most 32 points long, tilted
      FFT above (the FFT path, also where direct would be cheap; for tests);
    * ``"fft"``: the pairwise tree of plain ``convolve(method="fft")`` (absolute error
      about 1e-16 of the largest mass: the tails are noise; kept as the naive baseline).

    In a list, one :class:`LatticePMF` object repeated at least :data:`GROUP_MIN` times is
    a group (methods ``auto`` and ``tilted``, large systems): data-derived users usually
    share a prior, and a group of c users costs log2(c) convolutions of the width of the
    result, whatever c is (binary powering: p^{*c} by squarings p, p^{*2}, p^{*4}, ...).

    Tilted FFT (accuracy at scale). A plain FFT has absolute error about 1e-16 of the
    largest mass, so a tail mass of 1e-12 would carry a relative error of 1e-4. For a tilt
    lambda the users p_k(x) e^{lambda x} / M_k(lambda) sum, by FFT, to
    S_lambda(x) = S(x) e^{lambda x - K(lambda)}, K(lambda) = sum_k log M_k(lambda) (computed
    from the users, rounding of the tilt factors e^{lambda j} corrected to first order, so
    that it does not grow with the number of users); S_lambda is accurate in relative terms
    where it is within :data:`TILT_WINDOW` of its own maximum, around its mean K'(lambda),
    and S(x) = S_lambda(x) exp(-lambda x + K(lambda)). Tilts are chosen outwards from
    lambda = 0, each by a Newton step on K'(lambda) = (edge of the resolved region) + 4.5
    sd(lambda), so that the accurate windows overlap, until the resolved mass at the edge
    is below :data:`TILT_FLOOR` or the hull ends; every point keeps the estimate of the tilt
    where it is most accurate. Result: every mass above :data:`TILT_FLOOR` (1e-300, i.e.
    every mass float64 holds as a normal number) is within about 1e-10 relative of the
    exact sum (measured, tests/unit/test_scale.py: 2e-11 against direct convolution for 10^3
    and 5 x 10^3 users; 6e-11 for 10^6 users on 5 points given as rows, and 9e-11 for 10^6
    Bernoulli users as one group, against binomial closed forms).
    Masses that no tilt resolves (below the floor; or in a valley more than 1e13 below the
    log-concave envelope of the sum, which no exponential tilt can lift) are set to 0, so
    the hull [lo, hi] of the result is the resolved part of the support; e.g. for 10^6
    users on 5 points the mathematical hull has 4e6 points but only about 9.5e4 carry a
    mass above 1e-300 (0.01^1000000 is not a float64). The mass left outside [lo, hi] is
    at most the Chernoff bound exp(K(l) - l (hi + 1)) + exp(K(-l') + l' (lo - 1)) for any
    l, l' > 0 (:func:`tail_mass_bound` minimizes it; below 1e-290 for the results of this
    engine).

    Windows. Within each tilt every partial sum is cut to the entries above
    :data:`TILT_TRUNCATE` (1e-15) of its own maximum and renormalized: for a partial sum of
    s users this keeps about mean +- 8.3 sd(s) of the tilted partial sum (Gaussian tails;
    wider when skewed), so FFT sizes follow the width sqrt(s) sd of the partial sums, not
    their hull s (m - 1). A cut removes at most width x 1e-15 of the maximum, i.e. a
    relative mass of about 1e-14, which the renormalization spreads evenly: the effect on
    a resolved mass is of the order of the round-off (below 1e-12 relative).

    Shared levels (why 10^6 users cost about 5 reads of the users, not one per tilt). Tilting
    commutes with convolution, so a partial sum computed under a tilt lambda' can serve a
    tilt lambda after multiplying it by e^{(lambda - lambda') x} and renormalizing. Its
    round-off (about 1e-16 of its maximum at lambda') is then amplified by
    ``amp`` = max(W) / max(W e^{(lambda - lambda') (x - x_far)}) (x_far the end of the window
    towards which the tilt moves); a partial sum is re-tilted when the product of the
    amplifications along its history stays at most :data:`RETILT_MAX_AMP` (64), else it is
    recomputed from the level below. The amplification is about e^{8.3 |lambda - lambda'| sd}:
    the partial sums of a few hundred users are shared by all the tilts of a sum of 10^6
    users, those near the root by none. Rows after the direct levels are exact (every mass
    to a few ulps) and are tilted without loss.

    A resolved sum that is convolved again by the tilted path (users with a few long
    alphabets, added after the others; groups added to the sum of distinct users;
    ``convolve`` above 5e6 multiply-adds) misses the dropped masses below the floor: its
    masses within about 1e10 of the floor (below ~1e-290) can be off by more; direct
    convolution of a resolved sum R~ with a short user (a query prior) is exact for R~.
    """
    choice(method, _METHODS, name="method")
    if isinstance(users, np.ndarray):
        rows = _check_rows(users)
        _check_size(rows.shape[0], rows.shape[0] * (rows.shape[1] - 1) + 1, _row_variance(rows), rows.shape[1] - 1,
                    method)
        if rows.shape[0] > SMALL_SYSTEM and method != "fft":
            return _sum_of_rows(rows, method)
        users = [LatticePMF(0, row) for row in rows]
    singles, groups = _split(users)
    _check_list_size(singles, groups, method)
    total = len(singles) + sum(count for _, count in groups)
    if total == 0:
        return LatticePMF.point(0)
    if groups:
        exact = method == "auto" and all(u.exact is not None for u in singles) \
            and all(pmf.exact is not None for pmf, _ in groups)
        if method == "fft" or total <= SMALL_SYSTEM or exact:
            expanded = singles + [pmf for pmf, count in groups for pmf in [pmf] * count]
            if method == "fft" or total <= SMALL_SYSTEM or _tree_stays_exact(expanded):
                singles, groups = expanded, []
    elif method in ("auto", "tilted") and len(singles) > SMALL_SYSTEM \
            and not (method == "auto" and _tree_stays_exact(singles)):
        singles, groups = _group_repeats(singles)
    if groups:
        return _sum_with_groups(singles, groups, method)
    users = singles
    if method == "fft" or len(users) <= SMALL_SYSTEM or (method == "auto" and _tree_stays_exact(users)):
        layer = users
        while len(layer) > 1:
            nxt = [convolve(layer[k], layer[k + 1], method=method) for k in range(0, len(layer) - 1, 2)]
            if len(layer) % 2:
                nxt.append(layer[-1])
            layer = nxt
        return layer[0]
    if method != "fft":
        common = _as_rows(users)
        if common is not None:                         # the array form: one engine, one law for both inputs
            base, rows = common
            return _sum_of_rows(rows, method).shift(len(users) * base)
    sizes = np.fromiter((u.probs.size for u in users), dtype=np.int64, count=len(users))
    wide = sizes > max(8, 4 * int(np.median(sizes)))
    if wide.any() and (~wide).sum() >= 2:
        # a few long alphabets: batch the short ones, then add the long ones (rows stay narrow)
        narrow = sum_of_users([u for u, w in zip(users, wide) if not w], method=method)
        return sum_of_users([narrow] + [u for u, w in zip(users, wide) if w], method=method)
    limit = {"auto": DIRECT_LEVEL_WORK, "direct": math.inf, "tilted": 0.0}[method]
    rows, offs = _direct_levels(*_columns(users), limit)
    if rows.shape[0] == 1:
        return LatticePMF(int(offs[0]), rows[0])
    lo, probs = _tilted_sum(rows, offs)
    return LatticePMF(lo, probs)


def tail_mass_bound(users, lo: int, hi: int) -> float:
    """An upper bound on Pr(X < lo) + Pr(X > hi) for the sum X of ``users`` (any form of :func:`sum_of_users`).

    Chernoff: Pr(X > hi) <= exp(K(l) - l (hi + 1)) for every l > 0 and
    Pr(X < lo) <= exp(K(-l) + l (lo - 1)), with K(l) = sum_k log E[e^{l D_k}] computed from
    the users (in log space, no overflow); l is chosen by safeguarded Newton steps on
    K'(l) = hi + 1 (resp. lo - 1), the minimizer. It bounds the mass a resolved sum leaves
    outside its hull [lo, hi]. Costs about 20 evaluations of K (milliseconds for 10^6 users).
    """
    lo, hi = integer(lo, name="lo"), integer(hi, name="hi")
    if lo > hi:
        raise InvalidArgumentError(f"lo = {lo}: must be <= hi = {hi}")
    law, base, jlo, jhi = _law_of(users)
    total = 0.0
    for edge, sign in ((hi + 1 - base, 1.0), (lo - 1 - base, -1.0)):
        beyond = edge > jhi if sign > 0 else edge < jlo
        if beyond:
            continue                                   # no mass out there
        best, lam, hi_lam, lo_lam = 0.0, 0.0, math.inf, 0.0   # log bound at lam = 0 is log 1
        for _ in range(60):
            c = law.at(sign * lam)
            value = float(c.logk - np.longdouble(sign * lam) * np.longdouble(edge))
            best = min(best, value)
            slope = sign * c.mean - sign * edge          # d/dlam of K(sign lam) - sign lam edge
            if slope < 0:
                lo_lam = lam
            else:
                hi_lam = lam
            step = -slope / max(c.var, 1e-300)
            nxt = lam + step
            if not (lo_lam < nxt < hi_lam):            # Newton left the bracket: bisect (or double)
                nxt = 0.5 * (lo_lam + hi_lam) if math.isfinite(hi_lam) else max(2.0 * lam, 1.0)
            if abs(nxt - lam) <= 1e-12 * max(1.0, lam):
                break
            lam = nxt
        total += math.exp(best)
    return min(total, 1.0)


# --------------------------------------------------------------------------------- inputs
def _check_rows(users: np.ndarray) -> np.ndarray:
    """Users as a 2-D array of probabilities (a row per user): refused unless every row is a pmf."""
    if users.ndim != 2 or users.shape[0] == 0 or users.shape[1] == 0:
        raise InvalidDistributionError(f"users: a 2-D array of probabilities (a row per user) is needed, got shape "
                                       f"{users.shape}")
    if users.dtype == bool or not (np.issubdtype(users.dtype, np.integer) or np.issubdtype(users.dtype, np.floating)):
        raise TypeError(f"users: the array must hold real probabilities, got dtype {users.dtype}")
    rows = np.ascontiguousarray(users, dtype=float)
    bad = ~np.isfinite(rows) | (rows < 0)
    if bad.any():
        k = int(bad.any(axis=1).argmax())
        raise InvalidDistributionError(f"users: row {k} has a negative or non-finite probability "
                                       f"({float(rows[k][bad[k]][0]):.12g})")
    sums = rows.sum(axis=1)
    off = np.abs(sums - 1.0) > PMF_ATOL
    if off.any():
        k = int(off.argmax())
        raise InvalidDistributionError(f"users: row {k} sums to {float(sums[k]):.12g}, must sum to 1 "
                                       f"(within {PMF_ATOL:g})")
    return rows


#: the tilted engine resolves about this many standard deviations of the sum either side of its mean
#: (a Gaussian tail falls below TILT_FLOOR = 1e-300 at 37.2 sd): the width it allocates
RESOLVED_SDS = 40.0


def _variance(pmf: LatticePMF) -> float:
    """Var X from the atoms alone (no array of the hull's size: two atoms 10^6 apart cost two numbers)."""
    nz = np.flatnonzero(pmf.probs)
    w, x = pmf.probs[nz], nz.astype(float)
    mean = float(w @ x)
    return max(float(w @ (x - mean) ** 2), 0.0)


def _row_variance(rows: np.ndarray) -> float:
    x = np.arange(rows.shape[1], dtype=float)
    mean = rows @ x
    return float(np.maximum(rows @ (x * x) - mean * mean, 0.0).sum())


def _check_size(count: int, hull: int, variance: float, span: int, method: str) -> None:
    """Refuse, before any convolution, a sum whose lattice exceeds :data:`MAX_LATTICE_POINTS`.

    The exact, direct and plain-FFT paths (and every system of at most
    :data:`SMALL_SYSTEM` users) allocate the whole hull, sum(len - 1) + 1 points; the tilted
    engine allocates about the width it resolves, min(hull, 2 :data:`RESOLVED_SDS` sd + 2 span + 1)
    (sd the standard deviation of the sum, span the longest user's): 10^7 users on five points
    pass (about 3.5e5 points), 2,000 users with atoms 10^6 apart do not (about 1.8e9).
    """
    if method in ("direct", "fft") or count <= SMALL_SYSTEM:
        points, what = hull, "the hull of their sum"
    else:
        width = 2.0 * RESOLVED_SDS * math.sqrt(variance) + 2 * span + 1
        points = int(min(hull, math.ceil(width))) if math.isfinite(width) else hull
        what = "the width of their sum the tilted engine resolves" if points < hull else "the hull of their sum"
    if points > MAX_LATTICE_POINTS:
        check_lattice_size(points, name="users", what=what)


#: users of a list with at most this many lattice points are measured together, as rows of one array
_NARROW = 64


def _check_list_size(singles: list[LatticePMF], groups: list[tuple[LatticePMF, int]], method: str) -> None:
    """:func:`_check_size` for a list: the users converted once, not a numpy call per user.

    The narrow users (at most :data:`_NARROW` points) are stacked by size into 2-D arrays whose
    variances come from :func:`_row_variance`, as for users given as an array (a variance does not
    depend on the offset); the wide ones (each object once) and the groups are measured from their atoms
    (:func:`_variance`).
    """
    sizes = np.fromiter((u.probs.size for u in singles), dtype=np.int64, count=len(singles))
    variance = 0.0
    for size in np.unique(sizes[sizes <= _NARROW]):
        pick = np.flatnonzero(sizes == size)
        variance += _row_variance(np.concatenate([singles[k].probs for k in pick]).reshape(pick.size, int(size)))
    wide = Counter(id(singles[k]) for k in np.flatnonzero(sizes > _NARROW))   # a shared prior measured once
    if wide:
        variance += sum(c * _variance(u) for u, c in {id(u): (u, wide[id(u)]) for u in singles
                                                       if id(u) in wide}.values())
    variance += sum(c * _variance(u) for u, c in groups)
    count = len(singles) + sum(c for _, c in groups)
    hull = int((sizes - 1).sum()) + sum(c * (u.probs.size - 1) for u, c in groups) + 1
    span = max(int(sizes.max()) - 1 if sizes.size else 0, max((u.probs.size - 1 for u, _ in groups), default=0))
    _check_size(count, hull, variance, span, method)


def _as_rows(users: Sequence[LatticePMF]) -> tuple[int, np.ndarray] | None:
    """(base, rows): the users as a 2-D array on base + 0 .. m - 1, when m <= :data:`_NARROW`; else None.

    The conversion at the boundary that makes a list of users cost what the same users as an
    array cost: users sharing (offset, size) are copied into the array together.
    """
    offs = np.fromiter((u.offset for u in users), dtype=np.int64, count=len(users))
    sizes = np.fromiter((u.probs.size for u in users), dtype=np.int64, count=len(users))
    base = int(offs.min())
    width = int((offs + sizes).max()) - base
    if width > _NARROW:
        return None
    rows = np.zeros((len(users), width))
    key = (offs - base) * (_NARROW + 1) + sizes
    for k in np.unique(key):
        pick = np.flatnonzero(key == k)
        start, size = int(offs[pick[0]]) - base, int(sizes[pick[0]])
        rows[pick, start:start + size] = np.concatenate([users[j].probs for j in pick]).reshape(pick.size, size)
    return base, rows


def _split(users) -> tuple[list[LatticePMF], list[tuple[LatticePMF, int]]]:
    """Single users and (prior, count) groups, every item checked."""
    if isinstance(users, (LatticePMF, str, bytes, Mapping)) or not isinstance(users, Iterable):
        raise ArgumentTypeError(f"users = {users!r:.60}: must be a list of LatticePMF (or (LatticePMF, count) "
                                f"pairs, or a 2-D array), not {type(users).__name__}")
    singles, groups = [], []
    for k, u in enumerate(users):
        if isinstance(u, LatticePMF):
            singles.append(u)
        elif isinstance(u, tuple) and len(u) == 2 and isinstance(u[0], LatticePMF):
            count = u[1]
            if isinstance(count, (bool, np.bool_)) or not isinstance(count, (int, np.integer)) or count < 0:
                raise InvalidArgumentError(f"users[{k}]: the count of a (prior, count) group must be an integer "
                                           f">= 0, got {count!r}")
            if count:
                groups.append((u[0], int(count)))
        else:
            hint = " (pass user.pmf, the law of a User)" if hasattr(u, "pmf") else ""
            raise ArgumentTypeError(f"users[{k}] = {u!r:.60}: must be a LatticePMF or a (LatticePMF, count) pair, "
                                    f"not {type(u).__name__}{hint}")
    return singles, groups


#: a LatticePMF object repeated at least this many times in a large list is summed as one power
GROUP_MIN = 32


def _group_repeats(singles: list[LatticePMF]) -> tuple[list[LatticePMF], list[tuple[LatticePMF, int]]]:
    """Objects repeated at least GROUP_MIN times become (prior, count) groups (by identity, O(n))."""
    counts = Counter(map(id, singles))
    if max(counts.values()) < GROUP_MIN:
        return singles, []
    groups, seen, rest = [], set(), []
    for u in singles:
        c = counts[id(u)]
        if c < GROUP_MIN:
            rest.append(u)
        elif id(u) not in seen:
            seen.add(id(u))
            groups.append((u, c))
    return rest, groups


def _direct_power(pmf: LatticePMF, count: int) -> LatticePMF:
    """p^{*count} by binary powering with ``np.convolve`` (every mass to a few ulps; no cancellation)."""
    result, base, k = None, pmf.probs, count
    while True:
        if k & 1:
            result = base if result is None else np.convolve(result, base)
        k >>= 1
        if not k:
            break
        base = np.convolve(base, base)
    return LatticePMF(count * pmf.offset, result)


def _sum_with_groups(singles: list[LatticePMF], groups: list[tuple[LatticePMF, int]], method: str) -> LatticePMF:
    """Distinct users (summed as usual) plus groups (direct powers where cheap, else tilted powers)."""
    powered, tilted = [], []
    for pmf, count in groups:
        width = count * (pmf.probs.size - 1) + 1
        if method == "direct" or (method == "auto" and width * width <= DIRECT_LEVEL_WORK):
            powered.append(_direct_power(pmf, count))
        else:
            tilted.append((pmf.probs, pmf.offset, count))
    parts = ([sum_of_users(singles, method=method)] if singles else []) + powered
    if not tilted:
        return parts[0] if len(parts) == 1 else sum_of_users(parts, method=method)
    if parts:
        rows, offs = _stack_rows([q.probs for q in parts], np.array([q.offset for q in parts]))
    else:
        rows, offs = np.zeros((0, 1)), np.zeros(0, dtype=np.int64)
    lo, probs = _tilted_sum(rows, offs, tilted)
    return LatticePMF(lo, probs)


def _sum_of_rows(rows: np.ndarray, method: str) -> LatticePMF:
    """The large-system engine on users given as a 2-D array (all on 0 .. m - 1)."""
    limit = {"auto": DIRECT_LEVEL_WORK, "direct": math.inf, "tilted": 0.0}[method]
    partial, offs = _direct_levels(np.ascontiguousarray(rows.T), np.zeros(rows.shape[0], dtype=np.int64), limit)
    if partial.shape[0] == 1:
        return LatticePMF(int(offs[0]), partial[0])
    lo, probs = _tilted_sum(partial, offs)
    return LatticePMF(lo, probs)


# --------------------------------------------------------------------------------- batched engine
#: batched direct convolution while one tree level costs at most this many multiply-adds
DIRECT_LEVEL_WORK = 3e7
#: at most this many users are summed by the pairwise tree of :func:`convolve`
SMALL_SYSTEM = 64
#: masses below this are not resolved by the tilted FFT (set to 0)
TILT_FLOOR = 1e-300
#: a tilt's estimate counts as accurate where the tilted mass is >= this fraction of its maximum
TILT_WINDOW = 1e-5
#: an estimate below this fraction of its tilt's maximum is FFT round-off: unresolved (0)
TILT_NOISE = 1e-13
#: within a tilted tree, entries below this fraction of their row's maximum are dropped
TILT_TRUNCATE = 1e-15
#: a partial sum is re-tilted (not recomputed) while its round-off grows by at most this factor
RETILT_MAX_AMP = 256.0
#: a cached level is tried for re-tilting only while |delta| sd is at most this (about amp = e^{8.3 x 0.7})
_PREFILTER = 0.7
#: at most this many tilts per sum (a guard; 10^6 users on 5 points need 11)
MAX_TILTS = 200
#: the Newton step puts the next tilt's mean this many of its sd beyond the resolved edge
_TILT_STEP_SD = 4.5
#: a Newton step changes the tilt by at most this much (near a hull end the sd vanishes)
_MAX_TILT_STEP = 8.0
#: direct levels of method="tilted" stop at this row length
_TILTED_DIRECT_LENGTH = 32
#: direct levels of methods auto/direct go on, whatever a level costs, while they form rows of at most this length
_EXACT_ROW_LENGTH = 33
#: shifts and adds of a direct level work on chunks of pairs of about this many bytes per operand
_DIRECT_CHUNK_BYTES = 1 << 18
#: the FFTs of a level work on chunks of pairs of about this many bytes
_FFT_CHUNK_BYTES = 1 << 21
#: threads of the batched FFTs (scipy.fft workers; -1: every CPU; results do not depend on it; 1 on a shared machine)
FFT_WORKERS = 1
#: tilt factors e^{lambda j} are used in linear space while |lambda| (width - 1) is below this
_LINEAR_TILT_EXPONENT = 600.0


def _stack_rows(arrays: Sequence[np.ndarray], offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of equal length (shorter ones zero-padded at the end) and their offsets."""
    width = max(a.size for a in arrays)
    rows = np.zeros((len(arrays), width))
    for k, a in enumerate(arrays):
        rows[k, :a.size] = a
    return rows, np.asarray(offs, dtype=np.int64)


def _direct_pairs(cols: np.ndarray) -> np.ndarray:
    """Column-wise convolutions of columns 2k and 2k+1 of ``cols`` (length x count layout).

    Shifts and adds vectorized over the pairs, in chunks of pairs that fit in a cache
    (every sum is accumulated in the same order as without chunks: the same bits).
    """
    length, count = cols.shape
    pairs = count // 2
    if pairs >= length:
        out = np.zeros((2 * length - 1, pairs))
        step = max(16, _DIRECT_CHUNK_BYTES // (8 * length))
        tmp = np.empty((length, min(step, pairs)))
        for p0 in range(0, pairs, step):
            p1 = min(pairs, p0 + step)
            a = np.ascontiguousarray(cols[:, 2 * p0:2 * p1:2])
            b = np.ascontiguousarray(cols[:, 2 * p0 + 1:2 * p1:2])
            o = out[:, p0:p1]
            t = tmp[:, :p1 - p0]
            for i in range(length):
                np.multiply(a[i], b, out=t)
                o[i:i + length] += t
        return out
    out = np.empty((2 * length - 1, pairs))
    for k in range(pairs):
        out[:, k] = np.convolve(cols[:, 2 * k], cols[:, 2 * k + 1])
    return out


def _columns(users: Sequence[LatticePMF]) -> tuple[np.ndarray, np.ndarray]:
    """The users as columns (length x count, zero padded at the end) and their offsets."""
    arrays = [u.probs for u in users]
    offs = np.array([u.offset for u in users], dtype=np.int64)
    sizes = np.fromiter(map(len, arrays), dtype=np.int64, count=len(arrays))
    width = int(sizes.max())
    if width == sizes.min():
        cols = np.concatenate(arrays).reshape(len(arrays), width).T.copy()
    else:
        cols = np.zeros((width, len(arrays)))
        for k, a in enumerate(arrays):
            cols[:a.size, k] = a
    return cols, offs


def _direct_levels(cols: np.ndarray, offs: np.ndarray, max_work: float) -> tuple[np.ndarray, np.ndarray]:
    """Batched balanced-tree direct convolution of the users in ``cols`` while a level is cheap.

    ``cols`` holds a user per column (length x count). Returns the partial sums of the
    last level computed as rows (count x length, zero padded at the end) and their
    offsets. A level pairs neighbours; an odd count is padded with the point mass at 0.
    ``max_work = 0`` stops at rows of 32 points; otherwise rows of up to
    :data:`_EXACT_ROW_LENGTH` points are always formed (shifts and adds cost about as much
    as FFTs there, and exact rows can be tilted without loss).
    """
    while cols.shape[1] > 1:
        length, count = cols.shape
        if max_work == 0.0:
            if length > _TILTED_DIRECT_LENGTH:
                break
        elif (count // 2) * length * length > max_work and 2 * length - 1 > _EXACT_ROW_LENGTH:
            break
        if count % 2:
            pad = np.zeros((length, 1))
            pad[0, 0] = 1.0
            cols = np.hstack([cols, pad])
            offs = np.append(offs, 0)
        cols = _direct_pairs(cols)
        offs = offs[0::2] + offs[1::2]
    return np.ascontiguousarray(cols.T), offs


# ------------------------------------------------------------------ the law of the sum: K(lambda)
class _Cumulants(NamedTuple):
    """K, K', K'' of the sum at one tilt (index coordinates J = x - base)."""

    logk: np.longdouble     # K(lambda) = sum_k log M_k(lambda), in extended precision
    mean: float             # K'(lambda)
    var: float              # K''(lambda)
    row_var: float          # the mean variance of a (tilted) row


class _Law:
    """The users of a tilted sum: rows (a pmf each, exact) and groups (prior, count).

    ``at(lam)`` gives the cumulants of the sum and, for the rows, the tilted rows that the
    FFT levels start from. The tilt factors t_j = fl(e^{lam j}) are the same for every row,
    so their rounding d_j = t_j / e^{lam j} - 1 would bias K by sum_rows E_row[d] (about
    rows x 1e-16); it is removed: log M_r = log(sum_j P_r(j) t_j) - E_{row r tilted}[d] to
    first order, with d_j from extended-precision exponentials. The tilted rows are
    normalized by their computed sums, so their own perturbation d_j - E[d] has mean 0.
    """

    def __init__(self, rows: np.ndarray, groups: Sequence[tuple[np.ndarray, int, int]]):
        self.rows = rows
        self.j = np.arange(rows.shape[1], dtype=float)
        self.groups = list(groups)
        self._logrows = None
        self._last = (None, None, None)

    def _row_tilt(self, lam: float):
        rows, j = self.rows, self.j
        if rows.shape[0] == 0:
            return np.longdouble(0), 0.0, 0.0, 0.0, rows
        ld_j = np.arange(j.size, dtype=np.longdouble)
        if abs(lam) * (j.size - 1) <= _LINEAR_TILT_EXPONENT:
            t = np.exp(lam * j)
            # (3, rows) in one pass; einsum, not BLAS: a multi-threaded GEMM with 3 columns stalls on a busy machine
            m = np.einsum("rj,kj->kr", rows, np.stack([t, j * t, j * j * t]))
            s = m[0]
            inv = 1.0 / s
            mean = m[1] * inv
            var = np.maximum(m[2] * inv - mean * mean, 0.0)
            d = (t.astype(np.longdouble) / np.exp(np.longdouble(lam) * ld_j) - 1).astype(float)
            corr = float(np.dot(t * d, np.einsum("rj,r->j", rows, inv)))
            logk = np.sum(np.log(s), dtype=np.longdouble) - np.longdouble(corr)
            tilted = (t, inv)                       # the tilted rows are rows * t * inv (formed on demand)
        else:                                   # log space: tilt factors beyond e^{+-600}
            if self._logrows is None:
                with np.errstate(divide="ignore"):
                    self._logrows = np.log(rows)
            lj = lam * j
            v = self._logrows + lj
            top = v.max(axis=1, keepdims=True)
            w = np.exp(v - top)
            s = w.sum(axis=1)
            w /= s[:, None]
            mean = np.einsum("rj,j->r", w, j)
            var = np.maximum(np.einsum("rj,j->r", w, j * j) - mean * mean, 0.0)
            d = (lj.astype(np.longdouble) - np.longdouble(lam) * ld_j).astype(float)   # e^{fl(lam j)} = e^{lam j}(1 + d)
            corr = float(np.dot(w.sum(axis=0), d))
            logk = np.sum(top[:, 0] + np.log(s), dtype=np.longdouble) - np.longdouble(corr)
            tilted = w
        return logk, float(np.sum(mean)), float(np.sum(var)), float(np.mean(var)), tilted

    def tilted_prior(self, k: int, lam: float) -> tuple[np.ndarray, np.longdouble, float, float]:
        """Group k's prior tilted by ``lam`` (float64, normalized), log M(lam) (extended), mean, var."""
        probs, _, _ = self.groups[k]
        j = np.arange(probs.size, dtype=np.longdouble)
        with np.errstate(divide="ignore"):
            v = np.log(probs.astype(np.longdouble)) + np.longdouble(lam) * j
        top = v.max()
        e = np.exp(v - top)
        s = e.sum()
        w = (e / s).astype(float)
        w /= w.sum()
        jf = j.astype(float)
        mean = float(w @ jf)
        return w, top + np.log(s), mean, float(max(w @ (jf * jf) - mean * mean, 0.0))

    def at(self, lam: float) -> _Cumulants:
        if self._last[0] == lam:
            return self._last[1]
        logk, mean, var, row_var, tilted = self._row_tilt(lam)
        for k, (_, _, count) in enumerate(self.groups):
            _, logm, gm, gv = self.tilted_prior(k, lam)
            logk += count * logm
            mean += count * gm
            var += count * gv
        out = _Cumulants(logk, mean, var, row_var)
        self._last = (lam, out, tilted)
        return out

    def tilted_rows(self, lam: float) -> np.ndarray:
        """The rows tilted by ``lam``, each normalized by the sum that enters K (consistent)."""
        self.at(lam)
        tilted = self._last[2]
        if isinstance(tilted, tuple):
            t, inv = tilted
            tilted = np.multiply(self.rows, t)
            tilted *= inv[:, None]
        return tilted


def _law_of(users) -> tuple[_Law, int, int, int]:
    """The law (rows and groups) of ``users`` in any input form; base, and the hull in J = x - base."""
    if isinstance(users, np.ndarray):
        rows = _check_rows(users)
        offs, groups = np.zeros(rows.shape[0], dtype=np.int64), []
    else:
        singles, pairs = _split(users)
        if singles:
            rows, offs = _stack_rows([u.probs for u in singles], np.array([u.offset for u in singles]))
        else:
            rows, offs = np.zeros((0, 1)), np.zeros(0, dtype=np.int64)
        groups = [(p.probs, p.offset, c) for p, c in pairs]
    base, jlo, jhi = _hull(rows, offs, groups)
    return _Law(rows, groups), base, jlo, jhi


def _hull(rows: np.ndarray, offs: np.ndarray, groups) -> tuple[int, int, int]:
    """base = sum of the offsets, and the hull of the sum in J = x - base."""
    base = int(offs.sum()) + sum(count * off for _, off, count in groups)
    jlo = jhi = 0
    if rows.shape[0]:
        nonzero = rows > 0
        jlo = int(nonzero.argmax(axis=1).sum())
        jhi = int((rows.shape[1] - 1 - nonzero[:, ::-1].argmax(axis=1)).sum())
    for probs, _, count in groups:
        nz = np.flatnonzero(probs > 0)
        jlo += count * int(nz[0])
        jhi += count * int(nz[-1])
    return base, jlo, jhi


# ------------------------------------------------------------------ FFT levels, shared between tilts
def _fft_level(rows: np.ndarray, offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One tree level: rows 2k and 2k+1 (tilted pmfs) convolved by FFT, cut at TILT_TRUNCATE, renormalized.

    Works on chunks of pairs of about :data:`_FFT_CHUNK_BYTES` (transforms, cut and
    renormalization stay in the cache); an odd last row is carried up unchanged (its
    partner would be the point mass at 0). Rows are cut to their own window (entries
    >= TILT_TRUNCATE of their maximum) and zero-padded to the widest window of the level.
    """
    from scipy import fft as sp_fft   # imported here: scipy costs ~0.2 s of start-up to jobs that never sum at scale

    count, length = rows.shape
    pairs, odd = divmod(count, 2)
    size = 2 * length - 1
    nfft = sp_fft.next_fast_len(size, real=True)
    step = max(1, _FFT_CHUNK_BYTES // (16 * nfft))
    workers = FFT_WORKERS if pairs > step else 1
    blocks, starts, width = [], np.zeros(pairs + odd, dtype=np.int64), 1
    for p0 in range(0, pairs, step):
        p1 = min(pairs, p0 + step)
        spec = sp_fft.rfft(rows[2 * p0:2 * p1], nfft, axis=1, workers=workers)
        chunk = sp_fft.irfft(spec[0::2] * spec[1::2], nfft, axis=1, overwrite_x=True, workers=workers)[:, :size]
        keep = chunk >= chunk.max(axis=1, keepdims=True) * TILT_TRUNCATE
        first = keep.argmax(axis=1)
        w = int((size - 1 - keep[:, ::-1].argmax(axis=1) - first).max()) + 1
        start = np.minimum(first, size - w)
        block = np.lib.stride_tricks.sliding_window_view(chunk, w, axis=1)[np.arange(p1 - p0), start]
        np.maximum(block, 0.0, out=block)
        block /= block.sum(axis=1, keepdims=True)
        blocks.append(block)
        starts[p0:p1] = start
        width = max(width, w)
    if odd:
        blocks.append(rows[-1:])
        width = max(width, length)
    out = np.zeros((pairs + odd, width))
    r = 0
    for block in blocks:
        out[r:r + block.shape[0], :block.shape[1]] = block
        r += block.shape[0]
    new_offs = np.empty(pairs + odd, dtype=np.int64)
    new_offs[:pairs] = offs[0:2 * pairs:2] + offs[1:2 * pairs:2]
    if odd:
        new_offs[pairs] = offs[-1]
    return out, new_offs + starts


def _fft_tree(rows: np.ndarray, offs: np.ndarray) -> tuple[np.ndarray, int]:
    """Sum of the rows (each a pmf) by batched FFT levels; every level truncated at TILT_TRUNCATE."""
    while rows.shape[0] > 1:
        rows, offs = _fft_level(rows, offs)
    return rows[0], int(offs[0])


def _tilted_power(w: np.ndarray, off: int, count: int) -> tuple[np.ndarray, int]:
    """w^{*count} by binary powering (squarings w, w^{*2}, w^{*4}, ... by FFT, each level cut and renormalized)."""
    result = None
    base = (w[None, :], np.array([off], dtype=np.int64))
    k = count
    while True:
        if k & 1:
            if result is None:
                result = base
            else:
                result = _fft_level(*_stack_rows([result[0][0], base[0][0]], np.array([result[1][0], base[1][0]])))
        k >>= 1
        if not k:
            break
        base = _fft_level(np.vstack([base[0], base[0]]), np.concatenate([base[1], base[1]]))
    return result[0][0], int(result[1][0])


class _Entry(NamedTuple):
    """A level of the tree computed under tilt ``lam``; its round-off is ``err`` x that of a fresh level."""

    lam: float
    rows: np.ndarray
    offs: np.ndarray
    err: float


def _retilt(rows: np.ndarray, delta: float, limit: float = math.inf) -> tuple[np.ndarray | None, float]:
    """Rows (tilted pmfs) multiplied by e^{delta x} and renormalized; and the amplification of their round-off.

    An entry's error is at most eps x max(row) before; after the tilt (factors e^{delta (x - x_far)}
    <= 1, x_far the window end the tilt moves towards) it is at most eps x max(row) while the new
    maximum is max(row e^{...}): amp = max(row) / max(row e^{...}) per row, the largest is
    returned. Works in chunks; stops (returns None) as soon as amp exceeds ``limit``.
    """
    count, width = rows.shape
    far = width - 1 if delta > 0 else 0
    f = np.exp(delta * (np.arange(width, dtype=float) - far))
    out = np.empty_like(rows)
    step = max(1, _FFT_CHUNK_BYTES // (8 * width))
    amp = 1.0
    for r0 in range(0, count, step):
        r1 = min(count, r0 + step)
        block = np.multiply(rows[r0:r1], f, out=out[r0:r1])
        top = block.max(axis=1)
        with np.errstate(divide="ignore"):
            amp = max(amp, float(np.max(rows[r0:r1].max(axis=1) / top)))
        if not amp <= limit:
            return None, amp
        block /= block.sum(axis=1, keepdims=True)
    return out, amp


class _SharedTree:
    """The FFT tree of the rows of a tilted sum, its levels shared between tilts by re-tilting (see sum_of_users)."""

    def __init__(self, law: _Law, offs: np.ndarray, stats: dict):
        self.law, self.offs, self.stats = law, offs, stats
        count, depth = law.rows.shape[0], 0
        while count > 1:
            count, depth = (count + 1) // 2, depth + 1
        self.depth = depth
        self.cache: list[list[_Entry]] = [[] for _ in range(depth + 1)]
        self.latest = 0.0

    def root(self, lam: float) -> tuple[np.ndarray, int]:
        self.latest = lam
        rows, offs, _ = self._at(self.depth, lam)
        return rows[0], int(offs[0])

    def _at(self, level: int, lam: float) -> tuple[np.ndarray, np.ndarray, float]:
        if level == 0:
            return self.law.tilted_rows(lam), self.offs, 1.0
        shared = self._shared(level, lam)
        if shared is not None:
            return shared
        rows, offs, err = self._at(level - 1, lam)
        rows, offs = _fft_level(rows, offs)
        # keep the levels of the first tilt (lambda = 0) and of the latest one: tilts move
        # outwards, so the next one is nearest to one of them (memory stays a few levels)
        self.cache[level] = [e for e in self.cache[level] if e.lam == 0.0 or e.lam == self.latest]
        self.cache[level].append(_Entry(lam, rows, offs, err))
        self.stats["fresh_levels"] += 1
        return rows, offs, err

    def _shared(self, level: int, lam: float):
        """A cached level re-tilted to ``lam``, if its round-off stays within RETILT_MAX_AMP; else None."""
        # rows of this level are sums of about 2^level rows: sd ~ sqrt(2^level var); the
        # amplification is about err e^{8.3 |delta| sd}: try the entry where it is smallest,
        # unless |delta| sd > 0.7 (e^{5.8} > 64)
        sd = math.sqrt(max(self.law.at(lam).row_var, 1e-300) * 2.0 ** level)
        best, cost = None, math.inf
        for entry in self.cache[level]:
            delta = lam - entry.lam
            if delta == 0.0:
                return entry.rows, entry.offs, entry.err
            estimate = math.log(entry.err) + 8.3 * abs(delta) * sd
            if abs(delta) * sd <= _PREFILTER and estimate < cost:
                best, cost = entry, estimate
        if best is None:
            return None
        rows, amp = _retilt(best.rows, lam - best.lam, RETILT_MAX_AMP / best.err)
        if rows is None:
            return None
        self.stats["retilted_levels"] += 1
        return rows, best.offs, best.err * amp


class _Tilt(NamedTuple):
    """One tilted sum: S(x) = exp(logval[x - start]), accurate where score >= log(TILT_WINDOW)."""

    lam: float
    mean: float        # K'(lam), the mean of the tilted sum
    sd: float          # sqrt(K''(lam))
    start: int         # first lattice point of the (truncated) tilted sum
    logval: np.ndarray  # log S(x), through exp(-lam x + K(lam))
    score: np.ndarray   # log S_lam(x) - max log S_lam: the accuracy of each estimate
    acc_lo: int        # the accurate window (score >= log TILT_WINDOW)
    acc_hi: int


def _tilted_sum(rows: np.ndarray, offs: np.ndarray, groups: Sequence[tuple[np.ndarray, int, int]] = (), *,
                stats: dict | None = None) -> tuple[int, np.ndarray]:
    """Sum of the pmfs in ``rows`` (offsets ``offs``) and of the ``groups`` (probs, offset, count) by tilted FFTs.

    Returns (lo, probs). ``stats`` (a dict, optional) receives the number of tilts, of FFT
    levels computed and of levels re-tilted. See :func:`sum_of_users` for the method and
    its accuracy.
    """
    stats = {} if stats is None else stats
    stats.update(tilts=0, fresh_levels=0, retilted_levels=0)
    offs = np.asarray(offs, dtype=np.int64)
    groups = [(np.asarray(p, dtype=float), int(o), int(c)) for p, o, c in groups]
    base, jlo, jhi = _hull(rows, offs, groups)      # x = base + J
    hull_lo, hull_hi = base + jlo, base + jhi
    law = _Law(rows, groups)
    tree = _SharedTree(law, offs, stats) if rows.shape[0] else None
    tilts: list[_Tilt] = []

    def run(lam: float) -> _Tilt:
        cum = law.at(lam)
        parts, starts = [], []
        if tree is not None:
            row, off = tree.root(lam)
            parts.append(row)
            starts.append(off)
        for k, (_, goff, count) in enumerate(groups):
            w = law.tilted_prior(k, lam)[0]
            row, off = _tilted_power(w, goff, count)
            parts.append(row)
            starts.append(off)
        if len(parts) > 1:
            row, off = _fft_tree(*_stack_rows(parts, np.array(starts)))
        else:
            row, off = parts[0], starts[0]
        with np.errstate(divide="ignore"):
            lr = np.log(row)
        score = lr - lr.max()
        # log S(x) = log S_lam(x) - lam (J - jc) + (K(lam) - lam jc), J = x - base, jc near the tilted mean:
        # the two large terms lam J and K(lam) cancel in extended precision, not in float64
        jc = int(round(cum.mean))
        kc = float(cum.logk - np.longdouble(lam) * np.longdouble(jc))
        logval = lr - lam * np.arange(off - base - jc, off - base - jc + row.size, dtype=float) + kc
        accurate = np.flatnonzero(score >= math.log(TILT_WINDOW))
        tilt = _Tilt(lam, base + cum.mean, math.sqrt(cum.var), off, logval, score,
                     off + int(accurate[0]), off + int(accurate[-1]))
        tilts.append(tilt)
        stats["tilts"] += 1
        return tilt

    def resolved_log_mass(x: int) -> float:
        best, value = -math.inf, -math.inf
        for t in tilts:
            k = x - t.start
            if 0 <= k < t.logval.size and t.score[k] > best:
                best, value = t.score[k], t.logval[k]
        return value

    center = run(0.0)
    floor = math.log(TILT_FLOOR)
    for direction in (1, -1):
        last = center
        edge = center.acc_hi if direction > 0 else center.acc_lo
        while len(tilts) < MAX_TILTS:
            if (edge >= hull_hi if direction > 0 else edge <= hull_lo) or resolved_log_mass(edge) < floor:
                break
            # Newton step on K'(lam) = edge +- 4.5 sd, shrunk until the windows touch
            target = edge + direction * _TILT_STEP_SD * last.sd
            step = (target - last.mean) / max(last.sd ** 2, 1e-300)
            step = max(-_MAX_TILT_STEP, min(_MAX_TILT_STEP, step))
            while True:
                t = run(last.lam + step)
                touches = t.acc_lo <= edge + 1 if direction > 0 else t.acc_hi >= edge - 1
                if touches or len(tilts) >= MAX_TILTS:
                    break
                step /= 2.0
            far = t.acc_hi if direction > 0 else t.acc_lo
            if (far <= edge) if direction > 0 else (far >= edge):
                break                          # no progress: the hull ends here
            last, edge = t, far
    lo = min(t.start for t in tilts)
    hi = max(t.start + t.logval.size for t in tilts)
    best = np.full(hi - lo, -np.inf)
    value = np.full(hi - lo, -np.inf)
    for t in tilts:                            # every point keeps its most accurate estimate
        sl = slice(t.start - lo, t.start - lo + t.logval.size)
        better = t.score > best[sl]
        best[sl][better] = t.score[better]
        value[sl][better] = t.logval[better]
    resolved = (best >= math.log(TILT_NOISE)) & (value >= math.log(TILT_FLOOR))
    probs = np.zeros(hi - lo)
    with np.errstate(over="ignore", under="ignore"):
        probs[resolved] = np.exp(np.minimum(value[resolved], 0.0))
    a, b = max(hull_lo - lo, 0), min(hull_hi - lo + 1, hi - lo)
    return lo + a, probs[a:b]

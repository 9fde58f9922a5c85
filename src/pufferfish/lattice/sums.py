"""Sums of independent lattice users: the law of X = f(D) = sum_i D_i (paper 000, Section 3, eqs. 7-9).

Users are given as a sequence of :class:`~pufferfish.lattice.pmf.LatticePMF` (each a user),
of ``(LatticePMF, count)`` groups (``count`` users with that prior), or as one 2-D array of
probabilities with a row per user (row k: Pr(D_k = j) for j = 0, 1, ..., m - 1), which
avoids a Python object per user when there are millions of them.

:func:`sum_of_users` picks the route: exact fractions while the problem is small (the
transport plan and Delta* of Lemma 7 compare CDF values for equality), batched direct
convolution while a tree level is cheap (:mod:`.direct`), and for large systems the tilted
sums of :mod:`.tilted`, each formed by the spectral source of :mod:`.spectral` (users given
as rows: a few passes over them) or by the batched FFT tree (groups, wide users, and where
the spectral bounds do not hold). The derivation, the windows, the tilts and the error
bounds are in docs/math/engine.md.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

import numpy as np

from pufferfish.checks import choice, instance, integer
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, InvalidDistributionError
from pufferfish.lattice.direct import columns, direct_levels, direct_power, reaches_root, stack_rows
from pufferfish.lattice.pmf import MAX_LATTICE_POINTS, PMF_ATOL, LatticePMF, check_lattice_size, check_sum_size
from pufferfish.lattice.spectral import RowStats, SpectralUnavailable, row_stats, spectral_source
from pufferfish.lattice.tilted import TILT_FLOOR, Law, hull, sum_rows, tilted_sum

__all__ = ["convolve", "sum_of_users", "tail_mass_bound", "EXACT_MAX_WORK", "DIRECT_LEVEL_WORK", "TILT_FLOOR"]

#: the exact (fraction) convolution is kept while len(p) * len(q) stays below this
EXACT_MAX_WORK = 200_000
#: direct (np.convolve) below this many multiply-adds, FFT above
DIRECT_MAX_WORK = 5_000_000
#: batched direct convolution while one tree level costs at most this many multiply-adds
DIRECT_LEVEL_WORK = 3e7
#: at most this many users are summed by the pairwise tree of :func:`convolve`
SMALL_SYSTEM = 64
_METHODS = ("auto", "direct", "fft", "tilted")
_LEVEL_WORK = {"auto": DIRECT_LEVEL_WORK, "direct": math.inf, "tilted": 0.0}


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

    Parameters
    ----------
    p, q : LatticePMF
        The two laws.
    method : {"auto", "direct", "fft", "tilted"}
        ``"direct"`` (``np.convolve``, every entry to a few ulps, no cancellation), ``"fft"``
        (``scipy.signal.fftconvolve``; negative round-off clipped, mass renormalized; absolute
        error about 1e-16 of the largest mass), ``"tilted"`` (FFT of exponentially tilted pmfs,
        every resolved mass to about 1e-10 relative, docs/math/engine.md), or ``"auto"`` (direct
        while ``len(p) * len(q)`` is below 5e6, tilted above).

    Returns
    -------
    LatticePMF
        The law of the sum, with exact fractions while ``len(p) * len(q)`` is below
        :data:`EXACT_MAX_WORK` and both are exact.

    Raises
    ------
    ArgumentTypeError
        ``p`` or ``q`` not a LatticePMF.
    InvalidArgumentError
        An unknown method, or a hull wider than MAX_LATTICE_POINTS.
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
        offset, probs = sum_rows(*stack_rows([p.probs, q.probs], [p.offset, q.offset]))
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
    """The law of the sum of independent users (paper 000, Section 3: f(D) = sum_i D_i).

    Parameters
    ----------
    users : sequence or ndarray
        A sequence whose items are :class:`LatticePMF` (one user each) or
        ``(LatticePMF, count)`` pairs (``count`` users with that prior; in a large list, one
        object repeated at least :data:`GROUP_MIN` times is such a group); or a 2-D array of
        probabilities, a row per user, row k giving Pr(D_k = j) for j = 0 .. m - 1, each row
        summing to 1 within :data:`~pufferfish.lattice.pmf.PMF_ATOL` (shift the result for
        another origin).
    method : {"auto", "direct", "tilted", "fft"}
        ``"auto"``: exact fractions while they stay cheap (at most :data:`SMALL_SYSTEM` users,
        or any system whose sum stays exact), batched direct convolution while a tree level
        costs at most :data:`DIRECT_LEVEL_WORK` multiply-adds, tilted sums above (formed by the
        spectral source for rows, by the batched FFT tree otherwise); ``"direct"``: batched
        direct convolution up to the root, whatever it costs; ``"tilted"``: the FFT tree of
        tilted sums, also where direct would be cheap (for tests); ``"fft"``: the pairwise
        tree of plain FFT convolutions (absolute error about 1e-16 of the largest mass: the
        naive baseline).

    Returns
    -------
    LatticePMF
        The law of the sum. Exact fractions and direct convolution give every mass to a few
        ulps; the tilted sums every mass above :data:`TILT_FLOOR` to about 1e-10 relative,
        the smaller ones set to 0 (the hull is the resolved part of the support; the mass
        left outside it is bounded by :func:`tail_mass_bound`). The mass is the product of the
        users' own masses and the mean the sum of their means (docs/math/engine.md).

    Raises
    ------
    InvalidDistributionError
        An array that is not 2-D, or a row that is not a pmf (named).
    ArgumentTypeError
        An item that is neither a LatticePMF nor a (LatticePMF, count) pair (named); ``TypeError``
        for an array of non-real values.
    InvalidArgumentError
        An unknown method, a negative or non-integer count, or a sum whose lattice exceeds
        :data:`~pufferfish.lattice.pmf.MAX_LATTICE_POINTS` (checked before any convolution).
    """
    choice(method, _METHODS, name="method")
    if isinstance(users, np.ndarray):
        return _sum_of_array(users, method)
    return _sum_of_list(users, method)


def _sum_of_array(array: np.ndarray, method: str) -> LatticePMF:
    """Users given as a 2-D array: checked in one pass, then the rows engine (or a list when small)."""
    rows, stats = _check_rows(array)
    count, width = rows.shape
    _check_size(count, count * (width - 1) + 1, stats.k2, width - 1, method)
    if count > SMALL_SYSTEM and method != "fft":
        return _sum_of_rows(rows, stats, method)
    return _sum_of_list([LatticePMF(0, row) for row in rows], method)


def _sum_of_list(users, method: str) -> LatticePMF:
    """Users given as a list of LatticePMF and (LatticePMF, count) groups."""
    singles, groups = _split(users)
    _check_list_size(singles, groups, method)
    if not singles and not groups:
        return LatticePMF.point(0)
    singles, groups = _regroup(singles, groups, method)
    if groups:
        return _sum_with_groups(singles, groups, method)
    return _sum_of_singles(singles, method)


def _regroup(singles: list[LatticePMF], groups: list[tuple[LatticePMF, int]],
             method: str) -> tuple[list[LatticePMF], list[tuple[LatticePMF, int]]]:
    """Groups expanded where the pairwise tree applies (small, exact or plain FFT); repeats grouped in large lists."""
    total = len(singles) + sum(count for _, count in groups)
    if groups:
        exact = method == "auto" and all(u.exact is not None for u in singles) \
            and all(pmf.exact is not None for pmf, _ in groups)
        if method == "fft" or total <= SMALL_SYSTEM or exact:
            expanded = singles + [pmf for pmf, count in groups for pmf in [pmf] * count]
            if method == "fft" or total <= SMALL_SYSTEM or _tree_stays_exact(expanded):
                return expanded, []
        return singles, groups
    if method in ("auto", "tilted") and len(singles) > SMALL_SYSTEM \
            and not (method == "auto" and _tree_stays_exact(singles)):
        return _group_repeats(singles)
    return singles, groups


def _pairwise_tree(users: list[LatticePMF], method: str) -> LatticePMF:
    """A balanced tree of :func:`convolve` (exact fractions kept while cheap)."""
    layer = users
    while len(layer) > 1:
        nxt = [convolve(layer[k], layer[k + 1], method=method) for k in range(0, len(layer) - 1, 2)]
        if len(layer) % 2:
            nxt.append(layer[-1])
        layer = nxt
    return layer[0]


def _sum_of_singles(users: list[LatticePMF], method: str) -> LatticePMF:
    """Distinct users: the pairwise tree when small, else as rows (narrow users) or by batched levels."""
    if method == "fft" or len(users) <= SMALL_SYSTEM or (method == "auto" and _tree_stays_exact(users)):
        return _pairwise_tree(users, method)
    common = _as_rows(users)
    if common is not None:                         # the array form: one engine, one law for both inputs
        base, rows = common
        return _sum_of_rows(rows, row_stats(rows), method).shift(len(users) * base)
    sizes = np.fromiter((u.probs.size for u in users), dtype=np.int64, count=len(users))
    wide = sizes > max(8, 4 * int(np.median(sizes)))
    if wide.any() and (~wide).sum() >= 2:
        # a few long alphabets: batch the short ones, then add the long ones (rows stay narrow)
        narrow = sum_of_users([u for u, w in zip(users, wide) if not w], method=method)
        return sum_of_users([narrow] + [u for u, w in zip(users, wide) if w], method=method)
    rows, offs = direct_levels(*columns([u.probs for u in users], [u.offset for u in users]), _LEVEL_WORK[method])
    if rows.shape[0] == 1:
        return LatticePMF(int(offs[0]), rows[0])
    lo, probs = sum_rows(rows, offs)
    return LatticePMF(lo, probs)


def _sum_of_rows(rows: np.ndarray, stats: RowStats, method: str) -> LatticePMF:
    """The large-system engine on users given as a 2-D array (all on 0 .. m - 1).

    ``"auto"`` keeps the direct tree where it reaches the root within :data:`DIRECT_LEVEL_WORK`
    per level; above, the spectral source forms the tilted sums, and where its bounds do not
    hold (it declines or raises) the batched FFT tree does.
    """
    count, width = rows.shape
    if method == "auto" and not reaches_root(count, width, DIRECT_LEVEL_WORK):
        source = spectral_source(rows, stats)
        if source is not None:
            try:
                lo, probs = tilted_sum(source, 0, stats.jlo, stats.jhi, {})
            except SpectralUnavailable:
                pass
            else:
                return LatticePMF(lo, probs)
    partial, offs = direct_levels(np.ascontiguousarray(rows.T), np.zeros(count, dtype=np.int64), _LEVEL_WORK[method])
    if partial.shape[0] == 1:
        return LatticePMF(int(offs[0]), partial[0])
    lo, probs = sum_rows(partial, offs)
    return LatticePMF(lo, probs)


def tail_mass_bound(users, lo: int, hi: int) -> float:
    """An upper bound on Pr(X < lo) + Pr(X > hi) for the sum X of ``users``: the mass a resolved sum leaves out.

    Chernoff: Pr(X > hi) <= exp(K(l) - l (hi + 1)) for every l > 0 and
    Pr(X < lo) <= exp(K(-l) + l (lo - 1)), with K(l) = sum_k log E[e^{l D_k}] computed from
    the users (in log space, no overflow); l is chosen by safeguarded Newton steps on
    K'(l) = hi + 1 (resp. lo - 1), the minimizer. About 20 evaluations of K (milliseconds for
    10^6 users).

    Parameters
    ----------
    users : sequence or ndarray
        Any form :func:`sum_of_users` accepts.
    lo, hi : int
        The hull of the resolved sum, ``lo <= hi``.

    Returns
    -------
    float
        The bound, in [0, 1] (0 when [lo, hi] covers the hull of the sum).

    Raises
    ------
    InvalidArgumentError
        ``lo > hi``, or users refused as by :func:`sum_of_users`.
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
def _check_rows(users: np.ndarray) -> tuple[np.ndarray, RowStats]:
    """Users as a 2-D array of probabilities (a row per user): refused unless every row is a pmf; and their stats.

    One pass over the rows (:func:`~pufferfish.lattice.spectral.row_stats`) finds the
    smallest entry and the largest |row sum - 1|; only a bad array is searched for the
    offending row.
    """
    if users.ndim != 2 or users.shape[0] == 0 or users.shape[1] == 0:
        raise InvalidDistributionError(f"users: a 2-D array of probabilities (a row per user) is needed, got shape "
                                       f"{users.shape}")
    if users.dtype == bool or not (np.issubdtype(users.dtype, np.integer) or np.issubdtype(users.dtype, np.floating)):
        raise TypeError(f"users: the array must hold real probabilities, got dtype {users.dtype}")
    rows = np.ascontiguousarray(users, dtype=float)
    stats = row_stats(rows)
    if not (stats.min_mass >= 0 and stats.max_dev <= PMF_ATOL):
        _refuse_rows(rows)
    return rows, stats


def _refuse_rows(rows: np.ndarray) -> None:
    """Raise the error naming the first row that is not a pmf (negative, non-finite, or not summing to 1)."""
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


def _sum_with_groups(singles: list[LatticePMF], groups: list[tuple[LatticePMF, int]], method: str) -> LatticePMF:
    """Distinct users (summed as usual) plus groups (direct powers where cheap, else tilted powers)."""
    powered, tilted = [], []
    for pmf, count in groups:
        width = count * (pmf.probs.size - 1) + 1
        if method == "direct" or (method == "auto" and width * width <= DIRECT_LEVEL_WORK):
            powered.append(LatticePMF(count * pmf.offset, direct_power(pmf.probs, count)))
        else:
            tilted.append((pmf.probs, pmf.offset, count))
    parts = ([sum_of_users(singles, method=method)] if singles else []) + powered
    if not tilted:
        return parts[0] if len(parts) == 1 else sum_of_users(parts, method=method)
    if parts:
        rows, offs = stack_rows([q.probs for q in parts], np.array([q.offset for q in parts]))
    else:
        rows, offs = np.zeros((0, 1)), np.zeros(0, dtype=np.int64)
    lo, probs = sum_rows(rows, offs, tilted)
    return LatticePMF(lo, probs)

def _law_of(users) -> tuple[Law, int, int, int]:
    """The law (rows and groups) of ``users`` in any input form; base, and the hull in J = x - base."""
    if isinstance(users, np.ndarray):
        rows, _ = _check_rows(users)
        offs, groups = np.zeros(rows.shape[0], dtype=np.int64), []
    else:
        singles, pairs = _split(users)
        if singles:
            rows, offs = stack_rows([u.probs for u in singles], np.array([u.offset for u in singles]))
        else:
            rows, offs = np.zeros((0, 1)), np.zeros(0, dtype=np.int64)
        groups = [(p.probs, p.offset, c) for p, c in pairs]
    base, jlo, jhi = hull(rows, offs, groups)
    return Law(rows, groups), base, jlo, jhi


"""The tilted FFT engine: sums of many lattice users with every mass above 1e-300 to ~1e-10 relative.

For a tilt lambda the users p_k(x) e^{lambda x} / M_k(lambda) are summed by FFT to
S_lambda(x) = S(x) e^{lambda x - K(lambda)}, accurate where it is within :data:`TILT_WINDOW`
of its maximum; tilts placed outwards by Newton steps on K'(lambda) resolve every mass above
:data:`TILT_FLOOR`, each point keeping the estimate of the tilt where it is most accurate
(:func:`tilted_sum`). A tilt's sum comes from a source: the batched FFT tree of
:class:`TreeSource` (its levels shared between tilts by re-tilting), or the spectral source of
:mod:`pufferfish.lattice.spectral`. The derivation, the windows and the accuracy are in
docs/math/engine.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

from pufferfish.lattice.direct import stack_rows

__all__ = ["TILT_FLOOR"]

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
#: the FFTs of a level work on chunks of pairs of about this many bytes
_FFT_CHUNK_BYTES = 1 << 21
#: threads of the batched FFTs (scipy.fft workers; -1: every CPU; results do not depend on it; 1 on a shared machine)
FFT_WORKERS = 1
#: tilt factors e^{lambda j} are used in linear space while |lambda| (width - 1) is below this
_LINEAR_TILT_EXPONENT = 600.0


# ------------------------------------------------------------------ the law of the sum: K(lambda)
class Cumulants(NamedTuple):
    """K, K', K'' of the sum at one tilt (index coordinates J = x - base)."""

    logk: np.longdouble     # K(lambda) = sum_k log M_k(lambda), in extended precision
    mean: float             # K'(lambda)
    var: float              # K''(lambda)
    row_var: float          # the mean variance of a (tilted) row


class Law:
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

    def at(self, lam: float) -> Cumulants:
        if self._last[0] == lam:
            return self._last[1]
        logk, mean, var, row_var, tilted = self._row_tilt(lam)
        for k, (_, _, count) in enumerate(self.groups):
            _, logm, gm, gv = self.tilted_prior(k, lam)
            logk += count * logm
            mean += count * gm
            var += count * gv
        out = Cumulants(logk, mean, var, row_var)
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


def hull(rows: np.ndarray, offs: np.ndarray, groups) -> tuple[int, int, int]:
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
                result = _fft_level(*stack_rows([result[0][0], base[0][0]], np.array([result[1][0], base[1][0]])))
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
    """The FFT tree of the rows of a tilted sum, its levels shared between tilts by re-tilting (docs/math/engine.md)."""

    def __init__(self, law: Law, offs: np.ndarray, stats: dict):
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


# ------------------------------------------------------------------ sources of tilted sums
class Source(Protocol):
    """What :func:`tilted_sum` needs of the users: their cumulants and their tilted sum at a tilt."""

    def at(self, lam: float) -> Cumulants:
        """K, K', K'' of the sum at ``lam`` (coordinates J = x - base)."""

    def root(self, lam: float) -> tuple[np.ndarray, int]:
        """The sum tilted by ``lam`` (a normalized pmf, cut at TILT_TRUNCATE) and its first lattice point x."""


class TreeSource:
    """Rows and groups summed by the batched FFT tree, its levels shared between tilts (docs/math/engine.md)."""

    def __init__(self, law: Law, offs: np.ndarray, groups: Sequence[tuple[np.ndarray, int, int]], stats: dict):
        self.law, self.groups = law, groups
        self.tree = _SharedTree(law, offs, stats) if law.rows.shape[0] else None

    def at(self, lam: float) -> Cumulants:
        return self.law.at(lam)

    def root(self, lam: float) -> tuple[np.ndarray, int]:
        parts, starts = [], []
        if self.tree is not None:
            row, off = self.tree.root(lam)
            parts.append(row)
            starts.append(off)
        for k, (_, goff, count) in enumerate(self.groups):
            w = self.law.tilted_prior(k, lam)[0]
            row, off = _tilted_power(w, goff, count)
            parts.append(row)
            starts.append(off)
        if len(parts) > 1:
            return _fft_tree(*stack_rows(parts, np.array(starts)))
        return parts[0], starts[0]


# ------------------------------------------------------------------ tilts: placement and stitching
class Tilt(NamedTuple):
    """One tilted sum: S(x) = exp(logval[x - start]), accurate where score >= log(TILT_WINDOW)."""

    lam: float
    mean: float        # K'(lam), the mean of the tilted sum
    sd: float          # sqrt(K''(lam))
    start: int         # first lattice point of the (truncated) tilted sum
    logval: np.ndarray  # log S(x), through exp(-lam x + K(lam))
    score: np.ndarray   # log S_lam(x) - max log S_lam: the accuracy of each estimate
    acc_lo: int        # the accurate window (score >= log TILT_WINDOW)
    acc_hi: int


def _run(source: Source, lam: float, base: int) -> Tilt:
    """The tilted sum at ``lam``, brought back to S(x) = S_lam(x) exp(-lam x + K(lam))."""
    cum = source.at(lam)
    row, off = source.root(lam)
    with np.errstate(divide="ignore"):
        lr = np.log(row)
    score = lr - lr.max()
    # log S(x) = log S_lam(x) - lam (J - jc) + (K(lam) - lam jc), J = x - base, jc near the tilted mean:
    # the two large terms lam J and K(lam) cancel in extended precision, not in float64
    jc = int(round(cum.mean))
    kc = float(cum.logk - np.longdouble(lam) * np.longdouble(jc))
    logval = lr - lam * np.arange(off - base - jc, off - base - jc + row.size, dtype=float) + kc
    accurate = np.flatnonzero(score >= math.log(TILT_WINDOW))
    return Tilt(lam, base + cum.mean, math.sqrt(cum.var), off, logval, score,
                off + int(accurate[0]), off + int(accurate[-1]))


def _resolved_log_mass(tilts: list[Tilt], x: int) -> float:
    """log S(x) from the tilt where it is most accurate (-inf outside every tilt)."""
    best, value = -math.inf, -math.inf
    for t in tilts:
        k = x - t.start
        if 0 <= k < t.logval.size and t.score[k] > best:
            best, value = t.score[k], t.logval[k]
    return value


def _next_tilt(source: Source, base: int, tilts: list[Tilt], last: Tilt, edge: int, direction: int) -> Tilt:
    """A Newton step on K'(lam) = edge +- 4.5 sd from ``last``, halved until the accurate windows touch."""
    target = edge + direction * _TILT_STEP_SD * last.sd
    step = (target - last.mean) / max(last.sd ** 2, 1e-300)
    step = max(-_MAX_TILT_STEP, min(_MAX_TILT_STEP, step))
    while True:
        t = _run(source, last.lam + step, base)
        tilts.append(t)
        touches = t.acc_lo <= edge + 1 if direction > 0 else t.acc_hi >= edge - 1
        if touches or len(tilts) >= MAX_TILTS:
            return t
        step /= 2.0


def _walk(source: Source, base: int, tilts: list[Tilt], direction: int, hull_lo: int, hull_hi: int) -> None:
    """Add tilts beyond the centre one (``tilts[0]``) towards ``direction`` until the floor or the hull end."""
    last = tilts[0]
    edge = last.acc_hi if direction > 0 else last.acc_lo
    floor = math.log(TILT_FLOOR)
    while len(tilts) < MAX_TILTS:
        if (edge >= hull_hi if direction > 0 else edge <= hull_lo) or _resolved_log_mass(tilts, edge) < floor:
            return
        t = _next_tilt(source, base, tilts, last, edge, direction)
        far = t.acc_hi if direction > 0 else t.acc_lo
        if (far <= edge) if direction > 0 else (far >= edge):
            return                             # no progress: the hull ends here
        last, edge = t, far


def _stitch(tilts: list[Tilt], hull_lo: int, hull_hi: int) -> tuple[int, np.ndarray]:
    """Every point keeps its most accurate estimate; unresolved points (noise, below the floor) are 0."""
    lo = min(t.start for t in tilts)
    hi = max(t.start + t.logval.size for t in tilts)
    best = np.full(hi - lo, -np.inf)
    value = np.full(hi - lo, -np.inf)
    for t in tilts:
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


def tilted_sum(source: Source, base: int, hull_lo: int, hull_hi: int, stats: dict) -> tuple[int, np.ndarray]:
    """The sum of a source's users by tilts placed outwards from lambda = 0 (docs/math/engine.md).

    Parameters
    ----------
    source : Source
        The users' cumulants and tilted sums.
    base : int
        The origin of the source's coordinates J = x - base.
    hull_lo, hull_hi : int
        The hull of the sum (lattice points x).
    stats : dict
        Receives the number of tilts (``"tilts"``).

    Returns
    -------
    lo : int
        The first lattice point of the resolved sum.
    probs : ndarray
        Its masses (every mass above :data:`TILT_FLOOR` to about 1e-10 relative; 0 below).
    """
    tilts = [_run(source, 0.0, base)]
    for direction in (1, -1):
        _walk(source, base, tilts, direction, hull_lo, hull_hi)
    stats["tilts"] = stats.get("tilts", 0) + len(tilts)
    return _stitch(tilts, hull_lo, hull_hi)


def sum_rows(rows: np.ndarray, offs: np.ndarray, groups: Sequence[tuple[np.ndarray, int, int]] = (), *,
             stats: dict | None = None) -> tuple[int, np.ndarray]:
    """Sum of the pmfs in ``rows`` (offsets ``offs``) and of the ``groups`` (probs, offset, count) by tilted FFTs.

    Parameters
    ----------
    rows : ndarray, shape (count, length)
        A pmf per row (exact: they are tilted without loss).
    offs : array_like of int
        Their offsets.
    groups : sequence of (probs, offset, count)
        Users sharing a prior, summed by tilted binary powering.
    stats : dict, optional
        Receives the number of tilts, of FFT levels computed and of levels re-tilted.

    Returns
    -------
    lo : int
    probs : ndarray
        The resolved sum (see :func:`tilted_sum`).
    """
    stats = {} if stats is None else stats
    stats.update(tilts=0, fresh_levels=0, retilted_levels=0)
    offs = np.asarray(offs, dtype=np.int64)
    groups = [(np.asarray(p, dtype=float), int(o), int(c)) for p, o, c in groups]
    base, jlo, jhi = hull(rows, offs, groups)      # x = base + J
    source = TreeSource(Law(rows, groups), offs, groups, stats)
    return tilted_sum(source, base, base + jlo, base + jhi, stats)

"""The spectral source of tilted sums: many users given as rows, in a few passes over them.

The cumulant generating function of the sum, K(z) = sum_k log M_k(z), is analytic in the
strip |Im z| < pi / (m - 1) for users on 0 .. m - 1 (a polynomial with non-negative
coefficients has no root with |arg w| < pi / degree). Its value at D + 1 Chebyshev points of
the real tilts needed costs one matrix product and one product of the users' masses per point
(no logarithm per user); the Chebyshev interpolant then gives, at any tilt, K and its
derivatives, and the characteristic function of the tilted sum on the few frequencies where it
is not negligible (a bound from the users' lag products), whose inverse FFT is the tilted sum.
:func:`spectral_source` declines (returns None, or the source raises
:class:`SpectralUnavailable`) where its error bounds do not hold; the tree of
:mod:`pufferfish.lattice.tilted` is then used. Derivation and error bounds:
docs/math/engine.md, "The spectral source".
"""

from __future__ import annotations

import contextlib
import math
from typing import NamedTuple

import numpy as np

from pufferfish.lattice.tilted import TILT_FLOOR, TILT_TRUNCATE, Cumulants

__all__: list[str] = []

#: row masses are summed scaled by 1 + MASS_OFFSET, inside a binade (see _chunk_moments)
MASS_OFFSET = 2.0 ** -25
#: the lag products sum_j p_kj p_k,j+d kept for the bound on the characteristic function (d <= MAX_LAG)
MAX_LAG = 8
#: users per chunk of the passes over the rows (a chunk's temporaries stay in the cache)
CHUNK_ROWS = 1 << 15
#: the interpolant of K may err by at most this much (absolute) where the tilted sums are formed
NODE_TOL = 1e-13
#: the most Chebyshev points (an even degree at most this); above, the tree is used
MAX_DEGREE = 64
#: frequencies where the characteristic function is provably below this are dropped
SPECTRUM_CUT = 1e-40
#: the mass a tilted sum may have outside its cyclic window (Chernoff bound)
ALIAS_MASS = 1e-30
#: rounding noise allowed in the interpolated part of K at the tilts (eps x sum of |coefficients|)
NOISE_TOL = 2e-15
#: the tilts span the resolved masses: down to this log-mass (log TILT_FLOOR and margin)
_RATE = -math.log(TILT_FLOOR) + 10.0
#: margin (in standard deviations of the sum) of the interval of tilts beyond the last resolved mass
_SD_MARGIN = 16.0


class SpectralUnavailable(Exception):
    """A tilt outside the range where the spectral source's error bounds hold."""


class RowStats(NamedTuple):
    """What one pass over the rows finds: their validity, cumulants about ``c``, lag products and hull.

    Each chunk of rows is transposed once (a user per column), so that every operation on it
    runs over contiguous memory.
    """

    n: int
    m: int
    c: int                  # the centre of the tilt factors e^{lam (j - c)}
    min_mass: float         # the smallest entry (NaN if any is NaN)
    max_dev: float          # max |row sum - 1| (NaN or inf for a non-finite row)
    k0: np.longdouble       # sum log(row sum): K(0), the log of the total mass
    k1: float               # sum of the row means about c: K'(0) - c n
    k2: float               # sum of the row variances: K''(0)
    k3: float               # sum of the rows' third cumulants: K'''(0)
    lags: np.ndarray        # A_d = sum_k sum_j p_kj p_k,j+d, d = 1 .. m - 1
    cols: np.ndarray        # sum_k p_kj / r_k and sum_k p_kj mean_k / r_k (2 x m)
    jlo: int                # the hull of the sum (first and last non-zero entries, summed)
    jhi: int


def _chunk_moments(xt: np.ndarray, powers: np.ndarray) -> tuple[list[float], float, np.ndarray]:
    """Sums over a chunk of users (columns of ``xt``): log of their masses, cumulants about the centre; max |mass - 1|;
    column weights.

    The masses are summed as (1 + MASS_OFFSET) sum_j p_kj = 1 + e_k: a float64 sum that ends
    near 1 is rounded to a grid twice as fine below 1 as above, a bias of about 1e-17 per row
    that adds up over millions of rows; 1 + MASS_OFFSET lies inside a binade.
    log(1 + e) = e - e^2/2 + e^3/3 to 1e-31 (|e| < 1e-7 once checked). The cumulants are taken
    as if every row summed to 1 (they only place the tilts and the quadratic part of K, which
    the interpolant corrects); the column weights sum_k r_k p_kj and sum_k m1_k p_kj stand for
    sum_k p_kj / r_k and sum_k p_kj mean_k / r_k (a first-order correction: 1e-9 is ample).
    """
    mom = powers @ xt                                   # (4, users): (1 + offset) sum p, sum p j', sum p j'^2, ...
    r, m1, m2, m3 = mom
    e = r - 1.0
    e2 = e * e
    sums = [float(e.sum()), float(e2.sum()), float(e2 @ e), float(m1.sum()), float(m2.sum() - m1 @ m1),
            float(m3.sum() - 3.0 * (m1 @ m2) + 2.0 * ((m1 * m1) @ m1))]
    top, bottom = float(e.max()) - MASS_OFFSET, float(e.min()) - MASS_OFFSET
    return sums, (top if top >= -bottom else -bottom) / (1.0 + MASS_OFFSET), mom[:2] @ xt.T


def _chunk_lags(xt: np.ndarray) -> np.ndarray:
    """sum_k sum_j p_kj p_k,j+d over a chunk for d = 1 .. min(m - 1, MAX_LAG) (dot products of rows of ``xt``).

    Longer lags are left at 0: every lag product is >= 0, so leaving some out keeps the bound
    on the characteristic function valid (only weaker), at m MAX_LAG products per user.
    """
    m = xt.shape[0]
    lags = np.zeros(m - 1)
    for d in range(1, min(m, MAX_LAG + 1)):
        lags[d - 1] = sum(float(xt[j] @ xt[j + d]) for j in range(m - d))
    return lags


def _chunk_hull(xt: np.ndarray) -> tuple[int, int]:
    """Sums of the first and of the last non-zero entry of each user of a chunk."""
    m, count = xt.shape
    lo = 0 if bool(np.all(xt[0] > 0)) else int((xt > 0).argmax(axis=0).sum())
    hi = count * (m - 1) if bool(np.all(xt[-1] > 0)) else int((m - 1 - (xt[::-1] > 0).argmax(axis=0)).sum())
    return lo, hi


def _one_blas_thread():
    """Single-threaded BLAS for the chunked products (a 2-thread GEMM stalls on a shared machine)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:                                 # pragma: no cover - installed with scikit-learn
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def row_stats(rows: np.ndarray) -> RowStats:
    """One pass over ``rows`` (n x m, float64, C order), by chunks: see :class:`RowStats`.

    Parameters
    ----------
    rows : ndarray, shape (n, m)
        Users as rows of probabilities (not yet checked: NaN, negative or unnormalized rows
        show in ``min_mass`` and ``max_dev``).

    Returns
    -------
    RowStats
    """
    n, m = rows.shape
    c = (m - 1) // 2
    jc = np.arange(m, dtype=float) - c
    powers = np.stack([np.full(m, 1.0 + MASS_OFFSET), jc, jc * jc, jc * jc * jc])
    sums, mins, devs = [], [], []
    lags, cols, jlo, jhi = np.zeros(m - 1), np.zeros((2, m)), 0, 0
    with _one_blas_thread(), np.errstate(all="ignore"):
        for s in range(0, n, CHUNK_ROWS):
            xt = np.ascontiguousarray(rows[s:s + CHUNK_ROWS].T)
            chunk_sums, dev, chunk_cols = _chunk_moments(xt, powers)
            sums.append(chunk_sums)
            devs.append(dev)
            mins.append(float(xt.min()))
            cols += chunk_cols
            lags += _chunk_lags(xt)
            lo, hi = _chunk_hull(xt)
            jlo, jhi = jlo + lo, jhi + hi
    finite = all(math.isfinite(v) for chunk in sums for v in chunk)
    total = [math.fsum(col) for col in zip(*sums)] if finite else [math.nan] * 6
    e1, e2, e3 = (np.longdouble(v) for v in total[:3])
    k0 = e1 - e2 / 2 + e3 / 3 - n * np.log1p(np.longdouble(MASS_OFFSET))
    return RowStats(n, m, c, float(np.min(mins)), float(np.max(devs)), k0, total[3], total[4], total[5], lags,
                    cols, jlo, jhi)


# ------------------------------------------------------------------ K at the Chebyshev points
def _chunk_log_products(x: np.ndarray, factors: np.ndarray, span: float) -> tuple[np.ndarray, np.ndarray]:
    """sum_k log(row sum_k + sum_j p_kj u_qj) over a chunk, for every node q, as (sum of log mantissas, exponents).

    The masses s_k(lam_q) are multiplied in a pairwise tree (in place, vectorized) while a product
    of ``2 x`` that many users stays within e^{+-600} (``span`` bounds |log s_k|); the products are
    split by ``frexp`` into a mantissa (whose log is small) and an exact power of two.
    """
    s_all = factors @ x.T                               # (1 + nodes, rows): the row sums, then sum_j p_kj u_qj
    s = s_all[1:]
    s += s_all[0]
    block = 64
    while block > 1 and (block * span > 600.0 or s.shape[1] % block):
        block //= 2
    if block > 1:                                       # products of ``block`` users, the inner loop over columns
        s = np.multiply.reduce(s.reshape(s.shape[0], block, -1), axis=1)
    width, users = s.shape[1], block
    while width > 1 and 2 * users * span <= 600.0:
        half = width // 2
        s[:, :half] *= s[:, width - half:width]
        width, users = width - half, 2 * users
    mant, expo = np.frexp(s[:, :width])
    return np.log(mant).sum(axis=1), expo.sum(axis=1)


def _node_values(rows: np.ndarray, st: RowStats, lams: np.ndarray) -> np.ndarray:
    """K(lam_q) - c n lam_q (the log-MGF of the sum about c n) at every tilt of ``lams``, in extended precision.

    The tilt factors 1 + u_qj = e^{lam_q (j - c)} are rounded once for all rows, an error that
    would add up coherently over the users; it is corrected to first order:
    sum_j e_qj sum_k p_kj / s_k(lam_q), with e_qj the rounding of u_qj (from extended-precision
    exponentials) and 1 / s_k(lam) = (1 - lam mean_k) / r_k to first order (docs/math/engine.md).
    """
    jc = np.arange(st.m, dtype=float) - st.c
    u = np.expm1(np.outer(lams, jc))
    scale = np.longdouble(1.0 + MASS_OFFSET)
    exact = np.expm1(np.multiply.outer(lams.astype(np.longdouble), jc.astype(np.longdouble))) * scale
    u = u * (1.0 + MASS_OFFSET)
    err = exact - u                                     # (nodes, m), long double
    weights = st.cols[0][None, :] - lams[:, None] * st.cols[1][None, :]
    correction = np.sum(err * weights, axis=1)
    factors = np.vstack([np.full(st.m, 1.0 + MASS_OFFSET), u])
    span = float(np.max(np.abs(lams))) * max(st.c, st.m - 1 - st.c) + 1e-6
    logs = np.zeros(lams.size, dtype=np.longdouble)
    expo = np.zeros(lams.size, dtype=np.int64)
    with _one_blas_thread():
        for s in range(0, st.n, CHUNK_ROWS):
            chunk_logs, chunk_expo = _chunk_log_products(rows[s:s + CHUNK_ROWS], factors, span)
            logs += chunk_logs
            expo += chunk_expo
    return (logs + expo.astype(np.longdouble) * np.log(np.longdouble(2)) + correction
            - st.n * np.log1p(np.longdouble(MASS_OFFSET)))


# ------------------------------------------------------------------ Chebyshev series on [-a, a]
def _chebyshev(values: np.ndarray) -> np.ndarray:
    """Coefficients of the interpolant through ``values`` at the points cos(pi q / D), q = 0 .. D."""
    from scipy.fft import dct

    coef = dct(values, type=1) / (values.size - 1)
    coef[0] /= 2.0
    coef[-1] /= 2.0
    return coef


def _derivative(coef: np.ndarray) -> np.ndarray:
    """Coefficients of the derivative of a Chebyshev series (c'_{k-1} = c'_{k+1} + 2 k c_k, c'_0 halved)."""
    deg = coef.size - 1
    if deg == 0:
        return np.zeros(1)
    out = np.zeros(deg + 2)
    for k in range(deg, 0, -1):
        out[k - 1] = out[k + 1] + 2.0 * k * coef[k]
    out[0] /= 2.0
    return out[:deg]


def _clenshaw(coef: np.ndarray, x):
    """The Chebyshev series at ``x`` (a real or complex number or array)."""
    b1 = b2 = 0.0 * x
    for c in coef[:0:-1]:
        b1, b2 = c + 2.0 * x * b1 - b2, b1
    return coef[0] + x * b1 - b2


def _taylor(coef: np.ndarray, u: float) -> np.ndarray:
    """The Taylor coefficients p^{(r)}(u) / r!, r = 0 .. degree, of the Chebyshev series ``coef`` at ``u``."""
    out = np.empty(coef.size)
    for r in range(coef.size):
        out[r] = _clenshaw(coef, u)
        coef = _derivative(coef) / (r + 1)
    return out


def _ellipse(u: complex) -> float:
    """The parameter rho of the Bernstein ellipse (foci -1, 1) through ``u``: |u + sqrt(u^2 - 1)| >= 1."""
    w = u + np.sqrt(u - 1.0 + 0j) * np.sqrt(u + 1.0 + 0j)
    return max(abs(w), 1.0 / abs(w))


# ------------------------------------------------------------------ error bounds, the interval, the degree
def _max_modulus(st: RowStats, a: float, rho: float) -> float:
    """An upper bound of |K(z) - c n z - (k0 + k1 z + k2 z^2 / 2)| on the ellipse E_rho of [-a, a].

    Per user: |log M_k(z) - c z| <= |Re z| (m - 1 + c) + |Im z| |(m - 1)/2 - c|
    + |log cos(|Im z| (m - 1) / 2)| + pi / 2 (+ |log r_k|): e^{-i Im z (m-1)/2} M_k(z) / M_k(Re z)
    has real part >= cos(|Im z| (m - 1) / 2) > 0 inside the strip.
    """
    re, im = a * (rho + 1.0 / rho) / 2.0, a * (rho - 1.0 / rho) / 2.0
    half = (st.m - 1) / 2.0
    if im * half >= math.pi / 2:
        return math.inf
    user = re * (st.m - 1 + st.c) + im * abs(half - st.c) - math.log(math.cos(im * half)) + math.pi / 2 + 1e-8
    quad = abs(float(st.k0)) + abs(st.k1) * re + st.k2 * re * re / 2.0
    return st.n * user + quad


def _interpolation_error(bound: float, rho: float, rho_point: float, degree: int) -> float:
    """|f - p_D| at a point on the ellipse E_rho_point when |f| <= bound on E_rho (Trefethen, ATAP Thm 8.2)."""
    ratio = rho_point / rho
    if ratio >= 1.0:
        return math.inf
    return 4.0 * bound * ratio ** (degree + 1) / (1.0 - ratio)


def _choose_degree(st: RowStats, a: float, omega: float) -> tuple[int, float, float] | None:
    """The least even degree whose interpolation error is below NODE_TOL up to frequency ``omega``; None above MAX_DEGREE."""
    rho_point = _ellipse(complex(1.0, omega / a))
    best = None
    for rho in rho_point * np.exp(np.linspace(0.02, 6.0, 300)):
        bound = _max_modulus(st, a, float(rho))
        if not math.isfinite(bound):
            break
        ratio = rho_point / rho
        degree = math.ceil(math.log(4.0 * bound / (NODE_TOL * (1.0 - ratio))) / -math.log(ratio)) - 1
        degree = max(2, degree + degree % 2)
        if best is None or degree < best[0]:
            best = (degree, float(rho), bound)
    return best if best is not None and best[0] <= MAX_DEGREE else None


def _tilt_range(st: RowStats) -> float:
    """Half-width a of the interval of tilts: beyond the tilts that resolve every mass above TILT_FLOOR.

    The rate lam K'(lam) - K(lam) + K(0) = k2 lam^2 / 2 + k3 lam^3 / 3 + ... reaches _RATE at
    about the outermost tilt (Newton on the cubic, from the Gaussian value); a is 1.25 times
    the larger of the two, plus _SD_MARGIN standard deviations of the sum.
    """
    gauss = math.sqrt(2.0 * _RATE / st.k2)
    far = gauss
    for sign in (1.0, -1.0):
        lam = sign * gauss
        for _ in range(8):
            rate = st.k2 * lam * lam / 2.0 + st.k3 * lam ** 3 / 3.0
            slope = st.k2 * lam + st.k3 * lam * lam
            if slope * sign <= 0:
                break
            lam = sign * min(3.0 * gauss, max(0.3 * gauss, sign * (lam - (rate - _RATE) / slope)))
        far = max(far, abs(lam))
    return 1.25 * far + _SD_MARGIN / math.sqrt(st.k2)


# ------------------------------------------------------------------ which frequencies matter
class _Spectrum:
    """A bound on |phi_lam(omega)|, the characteristic function of the sum tilted by lam, from lag products.

    |phi_k(omega)|^2 = 1 - 2 sum_d a_kd (1 - cos d omega) for a user tilted by lam, with
    a_kd = sum_j q_kj q_k,j+d, and log(1 - x) <= -x: log |phi_lam(omega)| <= -g(omega),
    g(omega) = sum_d A_d (1 - cos d omega), A_d = sum_k a_kd. From the untilted lags,
    q_kj q_k,j+d >= p_kj p_k,j+d e^{-|lam| (2 (m - 1) - d)} / r_k^2 (weights ``kappa_d``); or
    the tilted lags themselves (:func:`_tilted_lags`, one pass over the rows). g is tabulated on
    [0, pi] with a step h such that its second-derivative bound sum_d d^2 A_d h^2 / 8 stays at
    most 1/16: a cell is at least the smaller of its ends minus that.
    """

    def __init__(self, lags: np.ndarray, mass2: float):
        self.lags, self.mass2 = lags, mass2
        self.d = np.arange(1, lags.size + 1, dtype=float)
        self.curvature = float(np.sum(self.d * self.d * lags))
        step = min(math.pi / 64, math.sqrt(0.5 / max(self.curvature, 1e-300)))
        self.omega = np.linspace(0.0, math.pi, math.ceil(math.pi / step) + 1)
        self.table = 1.0 - np.cos(np.outer(self.omega, self.d))

    def cut(self, lam: float | None) -> float | None:
        """A frequency beyond which |phi_lam| <= SPECTRUM_CUT up to pi (None if the bound never gets there).

        ``lam`` None: the lags are the tilted ones (weights 1, less a margin for their rounding).
        """
        if lam is None:
            weights = np.full(self.d.size, (1.0 - 1e-9) / self.mass2)
        else:
            weights = np.exp(-abs(lam) * (2.0 * self.d.size - self.d)) / self.mass2
        g = self.table @ (weights * self.lags)
        h = self.omega[1] - self.omega[0]
        low = np.minimum(g[:-1], g[1:]) - self.curvature * float(weights.max()) * h * h / 8.0
        suffix = np.minimum.accumulate(low[::-1])[::-1]     # the least lower bound from each cell on
        below = np.flatnonzero(suffix < -math.log(SPECTRUM_CUT))
        if below[-1] == suffix.size - 1:
            return None
        return float(self.omega[below[-1] + 1])


def _tilted_lags(rows: np.ndarray, st: RowStats, lam: float) -> np.ndarray:
    """sum_k sum_j q_kj q_k,j+d for the users tilted by ``lam`` (q_k normalized), d = 1 .. m - 1: one pass."""
    exponent = lam * (np.arange(st.m, dtype=float) - st.c)
    if np.max(np.abs(exponent)) > 600.0:
        raise SpectralUnavailable(f"tilt {lam!r}: tilt factors beyond e^600")
    t = np.exp(exponent)[:, None]
    lags = np.zeros(st.m - 1)
    with _one_blas_thread():
        for s in range(0, st.n, CHUNK_ROWS):
            yt = np.ascontiguousarray(rows[s:s + CHUNK_ROWS].T) * t
            yt /= yt.sum(axis=0)
            lags += _chunk_lags(yt)
    return lags


# ------------------------------------------------------------------ the source
class SpectralSource:
    """K and the tilted sums of users given as rows, from the Chebyshev interpolant of K (see the module)."""

    def __init__(self, rows: np.ndarray, st: RowStats, a: float, rho: float, bound: float, coef: np.ndarray,
                 spectrum: _Spectrum):
        self.rows, self.st, self.a, self.rho, self.bound, self.coef, self.spectrum = rows, st, a, rho, bound, coef, spectrum
        self._last: tuple[float, np.ndarray] | None = None

    def _taylor(self, lam: float) -> np.ndarray:
        """Taylor coefficients of the interpolated part H of K at ``lam``, in powers of (z - lam) / a."""
        if not abs(lam) <= self.a:
            raise SpectralUnavailable(f"tilt {lam!r} outside [-{self.a}, {self.a}]")
        if self._last is None or self._last[0] != lam:
            self._last = (lam, _taylor(self.coef, lam / self.a))
        return self._last[1]

    def _moments(self, lam: float) -> tuple[float, float]:
        """The tilted sum's mean about c n (K'(lam) - c n) and its variance K''(lam)."""
        beta, st = self._taylor(lam), self.st
        return st.k1 + st.k2 * lam + beta[1] / self.a, st.k2 + 2.0 * beta[2] / self.a ** 2

    def at(self, lam: float) -> Cumulants:
        st, beta = self.st, self._taylor(lam)
        ld = np.longdouble(lam)
        logk = (st.k0 + np.longdouble(st.k1) * ld + np.longdouble(st.k2) * ld * ld / 2 + np.longdouble(beta[0])
                + np.longdouble(st.c * st.n) * ld)
        mean, var = self._moments(lam)
        return Cumulants(logk, st.c * st.n + mean, var, 0.0)

    def _tail(self, lam: float, s: float, h: float) -> float:
        """Chernoff: log Pr(|Y - mean| beyond h on the side of s) <= K(lam+s) - K(lam) - s K'(lam) - |s| h."""
        beta, st = self._taylor(lam), self.st
        rise = st.k2 * s * s / 2.0 + float(_clenshaw(self.coef, (lam + s) / self.a)) - beta[0] - s * beta[1] / self.a
        return rise - abs(s) * h

    def _length(self, lam: float, var: float) -> int:
        """An even FFT length N whose window mean +- (N/2 - 1) holds all but ALIAS_MASS of the tilted sum."""
        from scipy.fft import next_fast_len

        half = max(12.0 * math.sqrt(var), 16.0)
        for _ in range(16):
            n = 2 * next_fast_len(math.ceil(half) + 2, real=True)
            h = n / 2 - 1
            up = min(h / var, self.a - lam)
            down = max(-h / var, -self.a - lam)
            if up > 0 and down < 0:
                mass = math.exp(self._tail(lam, up, h)) + math.exp(self._tail(lam, down, h))
                if mass <= ALIAS_MASS:
                    return n
            half *= 1.5
        raise SpectralUnavailable(f"tilt {lam!r}: no window holds the tilted sum")

    def _spectrum(self, lam: float, var: float, delta: float, n: int) -> np.ndarray:
        """conj(phi_lam(omega_k) e^{-i omega_k y0}), k = 0 .. n/2, with y0 = round(mean) - n/2 (0 beyond the cut)."""
        omega_c = self._cut(lam)
        top = min(n // 2, math.ceil(omega_c * n / (2.0 * math.pi)))
        omega = 2.0 * math.pi * np.arange(top + 1) / n
        w = 1j * omega / self.a
        beta = self._taylor(lam)
        tail = np.zeros(top + 1, dtype=complex)
        for b in beta[:2:-1]:                          # sum_{r >= 3} beta_r w^r by Horner
            tail = (tail + b) * w
        psi = 1j * omega * delta - omega * omega * var / 2.0 + tail * w * w
        out = np.zeros(n // 2 + 1, dtype=complex)
        out[:top + 1] = np.conj(np.exp(psi))
        out[1:top + 1:2] *= -1.0                        # e^{i omega_k n/2} = (-1)^k
        return out

    def _accurate(self, lam: float, omega: float | None) -> bool:
        """Is the interpolant within NODE_TOL of K at lam + i omega (and so at every lam + i w, |w| <= omega)?"""
        if omega is None:
            return False
        rho_point = _ellipse(complex(lam / self.a, omega / self.a))
        return _interpolation_error(self.bound, self.rho, rho_point, self.coef.size - 1) <= NODE_TOL

    def _cut(self, lam: float) -> float:
        """The frequency beyond which the tilted sum's characteristic function is dropped (provably <= SPECTRUM_CUT).

        From the untilted lags first; where that bound is too weak for the interpolant, from the
        tilted lags (one more pass over the rows); where neither works, SpectralUnavailable.
        """
        omega = self.spectrum.cut(lam)
        if self._accurate(lam, omega):
            return omega
        omega = _Spectrum(_tilted_lags(self.rows, self.st, lam), 1.0).cut(None)
        if self._accurate(lam, omega):
            return omega
        raise SpectralUnavailable(f"tilt {lam!r}: the characteristic function is not small within the interpolant's "
                                  "reach (a lattice of step > 1, or too few users)")

    def root(self, lam: float) -> tuple[np.ndarray, int]:
        from scipy.fft import irfft

        mean, var = self._moments(lam)
        centre = round(mean)
        n = self._length(lam, var)
        dens = irfft(self._spectrum(lam, var, mean - centre, n), n)
        keep = dens >= dens.max() * TILT_TRUNCATE
        first, last = int(keep.argmax()), n - 1 - int(keep[::-1].argmax())
        row = np.maximum(dens[first:last + 1], 0.0)
        row /= row.sum()
        return row, self.st.c * self.st.n + centre - n // 2 + first


def spectral_source(rows: np.ndarray, st: RowStats) -> SpectralSource | None:
    """The spectral source of the rows' sum, or None where its error bounds cannot be met.

    Parameters
    ----------
    rows : ndarray, shape (n, m)
        The users, checked (``st`` says they are pmfs).
    st : RowStats
        Their :func:`row_stats`.

    Returns
    -------
    SpectralSource or None
    """
    if st.m < 2 or not st.k2 > 0:
        return None
    spectrum = _Spectrum(st.lags, (1.0 + max(st.max_dev, 0.0)) ** 2)
    a = _tilt_range(st)
    var = max(st.k2 / 4.0, st.k2 - abs(st.k3) * a)      # about the least tilted variance, K'' = k2 + k3 lam + ...
    omega = 1.25 * math.sqrt(-2.0 * math.log(SPECTRUM_CUT) / var)
    omega = min(omega, spectrum.cut(a) or math.inf)
    chosen = _choose_degree(st, a, omega)
    if chosen is None:
        return None
    degree, rho, bound = chosen
    lams = a * np.cos(np.pi * np.arange(degree + 1) / degree)
    lams[degree // 2] = 0.0
    others = np.delete(lams, degree // 2)
    ld = others.astype(np.longdouble)
    quad = st.k0 + np.longdouble(st.k1) * ld + np.longdouble(st.k2) * ld * ld / 2
    values = np.insert((_node_values(rows, st, others) - quad).astype(float), degree // 2, 0.0)
    return SpectralSource(rows, st, a, rho, bound, _chebyshev(values), spectrum)

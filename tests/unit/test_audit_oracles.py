"""The Cauchy and Gaussian-noise audits against an independent high-precision integral (issue 24, section 1).

The oracle is written here, sharing nothing with the code under test: its own densities
(Cauchy gamma / (pi (gamma^2 + z^2)), Gaussian exp(-z^2 / 2 sigma^2) / (sigma sqrt(2 pi))),
its own partition (around every atom, edges at the atom +- scale 4^k for the Cauchy spikes
and at the atom +- sigma {1, 2, 3, ...} for the Gaussian ones; the Cauchy tails mapped onto
(0, 1] by y = x_end +- R / t), a 20-point Gauss-Legendre rule on every panel, and the
Renyi divergence from its definition, J = integral q ((p/q)^alpha - 1 - alpha (p/q - 1)),
D_alpha = log(1 + J) / (alpha - 1), evaluated in mpmath at 30 digits (so psi(p/q) has no
cancellation). The sweeps run the same code in 80-bit long double (mpmath is ~1000x slower), except the
Cauchy audit of the Adult pair; a test shows the two arithmetics agree on all three priors.

The hockey stick sum_S P_Y(S) - e^eps Q_Y(S) is, once the sign changes of p_Y - e^eps q_Y
are known, a sum of normal CDF differences: the sign changes are found by a scan of
log p_Y - log q_Y - eps on every Gauss-Legendre node of the partition and refined by
bisection, and the CDFs are summed in mpmath. For a two-point prior on {0, 1} the sign
change has a closed form (p_Y - c q_Y = w_0 phi(y) + w_1 phi(y - 1) vanishes once, at
y = 1/2 + sigma^2 log(-w_0 / w_1)), used as a second oracle.

Anchors: mpmath's own tanh-sinh quadrature (mp.quad) on the Adult pair of the issue
(D_2 at gamma = 0.001: 0.305844, 0.007379: 0.300000, 0.01239: 0.295392, 0.03: 0.279138).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from pufferfish.audit.cauchy_lattice import CauchyLatticeAuditor, cauchy_renyi
from pufferfish.audit.target import Target
from pufferfish.audit.gaussian_lattice import gaussian_hockey_stick, gaussian_renyi
from pufferfish.errors import ConfigError
from pufferfish.lattice.pmf import LatticePMF

MP = mpmath.mp.clone()
MP.dps = 30
LD = np.longdouble

#: the accuracy the audits' docstrings state: Renyi relative 1e-10, hockey stick ~1e-15 (1 + e^eps) absolute
RENYI_RTOL = 1e-10
SCALES = np.logspace(-6, 1, 15)
ALPHAS = (1.5, 2.0, 5.0)
EPSILONS = (0.0, 0.5, 8.0)


# ------------------------------------------------------------------------ priors
def _adult():
    """Paper 002's Adult binding pair: P(>50K | Asian-Pac-Islander) vs P(>50K | Other) on {0, 1}."""
    return LatticePMF.bernoulli(0.265640038), LatticePMF.bernoulli(0.092250923)


def _wide():
    """40 atoms, seeded Dirichlet masses (both priors on the whole lattice 0..39)."""
    rng = np.random.default_rng(24)
    return (LatticePMF(0, rng.dirichlet(np.ones(40)), normalize=True),
            LatticePMF(0, rng.dirichlet(np.ones(40)), normalize=True))


def _gap():
    """Support {0, 1, 2, 40, 41}: a hole of 37 between two clusters."""
    p = np.zeros(42)
    q = np.zeros(42)
    p[[0, 1, 2, 40, 41]] = [0.3, 0.2, 0.1, 0.25, 0.15]
    q[[0, 1, 2, 40, 41]] = [0.1, 0.25, 0.3, 0.15, 0.2]
    return LatticePMF(0, p), LatticePMF(0, q)


PRIORS = {"adult": _adult, "wide": _wide, "gap": _gap}


# ------------------------------------------------------------------------ arithmetic: mpmath or long double
class _Arith:
    """Elementwise arithmetic on numpy arrays of mpmath numbers (``mp``) or of long doubles."""

    def __init__(self, kind: str):
        self.kind = kind
        if kind == "mp":
            self.num = MP.mpf
            self.exp = np.frompyfunc(MP.exp, 1, 1)
            self.log = np.frompyfunc(MP.log, 1, 1)
            self.pi = MP.pi
            x, w = MP.gauss_quadrature(20, "legendre")
            self.gl = (np.array([MP.mpf(v) for v in x], dtype=object), np.array([MP.mpf(v) for v in w], dtype=object))
        else:
            self.num = LD
            self.exp, self.log = np.exp, np.log
            self.pi = LD(np.pi)  # float64 pi: a relative 1e-17 on the density, common to p and q
            x, w = np.polynomial.legendre.leggauss(20)
            self.gl = (x.astype(LD), w.astype(LD))

    def array(self, values):
        return np.array([self.num(float(v)) for v in values], dtype=object if self.kind == "mp" else LD)

    def nodes(self, edges):
        """Gauss-Legendre nodes and weights of every panel [edges[k], edges[k + 1]]."""
        e = self.array(edges)
        a, b = e[:-1], e[1:]
        half, mid = (b - a) / 2, (a + b) / 2
        y = (mid[:, None] + half[:, None] * self.gl[0][None, :]).ravel()
        w = (half[:, None] * self.gl[1][None, :]).ravel()
        return y, w


def _masses(p: LatticePMF, q: LatticePMF):
    """The union of the supports and both masses there (floats: exact binary fractions in either arithmetic)."""
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    a, b = p.pmf_on(lo, hi), q.pmf_on(lo, hi)
    keep = (a > 0) | (b > 0)
    return np.arange(lo, hi + 1)[keep].astype(float), a[keep], b[keep]


def _renyi_from_densities(ar, pd, qd, w, alphas):
    """{alpha: (D_alpha(P || Q), D_alpha(Q || P))} from the densities at the nodes and the weights."""
    out = {}
    live = (pd > 0) & (qd > 0)                         # long double underflows (below 1e-4951) far from
    pd, qd, w = pd[live], qd[live], w[live]            # every atom: the integrand there is below 1e-4900
    for alpha in alphas:
        a = ar.num(alpha)
        t = pd / qd
        u = qd / pd
        j_fwd = np.sum(w * qd * (t ** a - 1 - a * (t - 1)))
        j_bwd = np.sum(w * pd * (u ** a - 1 - a * (u - 1)))
        out[alpha] = tuple(float(ar.log(np.array([1 + j], dtype=object if ar.kind == "mp" else LD))[0] / (a - 1))
                           for j in (j_fwd, j_bwd))
    return out


# ------------------------------------------------------------------------ Cauchy oracle
def cauchy_oracle(p, q, gamma, alphas=ALPHAS, kind="mp"):
    """{alpha: (D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y))} for Y = X + Cauchy(0, gamma), by quadrature."""
    ar = _Arith(kind)
    xs, pm, qm = _masses(p, q)
    span = xs[-1] - xs[0]
    reach = 2.0 * span + 1.0                           # the tails start this far beyond the end atoms
    edges = set(xs.tolist()) | {xs[0] - reach, xs[-1] + reach}
    for k, x in enumerate(xs):
        left = xs[k] - xs[k - 1] if k > 0 else reach
        right = xs[k + 1] - xs[k] if k + 1 < xs.size else reach
        for side, dist in ((-1.0, left), (1.0, right)):
            off = gamma
            while off < dist:                           # x +- gamma 4^k: panels growing with the distance
                edges.add(x + side * off)
                off *= 4.0
    edges = np.array(sorted(edges))
    y, w = ar.nodes(edges)
    # tails: y = x_end +- R / t, t in (0, 1], dy = R / t^2 dt, on 4 panels of t
    t, wt = ar.nodes(np.linspace(0.0, 1.0, 5))
    big = ar.num(reach)
    for end, sign in ((xs[-1], 1), (xs[0], -1)):
        y = np.concatenate((y, ar.num(end) + sign * big / t))
        w = np.concatenate((w, wt * big / (t * t)))
    g = ar.num(gamma)
    z = y[:, None] - ar.array(xs)[None, :]
    kern = g / (ar.pi * (g * g + z * z))
    return _renyi_from_densities(ar, kern @ ar.array(pm), kern @ ar.array(qm), w, alphas)


# ------------------------------------------------------------------------ Gaussian oracles
_GAUSS_OFFSETS = np.array([0, 1, 2, 3, 4, 6, 8, 11, 15, 20, 26, 33, 40], dtype=float)


def _gauss_edges(xs, sigma):
    """Around every atom x +- sigma {0, 1, 2, 3, 4, 6, ..., 40}, merged where closer than sigma / 2.

    Beyond 40 sigma of every atom both priors put mass below Phi(-40) < 1e-349: the integrands
    there (bounded by a multiple of q_Y with shared supports) are left out."""
    raw = np.unique((xs[:, None] + sigma * np.concatenate((-_GAUSS_OFFSETS, _GAUSS_OFFSETS))[None, :]).ravel())
    keep = [raw[0]]
    for e in raw[1:]:
        if e - keep[-1] >= 0.5 * sigma:
            keep.append(e)
    keep[-1] = raw[-1]
    return np.array(keep)


def gauss_renyi_oracle(p, q, sigma, alphas=ALPHAS, kind="mp"):
    """{alpha: (D_alpha(P_Y || Q_Y), D_alpha(Q_Y || P_Y))} for Y = X + N(0, sigma^2) (P, Q of one support)."""
    ar = _Arith(kind)
    xs, pm, qm = _masses(p, q)
    assert np.array_equal(pm > 0, qm > 0), "the Gaussian oracle assumes one support (no far peaks)"
    y, w = ar.nodes(_gauss_edges(xs, sigma))
    s = ar.num(sigma)
    z = y[:, None] - ar.array(xs)[None, :]
    # every node is within 40 sigma of an atom: the atoms beyond 60 sigma change p_Y, q_Y by < e^-1000
    near = np.nonzero(np.abs(y.astype(float)[:, None] - xs[None, :]) < 60.0 * sigma)
    kern = np.zeros(z.shape, dtype=z.dtype) if ar.kind == "ld" else np.full(z.shape, ar.num(0), dtype=object)
    kern[near] = ar.exp(-(z[near] * z[near]) / (2 * s * s)) / (s * (2 * ar.pi) ** ar.num(0.5))
    return _renyi_from_densities(ar, kern @ ar.array(pm), kern @ ar.array(qm), w, alphas)


def _log_mix(y, xs, logm, sigma):
    """log sum_x m(x) exp(-(y - x)^2 / 2 sigma^2), float64, no underflow (the scan of the sign changes)."""
    e = logm[None, :] - (y[:, None] - xs[None, :]) ** 2 / (2.0 * sigma ** 2)
    top = e.max(axis=1)
    return top + np.log(np.exp(e - top[:, None]).sum(axis=1))


def _roots(xs, la, lb, sigma, level):
    """The points where log p_Y - log q_Y crosses ``level``: a scan of every node of the partition, then bisection."""
    y = np.sort(np.concatenate((_gauss_edges(xs, sigma), _Arith("ld").nodes(_gauss_edges(xs, sigma))[0].astype(float))))
    r = _log_mix(y, xs, la, sigma) - _log_mix(y, xs, lb, sigma) - level
    k = np.flatnonzero(np.sign(r[:-1]) * np.sign(r[1:]) < 0)
    a, c, fa = y[k], y[k + 1], r[k]
    for _ in range(80):                                # bisection, all brackets at once, to float64 resolution
        m = 0.5 * (a + c)
        fm = _log_mix(m, xs, la, sigma) - _log_mix(m, xs, lb, sigma) - level
        same = np.sign(fm) == np.sign(fa)
        a, fa, c = np.where(same, m, a), np.where(same, fm, fa), np.where(same, c, m)
    roots = (0.5 * (a + c)).tolist()
    return y, r, roots


def _mass(lo, hi, x, sigma):
    """Phi((hi - x) / sigma) - Phi((lo - x) / sigma) in mpmath, on the side of the median (no cancellation)."""
    u, v = (MP.mpf(hi) - x) / sigma, (MP.mpf(lo) - x) / sigma
    if v >= 0:
        return MP.ncdf(-v) - MP.ncdf(-u)
    return MP.ncdf(u) - MP.ncdf(v)


def gauss_hockey_oracle(p, q, sigma, epsilon):
    """(H_{e^eps}(P_Y || Q_Y), H_{e^eps}(Q_Y || P_Y)): the CDF mass of p_Y - e^eps q_Y where it is positive."""
    xs, pm, qm = _masses(p, q)
    out = []
    for a_m, b_m in ((pm, qm), (qm, pm)):
        with np.errstate(divide="ignore"):
            la, lb = np.log(a_m), np.log(b_m)
        y, r, roots = _roots(xs, la, lb, sigma, epsilon)
        cuts = [-math.inf] + roots + [math.inf]
        total = MP.mpf(0)
        c = MP.exp(MP.mpf(epsilon))
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            probe = 0.5 * (lo + hi) if math.isfinite(lo) and math.isfinite(hi) else (lo + 1 if math.isfinite(lo) else hi - 1)
            inside = (y > lo) & (y < hi)
            positive = (r[inside] > 0).any() if inside.any() else probe > 0
            if not positive:
                continue
            for x, pa, pb in zip(xs, a_m, b_m):
                if (math.isfinite(lo) and x < lo - 40 * sigma) or (math.isfinite(hi) and x > hi + 40 * sigma):
                    continue                           # adds less than Phi(-40) < 1e-349
                total += (MP.mpf(pa) - c * MP.mpf(pb)) * _mass(lo, hi, MP.mpf(x), MP.mpf(sigma))
        out.append(float(total))
    return tuple(out)


def gauss_hockey_two_point(p, q, sigma, epsilon):
    """The closed form on {0, 1}: w_0 phi(y) + w_1 phi(y - 1) changes sign once, at 1/2 + sigma^2 log(-w_0 / w_1)."""
    out = []
    s, c = MP.mpf(sigma), MP.exp(MP.mpf(epsilon))
    for a, b in ((p, q), (q, p)):
        w0 = MP.mpf(float(a.pmf_on(0, 1)[0])) - c * MP.mpf(float(b.pmf_on(0, 1)[0]))
        w1 = MP.mpf(float(a.pmf_on(0, 1)[1])) - c * MP.mpf(float(b.pmf_on(0, 1)[1]))
        if w0 <= 0 and w1 <= 0:
            out.append(0.0)
            continue
        if w0 > 0 and w1 > 0:
            out.append(float(w0 + w1))
            continue
        root = MP.mpf(0.5) + s * s * MP.log(-w0 / w1)
        if w1 > 0:                                     # positive to the right of the root
            out.append(float(w0 * MP.ncdf(-root / s) + w1 * MP.ncdf(-(root - 1) / s)))
        else:
            out.append(float(w0 * MP.ncdf(root / s) + w1 * MP.ncdf((root - 1) / s)))
    return tuple(out)


# ------------------------------------------------------------------------ the oracles themselves
@pytest.mark.parametrize("gamma, expected", [(0.001, 0.305844), (0.007379, 0.300000), (0.01239, 0.295392),
                                             (0.03, 0.279138)])
def test_cauchy_oracle_reproduces_the_issue_table_and_mpmath_tanh_sinh(gamma, expected):
    """The Gauss-Legendre oracle = mp.quad (tanh-sinh, its own node placement) = the issue's 6-digit table."""
    p, q = _adult()
    ours = cauchy_oracle(p, q, gamma, alphas=(2.0,))[2.0][0]
    g = MP.mpf(gamma)
    pa, qa = MP.mpf(0.265640038), MP.mpf(0.092250923)
    dens = lambda m, y: ((1 - m) * g / (MP.pi * (g * g + y * y)) + m * g / (MP.pi * (g * g + (y - 1) ** 2)))
    pts = sorted({0.0, 1.0, 0.5} | {x + s * gamma * 4.0 ** k for x in (0, 1) for s in (-1, 1)
                                    for k in range(12) if gamma * 4.0 ** k < 0.5})
    j = MP.quad(lambda y: dens(qa, y) * ((dens(pa, y) / dens(qa, y)) ** 2 - 1 - 2 * (dens(pa, y) / dens(qa, y) - 1)),
                [-MP.inf] + pts + [MP.inf])
    assert ours == pytest.approx(float(MP.log(1 + j)), rel=1e-12)
    assert ours == pytest.approx(expected, abs=5e-7)


@pytest.mark.slow  # mpmath at 30 digits over the whole range of scales: `make test-slow`
@pytest.mark.parametrize("name, cauchy_scales, gauss_scales", [("wide", (3.0,), ()), ("gap", (3e-6,), (3e-6,)),
                                                                ("adult", (1e-6, 0.02, 5.0), (1e-6, 0.02, 5.0))])
def test_long_double_oracle_agrees_with_mpmath(name, cauchy_scales, gauss_scales):
    """The same quadrature in long double and in 30-digit mpmath agree to 1e-13 (on 40 atoms only at
    one large Cauchy scale, few panels: mpmath takes seconds otherwise)."""
    p, q = PRIORS[name]()
    for oracle, scales in ((cauchy_oracle, cauchy_scales), (gauss_renyi_oracle, gauss_scales)):
        for scale in scales:
            ld, mp_ = oracle(p, q, scale, kind="ld"), oracle(p, q, scale, kind="mp")
            for alpha in ALPHAS:
                assert ld[alpha] == pytest.approx(mp_[alpha], rel=1e-13)


def test_gaussian_hockey_oracles_agree_on_two_points():
    """Root scan + bisection = the closed-form root on {0, 1}, over all scales and epsilons."""
    p, q = _adult()
    for sigma in SCALES[::2]:
        for eps in EPSILONS:
            assert gauss_hockey_oracle(p, q, sigma, eps) == pytest.approx(gauss_hockey_two_point(p, q, sigma, eps),
                                                                         rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------------ the audits against them
def _kind(name):
    return "mp" if name == "adult" else "ld"           # long double: test_long_double_oracle_agrees_with_mpmath


@pytest.mark.slow  # mpmath at 30 digits over the whole range of scales: `make test-slow`
@pytest.mark.parametrize("name", sorted(PRIORS))
def test_cauchy_renyi_against_the_oracle(name):
    """gamma from 1e-6 to 10 (15 values), alpha in {1.5, 2, 5}: relative 1e-10 (the module docstring)."""
    p, q = PRIORS[name]()
    for gamma in SCALES:
        expected = cauchy_oracle(p, q, float(gamma), kind=_kind(name))
        for alpha in ALPHAS:
            got = cauchy_renyi(p, q, alpha=alpha, gamma=float(gamma))
            assert got == pytest.approx(expected[alpha], rel=RENYI_RTOL), (name, gamma, alpha)


def test_cauchy_tight_scale_of_the_adult_pair():
    """D_2 <= 0.3 (Adult, table 1): the smallest gamma is 0.007379 (issue 24), not 0.01239; the oracle
    confirms D_2 at the returned gamma meets 0.3 and sits within 1e-9 of it."""
    p, q = _adult()
    found = CauchyLatticeAuditor(p, q).smallest_scale(Target(0.3, alpha=2.0))
    assert found.scale == pytest.approx(0.007379, rel=1e-4)
    d = max(cauchy_oracle(p, q, found.scale, alphas=(2.0,))[2.0])
    assert d <= 0.3 * (1 + 1e-10) and d == pytest.approx(0.3, rel=1e-9)
    below = max(cauchy_oracle(p, q, found.scale * (1 - 1e-7), alphas=(2.0,))[2.0])
    assert below > 0.3                                  # a smaller gamma fails: the scale is the smallest


@pytest.mark.slow  # mpmath at 30 digits over the whole range of scales: `make test-slow`
@pytest.mark.parametrize("name", sorted(PRIORS))
def test_cauchy_renyi_at_its_floor_and_refused_below(name):
    """At 1e-8 times the largest |atom| (centred, at least 1) still relative 1e-10; below it refused
    (a ConfigError naming gamma), not a number of unknown accuracy."""
    p, q = PRIORS[name]()
    floor = 1e-8 * max(1.0, (max(p.hi, q.hi) - min(p.lo, q.lo)) / 2)
    expected = cauchy_oracle(p, q, floor, kind="ld")
    for alpha in ALPHAS:
        assert cauchy_renyi(p, q, alpha=alpha, gamma=floor) == pytest.approx(expected[alpha], rel=RENYI_RTOL)
    with pytest.raises(ConfigError, match="gamma"):
        cauchy_renyi(p, q, alpha=2.0, gamma=0.99 * floor)


@pytest.mark.slow  # mpmath at 30 digits over the whole range of scales: `make test-slow`
@pytest.mark.parametrize("name", sorted(PRIORS))
def test_gaussian_renyi_against_the_oracle(name):
    """sigma from 1e-6 to 10 (15 values), alpha in {1.5, 2, 5}: relative 1e-10 (the module docstring)."""
    p, q = PRIORS[name]()
    for sigma in SCALES:
        expected = gauss_renyi_oracle(p, q, float(sigma), kind="ld")
        for alpha in ALPHAS:
            got = gaussian_renyi(p, q, alpha=alpha, sigma=float(sigma))
            assert got == pytest.approx(expected[alpha], rel=RENYI_RTOL), (name, sigma, alpha)


@pytest.mark.slow  # mpmath at 30 digits over the whole range of scales: `make test-slow`
@pytest.mark.parametrize("name", sorted(PRIORS))
def test_gaussian_hockey_stick_against_the_oracle(name):
    """sigma from 1e-6 to 10 (15 values), eps in {0, 0.5, 8}: within 1e-14 (1 + e^eps) absolute, or 1e-9
    relative (the certified value carries its error bound, at most 1e-9 of it: issue 39; that it is never
    below the truth is tested at 50 digits in test_soundness_gaussian_lattice.py)."""
    p, q = PRIORS[name]()
    for sigma in SCALES:
        for eps in EPSILONS:
            expected = gauss_hockey_oracle(p, q, float(sigma), eps)
            got = gaussian_hockey_stick(p, q, epsilon=eps, sigma=float(sigma))
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-14 * (1 + math.exp(eps))), (name, sigma, eps)

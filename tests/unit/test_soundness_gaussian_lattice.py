"""Soundness of the Gaussian lattice hockey stick (issue 39): every delta reported is at least the true
H_{e^eps}(P_Y || Q_Y) of Y = X + N(0, sigma^2) for the float masses and sigma given, and at most it times
1 + 1e-9 (plus the smallest subnormal where the truth is below it).

The truth is computed here with mpmath at 50 digits from the definition, never from the code under test:
H = integral of [p_Y - e^eps q_Y]_+ dy. The sign changes of p_Y - e^eps q_Y are found on a grid of step
sigma / 4 over every atom +- 40 sigma (and 400 points across every wider gap between atoms), each refined
by bisection of log p_Y - log q_Y - eps to 2^-200 of its grid step; on each interval J between sign changes
where the function is positive, P_Y(J) - e^eps Q_Y(J) = sum_x (P(x) - e^eps Q(x)) (Phi((J_hi - x)/sigma)
- Phi((J_lo - x)/sigma)), each Phi difference taken on the side of the atom where it does not cancel.
Beyond 40 sigma of every atom each prior puts mass below 1e-340.

Inputs are seeded numpy draws: dense hulls of 1 to 6 points, sparse supports over spans up to 10^4, point
masses, masses down to 1e-300 and skewed ones, shifts between the priors, sigma from 1e-2 to 1e3 times
(1 + span / 20), eps from 1e-6 to 700. A sample runs in ``make test``; the full 300 are slow.
"""
from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish.audit.gaussian_lattice import GaussianLatticeAuditor, gaussian_hockey_stick
from pufferfish.audit.target import Target
from pufferfish.lattice.pmf import LatticePMF

RTOL = mp.mpf("1e-9")
FULL, SAMPLE = 300, 12
TINY = mp.mpf(2) ** -1074


def bisect(f, a, b):
    """A root of f in [a, b] (f(a), f(b) of opposite signs) by bisection, 200 halvings."""
    fa = f(a)
    for _ in range(200):
        m = (a + b) / 2
        fm = f(m)
        if fm == 0:
            return m
        if (fm > 0) == (fa > 0):
            a, fa = m, fm
        else:
            b = m
    return (a + b) / 2


def true_hockey(xs, top, bot, sigma, eps):
    """H_{e^eps}(T_Y || B_Y) from the definition (module docstring), 50 digits."""
    with mp.workdps(50):
        s, c = mp.mpf(sigma), mp.exp(mp.mpf(eps))
        atoms = [(mp.mpf(int(x)), mp.mpf(float(a)), mp.mpf(float(b))) for x, a, b in zip(xs, top, bot)]

        def dens(y):
            e = [mp.exp(-(y - x) ** 2 / (2 * s * s)) for x, _, _ in atoms]
            return mp.fsum(a * k for (_, a, _), k in zip(atoms, e)), mp.fsum(b * k for (_, _, b), k in zip(atoms, e))

        def g(y):
            p, q = dens(y)
            return p - c * q

        def log_ratio(y):
            p, q = dens(y)
            return mp.log(p) - mp.log(q) - mp.mpf(eps)

        pts = {x + k * s / 4 for x, _, _ in atoms for k in range(-160, 161)}
        xs_mp = [x for x, _, _ in atoms]
        for x0, x1 in zip(xs_mp[:-1], xs_mp[1:]):
            if x1 - x0 > 80 * s:
                pts.update(x0 + (x1 - x0) * k / 400 for k in range(1, 400))
        pts = sorted(pts)
        vals = [g(y) for y in pts]
        edges, groups, cur = [mp.ninf], [], []
        for k in range(len(pts)):
            cur.append(vals[k])
            if k + 1 < len(pts) and vals[k] * vals[k + 1] < 0:
                edges.append(bisect(log_ratio, pts[k], pts[k + 1]))
                groups.append(cur)
                cur = []
        groups.append(cur)
        edges.append(mp.inf)
        total = mp.mpf(0)
        for lo, hi, vs in zip(edges[:-1], edges[1:], groups):
            if vs[0] > 0:
                for x, a, b in atoms:
                    if lo >= x:        # above the atom: survival functions
                        mass = mp.ncdf(-(lo - x) / s) - mp.ncdf(-(hi - x) / s)
                    else:
                        mass = mp.ncdf((hi - x) / s) - mp.ncdf((lo - x) / s)
                    total += (a - c * b) * mass
        return total


def check(reported: float, truth) -> None:
    value = mp.mpf(reported)
    assert truth <= value <= truth * (1 + RTOL) + TINY, (reported, mp.nstr(truth, 25))


def draw(rng):
    """A pair of priors, sigma and eps over the accepted range (module docstring)."""
    kind = int(rng.integers(4))
    if kind == 3:                                      # sparse support over a span up to 10^4
        span = int(10 ** rng.uniform(1, 4))
        pos = np.unique(np.concatenate(([0, span], rng.integers(0, span, int(rng.integers(0, 4))))))
    else:
        pos = np.arange(int(rng.integers(1, 7)))

    def pmf(at):
        if kind == 1:
            w = 10.0 ** -rng.uniform(0, 300, at.size)
            w[rng.integers(at.size)] = 1.0
        else:
            w = rng.uniform(0.05, 1.0, at.size)
            if kind == 2:
                w[rng.integers(at.size)] += 1e3
        arr = np.zeros(int(at[-1] - at[0]) + 1)
        arr[at - at[0]] = w / w.sum()
        return LatticePMF(int(at[0]), arr)

    p = pmf(pos)
    q = pmf(pos + int(rng.integers(-2, 3))) if rng.random() < 0.5 else pmf(pos)
    width = float(max(p.hi, q.hi) - min(p.lo, q.lo))
    sigma = float(math.exp(rng.uniform(math.log(1e-2), math.log(1e3)))) * (1.0 + width / 20.0)
    eps = float(math.exp(rng.uniform(math.log(1e-6), math.log(700.0))))
    return p, q, sigma, eps


@functools.lru_cache(maxsize=None)
def pairs(seed: int, count: int) -> tuple:
    """(reported, truth) for both directions of ``count`` seeded draws (computed once per run)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        p, q, sigma, eps = draw(rng)
        lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
        a, b = p.pmf_on(lo, hi), q.pmf_on(lo, hi)
        keep = (a > 0) | (b > 0)
        xs = np.arange(lo, hi + 1)[keep]
        fwd, bwd = gaussian_hockey_stick(p, q, epsilon=eps, sigma=sigma)
        out.append((fwd, true_hockey(xs, a[keep], b[keep], sigma, eps)))
        out.append((bwd, true_hockey(xs, b[keep], a[keep], sigma, eps)))
    return tuple(out)


def test_a_sample_of_gaussian_hockey_sticks_is_certified():
    for reported, truth in pairs(39, SAMPLE):
        check(reported, truth)


@pytest.mark.slow
def test_the_gaussian_hockey_stick_is_never_below_the_truth():
    below = [(r, mp.nstr(t, 20)) for r, t in pairs(3939, FULL) if mp.mpf(r) < t]
    assert not below, below


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="known: 2 of the 600 values (near-tangency cells, a delta far below "
                   "e^eps Q_Y of its root cells) are certified but looser than 1e-9 (docs/math/audits.md, Limits)")
def test_the_gaussian_hockey_stick_is_within_1e_9_of_the_truth():
    loose = [(r, mp.nstr(t, 20)) for r, t in pairs(3939, FULL) if mp.mpf(r) > t * (1 + RTOL) + TINY]
    assert not loose, loose


def test_shifted_point_masses_match_the_closed_form():
    """P = delta_0, Q = delta_1: H = Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma)
    (the Gaussian mechanism's tight delta, Balle and Wang 2018, Thm. 8), at 50 digits."""
    for sigma, eps in ((0.5, 1.0), (3.0, 0.01), (0.05, 30.0), (20.0, 1e-6)):
        with mp.workdps(50):
            s, e = mp.mpf(sigma), mp.mpf(eps)
            truth = mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)
        got = gaussian_hockey_stick(LatticePMF(0, np.array([1.0])), LatticePMF(1, np.array([1.0])),
                                    epsilon=eps, sigma=sigma)
        check(got[0], truth)
        check(got[1], truth)


def test_the_auditor_reports_the_certified_delta():
    p, q = LatticePMF(0, np.array([0.5, 0.5])), LatticePMF(0, np.array([0.25, 0.75]))
    got = GaussianLatticeAuditor(p, q).achieved(0.7, Target(0.1, delta=1e-3))
    assert (got.forward, got.backward) == gaussian_hockey_stick(p, q, epsilon=0.1, sigma=0.7)


def test_decide_keeps_a_certified_value_at_most_the_achieved_one():
    """decide re-sums in arb where the target is not met: never above achieved, never below the truth."""
    p, q = LatticePMF(0, np.array([1.0])), LatticePMF(1, np.array([1.0]))
    sigma, eps = 2.0, 0.3
    aud = GaussianLatticeAuditor(p, q)
    got = aud.achieved(sigma, Target(eps, delta=1e-6))
    dec = aud.decide(sigma, Target(eps, delta=1e-6))
    with mp.workdps(50):
        s, e = mp.mpf(sigma), mp.mpf(eps)
        truth = mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)
    assert not got.meets() and dec.value <= got.value
    check(dec.forward, truth)
    check(dec.backward, truth)

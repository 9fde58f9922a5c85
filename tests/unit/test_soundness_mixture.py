"""Soundness of the Laplace-on-Gaussian-mixture audit's privacy values (issue 39, paper 004): every value reported
is at least the truth and at most truth (1 + 1e-9) (plus the smallest subnormal where the truth is 0) whenever the
route says it is ``tight``; a value not proven tight is still at least the truth (a looser certified bound).

The truth is computed here with mpmath at 50 digits from the definitions, sharing nothing with the code: the
density of Y = X + Laplace(b) for X ~ sum_m w_m N(mu_m, sigma_m^2) (sigma_m = 0: a point mass) is the
convolution, whose two halves x < y and x > y integrate in closed form with the normal CDF (mpmath.ncdf), and
its CDF is E[F_N(y - X)] likewise; the hockey stick H_eps(P || Q) = int [p(y) - e^eps q(y)]^+ dy is the sum,
over each interval where the integrand is positive, of P(interval) - e^eps Q(interval), the end points found
by a sign scan of log p - log q - eps and mpmath.findroot (anderson) in each bracket (the scan also samples
the midpoints between the end points the code reports, so that a positive set narrower than the grid is not
missed; every sign and root is computed here). The pure epsilon sup_y |log p / q| is the larger of its tail
limits log E[e^{+-X/b}] ratios (fact (d)) and the grid's local maxima refined by golden-section search. The
noise-free pure epsilon sup_x |log f_i / f_j| of two mixtures (prior_epsilon_bound) is the larger of the atoms'
mass ratios and a dense scan of the densities' log ratio out to 2^60 sigma_max, its local maxima refined by
findroot on the derivative; its 300 pairs are built to share (or, one in six, not to share: an infinite truth)
their dominant tail components, with point-mass-like sigmas down to 1e-8, skewed weights and equal variances.
Inputs are seeded numpy draws over the whole accepted range:
single Gaussians, skewed mixtures, mixtures with point masses and pure point masses, absolute scales 10^-6 to
10^6, noise scales 10^-2 to 10^2 times the priors' spread, eps from 1e-6 to 700, calibration targets delta from
1e-300 to 0.5. A sample runs in ``make test``; the full 300 inputs of each route are marked slow.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish.audit.laplace_mixture import LaplaceMixtureAuditor, b_min
from pufferfish.audit.mixture_hockey_stick import hockey_stick, prior_hockey_stick
from pufferfish.audit.mixture_privacy_loss import (epsilon_achieved, epsilon_bound, prior_epsilon_achieved,
                                                   prior_epsilon_bound)
from pufferfish.audit.target import Target
from pufferfish.mixture import GMM

RTOL = mp.mpf("1e-9")
TINY = mp.mpf(2) ** -1074
FULL, SAMPLE = 300, 2
GRID = 160

OBSERVED: dict = {}


def check(route: str, reported: float, truth, tight: bool = True) -> None:
    """truth <= reported, and <= truth (1 + rtol) + the smallest subnormal when the route claims it is tight."""
    value = mp.mpf(reported)
    assert truth <= value, (route, reported, mp.nstr(truth, 20))
    if tight:
        assert value <= truth * (1 + RTOL) + TINY, (route, reported, mp.nstr(truth, 20))
    low, high, loose = OBSERVED.get(route, (math.inf, -math.inf, 0))
    ratio = float(value / truth - 1) if truth > 0 else (0.0 if value == 0 else math.inf)
    OBSERVED[route] = (min(low, ratio), max(high, ratio) if tight else high, loose + (not tight))


def log_uniform(rng, lo, hi):
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def prior_draw(rng, spread: float, scale: float) -> GMM:
    """A single Gaussian, a skewed mixture, a mixture with point masses, or point masses only."""
    kind = int(rng.integers(4))
    size = 1 if kind == 0 else int(rng.integers(1, 4))
    weights = rng.dirichlet(np.full(size, log_uniform(rng, 0.1, 5.0)))
    means = rng.normal(0.0, spread, size)
    stds = spread * np.exp(rng.uniform(-1.0, 0.5, size))
    if kind == 2:
        stds[0] = 0.0
    elif kind == 3:
        stds[:] = 0.0
    return GMM(weights, means * scale, stds * scale)


def near_prior(rng, prior: GMM) -> GMM:
    """Another prior close to ``prior`` (its means moved by a small fraction of the spread): tiny divergences."""
    step = log_uniform(rng, 1e-6, 0.3)
    spread = float(np.max(prior.stds)) or float(np.max(np.abs(prior.means))) or 1.0
    return GMM(prior.weights, prior.means + rng.normal(0.0, step * spread, prior.means.size), prior.stds)


def pair_draw(rng):
    scale = 10.0 ** rng.uniform(-6, 6)
    pi = prior_draw(rng, 1.0, scale)
    pj = near_prior(rng, pi) if rng.uniform() < 0.3 else prior_draw(rng, 1.0, scale)
    b = scale * log_uniform(rng, 1e-2, 1e2)
    return pi, pj, b, scale


def epsilon_draw(rng):
    return log_uniform(rng, 1e-6, 700.0) if rng.uniform() < 0.5 else float(rng.uniform(0.01, 3.0))


# ----------------------------------------------------------------------------- the truth, from the definitions

def mp_log_density(prior: GMM, b):
    """y -> log p(y), p the density of X + Laplace(b): per component, the convolution's halves in closed form."""
    comps = [(mp.mpf(w), mp.mpf(m), mp.mpf(s)) for w, m, s in zip(prior.weights, prior.means, prior.stds) if w > 0]
    b = mp.mpf(b)

    def log_p(y):
        y = mp.mpf(y)
        total = mp.mpf(0)
        for w, m, s in comps:
            if s == 0:
                total += w * mp.exp(-abs(y - m) / b) / (2 * b)
                continue
            # int_{x<y} phi_s(x-m) e^{-(y-x)/b} dx + int_{x>y} phi_s(x-m) e^{-(x-y)/b} dx, over 2b
            left = mp.exp(-(y - m) / b + s * s / (2 * b * b)) * mp.ncdf((y - m) / s - s / b)
            right = mp.exp((y - m) / b + s * s / (2 * b * b)) * mp.ncdf(-(y - m) / s - s / b)
            total += w * (left + right) / (2 * b)
        return mp.log(total)

    return log_p


def mp_cdf(prior: GMM, b, *, continuous: bool = False):
    """y -> Pr(X + Laplace(b) <= y) = E[F_N(y - X)], F_N(u) = 1 - e^{-u/b}/2 (u >= 0), e^{u/b}/2 (u < 0): per
    Gaussian component the two halves integrate in closed form (b = 0: the prior's own CDF; ``continuous``:
    of its components with sigma > 0 only, a sub-probability)."""
    comps = [(mp.mpf(w), mp.mpf(m), mp.mpf(s)) for w, m, s in zip(prior.weights, prior.means, prior.stds)
             if w > 0 and (s > 0 or not continuous)]
    b = mp.mpf(b)

    def cdf(y):
        if y in (-mp.inf, mp.inf):
            return mp.mpf(0) if y < 0 else mp.fsum(w for w, _, _ in comps)
        y = mp.mpf(y)
        total = mp.mpf(0)
        for w, m, s in comps:
            u = y - m
            if b == 0:
                total += w * (mp.ncdf(u / s) if s > 0 else mp.mpf(u >= 0))
            elif s == 0:
                total += w * (1 - mp.exp(-u / b) / 2 if u >= 0 else mp.exp(u / b) / 2)
            else:
                # E[1 - e^{-(y-X)/b}/2; X <= y] + E[e^{(y-X)/b}/2; X > y]
                below = mp.ncdf(u / s) - mp.exp(-u / b + s * s / (2 * b * b)) * mp.ncdf(u / s - s / b) / 2
                above = mp.exp(u / b + s * s / (2 * b * b)) * mp.ncdf(-u / s - s / b) / 2
                total += w * (below + above)
        return total

    return cdf


def mp_log_prior_density(prior: GMM):
    """x -> log of the continuous part of the prior itself (the noise-free limit)."""
    comps = [(mp.mpf(w), mp.mpf(m), mp.mpf(s)) for w, m, s in zip(prior.weights, prior.means, prior.stds) if s > 0]
    return lambda x: mp.log(mp.fsum(w * mp.npdf(mp.mpf(x), m, s) for w, m, s in comps))


def grid_for(pi: GMM, pj: GMM, b: float, reach: float, runs=()):
    """A uniform grid over the mass, and around every mean the scales where the log ratio can turn: the
    component's own sigma and b (a component much narrower than the noise, or an atom, bends it there).
    ``runs``: the midpoints of intervals the code reports are sampled too (a positive set narrower than the
    grid would be missed by the scan); every sign, root and mass is still computed here."""
    mu = np.concatenate([pi.means, pj.means])
    sd = np.concatenate([pi.stds, pj.stds])
    lo, hi = float(np.min(mu - 10 * sd) - reach * b), float(np.max(mu + 10 * sd) + reach * b)
    nodes = set(np.linspace(lo, hi, GRID).tolist()) | {float(m) for m in mu}
    ends = sorted(v for run in runs for v in run if math.isfinite(v))
    nodes |= {0.5 * (x + y) for x, y in zip(ends[:-1], ends[1:])}
    for m, s in zip(mu, sd):
        for width in {float(s), float(b)} - {0.0}:
            nodes |= set((m + width * np.linspace(-10.0, 10.0, 41)).tolist())
    return sorted(x for x in nodes if lo <= x <= hi)


def mp_hockey(log_p, log_q, eps, nodes, breaks, cdfs=None):
    """int [p - e^eps q]^+ : positive runs from a sign scan of r - eps, roots refined, each run's integral by the
    laws' CDFs (``cdfs``) or, without them, by mp.quad of the densities (at the atoms and nodes inside)."""
    eps = mp.mpf(eps)
    g = lambda y: mp.exp(log_p(y)) - mp.exp(eps + log_q(y))            # noqa: E731
    f = lambda y: log_p(y) - log_q(y) - eps                            # noqa: E731
    values = [f(y) for y in nodes]
    ends = []
    for k in range(len(nodes) - 1):
        if (values[k] > 0) != (values[k + 1] > 0):
            ends.append(mp.findroot(f, (mp.mpf(nodes[k]), mp.mpf(nodes[k + 1])), solver="anderson"))
    edges = [-mp.inf, *ends, mp.inf]
    changes = [k for k in range(len(nodes) - 1) if (values[k] > 0) != (values[k + 1] > 0)]
    inside = [values[0] > 0] + [values[k + 1] > 0 for k in changes]
    total = mp.mpf(0)
    for (a, c), positive in zip(zip(edges[:-1], edges[1:]), inside):
        if positive and cdfs is not None:
            total += (cdfs[0](c) - cdfs[0](a)) - mp.exp(eps) * (cdfs[1](c) - cdfs[1](a))
        elif positive:
            points = [a, *[mp.mpf(x) for x in sorted({*breaks, *nodes}) if a < x < c], c]
            total += mp.quad(g, points)
    return max(total, mp.mpf(0))


def mp_sup_abs_log_ratio(log_p, log_q, nodes, limits):
    """sup |log p - log q|: the tail limits and each local maximum of the grid refined by golden-section search."""
    r = lambda y: abs(log_p(y) - log_q(y))                             # noqa: E731
    values = [r(y) for y in nodes]
    best = max([*values, *limits])
    invphi = (mp.sqrt(5) - 1) / 2
    for k in range(1, len(nodes) - 1):
        if values[k] > values[k - 1] and values[k] >= values[k + 1] and values[k] > best * (1 - mp.mpf("1e-3")):
            a, c = mp.mpf(nodes[k - 1]), mp.mpf(nodes[k + 1])
            for _ in range(60):
                x1, x2 = c - invphi * (c - a), a + invphi * (c - a)
                if r(x1) < r(x2):
                    a = x1
                else:
                    c = x2
            best = max(best, r((a + c) / 2))
    return best


def mp_tail_limits(pi: GMM, pj: GMM, b):
    """|log M_i(+-1/b) / M_j(+-1/b)|, M the mixture's moment generating function."""
    def log_mgf(prior, theta):
        return mp.log(mp.fsum(mp.mpf(w) * mp.exp(theta * mp.mpf(m) + theta ** 2 * mp.mpf(s) ** 2 / 2)
                              for w, m, s in zip(prior.weights, prior.means, prior.stds)))
    theta = 1 / mp.mpf(b)
    return [abs(log_mgf(pi, t) - log_mgf(pj, t)) for t in (theta, -theta)]


# ----------------------------------------------------------------------------- the routes

def hockey_case(rng):
    """LaplaceMixtureAuditor.achieved (= hockey_stick): both directions."""
    pi, pj, b, _ = pair_draw(rng)
    eps = epsilon_draw(rng)
    got = LaplaceMixtureAuditor(pi, pj).achieved(b, Target(eps, delta=0.5))
    hs = hockey_stick(pi, pj, epsilon=eps, b=b)
    assert (got.forward, got.backward) == (hs.forward, hs.backward)
    nodes = grid_for(pi, pj, b, 45, hs.forward_set + hs.backward_set)
    breaks = [float(m) for m, s in zip([*pi.means, *pj.means], [*pi.stds, *pj.stds]) if s == 0]
    lp, lq = mp_log_density(pi, b), mp_log_density(pj, b)
    fi, fj = mp_cdf(pi, b), mp_cdf(pj, b)
    forward, backward = mp_hockey(lp, lq, eps, nodes, breaks, (fi, fj)), mp_hockey(lq, lp, eps, nodes, breaks, (fj, fi))
    check("hockey_stick.forward", hs.forward, forward, hs.tight)
    check("hockey_stick.backward", hs.backward, backward, hs.tight)


def epsilon_case(rng):
    """epsilon_achieved over all y."""
    pi, pj, b, _ = pair_draw(rng)
    nodes = grid_for(pi, pj, b, 45)
    truth = mp_sup_abs_log_ratio(mp_log_density(pi, b), mp_log_density(pj, b), nodes, mp_tail_limits(pi, pj, b))
    got = epsilon_bound(pi, pj, b=b)
    assert got.value == epsilon_achieved(pi, pj, b=b)
    assert mp.mpf(got.lower) <= truth, (got, mp.nstr(truth, 20))
    check("epsilon_achieved", got.value, truth, got.tight)


def prior_case(rng):
    """prior_hockey_stick (the auditor's noise_free): atoms atom by atom, the continuous parts by quad."""
    pi, pj, _, scale = pair_draw(rng)
    eps = epsilon_draw(rng)
    hs = prior_hockey_stick(pi, pj, epsilon=eps)
    big = mp.exp(mp.mpf(eps))
    truths = []
    for p, q in ((pi, pj), (pj, pi)):
        atoms = {float(m) for m, s in zip([*p.means, *q.means], [*p.stds, *q.stds]) if s == 0}
        def atom(law, x):
            return mp.fsum(mp.mpf(w) for w, m, s in zip(law.weights, law.means, law.stds) if s == 0 and m == x)

        total = mp.fsum(max(mp.mpf(0), atom(p, x) - big * atom(q, x)) for x in atoms)
        if (p.stds > 0).any() and (q.stds > 0).any():
            nodes = grid_for(p, q, 0.0, 0, hs.forward_set + hs.backward_set)
            cdfs = (mp_cdf(p, 0, continuous=True), mp_cdf(q, 0, continuous=True))
            total += mp_hockey(mp_log_prior_density(p), mp_log_prior_density(q), eps, nodes, [], cdfs)
        elif (p.stds > 0).any():
            total += mp.fsum(mp.mpf(w) for w, s in zip(p.weights, p.stds) if s > 0)
        truths.append(total)
    check("prior_hockey_stick.forward", hs.forward, truths[0], hs.tight)
    check("prior_hockey_stick.backward", hs.backward, truths[1], hs.tight)


def calibration_case(rng):
    """b_min at a target (eps, delta), delta from 1e-300 to 0.5: the truth at the returned b meets the target."""
    pi, pj, _, _ = pair_draw(rng)
    eps = float(rng.uniform(0.05, 3.0))
    delta = log_uniform(rng, 1e-300, 0.5) if rng.uniform() < 0.5 else log_uniform(rng, 1e-8, 0.5)
    found = b_min(pi, pj, epsilon=eps, delta=delta, rtol=1e-6, max_steps=120)
    if not math.isfinite(found.b) or found.b == 0.0:
        return
    nodes = grid_for(pi, pj, found.b, 45)
    breaks = [float(m) for m, s in zip([*pi.means, *pj.means], [*pi.stds, *pj.stds]) if s == 0]
    lp, lq = mp_log_density(pi, found.b), mp_log_density(pj, found.b)
    fi, fj = mp_cdf(pi, found.b), mp_cdf(pj, found.b)
    truth = max(mp_hockey(lp, lq, eps, nodes, breaks, (fi, fj)), mp_hockey(lq, lp, eps, nodes, breaks, (fj, fi)))
    assert truth <= mp.mpf(found.achieved), (found, mp.nstr(truth, 20))
    if found.achieved <= delta:
        assert truth <= mp.mpf(delta)


def run(count, body, offset=0):
    with mp.workdps(50):
        for seed in range(offset, offset + count):
            body(np.random.default_rng(seed))


CASES = [hockey_case, epsilon_case, prior_case]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_sample(case):
    run(SAMPLE, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_full_range(case):
    run(FULL, case, offset=SAMPLE)


@pytest.mark.slow
def test_calibration_full_range():
    run(40, calibration_case)


# ----------------------------------------------------------------------------- the noise-free pure epsilon

def noise_free_pair(rng):
    """Two mixtures built to share their dominant tail components (largest sigma S; one component for both
    tails, or the two extreme means at S), or, one draw in six, to differ there (the truth is then infinite):
    other components of smaller sigma (a fifth of them point-mass-like, sigma down to 1e-8 S) or of sigma S
    with a mean between the extreme ones (equal variances), skewed Dirichlet weights, and shared atoms. Returns
    (prior_i, prior_j, finite)."""
    scale = 10.0 ** rng.uniform(-4, 4)
    big = scale * log_uniform(rng, 0.2, 5.0)
    two = rng.uniform() < 0.5
    tops = sorted(rng.normal(0.0, scale, 2).tolist()) if two else [float(rng.normal(0.0, scale))]
    atoms = rng.normal(0.0, 2 * scale, int(rng.integers(0, 3))).tolist() if rng.uniform() < 0.25 else []
    broken = rng.uniform() < 1 / 6

    def one():
        comps = [(m, big) for m in tops]
        for _ in range(int(rng.integers(0, 4))):
            u = rng.uniform()
            if u < 0.2:
                comps.append((float(rng.normal(0.0, scale)), big * 10.0 ** rng.uniform(-8, -3)))
            elif u < 0.4 and two:
                comps.append((float(rng.uniform(tops[0], tops[1])), big))
            else:
                comps.append((float(rng.normal(0.0, scale)), big * float(np.exp(rng.uniform(-2.0, -0.01)))))
        comps += [(a, 0.0) for a in atoms]
        weights = rng.dirichlet(np.full(len(comps), log_uniform(rng, 0.05, 5.0)))
        weights = np.maximum(weights, 1e-12)
        return GMM(weights / weights.sum(), [m for m, _ in comps], [s for _, s in comps])

    pi, pj = one(), one()
    if broken:
        kind = int(rng.integers(3))
        means, stds = pj.means.copy(), pj.stds.copy()
        k = int(np.flatnonzero(stds == big)[0]) if kind < 2 else 0
        if kind == 0:
            means[k] += scale * log_uniform(rng, 1e-6, 1.0) * (1 if means[k] == max(tops) else -1)
        elif kind == 1:
            stds[k] = big * (1 + log_uniform(rng, 1e-6, 1.0))
        else:
            means = np.append(means, float(rng.normal(0.0, 2 * scale)) + 3 * scale)
            stds = np.append(stds, 0.0)
        weights = pj.weights if kind < 2 else np.append(pj.weights * 0.9, 0.1)
        pj = GMM(weights, means, stds)
    return pi, pj, not broken


def mp_noise_free_sup(pi: GMM, pj: GMM):
    """sup_x |log f_i(x) / f_j(x)| from the definition at 50 digits: the atoms' mass ratios, and for the
    densities a dense scan (uniform, around every component at its own sigma, geometrically out to 2^30
    sigma_max, eight points an octave, and at 2^40, 2^50, 2^60 sigma_max, where r is its tail limit to 50
    digits) whose local maxima are refined by findroot on the derivative of the log ratio (in closed form)."""
    def comps(p):
        return [(mp.mpf(w), mp.mpf(m), mp.mpf(s)) for w, m, s in zip(p.weights, p.means, p.stds) if s > 0]

    def atoms(p):
        out = {}
        for w, m, s in zip(p.weights, p.means, p.stds):
            if s == 0:
                out[float(m)] = out.get(float(m), mp.mpf(0)) + mp.mpf(w)
        return out

    best = mp.mpf(0)
    ai, aj = atoms(pi), atoms(pj)
    for x in ai:
        best = max(best, abs(mp.log(ai[x] / aj[x])))
    ci, cj = comps(pi), comps(pj)
    if not ci:
        return best

    def r(x):
        return (mp.log(mp.fsum(w * mp.npdf(x, m, s) for w, m, s in ci))
                - mp.log(mp.fsum(w * mp.npdf(x, m, s) for w, m, s in cj)))

    def dr(x):
        def score(cs):
            terms = [w * mp.npdf(x, m, s) for w, m, s in cs]
            return mp.fsum(t * -(x - m) / s ** 2 for t, (_, m, s) in zip(terms, cs)) / mp.fsum(terms)
        return score(ci) - score(cj)

    mu = [float(m) for _, m, _ in ci + cj]
    sd = [float(s) for _, _, s in ci + cj]
    top = max(sd)
    nodes = set(np.linspace(min(mu) - 12 * top, max(mu) + 12 * top, GRID).tolist())
    for m, s in zip(mu, sd):
        nodes |= set((m + s * np.linspace(-12.0, 12.0, 49)).tolist())
    for k in [*(np.arange(241) / 8), 40, 50, 60]:
        nodes |= {max(mu) + top * 2.0 ** k, min(mu) - top * 2.0 ** k}
    nodes = sorted(nodes)
    values = [abs(r(mp.mpf(x))) for x in nodes]
    best = max(best, *values)
    for k in range(1, len(nodes) - 1):
        if values[k] >= values[k - 1] and values[k] >= values[k + 1] and values[k] > best * (1 - mp.mpf("1e-2")):
            a, c = mp.mpf(nodes[k - 1]), mp.mpf(nodes[k + 1])
            if dr(a) * dr(c) < 0:
                best = max(best, abs(r(derivative_root(dr, a, c))))
    return best


def derivative_root(dr, a, c):
    """A root of ``dr`` in [a, c] (a sign change): mpmath.findroot (illinois, bracketing), bisection (100 steps)
    where it fails or leaves the bracket."""
    try:
        root = mp.findroot(dr, (a, c), solver="illinois")
        if a <= root <= c:
            return root
    except (ZeroDivisionError, ValueError):
        pass
    sign = dr(a) > 0
    for _ in range(100):
        mid = (a + c) / 2
        a, c = (mid, c) if (dr(mid) > 0) == sign else (a, mid)
    return (a + c) / 2


def noise_free_epsilon_case(rng):
    """prior_epsilon_bound (and prior_epsilon_achieved, b_min's "no noise needed" at delta = 0)."""
    pi, pj, finite = noise_free_pair(rng)
    got = prior_epsilon_bound(pi, pj)
    assert got.value == prior_epsilon_achieved(pi, pj)
    if not finite:
        assert math.isinf(got.value) and math.isinf(got.lower)
        return
    truth = mp_noise_free_sup(pi, pj)
    assert math.isfinite(got.value), (pi, pj)
    assert mp.mpf(got.lower) <= truth, (got, mp.nstr(truth, 20))
    check("prior_epsilon_achieved", got.value, truth, got.tight)


@pytest.mark.parametrize("seed", range(12))
def test_noise_free_epsilon_sample(seed):
    with mp.workdps(50):
        noise_free_epsilon_case(np.random.default_rng(10_000 + seed))


@pytest.mark.slow
def test_noise_free_epsilon_full_range():
    run(FULL, noise_free_epsilon_case, offset=10_012)

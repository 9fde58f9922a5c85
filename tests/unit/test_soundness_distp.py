"""Soundness of paper 003's privacy values (issue 39): every value reported is at least the truth and at most
truth (1 + 1e-9) (plus the smallest subnormal where the truth is below it); every calibrated parameter meets its
target by the truth.

The truth is computed here with mpmath at 50 digits from the definitions: the hockey stick
sum_t [P0(t) - e^eps P1(t)]^+, the pure epsilon max_t |log P0(t) / P1(t)|, the f-divergences of Table I,
E[(sum_i w(Z_i))^+] by its count vectors, randomized response and the clamped geometric mechanism from their
channels (e^eps_A / (e^eps_A + m - 1); (1 - r) / (1 + r) r^|y - x| and the clamped ends r^d / (1 + r)).
Inputs are plain seeded numpy draws: laws from point masses to skewed Dirichlet draws and masses spread over
300 orders of magnitude, eps from 1e-6 to 700 (and 0), targets delta from 1e-300 to 0.5. A sample of each runs
in ``make test``; the full 300 inputs are marked slow.
"""
from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish.distp.calibrate import largest_geometric_epsilon, largest_rr_epsilon, smallest_dummies
from pufferfish.distp.divergences import distp_delta, f_divergence, hockey_stick, pure_epsilon
from pufferfish.distp.sums import certified_positive_part, exact_positive_part, exact_positive_part_bounds
from pufferfish.distp.tupling import tupling_over
from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse

mp.mp.dps = 50
RTOL = mp.mpf("1e-9")
TINY = mp.mpf(2) ** -1074
FULL, SAMPLE = 300, 20
OBSERVED: dict = {}


def check(route: str, reported: float, truth, rtol=RTOL) -> None:
    """truth <= reported <= truth (1 + rtol) + the smallest subnormal; inf exactly where the truth is."""
    if truth == mp.inf or reported == math.inf:
        assert reported == math.inf and truth == mp.inf, (route, reported, truth)
        return
    value = mp.mpf(reported)
    assert truth <= value <= truth * (1 + rtol) + TINY, (route, reported, mp.nstr(truth, 20))
    if truth > mp.mpf(2) ** -1000:
        ratio = float(value / truth - 1)
        low, high = OBSERVED.get(route, (math.inf, -math.inf))
        OBSERVED[route] = (min(low, ratio), max(high, ratio))


def log_uniform(rng, lo, hi):
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def epsilon_draw(rng):
    kind = rng.integers(5)
    return 0.0 if kind == 0 else (log_uniform(rng, 1e-6, 700.0) if kind < 3 else float(rng.uniform(0, 3)))


def law_draw(rng, size):
    """A pmf: a point mass, a skewed Dirichlet draw, or masses over 300 orders of magnitude (some zeros)."""
    kind = rng.integers(4)
    if kind == 0:
        out = np.zeros(size)
        out[rng.integers(size)] = 1.0
        return out
    if kind == 1:
        out = rng.dirichlet(np.full(size, log_uniform(rng, 0.05, 5.0)))
    elif kind == 2:
        out = np.exp(rng.uniform(-690, 0, size))
    else:
        out = rng.dirichlet(np.ones(size)) * (rng.uniform(size=size) < 0.7)
        out = out if out.sum() > 0 else np.eye(size)[0]
    return out / out.sum()


def close_law(rng, law):
    """Another law near ``law`` (a relative perturbation): the hockey stick's terms then nearly cancel."""
    out = law * np.exp(rng.normal(0, log_uniform(rng, 1e-12, 1.0), law.size))
    return out / out.sum()


def mp_hockey(p, q, eps):
    big = mp.exp(mp.mpf(eps))
    return mp.fsum(max(mp.mpf(a) - big * mp.mpf(b), 0) for a, b in zip(p, q))


def run(count, body):
    with mp.workdps(50):                 # whatever precision another test module left mpmath at
        for seed in range(count):
            body(np.random.default_rng(seed))


def divergence_case(rng):
    size = int(rng.integers(2, 13))
    p = law_draw(rng, size)
    q = close_law(rng, p) if rng.uniform() < 0.4 else law_draw(rng, size)
    eps = epsilon_draw(rng)
    forward, backward = mp_hockey(p, q, eps), mp_hockey(q, p, eps)
    check("hockey_stick", hockey_stick(p, q, epsilon=eps), forward)
    check("distp_delta", distp_delta(p, q, epsilon=eps), max(forward, backward))
    reached = [(mp.mpf(a), mp.mpf(b)) for a, b in zip(p, q) if a > 0 or b > 0]
    pure = mp.inf if any(a == 0 or b == 0 for a, b in reached) else max(abs(mp.log(a / b)) for a, b in reached)
    check("pure_epsilon", pure_epsilon(p, q), pure)
    kl = mp.inf if any(b == 0 < a for a, b in zip(p, q)) else \
        mp.fsum(mp.mpf(a) * mp.log(mp.mpf(a) / mp.mpf(b)) for a, b in zip(p, q) if a > 0)
    truths = {"kl": kl, "total_variation": mp.fsum(abs(mp.mpf(a) - mp.mpf(b)) for a, b in zip(p, q)) / 2,
              "hellinger": mp.fsum((mp.sqrt(a) - mp.sqrt(b)) ** 2 for a, b in zip(p, q)),
              "chi2": mp.inf if any(b == 0 < a for a, b in zip(p, q)) else
              mp.fsum((mp.mpf(a) - mp.mpf(b)) ** 2 / mp.mpf(b) for a, b in zip(p, q) if b > 0)}
    for name, truth in truths.items():
        got = f_divergence(p, q, name)
        if truth != mp.inf and truth < 0:    # KL of two laws summing to 1 only within PMF_ATOL: a signed bound
            assert truth <= mp.mpf(got) <= truth * (1 - RTOL), (name, got, truth)
            continue
        check(f"f_divergence.{name}", got, truth)


def mp_positive_part(w, nu, n):
    """E[(sum w(Z_i))^+] by its count vectors, in mpmath."""
    total = mp.mpf(0)
    for counts in itertools.product(range(n + 1), repeat=len(w)):
        if sum(counts) != n:
            continue
        s = mp.fsum(c * mp.mpf(v) for c, v in zip(counts, w))
        if s > 0:
            weight = mp.factorial(n) / mp.fprod(mp.factorial(c) for c in counts)
            total += weight * mp.fprod(mp.mpf(m) ** c for m, c in zip(nu, counts)) * s
    return total


def positive_part_case(rng):
    atoms, n = int(rng.integers(1, 4)), int(rng.integers(1, 13))
    scale = log_uniform(rng, 1e-100, 1e100)
    w = rng.normal(-0.3, 1.0, atoms) * scale
    nu = rng.dirichlet(np.ones(atoms))
    truth = mp_positive_part(w, nu, n)
    check("exact_positive_part", exact_positive_part(w, nu, n), truth)
    low, high = exact_positive_part_bounds(w, w, nu, n)
    assert low <= truth <= high


def grid_case(rng):
    """The certified grid route: lower <= the truth <= upper (its width is its rtol, not 1e-9)."""
    atoms, n = int(rng.integers(2, 4)), int(rng.integers(20, 41))
    w = rng.normal(-0.5, 1.0, atoms)
    nu = rng.dirichlet(np.ones(atoms))
    got = certified_positive_part(w, w, nu, n, rtol=1e-6)
    truth = mp_positive_part(w, nu, n)
    assert mp.mpf(got.lower) <= truth <= mp.mpf(got.upper), (got, truth)


def rr_laws(m, eps_a, p0, p1):
    big = mp.exp(mp.mpf(eps_a))
    keep, other = big / (big + m - 1), 1 / (big + m - 1)
    return [[other + (keep - other) * mp.mpf(v) for v in law] for law in (p0, p1)]


def geometric_laws(domain, eps_a, p0, p1):
    r = mp.exp(-mp.mpf(eps_a))
    low, high = domain[0], domain[-1]

    def channel(x, y):
        if y in (low, high):
            return r ** abs(y - x) / (1 + r)
        return (1 - r) / (1 + r) * r ** abs(y - x)
    return [[mp.fsum(mp.mpf(m) * channel(x, y) for x, m in zip(domain, law)) for y in range(low, high + 1)]
            for law in (p0, p1)]


def mp_distp(make_laws, eps):
    """The DistP delta of the laws ``make_laws()`` builds; below 1e-40 (50 digits cannot tell it from an exact 0,
    e.g. eps = eps_A |x - x'| exactly in floats) recomputed at 700 digits."""
    value = max(mp_hockey(*make_laws(), eps), mp_hockey(*make_laws()[::-1], eps))
    if value < mp.mpf("1e-40"):
        with mp.workdps(700):
            laws = make_laws()
            value = max(mp_hockey(laws[0], laws[1], eps), mp_hockey(laws[1], laws[0], eps))
    return value


def calibration_case(rng):
    """The largest RR / geometric eps_A: its reported delta is certified and meets the target by the truth."""
    m = int(rng.integers(2, 7))
    p0, p1 = law_draw(rng, m), law_draw(rng, m)
    eps, target = log_uniform(rng, 1e-3, 2.0), log_uniform(rng, 1e-300, 0.5)
    found = largest_rr_epsilon(m, p0, p1, epsilon=eps, delta=target)
    if math.isfinite(found.parameter):
        truth = mp_distp(lambda: rr_laws(m, found.parameter, p0, p1), eps)
        check("largest_rr_epsilon.delta", found.delta_upper, truth)
        assert truth <= target
    domain = tuple(sorted(rng.choice(np.arange(-5, 6), size=m, replace=False).tolist()))
    found = largest_geometric_epsilon(domain, p0, p1, epsilon=eps, delta=target)
    if math.isfinite(found.parameter):
        truth = mp_distp(lambda: geometric_laws(domain, found.parameter, p0, p1), eps)
        check("largest_geometric_epsilon.delta", found.delta_upper, truth)
        assert truth <= target


def tupling_case(rng):
    """Tupling over RR, the count-vector route: [delta, delta_upper] contains the truth, 1e-9 wide; smallest k meets."""
    m, k = int(rng.integers(2, 4)), int(rng.integers(0, 6))
    p0, p1 = law_draw(rng, m), law_draw(rng, m)
    mechanism = tupling_over(RandomizedResponse(m, log_uniform(rng, 0.05, 5.0)), dummies=k)
    eps = log_uniform(rng, 1e-6, 3.0) if rng.uniform() < 0.8 else 0.0
    mu0, mu1 = (list(map(mp.mpf, (np.asarray(p) @ mechanism.channel).tolist())) for p in (p0, p1))
    nu = [mp.mpf(v) for v in mechanism.dummy_law]
    n, big = k + 1, mp.exp(mp.mpf(eps))
    truth = max(mp_positive_part([(a - big * b) / c for a, b, c in zip(x, y, nu)], nu, n)
                for x, y in ((mu0, mu1), (mu1, mu0))) / n
    got = mechanism.delta(p0, p1, epsilon=eps)
    assert got.method in ("exact", "zero") and got.delta <= truth
    check("Tupling.delta_upper", got.delta_upper, truth)


def dummies_case(rng):
    m = int(rng.integers(2, 4))
    p0, p1 = law_draw(rng, m), law_draw(rng, m)
    base = RandomizedResponse(m, log_uniform(rng, 0.5, 4.0))
    eps, target = log_uniform(rng, 1e-3, 1.0), log_uniform(rng, 1e-4, 0.3)
    found = smallest_dummies(base, p0, p1, epsilon=eps, delta=target, max_dummies=6)
    if math.isnan(found.parameter):
        return
    mechanism = tupling_over(base, dummies=int(found.parameter))
    mu0, mu1 = (list(map(mp.mpf, (np.asarray(p) @ mechanism.channel).tolist())) for p in (p0, p1))
    nu, n, big = [mp.mpf(v) for v in mechanism.dummy_law], int(found.parameter) + 1, mp.exp(mp.mpf(eps))
    truth = max(mp_positive_part([(a - big * b) / c for a, b, c in zip(x, y, nu)], nu, n)
                for x, y in ((mu0, mu1), (mu1, mu0))) / n
    assert truth <= target and truth <= mp.mpf(found.delta_upper)


CASES = [divergence_case, positive_part_case, calibration_case, tupling_case]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_sample(case):
    run(SAMPLE, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES + [grid_case, dummies_case], ids=lambda c: c.__name__)
def test_full_range(case):
    run(FULL if case not in (grid_case, dummies_case) else 40, case)


def test_grid_and_dummies_sample():
    run(3, grid_case)
    run(3, dummies_case)


@mp.workdps(50)
def test_the_issue_example_meets_means_meets():
    """A geometric calibration whose float delta is a hair below the target is lowered until the mechanism's own
    (certified) delta meets it: the truth at the returned eps_A is at most the target."""
    rng = np.random.default_rng(39)
    p0, p1 = rng.dirichlet(np.ones(16)), rng.dirichlet(np.ones(16))
    domain = tuple(range(1, 17))
    found = largest_geometric_epsilon(domain, p0, p1, epsilon=0.25, delta=1e-5)
    assert mp_distp(lambda: geometric_laws(domain, found.parameter, p0, p1), 0.25) <= mp.mpf(1e-5)
    assert found.delta_upper <= 1e-5
    assert ClampedGeometric(domain, found.parameter).epsilon == found.parameter

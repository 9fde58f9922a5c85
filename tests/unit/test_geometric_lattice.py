"""Exact audits of two-sided geometric noise on lattice priors (pufferfish.audit.geometric_lattice).

Every reference is computed here, independently of the module: the pmf of Y = X + G summed
directly over a truncated integer range in mpmath (40 digits, more for huge scales), with an
explicit bound on what the truncation leaves out (P(|G| > T) = 2 r^(T+1) / (1 + r)); the discrete
Laplace privacy-loss distribution of dp-accounting (Google's closed forms) for a shift; the
closed form Delta / b of the pure-epsilon loss of a shift. Scales from 1e-250 to 1e250, epsilons
from 0 to 50, Renyi orders from 1.5 to 20; monotonicity in the scale (the proof of the module
docstring: G_b2 = G_b1 + W with W's pmf in closed form) is tested on the law of W itself and on
the audits.
"""
import functools
import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish import audit, registry
from pufferfish.audit import (GeometricLatticeAuditor, Target, geometric_hockey_stick, geometric_privacy_loss,
                              geometric_renyi, lattice_auditor, noise_std)
from pufferfish.audit.zero_noise import zero_noise_directions, zero_noise_hockey_stick, zero_noise_renyi
from pufferfish.errors import InvalidArgumentError
from pufferfish.lattice import LatticePMF, Reports, SecretPair
from tests.helpers import certified

PRIORS = {
    "overlap": (LatticePMF.from_values([0, 1, 2], [0.2, 0.5, 0.3]), LatticePMF.from_values([1, 2, 3], [0.3, 0.4, 0.3])),
    "shift3": (LatticePMF.point(0), LatticePMF.point(3)),
    "interior zeros": (LatticePMF.from_values([0, 4], [0.5, 0.5]), LatticePMF.from_values([0, 2, 4], [0.25, 0.5, 0.25])),
    "bernoulli": (LatticePMF.bernoulli(0.2), LatticePMF.bernoulli(0.9)),
    "same support": (LatticePMF.from_values([-2, -1, 0], [0.3, 0.3, 0.4]),
                     LatticePMF.from_values([-2, -1, 0], [0.5, 0.25, 0.25])),
}
#: from the nearest-atom regime (1e-3: 1/b above 800) through the kernel's to a wide noise
SCALES = [1e-3, 1.3e-3, 0.05, 0.3, 1.0, 8.0]


def _atoms(pmf):
    return [(pmf.lo + k, mp.mpf(float(m))) for k, m in enumerate(pmf.probs) if m > 0]


class Direct:
    """The pmfs of Y = X + G under both priors on [L - T, R + T], in mpmath, T chosen so that
    P(|G| > T) = 2 r^(T+1) / (1 + r) < ``tail`` (``leftover``: that bound)."""

    def __init__(self, p, q, b, *, dps=40, tail=1e-45):
        self.dps = dps
        with mp.workdps(dps):
            self._build(p, q, mp.mpf(b), tail)

    def _build(self, p, q, b, tail):
        self.r = r = mp.exp(-1 / b)
        c = (1 - r) / (1 + r)
        T = max(3, int(mp.ceil(mp.log(mp.mpf(tail) * (1 + r) / 2) / mp.log(r))) if r > 0 else 3)
        lo, hi = min(p.lo, q.lo) - T, max(p.hi, q.hi) + T
        self.ys = list(range(lo, hi + 1))
        power = [mp.mpf(1)]
        for _ in range(hi - lo):
            power.append(power[-1] * r)                   # r^|y - x|
        self.p = [c * mp.fsum(m * power[abs(y - x)] for x, m in _atoms(p)) for y in self.ys]
        self.q = [c * mp.fsum(m * power[abs(y - x)] for x, m in _atoms(q)) for y in self.ys]
        self.leftover = 2 * r ** (T + 1) / (1 + r)
        # rounded once to float64 (1e-16 relative each): enough for the sums of positive parts
        self.pf = np.array([float(v) for v in self.p])
        self.qf = np.array([float(v) for v in self.q])

    @functools.cache
    def loss(self):
        with mp.workdps(self.dps):
            ratios = [mp.log(a / b) for a, b in zip(self.p, self.q)]
            return float(max(ratios)), float(-min(ratios))

    @functools.cache
    def hockey(self, eps):
        """sum_y [p - e^eps q]_+ both ways: a term counts only where p > e^eps q, so rounding the
        pmfs to float64 moves the sum by at most 1e-16 sum p."""
        c = math.exp(eps)
        return (math.fsum(np.maximum(self.pf - c * self.qf, 0.0).tolist()),
                math.fsum(np.maximum(self.qf - c * self.pf, 0.0).tolist()))

    @functools.cache
    def renyi(self, alpha):
        out = []
        with mp.workdps(self.dps):
            alpha = mp.mpf(alpha)
            for a_, b_ in ((self.p, self.q), (self.q, self.p)):
                s = mp.fsum(a ** alpha * b ** (1 - alpha) for a, b in zip(a_, b_))
                # beyond the range the ratio is its end value rho: the sum there is <= rho^alpha x the tail mass
                rho = max(a_[0] / b_[0], a_[-1] / b_[-1])
                assert rho ** alpha * self.leftover < mp.mpf(10) ** (-30) * (s - 1 if s > 1 else 1)
                out.append(float(mp.log(s) / (alpha - 1)))
        return tuple(out)


@functools.cache
def direct(name, b, dps=30, tail=1e-20):
    """The :class:`Direct` sums of the priors ``name`` at scale ``b`` (built once per test session)."""
    return Direct(*PRIORS[name], b, dps=dps, tail=tail)


# ------------------------------------------------------------------ against the direct sums
@pytest.mark.parametrize("name", list(PRIORS))
@pytest.mark.parametrize("b", SCALES)
def test_pure_epsilon_is_the_largest_log_ratio_over_every_integer(name, b):
    p, q = PRIORS[name]
    ref = direct(name, b)
    got = geometric_privacy_loss(p, q, scale=b)
    for g, want in zip(got, ref.loss()):
        assert g == certified(want, abs=1e-13)


@pytest.mark.parametrize("b", [0.05, 1.0, 8.0])
def test_the_log_ratio_is_constant_beyond_the_hull_and_equals_the_mgf_limits(b):
    """log p_Y(y) / q_Y(y) for y beyond both priors is log M_P(1/b) - log M_Q(1/b) (right) and
    log M_P(-1/b) - log M_Q(-1/b) (left): the loss is at least their size."""
    p, q = PRIORS["overlap"]
    ref = direct("overlap", b, dps=40, tail=1e-20)
    with mp.workdps(40):
        log_ratio = [mp.log(a / c) for a, c in zip(ref.p, ref.q)]
        t = 1 / mp.mpf(b)
        mgf = lambda pmf, s: mp.fsum(m * mp.exp(s * x) for x, m in _atoms(pmf))   # noqa: E731
        right, left = mp.log(mgf(p, t) / mgf(q, t)), mp.log(mgf(p, -t) / mgf(q, -t))
        for k in (1, 2, 3):
            assert abs(log_ratio[-k] - right) < 1e-30 and abs(log_ratio[k - 1] - left) < 1e-30
    assert max(geometric_privacy_loss(p, q, scale=b)) >= max(abs(float(right)), abs(float(left))) - 1e-14


@pytest.mark.parametrize("name", list(PRIORS))
@pytest.mark.parametrize("b", SCALES)
def test_hockey_stick_is_the_direct_sum(name, b):
    p, q = PRIORS[name]
    ref = direct(name, b)
    for eps in (0.0, 1e-8, 0.1, 1.0, 5.0, 50.0):
        for g, want in zip(geometric_hockey_stick(p, q, epsilon=eps, scale=b), ref.hockey(eps)):
            assert g == certified(want, abs=1e-15), eps


@pytest.mark.parametrize("name", list(PRIORS))
@pytest.mark.parametrize("b", [1e-3, 0.3, 3.0])
def test_renyi_is_the_direct_sum(name, b):
    p, q = PRIORS[name]
    ref = direct(name, b, dps=40, tail=1e-45)
    for alpha in (1.05, 1.5, 20.0, 40.0):                   # alpha near 1 and large (fault regions)
        for g, want in zip(geometric_renyi(p, q, alpha=alpha, scale=b), ref.renyi(alpha)):
            assert g == certified(want, abs=1e-15), alpha


def test_identical_priors_give_nothing():
    p = PRIORS["overlap"][0]
    for b in (1e-3, 1.0, 1e3):
        assert geometric_privacy_loss(p, p, scale=b) == (0.0, 0.0)
        assert geometric_hockey_stick(p, p, epsilon=0.0, scale=b) == (0.0, 0.0)
        assert geometric_renyi(p, p, alpha=2.0, scale=b) == (0.0, 0.0)


# ------------------------------------------------------------------ a shift: closed forms and dp-accounting
def test_pure_epsilon_of_a_shift_is_shift_over_b():
    """P = point mass at 0, Q at the shift: log p_Y / q_Y = (|y - shift| - |y|) / b, at most shift / b."""
    for shift in (1, 3, 10):
        for b in (1e-250, 1e-3, 1.0, 1e3, 1e250):
            got = geometric_privacy_loss(LatticePMF.point(0), LatticePMF.point(shift), scale=b)
            assert got == (certified(shift / b), certified(shift / b))


@pytest.mark.parametrize("shift", [1, 3, 10])
@pytest.mark.parametrize("b", [0.1, 1.0, 10.0, 1e3, 1e6])
def test_hockey_stick_of_a_shift_is_dp_accountings_discrete_laplace(shift, b):
    """dp_accounting's DiscreteLaplacePrivacyLoss(parameter a = 1/b, sensitivity) is the discrete
    Laplace mechanism: noise pmf proportional to e^(-a |x|), the two outputs DLap(0) and DLap(shift)."""
    from dp_accounting.pld.privacy_loss_mechanism import DiscreteLaplacePrivacyLoss

    for eps in (1e-6, 0.1, 1.0, 3.0):
        want = DiscreteLaplacePrivacyLoss(1.0 / b, sensitivity=shift).get_delta_for_epsilon(eps)
        got = geometric_hockey_stick(LatticePMF.point(0), LatticePMF.point(shift), epsilon=eps, scale=b)
        assert got[0] == pytest.approx(got[1], rel=1e-13, abs=1e-16)       # a shift is symmetric
        assert got[0] == pytest.approx(want, rel=1e-9, abs=1e-15), eps


def test_tight_geometric_of_a_shift_solves_dp_accountings_curve():
    """tight_geometric (registry, derived from the auditor) for Reports(0) vs Reports(3): the b whose
    discrete Laplace delta is the target, found here by brentq on dp-accounting's curve."""
    from dp_accounting.pld.privacy_loss_mechanism import DiscreteLaplacePrivacyLoss
    from scipy.optimize import brentq

    pair = SecretPair.of(Reports(0), Reports(3), [])
    eps, delta = np.array([0.2, 1.0, 3.0]), 1e-5
    got = registry.calibrate("tight_geometric", pair, epsilons=eps, delta=delta)
    for e, b in zip(eps, got):
        def gap(log_b):
            return DiscreteLaplacePrivacyLoss(math.exp(-log_b), sensitivity=3).get_delta_for_epsilon(e) - delta
        want = math.exp(brentq(gap, math.log(0.05), math.log(1e3), xtol=1e-14))
        assert b == pytest.approx(want, rel=1e-8)
        assert max(geometric_hockey_stick(pair.prior_i, pair.prior_j, epsilon=e, scale=b)) <= delta


@pytest.mark.parametrize("eps", [0.01, 0.5, 4.0])
def test_tight_pure_epsilon_of_a_shift_is_shift_over_epsilon(eps):
    aud = GeometricLatticeAuditor(LatticePMF.point(0), LatticePMF.point(3), rtol=1e-10)
    best = aud.smallest_scale(Target(eps))
    assert best.reason == "" and best.value <= eps
    assert 3.0 / eps <= best.scale <= 3.0 / eps * (1 + 1e-10) * (1 + 1e-15)


# ------------------------------------------------------------------ extreme scales
def test_tiny_scales_give_the_divergences_of_the_priors():
    p, q = PRIORS["same support"]
    for b in (1e-250, 1e-30, 1e-3):
        assert geometric_privacy_loss(p, q, scale=b) == pytest.approx(zero_noise_directions(p, q), rel=2e-9)
        for eps in (0.0, 0.3):
            assert geometric_hockey_stick(p, q, epsilon=eps, scale=b) == pytest.approx(
                zero_noise_hockey_stick(p, q, epsilon=eps), rel=2e-9, abs=1e-16)
        assert geometric_renyi(p, q, alpha=3.0, scale=b) == pytest.approx(zero_noise_renyi(p, q, alpha=3.0), rel=2e-9)


def test_huge_scales_against_high_precision_sums():
    """b = 1e6 and 1e250, against sums at 300 digits: over the hull, plus each tail as the geometric
    series it is beyond the hull (p_Y(R + j) = p_Y(R) r^j, sum_j>=1 r^j = r / (1 - r)). The loss is
    about |E_P - E_Q| / b: within 1e-15 absolute (the log densities are of order 1 and their
    difference is what is rounded); the total variation (eps = 0, 2e-7 at b = 1e6) and D_2 (8e-13)
    within 1e-8 relative at b = 1e6, and within 1e-16 absolute, as documented, at b = 1e250 (where
    they are 4.5e-251 and 1e-500: below the rounding of densities of order 1)."""
    p, q = PRIORS["overlap"]
    for b in (1e6, 1e250):
        with mp.workdps(300):
            r = mp.exp(-1 / mp.mpf(b))
            c = (1 - r) / (1 + r)
            ys = range(min(p.lo, q.lo), max(p.hi, q.hi) + 1)
            k = lambda pmf, y: c * mp.fsum(m * r ** abs(y - x) for x, m in _atoms(pmf))   # noqa: E731
            pp, qq = [k(p, y) for y in ys], [k(q, y) for y in ys]
            ratios = [mp.log(a / b_) for a, b_ in zip(pp, qq)]
            tails = r / (1 - r)                        # each tail's weight relative to its end point

            def total(f):
                return mp.fsum(f(a, b_) for a, b_ in zip(pp, qq)) + tails * (f(pp[0], qq[0]) + f(pp[-1], qq[-1]))

            tv = total(lambda a, b_: max(a - b_, 0))
            d2 = mp.log(total(lambda a, b_: a ** 2 / b_)) / 1
            want_loss = (float(max(ratios)), float(-min(ratios)))
        got = geometric_privacy_loss(p, q, scale=b)
        assert abs(got[0] - want_loss[0]) < 1e-15 and abs(got[1] - want_loss[1]) < 1e-15
        rel, tol = (1e-8, 0.0) if b < 1e10 else (0.0, 1e-16)
        assert geometric_hockey_stick(p, q, epsilon=0.0, scale=b)[0] == pytest.approx(float(tv), rel=rel, abs=tol)
        assert geometric_hockey_stick(p, q, epsilon=0.5, scale=b) == (0.0, 0.0)      # every ratio below e^0.5
        assert geometric_renyi(p, q, alpha=2.0, scale=b)[0] == pytest.approx(float(d2), rel=rel, abs=tol)


def test_scales_below_the_floor_are_refused():
    p, q = PRIORS["overlap"]        # hull 0..3: the floor is 3e-290
    with pytest.raises(InvalidArgumentError, match="scale = 1e-295: below 3e-290"):
        geometric_privacy_loss(p, q, scale=1e-295)
    aud = GeometricLatticeAuditor(p, q)
    assert aud.floor(Target(1.0)) == pytest.approx(3e-290)


# ------------------------------------------------------------------ monotonicity in the scale
@pytest.mark.parametrize("b1, b2", [(0.2, 0.5), (1.0, 1.01), (3.0, 10.0)])
def test_the_larger_scale_is_the_smaller_plus_independent_noise(b1, b2):
    """W with w_0 = (1 - r2)^2 (1 + r1^2 - 2 r1 r2) / ((1 - r1)^2 (1 - r2^2)) and, for k != 0,
    w_k = (1 - r2)^2 r2^(|k| - 1) (r2 - r1)(1 - r1 r2) / ((1 - r1)^2 (1 - r2^2)) (module docstring) is a
    probability law and G_b1 + W has the law of G_b2: checked by direct convolution in mpmath."""
    mp.mp.dps = 40          # (restored below)
    r1, r2 = mp.exp(-1 / mp.mpf(b1)), mp.exp(-1 / mp.mpf(b2))
    norm = (1 - r2) ** 2 / ((1 - r1) ** 2 * (1 - r2 ** 2))
    w = lambda k: norm * ((1 + r1 ** 2 - 2 * r1 * r2) if k == 0 else r2 ** (abs(k) - 1) * (r2 - r1) * (1 - r1 * r2))  # noqa: E731
    g = lambda r, k: (1 - r) / (1 + r) * r ** abs(k)   # noqa: E731
    T = int(50 * b2) + 50                              # r2^T < 1e-21: the w_k left out
    assert all(w(k) >= 0 for k in range(-3, 4))
    assert abs(mp.fsum(w(k) for k in range(-T, T + 1)) - 1) < 1e-20
    for y in (0, 5, -7):
        conv = mp.fsum(g(r1, y - k) * w(k) for k in range(-T, T + 1))
        assert abs(conv - g(r2, y)) < 1e-20 * max(1, g(r2, y))
    mp.mp.dps = 15


@pytest.mark.parametrize("name", ["overlap", "interior zeros", "bernoulli", "same support"])
def test_every_audit_falls_as_the_scale_grows(name):
    p, q = PRIORS[name]
    grid = np.geomspace(1e-3, 1e3, 31)
    series = {
        "epsilon": [max(geometric_privacy_loss(p, q, scale=b)) for b in grid],
        "hockey eps=0.5": [max(geometric_hockey_stick(p, q, epsilon=0.5, scale=b)) for b in grid],
        "hockey eps=0": [max(geometric_hockey_stick(p, q, epsilon=0.0, scale=b)) for b in grid],
        "renyi 2": [max(geometric_renyi(p, q, alpha=2.0, scale=b)) for b in grid],
        "renyi 10": [max(geometric_renyi(p, q, alpha=10.0, scale=b)) for b in grid],
    }
    for what, values in series.items():
        for a, b in zip(values, values[1:]):
            assert b <= a * (1 + 2e-9) + 1e-16, what          # certified values: within 1e-9 of the truth


# ------------------------------------------------------------------ the family, declared once
def test_std_is_that_of_the_direct_sum():
    for b in (0.1, 1.0, 30.0):
        with mp.workdps(30):
            r = mp.exp(-1 / mp.mpf(b))
            T = int(80 * b) + 40
            var = mp.fsum(k * k * (1 - r) / (1 + r) * r ** abs(k) for k in range(-T, T + 1))
            assert noise_std("geometric", b) == pytest.approx(float(mp.sqrt(var)), rel=1e-13)
    # limits: sqrt(2) e^(-1/(2b)) for tiny b (no underflow at 1e-3), sqrt(2) b (1 + O(1/b^2)) for huge b
    assert noise_std("geometric", 1e-3) == pytest.approx(math.sqrt(2) * math.exp(-500.0), rel=1e-13)
    assert noise_std("geometric", 1e8) == pytest.approx(math.sqrt(2) * 1e8, rel=1e-12)
    assert noise_std("geometric", 0.0) == 0.0


def test_the_family_is_one_module_registered_and_derived():
    assert "geometric" in audit.noises()
    assert isinstance(lattice_auditor("geometric", "epsilon_delta", *PRIORS["overlap"]), GeometricLatticeAuditor)
    records = {m.name: m for m in registry.tight_methods()}
    for guarantee, name in (("epsilon_delta", "tight_geometric"), ("epsilon", "tight_geometric_epsilon"),
                            ("renyi", "tight_geometric_renyi")):
        record = registry.get(name)
        assert record.noise == "geometric" and record.guarantee == guarantee and record.smallest
        assert records[name].label == record.label and not record.automatic


def test_auditor_achieved_is_the_public_functions():
    p, q = PRIORS["interior zeros"]
    aud = GeometricLatticeAuditor(p, q)
    got = aud.achieved(0.7, Target(0.4, delta=1e-3))
    assert (got.forward, got.backward) == geometric_hockey_stick(p, q, epsilon=0.4, scale=0.7)
    got = aud.achieved(0.7, Target(0.4, alpha=3.0))
    assert (got.forward, got.backward) == geometric_renyi(p, q, alpha=3.0, scale=0.7)
    got = aud.achieved(0.7, Target(0.4))
    assert (got.forward, got.backward) == geometric_privacy_loss(p, q, scale=0.7)

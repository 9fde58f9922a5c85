"""Theorem 3, eq. (13) of paper 000 (``theorem3_brent``) across epsilon from 1e-300 to 10.

Two independent checks of every returned theta:

* eq. (13) solved again by bisection in 360-digit mpmath arithmetic, on the equation as
  printed, E[exp(|D| / theta)] = exp(eps) (360 digits resolve exp(1e-300) - 1); the masses are
  the pmf's floats divided by their exact sum (a pmf is the law P / sum P; the float masses of
  e.g. 0.4 + 0.1 + 0.1 + 0.4 differ from 1 by ~1e-17, which alone would move the root of the
  printed equation for eps below 1e-16). theta must agree to 1e-13 relative: neither too little
  noise nor needlessly much. (The earlier solver, a log-sum-exp of the printed form, was off by
  1e-8 at eps = 1e-8 and by 67 % below 1e-16.)
* the exact Laplace audit of the pair (R + D, R) (R = users 1-3 of Table 2,
  :class:`~pufferfish.audit.laplace_lattice.LaplaceLatticeAuditor`): the achieved loss at theta is
  <= eps up to the audit's rounding (about 1e-16 of log-densities of magnitude below 100 here:
  1e-14 absolute, so the audit resolves eps above ~1e-13 and the oracle above covers the rest);
  and for D >= 0, where (13) is exact (the sup of the loss is log E[e^{D/theta}], reached as
  y -> +inf), theta equals the smallest scale the audit accepts.
"""
import math

import mpmath
import numpy as np
import pytest

from pufferfish.audit.target import Target
from pufferfish.audit.laplace_lattice import LaplaceLatticeAuditor
from pufferfish.errors import InvalidArgumentError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import sum_of_users
from pufferfish.multiuser.methods import theorem3_brent
from tests.helpers import TABLE2, TABLE3

#: 1e-300 ... 1e-20 every 10 decades, then 1e-20 ... 10 every decade and the half decades
EPSILONS = np.concatenate([10.0 ** np.arange(-300, -20, 10), 10.0 ** np.arange(-20, 1.01, 0.5)])

PMFS = {
    "P4 (Table 3)": LatticePMF.from_values([1, 2, 3, 4, 5], TABLE3["P4"]),
    "Bernoulli(0.3)": LatticePMF.bernoulli(0.3),
    "signed, gap": LatticePMF.from_values([-7, 0, 2], [0.25, 0.25, 0.5]),
    "tiny mass at the max": LatticePMF.from_values([0, 1, 40], [0.5, 0.5 - 1e-12, 1e-12]),
    "point": LatticePMF.point(-4),
}


def eq13_by_mpmath(pmf: LatticePMF, eps: float) -> float:
    """The root of sum_t P(t) exp(|t| / theta) = exp(eps), by 64 bisections in u = theta^-1 / eps."""
    with mpmath.workdps(360):
        total = mpmath.fsum(mpmath.mpf(float(p)) for p in pmf.probs)
        terms = [(abs(int(t)), mpmath.mpf(float(p)) / total) for t, p in zip(pmf.values, pmf.probs) if p > 0]
        e = mpmath.mpf(eps)
        target = mpmath.exp(e)
        # h(u) = log E[e^{|D| u}] lies between u E|D| and u M: the root u* is in [e / M, e / E|D|]
        lo = 1 / mpmath.mpf(max(t for t, _ in terms))
        hi = 1 / mpmath.fsum(t * p for t, p in terms)
        for _ in range(64):
            mid = (lo + hi) / 2
            if mpmath.fsum(p * mpmath.exp(t * e * mid) for t, p in terms) > target:
                hi = mid
            else:
                lo = mid
        return float(1 / (e * (lo + hi) / 2))


@pytest.fixture(scope="module")
def rest():
    return sum_of_users([LatticePMF.from_values([1, 2, 3, 4, 5], p) for p in TABLE2.values()])


@pytest.mark.parametrize("name", PMFS)
def test_theta_solves_eq13_to_float_precision_from_1e_300_to_10(name):
    pmf = PMFS[name]
    theta = theorem3_brent(pmf, epsilons=EPSILONS)
    expected = np.array([eq13_by_mpmath(pmf, e) for e in EPSILONS])
    np.testing.assert_allclose(theta, expected, rtol=1e-13, atol=0)


@pytest.mark.parametrize("name", PMFS)
def test_exact_audit_accepts_every_theta(name, rest):
    pmf = PMFS[name]
    auditor = LaplaceLatticeAuditor(sum_of_users([rest, pmf]), rest)
    for eps, theta in zip(EPSILONS, theorem3_brent(pmf, epsilons=EPSILONS)):
        achieved = auditor.achieved(theta, Target(float(eps)))
        # certified (issue 39): at most 1e-9 above the truth, which eq. (13)'s root puts at eps to 1e-13
        assert achieved.value <= eps * (1 + 1e-9 + 1e-13) + 1e-14, (eps, theta, achieved)


@pytest.mark.parametrize("name", ["P4 (Table 3)", "Bernoulli(0.3)", "tiny mass at the max"])
def test_theta_is_the_smallest_scale_the_audit_accepts_for_nonnegative_users(name, rest):
    """D >= 0: the audit's theta_min (bracket closed to 1e-12) is the root of (13); an absolute
    audit error of 1e-14 moves the root by 1e-14 / eps relative (d log L / d log theta ~ -1)."""
    pmf = PMFS[name]
    auditor = LaplaceLatticeAuditor(sum_of_users([rest, pmf]), rest)
    eps = EPSILONS[EPSILONS >= 1e-6]
    theta = theorem3_brent(pmf, epsilons=eps)
    for e, t in zip(eps, theta):
        smallest = auditor.smallest_scale(Target(float(e))).scale
        # the certified losses sit up to 2^-33 above the truth: the smallest certified scale by as much
        assert t == pytest.approx(smallest, rel=2e-10 + 1e-14 / e), e


def test_an_epsilon_whose_theta_overflows_is_refused():
    """M / eps = 50 / 1e-307 is not a float64: one line naming the epsilon, not inf or a crash."""
    with pytest.raises(InvalidArgumentError, match=r"^epsilons\[1\] = 1e-307: theta = 50 / epsilon overflows"):
        theorem3_brent(LatticePMF.from_values([0, 50], [0.5, 0.5]), epsilons=[1.0, 1e-307])
    assert math.isfinite(theorem3_brent(LatticePMF.from_values([0, 50], [0.5, 0.5]), epsilons=[1e-300])[0])

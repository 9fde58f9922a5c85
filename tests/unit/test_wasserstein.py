"""Paper 002's Wasserstein-mechanism family: hand values, closed forms, quadrature, and the exact audits.

Every expected number is worked out here independently of the code under test: point-mass
pairs reduce every mechanism to one shift of known size, whose divergences have closed forms
(checked once more by numerical quadrature); Delta_delta and W_2 of small pairs are read off
by hand.
"""
import math

import numpy as np
import ot
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import integrate, stats

from pufferfish import registry
from pufferfish.audit import Target, lattice_auditor
from pufferfish.errors import ArgumentTypeError, ConfigError, NotApplicableError
from pufferfish.lattice import Draws, LatticePMF, SecretPair, User
from pufferfish.multiuser.experiments import THETA_COLUMNS, run_experiment
from pufferfish.multiuser.methods import kantorovich
from pufferfish.multiuser.plots import violates
from pufferfish.pipeline.report import audit_summary, audit_violations, violation_lines
from pufferfish.wasserstein import dagwm_cauchy, gawm_laplace, gwm_gaussian_analytic, gwm_gaussian_rdp, gwm_laplace

from tests.helpers import random_pmf

EPS = np.array([0.1, 0.5, 1.0, 2.0])
NEW = ["gwm_laplace", "gawm_laplace", "gwm_gaussian_rdp", "gwm_gaussian_analytic", "dagwm_cauchy",
       "tight_laplace_delta", "tight_gaussian", "tight_cauchy"]


def point_pair(d: int):
    return LatticePMF.point(0), LatticePMF.point(d)


# ------------------------------------------------------------------------------ Laplace
@pytest.mark.parametrize("d", [1, 3, 17])
def test_gwm_laplace_on_one_shift_is_d_over_eps(d):
    p, q = point_pair(d)
    np.testing.assert_allclose(gwm_laplace(p, q, epsilons=EPS), d / EPS, rtol=1e-15)


def pot_w_inf(p: LatticePMF, q: LatticePMF) -> float:
    """W_inf by POT: the largest |x - x'| charged by ``ot.emd_1d``'s plan (the monotone coupling, optimal
    for every cost |x - x'|^p, hence for W_inf); plan entries below 1e-12 are its rounding (the masses of
    ``random_pmf`` are far above it)."""
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    xs = np.arange(lo, hi + 1, dtype=float)
    plan = ot.emd_1d(xs, xs, p.pmf_on(lo, hi), q.pmf_on(lo, hi), metric="cityblock")
    i, j = np.nonzero(plan > 1e-12)
    return float(np.max(np.abs(xs[i] - xs[j])))


def test_gwm_laplace_is_w_inf_over_epsilon(table2, p4, q4):
    """b = W_inf / eps (paper 002, Cor. 3.1), W_inf from POT's optimal plan; paper 000's kantorovich is
    the same scale (paper 000, Prop. 1), checked against the same oracle."""
    rest = [User(u) for u in table2]
    pair = SecretPair.of(Draws(p4, "P4"), Draws(q4, "Q4"), rest)
    got = registry.calibrate("gwm_laplace", pair, epsilons=EPS)
    np.testing.assert_allclose(got, 2 / EPS, rtol=1e-15)  # Fig. 6: sup |x - x'| over pi* is 2 (paper 000)
    assert pot_w_inf(pair.prior_i, pair.prior_j) == 2.0
    rng = np.random.default_rng(7)
    for _ in range(20):
        p, q = random_pmf(rng), random_pmf(rng)
        expected = pot_w_inf(p, q) / EPS
        np.testing.assert_allclose(gwm_laplace(p, q, epsilons=EPS), expected, rtol=1e-15)
        np.testing.assert_allclose(kantorovich(p, q, epsilons=EPS), expected, rtol=1e-15)


def test_gawm_laplace_hand_values():
    # P = {0, 10}, Q = {10, 20} uniform (the issue's example): the coupling 10 -> 10 puts mass 1/2
    # at distance 0, so Delta_{1/2} = 0 (no noise); for delta < 1/2 mass > 1/2 must move 10 (0 -> 10, 10 -> 20)
    p = LatticePMF.from_values([0, 10], [0.5, 0.5])
    q = LatticePMF.from_values([10, 20], [0.5, 0.5])
    np.testing.assert_array_equal(gawm_laplace(p, q, epsilons=EPS, delta=0.5), 0.0 * EPS)
    np.testing.assert_allclose(gawm_laplace(p, q, epsilons=EPS, delta=0.4), 10 / EPS, rtol=1e-15)
    # a rare far atom: 0.99 of the mass stays at 0
    far = LatticePMF.from_values([0, 100], [0.99, 0.01])
    zero = LatticePMF.point(0)
    np.testing.assert_array_equal(gawm_laplace(far, zero, epsilons=EPS, delta=0.05), 0.0 * EPS)
    np.testing.assert_allclose(gawm_laplace(far, zero, epsilons=EPS, delta=0.005), 100 / EPS, rtol=1e-15)
    # one shift of size d: nothing is near below d
    np.testing.assert_allclose(gawm_laplace(*point_pair(4), epsilons=EPS, delta=1e-5), 4 / EPS, rtol=1e-15)


# ------------------------------------------------------------------------------ Gaussian
def _bw_delta(d, sigma, eps):
    """Balle and Wang (2018), Thm 8, written out with scipy.stats.norm."""
    return stats.norm.cdf(d / (2 * sigma) - eps * sigma / d) - math.exp(eps) * stats.norm.cdf(-d / (2 * sigma) - eps * sigma / d)


def _hockey_stick_quadrature(d, sigma, eps):
    """sup_S N(d, s^2)(S) - e^eps N(0, s^2)(S) = int max(phi_d - e^eps phi_0, 0), by quadrature."""
    f = lambda y: max(stats.norm.pdf(y, d, sigma) - math.exp(eps) * stats.norm.pdf(y, 0, sigma), 0.0)
    # the integrand is positive for y > d/2 + eps sigma^2 / d
    start = d / 2 + eps * sigma ** 2 / d
    return integrate.quad(f, start, start + 40 * sigma, epsabs=1e-15, epsrel=1e-12, limit=500)[0]


@pytest.mark.parametrize("d", [1, 5])
@pytest.mark.parametrize("delta", [1e-5, 1e-2])
def test_gwm_gaussian_analytic_meets_balle_wang_exactly(d, delta):
    p, q = point_pair(d)
    sigma = gwm_gaussian_analytic(p, q, epsilons=EPS, delta=delta)
    for s, e in zip(sigma, EPS):
        assert _bw_delta(d, s, e) == pytest.approx(delta, rel=1e-9)
        assert _bw_delta(d, s, e) <= delta * (1 + 1e-12)      # the accepted side of the root
        assert _hockey_stick_quadrature(d, s, e) == pytest.approx(delta, rel=1e-7)
        assert _bw_delta(d, s * (1 - 1e-6), e) > delta        # and the smallest such sigma
    # scale invariance: sigma is proportional to the shift
    np.testing.assert_allclose(sigma / d, gwm_gaussian_analytic(*point_pair(1), epsilons=EPS, delta=delta), rtol=1e-12)


def test_gwm_gaussian_rdp_on_one_shift_is_the_closed_form_optimum_over_alpha():
    """One shift d: W_inf = d, and the scale is the Renyi route's closed form for d (its optimality
    over alpha is tested in tests/unit/test_mechanisms_gaussian.py)."""
    d, delta = 3, 1e-5
    p, q = point_pair(d)
    got = gwm_gaussian_rdp(p, q, epsilons=EPS, delta=delta)
    big_l = math.log(1 / delta)
    for s, e in zip(got, EPS):
        # by hand: with a = alpha - 1, sigma^2 = d^2 a (a + 1) / (2 (e a - L)) is smallest at
        # a* = (L + sqrt(L^2 + e L)) / e, where sigma^2 = d^2 (2L + e + 2 sqrt(L (L + e))) / (2 e^2)
        assert s ** 2 == pytest.approx(d ** 2 * (2 * big_l + e + 2 * math.sqrt(big_l * (big_l + e))) / (2 * e ** 2),
                                       rel=1e-13)
    # the analytic curve of one shift is the exact (e, delta) frontier: never above the RDP route
    assert np.all(gwm_gaussian_analytic(p, q, epsilons=EPS, delta=delta) < got)


# ------------------------------------------------------------------------------ Cauchy
@pytest.mark.parametrize("d", [1, 4])
def test_dagwm_cauchy_on_one_shift(d):
    p, q = point_pair(d)
    np.testing.assert_allclose(dagwm_cauchy(p, q, epsilons=EPS, alpha=2), d / np.sqrt(2 * (np.exp(EPS) - 1)),
                               rtol=1e-14)


def test_dagwm_cauchy_uses_w2_not_w_inf():
    # P = {0, 1}, Q = {0, 3} uniform: the monotone plan moves 1/2 from 1 to 3, W_2^2 = 2 (W_inf = 2)
    p = LatticePMF.from_values([0, 1], [0.5, 0.5])
    q = LatticePMF.from_values([0, 3], [0.5, 0.5])
    np.testing.assert_allclose(dagwm_cauchy(p, q, epsilons=EPS, alpha=2), 1 / np.sqrt(np.exp(EPS) - 1), rtol=1e-14)


def test_dagwm_cauchy_refuses_other_orders_by_name(p4, q4):
    with pytest.raises(NotApplicableError, match=r"dagwm_cauchy is stated for alpha = 2 .*not alpha = 3"):
        dagwm_cauchy(p4, q4, epsilons=[1.0], alpha=3)
    pair = SecretPair.of(Draws(p4), Draws(q4), [])
    with pytest.raises(NotApplicableError, match=r"^dagwm_cauchy is stated for alpha = 2"):
        registry.calibrate("dagwm_cauchy", pair, epsilons=[1.0], alpha=3.0)
    with pytest.raises(NotApplicableError, match="^gawm_laplace needs `delta`$"):
        registry.calibrate("gawm_laplace", pair, epsilons=[1.0], alpha=2.0)


@pytest.mark.parametrize("call, message", [
    (lambda p, q: gawm_laplace(p, q, epsilons=[1.0], delta=1.5), "delta = 1.5: must be in (0, 1)"),
    (lambda p, q: gwm_gaussian_rdp(p, q, epsilons=[1.0], delta=0.0), "delta = 0.0: must be in (0, 1)"),
    # a string is a wrong type (checks.real: ArgumentTypeError, a TypeError), no longer a ConfigError
    (lambda p, q: gwm_gaussian_analytic(p, q, epsilons=[1.0], delta="x"), "delta = 'x': must be a real number"),
    (lambda p, q: dagwm_cauchy(p, q, epsilons=[1.0], alpha=1.0), "alpha = 1.0: must be finite and > 1"),
    (lambda p, q: gwm_laplace(p, q, epsilons=[1.0, -2.0]), "epsilons[1] = -2.0: must be finite and > 0"),
    (lambda p, q: gwm_gaussian_analytic(p, q, epsilons=[math.nan], delta=0.1), "epsilons[0] = nan"),
])
def test_bad_parameters_are_one_line_errors(call, message):
    with pytest.raises((ConfigError, ArgumentTypeError)) as info:
        call(*point_pair(2))
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
    with pytest.raises(TypeError, match="p = "):
        gwm_laplace([0, 1], LatticePMF.point(0), epsilons=[1.0])


def test_identical_priors_need_no_noise():
    p = LatticePMF.from_values([0, 2], [0.3, 0.7])
    for method in (gwm_gaussian_rdp, gwm_gaussian_analytic):
        np.testing.assert_array_equal(method(p, p, epsilons=EPS, delta=1e-5), 0.0 * EPS)
    np.testing.assert_array_equal(dagwm_cauchy(p, p, epsilons=EPS), 0.0 * EPS)


def test_registry_records():
    expected = {  # name: (noise, guarantee, needs)
        "gwm_laplace": ("laplace", "epsilon", ()), "gawm_laplace": ("laplace", "epsilon_delta", ("delta",)),
        "gwm_gaussian_rdp": ("gaussian", "epsilon_delta", ("delta",)),
        "gwm_gaussian_analytic": ("gaussian", "epsilon_delta", ("delta",)),
        "dagwm_cauchy": ("cauchy", "renyi", ("alpha",)), "tight_laplace_delta": ("laplace", "epsilon_delta", ("delta",)),
        "tight_gaussian": ("gaussian", "epsilon_delta", ("delta",)), "tight_cauchy": ("cauchy", "renyi", ("alpha",)),
    }
    for name, (noise, guarantee, needs) in expected.items():
        record = registry.get(name)
        assert (record.noise, record.guarantee, record.needs) == (noise, guarantee, needs)
        assert record.pairs is None and not record.automatic and record.label and record.citation


# ------------------------------------------------------------------------------ the referee: exact audits
def _audit_method(method, p, q, eps, delta=1e-3, alpha=2.0):
    record = registry.get(method)
    pair = SecretPair.of(Draws(p), Draws(q), [])
    scales = registry.calibrate(method, pair, epsilons=eps, delta=delta, alpha=alpha)
    auditor = lattice_auditor(record.noise, record.guarantee, p, q)
    for scale, e in zip(scales, eps):
        target = {"epsilon": Target(e), "epsilon_delta": Target(e, delta=delta),
                  "renyi": Target(e, alpha=alpha)}[record.guarantee]
        if scale > 0:
            got = auditor.achieved(scale, target)
            value = got.value
        else:
            value = auditor.noise_free(target).value
        assert value <= target.bound * (1 + 1e-9), (method, scale, e, value)
        yield scale, value, target


@pytest.mark.parametrize("method", NEW)
def test_every_method_meets_its_target_on_one_shift(method):
    p, q = point_pair(3)
    list(_audit_method(method, p, q, np.array([0.3, 1.0])))


@settings(deadline=None)
@given(seed=st.integers(0, 10 ** 6), method=st.sampled_from(NEW))
def test_every_method_meets_its_target_on_random_pairs(seed, method):
    """One method per example (the profile's examples spread over the methods)."""
    rng = np.random.default_rng(seed)
    p, q = random_pmf(rng, size=4), random_pmf(rng, size=4)
    list(_audit_method(method, p, q, np.array([0.5])))


@pytest.mark.parametrize("method", ["gwm_gaussian_analytic", "dagwm_cauchy", "gwm_laplace"])
def test_one_shift_mechanisms_are_exactly_tight(method):
    """On one shift the coupling argument loses nothing: the audit attains the target."""
    p, q = point_pair(2)
    for scale, value, target in _audit_method(method, p, q, np.array([0.5, 1.0]), delta=1e-5):
        assert value == pytest.approx(target.bound, rel=1e-7)
        tight = registry.get({"gwm_gaussian_analytic": "tight_gaussian", "dagwm_cauchy": "tight_cauchy",
                              "gwm_laplace": "tight"}[method])
        best = tight.apply(SecretPair.of(Draws(p), Draws(q), []), np.array([target.epsilon]), delta=1e-5, alpha=2.0)
        assert best[0] == pytest.approx(scale, rel=1e-7)


def noise_free(p, q, target):
    """Both directions of the noise-free audit (``Auditor.noise_free``; on the lattice it is the same for every noise)."""
    noise = "cauchy" if target.guarantee == "renyi" else "laplace"
    got = lattice_auditor(noise, target.guarantee, p, q).noise_free(target)
    return got.forward, got.backward


def test_noise_free_values_by_hand():
    p = LatticePMF.from_values([0, 1], [0.5, 0.5])
    q = LatticePMF.from_values([0, 1], [0.25, 0.75])
    # e^eps = 1.5: forward max(.5 - .375, 0) + max(.5 - 1.125, 0) = .125; backward max(.25 - .75, 0) + 0
    fwd, bwd = noise_free(p, q, Target(math.log(1.5), delta=0.1))
    assert fwd == pytest.approx(0.125, rel=1e-14) and bwd == 0.0
    # D_2(P || Q) = log(.5^2/.25 + .5^2/.75) = log(4/3); D_2(Q || P) = log(.25^2/.5 + .75^2/.5) = log(5/4)
    fwd, bwd = noise_free(p, q, Target(1.0, alpha=2))
    assert fwd == pytest.approx(math.log(4 / 3), rel=1e-14) and bwd == pytest.approx(math.log(1.25), rel=1e-14)
    assert noise_free(p, LatticePMF.point(0), Target(1.0, alpha=2))[0] == math.inf
    # max log P/Q = log(.5/.25), max log Q/P = log(.75/.5)
    assert noise_free(p, q, Target(1.0)) == pytest.approx((math.log(2), math.log(1.5)), rel=1e-15)
    # every lattice noise gives the same noise-free audit
    assert lattice_auditor("gaussian", "renyi", p, q).noise_free(Target(1.0, alpha=2)).forward == \
        pytest.approx(math.log(4 / 3), rel=1e-14)


# ------------------------------------------------------------------------------ experiment tables
def test_run_experiment_audits_each_family_against_its_own_target(table2):
    users = {n: User(u, name=n) for n, u in zip(["D1", "D2", "D3"], table2)}
    users["A"] = User(LatticePMF.from_values([0, 2], [0.5, 0.5]), name="A")
    users["B"] = User(LatticePMF.from_values([1, 3], [0.5, 0.5]), name="B")
    spec = {"kind": "theta", "rest": ["D1"], "secrets": [{"user": "A"}, {"user": "B"}], "methods": NEW,
            "epsilons": [0.5, 1.0], "delta": 1e-5, "alpha": 2}
    result = run_experiment("nf", spec, users, audit={"rtol": 1e-9, "bisection_rtol": 1e-12, "bisection_max_steps": 200})
    theta, audit = result.theta, result.audit
    assert list(theta.columns) == THETA_COLUMNS and not result.violations
    assert not audit.violation.any() and not violates(theta).any()
    assert set(theta.method) == set(NEW) | {"tight"}
    rows = theta.set_index(["method", "epsilon"])
    # A + D1 vs B + D1: every atom moves by 1 (W_inf = W_2 = 1), so gwm_laplace = 1/eps, dagwm = 1/sqrt(2(e^eps - 1))
    assert rows.loc[("gwm_laplace", 0.5), "theta"] == pytest.approx(2.0, rel=1e-15)
    assert rows.loc[("dagwm_cauchy", 1.0), "theta"] == pytest.approx(1 / math.sqrt(2 * (math.e - 1)), rel=1e-14)
    # std: sqrt(2) b for Laplace, sigma for Gaussian, none for Cauchy
    for method, row in rows.iterrows():
        if row.noise == "laplace":
            assert row["std"] == pytest.approx(math.sqrt(2) * row.theta, rel=1e-15)
        elif row.noise == "gaussian":
            assert row["std"] == row.theta
        else:
            assert math.isnan(row["std"])
    # each row carries its own target and achieved value only
    for (method, eps), row in rows.iterrows():
        guarantee = registry.get(method).guarantee
        assert (row.delta == 1e-5) == (guarantee == "epsilon_delta")
        assert (row.alpha == 2) == (guarantee == "renyi")
        for g, col in (("epsilon", "epsilon_achieved"), ("epsilon_delta", "delta_achieved"), ("renyi", "renyi_achieved")):
            assert math.isnan(row[col]) == (g != guarantee)
        if method.startswith("tight"):
            assert row.theta == row.theta_min        # the tight scale is the audit's smallest scale
        assert row.theta >= row.theta_min * (1 - 1e-9)
    # the tight methods, computed once for both columns, are what calibrate gives
    pair = SecretPair.of(Draws(users["A"].pmf), Draws(users["B"].pmf), [users["D1"]])
    for method in ("tight_laplace_delta", "tight_gaussian", "tight_cauchy"):
        direct = registry.calibrate(method, pair, epsilons=[0.5, 1.0], delta=1e-5, alpha=2)
        np.testing.assert_array_equal(theta[theta.method == method].theta.to_numpy(), direct)
    # the audit table: the same values, both directions, and the guarantee named
    assert (audit.guarantee == [registry.get(m).guarantee for m in audit.method]).all()
    both = audit[["loss_forward", "loss_backward"]].max(axis=1)
    achieved = audit.epsilon_achieved.fillna(audit.delta_achieved).fillna(audit.renyi_achieved)
    np.testing.assert_array_equal(both.to_numpy(), achieved.to_numpy())


def test_plots_and_report_check_each_row_against_its_own_guarantee(tmp_path):
    frame = pd.DataFrame({
        "experiment": "e", "panel": "", "method": ["a", "b", "c", "d"], "epsilon": [1.0, 1.0, 0.5, 0.5],
        "delta": [np.nan, 1e-5, np.nan, 1e-5], "scale": [1.0, 2.0, 3.0, 4.0],
        # a (pure eps) achieves 0.9 <= 1; b ((eps, delta)) achieves delta 2e-5 > 1e-5 (a violation,
        # while its epsilon column is empty); c (Renyi) D_2 = 0.6 > 0.5; d: delta 5e-6 <= 1e-5
        "epsilon_achieved": [0.9, np.nan, np.nan, np.nan], "delta_achieved": [np.nan, 2e-5, np.nan, 5e-6],
        "scale_min": [0.5, 2.0, 3.5, 2.0], "violation": [False, True, True, False],
        "noise": ["laplace", "gaussian", "cauchy", "laplace"],
        "guarantee": ["epsilon", "epsilon_delta", "renyi", "epsilon_delta"],
        "alpha": [np.nan, np.nan, 2.0, np.nan], "renyi_achieved": [np.nan, np.nan, 0.6, np.nan]})
    assert violates(frame).tolist() == [False, True, True, False]
    summary = audit_summary([frame]).set_index("method")
    assert summary.loc["a", "max_epsilon_ratio"] == 0.9 and math.isnan(summary.loc["a", "max_delta_ratio"])
    assert summary.loc["b", "max_delta_ratio"] == pytest.approx(2.0) and math.isnan(summary.loc["b", "max_epsilon_ratio"])
    assert summary.loc["c", "max_renyi_ratio"] == pytest.approx(1.2) and math.isnan(summary.loc["c", "max_epsilon_ratio"])
    assert summary.loc["d", "max_delta_ratio"] == pytest.approx(0.5)
    assert summary.loc["c", "min_scale_ratio"] == pytest.approx(3 / 3.5)
    lines = violation_lines(summary.reset_index())
    assert len(lines) == 2 and "c violates its target in 1 of 1 rows (achieved/target up to 1.2)" in lines[1]
    frame.to_csv(tmp_path / "audit.csv", index=False)
    assert audit_violations(tmp_path / "audit.csv") == [
        "b at (ε, δ) = (1, 1e-05): exact δ 2e-05",
        "c at (α, ε) = (2, 0.5): exact D_α 0.6",
    ]

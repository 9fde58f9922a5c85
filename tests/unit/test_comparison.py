"""The noise comparison: every mechanism on one pair, by closed forms on a single shift."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy.stats import norm

from pufferfish.comparison import compare_pair, least_noise, noise_std
from pufferfish.comparison.compare import winner_lines
from pufferfish.comparison.experiments import parse_pair, slug
from pufferfish.errors import ConfigError
from pufferfish.lattice import Absent, Draws, LatticePMF, Reports, SecretPair

EPS = np.array([0.25, 0.5, 1.0])
DELTA, ALPHA, D = 1e-5, 2.0, 3


@pytest.fixture(scope="module")
def shift():
    """User i reports 0 vs reports 3, nobody else: the query priors are the point masses at 0 and 3."""
    pair = SecretPair.of(Reports(0), Reports(D), [])
    return compare_pair("shift", pair, epsilons=EPS, delta=DELTA, alpha=ALPHA)


def _scales(frame, method):
    return frame[frame.method == method].scale.to_numpy()


def _balle_wang_sigma(d, eps, delta):
    """The sigma of one Gaussian shift d with exact (eps, delta) (Balle and Wang 2018, Thm 8), by brentq."""
    def gap(log_s):
        s = math.exp(log_s)
        return norm.cdf(d / (2 * s) - eps * s / d) - math.exp(eps) * norm.cdf(-d / (2 * s) - eps * s / d) - delta
    return math.exp(optimize.brentq(gap, -10, 10, xtol=1e-15))


def test_noise_std():
    assert noise_std("laplace", 2.0) == pytest.approx(2 * math.sqrt(2), rel=1e-15)  # Var Laplace(b) = 2 b^2
    assert noise_std("gaussian", 2.0) == 2.0
    assert math.isnan(noise_std("cauchy", 2.0))
    with pytest.raises(ValueError, match="noise = 'student'"):
        noise_std("student", 1.0)


def test_single_shift_closed_forms(shift):
    # paper 000: theorem1 |a - b| / eps = 3 / eps (kantorovich gives the same; the first listed wins)
    np.testing.assert_allclose(_scales(shift, "paper000_best"), D / EPS, rtol=1e-15)
    np.testing.assert_allclose(_scales(shift, "gwm_laplace"), D / EPS, rtol=1e-15)
    np.testing.assert_allclose(_scales(shift, "gawm_laplace"), D / EPS, rtol=1e-15)  # Delta_delta = 3 for delta < 1
    # Laplace pure eps on one shift: the loss is D / b exactly, so the tight b is D / eps
    np.testing.assert_allclose(_scales(shift, "tight"), D / EPS, rtol=1e-10)
    # Laplace (eps, delta) on one shift: delta = 1 - exp((eps - D/b) / 2)  =>  b = D / (eps - 2 log(1 - delta))
    np.testing.assert_allclose(_scales(shift, "tight_laplace_delta"), D / (EPS - 2 * math.log1p(-DELTA)), rtol=1e-8)
    # Gaussian: on one shift the analytic Gaussian mechanism is exactly tight
    bw = np.array([_balle_wang_sigma(D, e, DELTA) for e in EPS])
    np.testing.assert_allclose(_scales(shift, "tight_gaussian"), bw, rtol=1e-8)
    np.testing.assert_allclose(_scales(shift, "gwm_gaussian_analytic"), bw, rtol=1e-10)
    # RDP route: sigma = D (sqrt(L) + sqrt(L + eps)) / (sqrt(2) eps), L = log(1/delta), larger than Balle-Wang
    L = math.log(1 / DELTA)
    np.testing.assert_allclose(_scales(shift, "gwm_gaussian_rdp"), D * (np.sqrt(L) + np.sqrt(L + EPS)) / (math.sqrt(2) * EPS),
                               rtol=1e-12)
    # Cauchy at alpha = 2: D_2 = log(1 + D^2 / (2 gamma^2)) exactly, so DAGWM is tight on one shift
    gamma = D / np.sqrt(2 * np.expm1(EPS))
    np.testing.assert_allclose(_scales(shift, "dagwm_cauchy"), gamma, rtol=1e-15)
    np.testing.assert_allclose(_scales(shift, "tight_cauchy"), gamma, rtol=1e-8)


def test_every_row_is_audited_and_meets_its_target(shift):
    assert shift.meets_target.all()
    assert set(shift.columns[:8]) == {"pair", "method", "noise", "epsilon", "delta", "alpha", "scale", "std"}
    cauchy = shift[shift.noise == "cauchy"]
    assert cauchy["std"].isna().all() and cauchy["delta"].isna().all() and (cauchy["alpha"] == ALPHA).all()
    # the tight rows reach their target (up to the bisection's rtol)
    tight_delta = shift[shift.method == "tight_laplace_delta"]
    np.testing.assert_allclose(tight_delta.achieved, DELTA, rtol=1e-6)
    tight_eps = shift[shift.method == "tight"]
    np.testing.assert_allclose(tight_eps.achieved, tight_eps.epsilon, rtol=1e-9)
    # and no tight scale is above a method scale of its noise family and guarantee
    for tight, others in (("tight_laplace_delta", ["gawm_laplace"]), ("tight", ["gwm_laplace", "paper000_best"]),
                          ("tight_gaussian", ["gwm_gaussian_rdp", "gwm_gaussian_analytic"]),
                          ("tight_cauchy", ["dagwm_cauchy"])):
        for other in others:
            assert np.all(_scales(shift, tight) <= _scales(shift, other) * (1 + 1e-9))


def test_least_noise_on_a_shift(shift):
    # Laplace (eps, delta): std sqrt(2) D / (eps - 2 log(1 - delta)); Gaussian: Balle-Wang sigma
    lap = math.sqrt(2) * D / (EPS - 2 * math.log1p(-DELTA))
    gau = np.array([_balle_wang_sigma(D, e, DELTA) for e in EPS])
    table = least_noise(shift)
    assert list(table.method) == ["tight_laplace_delta" if l < g else "tight_gaussian" for l, g in zip(lap, gau)]
    np.testing.assert_allclose(table.saving, 1 - np.minimum(lap, gau) / np.maximum(lap, gau), rtol=1e-6)
    lines = winner_lines(shift)
    assert len(lines) == EPS.size and lines[0].startswith("shift, epsilon = 0.25: least noise")


def test_zero_scale_when_the_priors_already_meet_the_target():
    # X_i = Bernoulli(1/2), X_j = Bernoulli(0.51): max |log P_i/P_j| = max(log(0.5/0.49), log(0.51/0.5)) = 0.0202 < 0.5
    pair = SecretPair.of(Draws(LatticePMF.from_values([0, 1], [0.5, 0.5])),
                         Draws(LatticePMF.from_values([0, 1], [0.49, 0.51])), [])
    frame = compare_pair("near", pair, epsilons=[0.5], delta=DELTA, alpha=ALPHA)
    row = frame[frame.method == "tight"].iloc[0]
    assert row.scale == 0 and row.meets_target and "no noise needed" in row.note
    assert row.achieved == pytest.approx(math.log(0.5 / 0.49), rel=1e-12)
    assert least_noise(frame).iloc[0]["std"] == 0


def test_paper000_best_names_the_method():
    # present vs absent with D_i uniform on {0, 1, 2}: theorem3_brent (eq. 13) < theorem3_max (eq. 14) = 2 / eps
    rest = []
    pair = SecretPair.of(Draws(LatticePMF.from_values([0, 1, 2], [1 / 3, 1 / 3, 1 / 3])), Absent(), rest)
    frame = compare_pair("absent", pair, epsilons=[1.0], delta=DELTA, alpha=ALPHA)
    best = frame[frame.method == "paper000_best"].iloc[0]
    # eq. (13): (1 + e^{1/t} + e^{2/t}) / 3 = e  =>  e^{1/t} = (-1 + sqrt(1 - 4 (1 - 3e))) / 2
    u = (-1 + math.sqrt(1 - 4 * (1 - 3 * math.e))) / 2
    assert best.scale == pytest.approx(1 / math.log(u), rel=1e-12)
    assert best.note == "= theorem3_brent"


CONFIG = {
    "multiuser": {"experiments": {"fig5": {"panels": {"adult": {}, "bank": {}}}, "fig6": {"secrets": []}}},
    "wasserstein": {"settings": {"heart": {}}},
}


@pytest.mark.parametrize("ref, expected", [
    ("fig5/adult", ("multiuser", "fig5", "adult")), ("fig6", ("multiuser", "fig6", "")),
    ("table1/heart", ("table1", "heart", "")),
])
def test_parse_pair(ref, expected):
    assert parse_pair(ref, CONFIG) == expected
    assert "/" not in slug(ref)


@pytest.mark.parametrize("ref, message", [
    ("fig7/adult", "no multiuser.experiments.fig7"), ("fig5/student", "has no panel 'student' (have: adult, bank)"),
    ("fig5", "has no panel ''"), ("fig6/x", "has no panels (write 'fig6')"),
    ("table1/adult", "no wasserstein.settings.adult (have: heart)"), ("a b", "must be <experiment>"),
])
def test_parse_pair_refuses(ref, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_pair(ref, CONFIG)


def test_paper000_best_is_a_method_as_printed():
    # Bernoulli(0.3) vs Bernoulli(0.1), nobody else: Lemma 6 as printed has min psi = min(p, q) / |p - q| = 1/2;
    # this project's lemma6_best_grouping (min psi 7/2) is smaller but is not paper 000's method
    pair = SecretPair.of(Draws(LatticePMF.from_values([0, 1], [0.7, 0.3])),
                         Draws(LatticePMF.from_values([0, 1], [0.9, 0.1])), [])
    frame = compare_pair("bern", pair, epsilons=[0.5], delta=DELTA, alpha=ALPHA)
    best = frame[frame.method == "paper000_best"].iloc[0]
    assert best.note == "= lemma6"
    assert best.scale == pytest.approx(1 / math.log(math.exp(0.5) + math.expm1(0.5) * 0.5), rel=1e-12)  # eq. (21)


def test_compare_pair_runs_only_the_methods_asked(shift):
    from pufferfish.errors import NotApplicableError

    pair = SecretPair.of(Reports(0), Reports(D), [])
    some = compare_pair("shift", pair, epsilons=EPS, delta=DELTA, alpha=ALPHA, methods=["tight_cauchy", "gwm_laplace"])
    assert some.method.unique().tolist() == ["gwm_laplace", "tight_cauchy"]  # the table's order, not the list's
    whole = shift[shift.method.isin(["gwm_laplace", "tight_cauchy"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(some, whole)
    for bad in ([], ["tight", "nope"]):
        with pytest.raises(NotApplicableError, match="methods = "):
            compare_pair("shift", pair, epsilons=EPS, delta=DELTA, alpha=ALPHA, methods=bad)

"""The noise comparison: every mechanism on one pair, by closed forms on a single shift.

The geometric rows' oracles are sums written here: for point masses at 0 and D and two-sided
geometric noise P(G = g) = c r^|g| (r = e^(-1/b), c = (1 - r)/(1 + r)), the output pmfs are
c r^|y| and c r^|y - D|, so

* the privacy loss is D / b (the ratio is r^(-D) for y <= 0): the tight pure-epsilon b is D / eps;
* the hockey stick is c (1 - e^eps r^D) / (1 - r) + c sum_{y=1}^{D-1} [r^y - e^eps r^(D-y)]_+
  when D / b > eps, else 0 (y <= 0: a geometric series; y >= D: negative);
* D_2 = log(c (r^(-D) / (1 - r) + sum_{y=1}^{D-1} r^(3y - D) + r^(2D) / (1 - r))).
"""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy.stats import norm

from pufferfish.audit import AUDIT_COLUMNS, noise_std, noises
from pufferfish.comparison import compare_audited, compare_pair, least_noise, methods_by_noise
from pufferfish.comparison.compare import coinciding, winner_lines
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


def _geometric(b):
    r = math.exp(-1.0 / b)
    return r, (1 - r) / (1 + r)


def _geometric_delta(d, eps, b):
    """The hockey stick of one geometric shift d at scale b (module docstring)."""
    r, c = _geometric(b)
    if d / b <= eps:
        return 0.0
    inner = sum(max(r ** y - math.exp(eps) * r ** (d - y), 0.0) for y in range(1, d))
    return c * (1 - math.exp(eps) * r ** d) / (1 - r) + c * inner


def _geometric_renyi2(d, b):
    r, c = _geometric(b)
    return math.log(c * (r ** -d / (1 - r) + sum(r ** (3 * y - d) for y in range(1, d)) + r ** (2 * d) / (1 - r)))


def _solve_scale(f, target):
    """The b with f(b) = target (f falls as b grows), by brentq on log b."""
    return math.exp(optimize.brentq(lambda s: f(math.exp(s)) - target, -1, 8, xtol=1e-14))


def _geometric_std(b):
    """sqrt(Var G) by summing g^2 P(G = g) directly (|g| <= 60 b: the rest is below 1e-20)."""
    r, c = _geometric(b)
    g = np.arange(1, int(60 * b) + 60)
    return math.sqrt(2 * c * math.fsum((g.astype(float) ** 2 * r ** g).tolist()))


def test_noise_std():
    assert noise_std("laplace", 2.0) == pytest.approx(2 * math.sqrt(2), rel=1e-15)  # Var Laplace(b) = 2 b^2
    assert noise_std("gaussian", 2.0) == 2.0
    assert math.isnan(noise_std("cauchy", 2.0))
    assert noise_std("geometric", 2.0) == pytest.approx(_geometric_std(2.0), rel=1e-13)
    with pytest.raises(ValueError, match="noise = 'student'"):
        noise_std("student", 1.0)


def test_single_shift_closed_forms(shift):
    # paper 000: theorem1 |a - b| / eps = 3 / eps (kantorovich gives the same; the first listed wins)
    np.testing.assert_allclose(_scales(shift, "paper000_best"), D / EPS, rtol=1e-15)
    np.testing.assert_allclose(_scales(shift, "gwm_laplace"), D / EPS, rtol=1e-15)
    np.testing.assert_allclose(_scales(shift, "gawm_laplace"), D / EPS, rtol=2e-15)  # Delta_delta = 3 for delta < 1
    assert (_scales(shift, "gawm_laplace") >= D / EPS).all()          # rounded up (issue 39)
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
    np.testing.assert_allclose(_scales(shift, "dagwm_cauchy"), gamma, rtol=4e-15)   # rounded up by 8u (issue 39)
    assert (_scales(shift, "dagwm_cauchy") >= gamma).all()
    np.testing.assert_allclose(_scales(shift, "tight_cauchy"), gamma, rtol=1e-8)
    # geometric (module docstring): loss D / b, the hockey stick and D_2 as sums
    np.testing.assert_allclose(_scales(shift, "tight_geometric_epsilon"), D / EPS, rtol=1e-9)
    geo_delta = [_solve_scale(lambda b: _geometric_delta(D, e, b), DELTA) for e in EPS]
    np.testing.assert_allclose(_scales(shift, "tight_geometric"), geo_delta, rtol=1e-8)
    geo_renyi = [_solve_scale(lambda b: _geometric_renyi2(D, b), e) for e in EPS]
    np.testing.assert_allclose(_scales(shift, "tight_geometric_renyi"), geo_renyi, rtol=1e-8)


def test_every_row_is_audited_and_meets_its_target(shift):
    assert shift.meets_target.all()
    assert set(shift.columns[:8]) == {"pair", "method", "noise", "epsilon", "delta", "alpha", "scale", "std"}
    cauchy = shift[shift.noise == "cauchy"]
    assert cauchy["std"].isna().all() and cauchy["delta"].isna().all() and (cauchy["alpha"] == ALPHA).all()
    # delta and alpha follow each row's guarantee, whatever its noise: geometric has all three
    renyi = shift[shift.guarantee == "renyi"]
    assert set(renyi.method) == {"dagwm_cauchy", "tight_cauchy", "tight_geometric_renyi"}
    assert renyi["delta"].isna().all() and (renyi["alpha"] == ALPHA).all()
    others = shift[shift.guarantee != "renyi"]
    assert (others["delta"] == DELTA).all() and others["alpha"].isna().all()
    geometric = shift[shift.noise == "geometric"]
    np.testing.assert_allclose(geometric["std"], [_geometric_std(b) for b in geometric.scale], rtol=1e-12)
    # the tight rows reach their target (up to the bisection's rtol)
    tight_delta = shift[shift.method == "tight_laplace_delta"]
    np.testing.assert_allclose(tight_delta.achieved, DELTA, rtol=1e-6)
    tight_eps = shift[shift.method == "tight"]
    np.testing.assert_allclose(tight_eps.achieved, tight_eps.epsilon, rtol=1e-9)
    # and no tight scale is above a method scale of its noise family and guarantee
    for tight, others in (("tight_laplace_delta", ["gawm_laplace"]), ("tight", ["gwm_laplace", "paper000_best"]),
                          ("tight_gaussian", ["gwm_gaussian_rdp", "gwm_gaussian_analytic"]),
                          ("tight_cauchy", ["dagwm_cauchy"]), ("tight_geometric", ["tight_geometric_epsilon"])):
        for other in others:
            assert np.all(_scales(shift, tight) <= _scales(shift, other) * (1 + 1e-9))


def test_least_noise_on_a_shift(shift):
    # every (epsilon, delta)-or-stronger row, by its closed-form standard deviation
    std = {"tight_laplace_delta": math.sqrt(2) * D / (EPS - 2 * math.log1p(-DELTA)),
           "tight": math.sqrt(2) * D / EPS,
           "tight_gaussian": np.array([_balle_wang_sigma(D, e, DELTA) for e in EPS]),
           "tight_geometric": np.array([_geometric_std(_solve_scale(lambda b: _geometric_delta(D, e, b), DELTA))
                                        for e in EPS]),
           "tight_geometric_epsilon": np.array([_geometric_std(D / e) for e in EPS])}
    noise = {"tight_laplace_delta": "laplace", "tight": "laplace", "tight_gaussian": "gaussian",
             "tight_geometric": "geometric", "tight_geometric_epsilon": "geometric"}
    table = least_noise(shift)
    for k, row in enumerate(table.itertuples()):
        best = min(std, key=lambda m: std[m][k])
        other = min((m for m in std if noise[m] != noise[best]), key=lambda m: std[m][k])
        assert row.method == best and row.std == pytest.approx(std[best][k], rel=1e-7)
        assert row.other_method == other and row.saving == pytest.approx(1 - std[best][k] / std[other][k], rel=1e-6)
    assert set(table.method) <= set(std)      # never a Renyi row (Cauchy, geometric Renyi)
    lines = winner_lines(shift)
    assert len(lines) == EPS.size and lines[0].startswith("shift, epsilon = 0.25: least noise")
    assert winner_lines(shift, with_pair=False)[2].startswith("epsilon = 1: least noise")


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


def test_methods_are_grouped_by_their_records_noise():
    from pufferfish import registry
    from pufferfish.multiuser.methods import METHODS

    groups = methods_by_noise()
    assert list(groups) == [n for n in noises() if n in groups] and "geometric" in groups
    records = registry.methods()
    for noise, methods in groups.items():
        assert all(records[m].noise == noise for m in methods if m != "paper000_best")
    assert groups["laplace"] == ("paper000_best", "gwm_laplace", "gawm_laplace", "tight_laplace_delta", "tight")
    assert groups["geometric"] == ("tight_geometric", "tight_geometric_epsilon", "tight_geometric_renyi")
    listed = {m for methods in groups.values() for m in methods}
    # every registered method but paper 000's own (one row, paper000_best, stands for them)
    assert listed == {"paper000_best"} | (set(records) - {m.name for m in METHODS})


def test_the_audit_rows_are_in_the_one_schema(shift):
    pair = SecretPair.of(Reports(0), Reports(D), [])
    result = compare_audited("shift", pair, epsilons=EPS, delta=DELTA, alpha=ALPHA, experiment="comparison_shift")
    audit, rows = result.audit, result.rows
    assert list(audit.columns) == AUDIT_COLUMNS and len(audit) == len(rows) == len(shift)
    pd.testing.assert_frame_equal(rows, shift)
    assert (audit.experiment == "comparison_shift").all() and audit.claimed.all() and not audit.violation.any()
    assert audit.method.tolist() == rows.method.tolist() and audit.scale.tolist() == rows.scale.tolist()
    # the target's own columns: pure epsilon has no delta, Renyi has alpha
    pure = audit[audit.guarantee == "epsilon"]
    assert pure["delta"].isna().all() and pure["alpha"].isna().all()
    np.testing.assert_array_equal(pure.epsilon_achieved, rows[rows.guarantee == "epsilon"].achieved)
    assert (audit[audit.guarantee == "renyi"]["alpha"] == ALPHA).all()
    # GWM Laplace on one shift: b = D / eps, and the loss is D / b = eps in both directions
    gwm = audit[audit.method == "gwm_laplace"]
    np.testing.assert_allclose(gwm.loss_forward, EPS, rtol=1e-12)
    np.testing.assert_allclose(gwm.loss_backward, EPS, rtol=1e-12)
    # scale_min: the tight scale of the row's noise and guarantee at its epsilon
    for method, tight in (("gwm_laplace", "tight"), ("gawm_laplace", "tight_laplace_delta"),
                          ("gwm_gaussian_rdp", "tight_gaussian"), ("dagwm_cauchy", "tight_cauchy"),
                          ("tight_geometric_renyi", "tight_geometric_renyi")):
        np.testing.assert_array_equal(audit[audit.method == method].scale_min, _scales(shift, tight))


def test_coinciding_curves_are_named(shift):
    same = coinciding(shift)
    # paper 000's best, GWM and GAWM are all D / eps on one shift (and so is the tight Laplace scale)
    for pair in (("paper000_best", "gwm_laplace"), ("gwm_laplace", "gawm_laplace"), ("gwm_laplace", "tight")):
        assert pair in same
    assert ("tight_laplace_delta", "tight_gaussian") not in same and ("dagwm_cauchy", "tight_geometric_renyi") not in same
    # the geometric std at b = D / eps is within 1e-3 of sqrt(2) b at eps = 0.25 only (b = 12: 2.6e-4; b = 3: 4.6e-3)
    assert ("tight", "tight_geometric_epsilon") not in same
    assert ("tight", "tight_geometric_epsilon") in coinciding(shift[shift.epsilon == 0.25])
    with pytest.raises(ValueError, match="rtol"):
        coinciding(shift, rtol=-1.0)


def test_binding_rows_by_closed_forms():
    from pufferfish.comparison.binding import NamedPair, binding_rows
    from pufferfish.errors import InvalidArgumentError

    # reports 0, 1 or 3: GWM's scale is |a - b| / eps, the largest for 0 vs 3; at b = 3 / eps the
    # loss of a pair is |a - b| / b, the worst that of 0 vs 3: eps exactly
    values = [0, 1, 3]
    pairs = [NamedPair(a, b, SecretPair.of(Reports(a), Reports(b), [])) for a, b in itertools.combinations(values, 2)]
    found = binding_rows(pairs, epsilons=[0.5, 1.0], delta=DELTA, alpha=ALPHA, methods=["gwm_laplace", "tight"])
    assert found.pairs == 3 and found.binding() == [(0, 3, 4)]
    np.testing.assert_allclose(found.rows.scale, [6.0, 3.0, 6.0, 3.0], rtol=1e-9)
    np.testing.assert_allclose(found.rows.achieved, [0.5, 1.0, 0.5, 1.0], rtol=1e-9)
    assert found.rows.meets_target.all() and found.rows.method.tolist() == ["gwm_laplace"] * 2 + ["tight"] * 2
    one = binding_rows(pairs[:1], epsilons=[1.0], delta=DELTA, alpha=ALPHA, methods=["gwm_laplace"])
    assert one.binding() == [(0, 1, 1)] and one.rows.scale.tolist() == [1.0]
    for bad in ([], ["x"]):
        with pytest.raises((InvalidArgumentError, TypeError)):
            binding_rows(bad, epsilons=[1.0], delta=DELTA, alpha=ALPHA)


def test_pair_caption_says_which_epsilon_and_which_curves_coincide(shift, tmp_path):
    from pufferfish.comparison.experiments import pair_caption

    path = tmp_path / "rows.csv"
    shift.to_csv(path, index=False)
    text = pair_caption(path)
    bullets = [line for line in text.splitlines() if line.startswith("* ")]
    assert [b.split(":")[0] for b in bullets] == [f"* epsilon = {e:g}" for e in EPS]
    assert "Every scale meets its target by exact audit." in text and "gwm_laplace and gawm_laplace" in text


def test_as_flags_reads_bools_and_the_text_a_csv_gives_back(tmp_path):
    from pufferfish.comparison.compare import as_flags
    from pufferfish.errors import ArgumentTypeError

    column = pd.Series([True, False, "True", "False", "true", 1, 0])
    assert as_flags(column).tolist() == [True, False, True, False, True, True, False]
    path = tmp_path / "flags.csv"
    pd.DataFrame({"meets_target": [True, False, True]}).to_csv(path, index=False)
    assert as_flags(pd.read_csv(path, dtype=str)["meets_target"]).tolist() == [True, False, True]
    for bad in ([True, False], "True", None):
        with pytest.raises(ArgumentTypeError, match="column"):
            as_flags(bad)

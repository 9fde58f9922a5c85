"""GMM priors of paper 004: fitting, W2 weights w*, Theorem 2 (eq. 13), Corollary 2 (eq. 15).

w* is checked against POT's exact solver (ot.emd) and against a brute force over the
vertices of the transportation polytope; Theorem 2 against hand values and Theorem 1.
"""

import itertools
import math

import numpy as np
import ot
import pytest
from scipy.stats import norm

from pufferfish.errors import DataError, InvalidArgumentError, InvalidDistributionError, NotApplicableError
from pufferfish.gaussian.methods import theorem1
from pufferfish.mixture import GMM
from pufferfish.gaussian.gmm import corollary2, fit_gmm, theorem2, theorem2_terms, w2_cost, w2_weights

TAU_03 = 1.0364333894937898   # Q^{-1}(0.15); checked with math.erfc in test_gaussian.py


def random_gmm(rng, k):
    return GMM(rng.dirichlet(np.ones(k)), rng.normal(0, 5, k), rng.uniform(0.1, 3, k))


# ----------------------------------------------------------------------------- the GMM type
def test_gmm_sorted_by_mean_and_validated():
    g = GMM([0.2, 0.5, 0.3], [3.0, -1.0, 7.0], [1.0, 2.0, 0.5])
    np.testing.assert_array_equal(g.means, [-1.0, 3.0, 7.0])
    np.testing.assert_array_equal(g.weights, [0.5, 0.2, 0.3])
    np.testing.assert_array_equal(g.stds, [2.0, 1.0, 0.5])
    with pytest.raises(InvalidDistributionError):
        GMM([0.5, 0.6], [0, 1], [1, 1])
    with pytest.raises(InvalidDistributionError):
        GMM([0.5, 0.5], [0, 1], [1, -1])


def test_gmm_pdf_is_the_mixture_density():
    g = GMM([0.3, 0.7], [0.0, 4.0], [1.0, 2.0])
    x = np.linspace(-5, 10, 31)
    np.testing.assert_allclose(g.pdf(x), 0.3 * norm.pdf(x, 0, 1) + 0.7 * norm.pdf(x, 4, 2), rtol=1e-13)


# ----------------------------------------------------------------------------- fitting
@pytest.fixture(scope="module")
def two_cluster_sample():
    rng = np.random.default_rng(7)
    n = 3000
    z = rng.random(n) < 0.3
    return np.where(z, rng.normal(-5.0, 1.0, n), rng.normal(5.0, 0.5, n))


def test_fit_gmm_is_deterministic_for_a_seed(two_cluster_sample):
    a = fit_gmm(two_cluster_sample, components=3, random_state=11, n_init=3, max_iter=500)
    b = fit_gmm(two_cluster_sample, components=3, random_state=11, n_init=3, max_iter=500)
    for field in ("weights", "means", "stds"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert a.n == 3000 and a.converged


def test_fit_gmm_recovers_separated_clusters(two_cluster_sample):
    g = fit_gmm(two_cluster_sample, components=2, random_state=3, n_init=2, max_iter=500)
    # 900 and 2100 points: standard errors of the means ~0.033 and ~0.011, of the weight ~0.008
    np.testing.assert_allclose(g.means, [-5.0, 5.0], atol=0.15)
    np.testing.assert_allclose(g.weights, [0.3, 0.7], atol=0.04)
    np.testing.assert_allclose(g.stds, [1.0, 0.5], atol=0.08)
    assert np.all(np.diff(g.means) > 0)


def test_fit_gmm_too_few_rows_is_one_line_data_error():
    with pytest.raises(DataError) as excinfo:
        fit_gmm([1.0, 2.0], components=3, random_state=0, label="chol | female")
    text = str(excinfo.value)
    assert "\n" not in text and "2 row(s)" in text and "chol | female" in text
    with pytest.raises(DataError) as excinfo:
        fit_gmm([1.0, 1.0, 2.0, 2.0], components=3, random_state=0)
    assert "distinct" in str(excinfo.value) and "\n" not in str(excinfo.value)


def test_experiment_with_text_attribute_or_missing_column(tmp_path):
    import pandas as pd

    from pufferfish.gaussian.gmm_fits import fit_experiment_gmms
    from pufferfish.gaussian.settings import GMMExperimentSettings, GMMSettings

    data = tmp_path / "toy.csv"
    pd.DataFrame({"education": ["Bachelors", "HS-grad", "Masters", "HS-grad"] * 5,
                  "race": ["A", "B"] * 10}).to_csv(data, index=False)
    spec = {"dataset": "toy", "attribute": "education", "note": "", "unit": "", "missing_values": [],
            "secrets": [{"label": "A", "given": {"race": "A"}}, {"label": "B", "given": {"race": "B"}}],
            "privacy": [{"epsilon": 1.0, "delta": 0.5}], "epsilons": [1.0]}
    gmm = GMMSettings(components=2, n_init=1, max_iter=100, rounding="dequantise")
    with pytest.raises(DataError) as excinfo:
        fit_experiment_gmms(GMMExperimentSettings.from_config("fig3", spec), gmm=gmm, seed=1, data_csv=data,
                            out_json=tmp_path / "out.json")
    assert "\n" not in str(excinfo.value) and "education" in str(excinfo.value)
    with pytest.raises(DataError) as excinfo:
        fit_experiment_gmms(GMMExperimentSettings.from_config("fig3", {**spec, "attribute": "chol"}), gmm=gmm, seed=1,
                            data_csv=data, out_json=tmp_path / "out.json")
    assert "\n" not in str(excinfo.value) and "'chol'" in str(excinfo.value)
    assert not (tmp_path / "out.json").exists()


def test_fit_gmm_non_numeric_attribute_is_one_line_data_error():
    with pytest.raises(DataError) as excinfo:
        fit_gmm(["1", "2", "Bachelors", "4"], components=2, random_state=0, label="education")
    text = str(excinfo.value)
    assert "\n" not in text and "'Bachelors'" in text and "education" in text


# ----------------------------------------------------------------------------- w*
def brute_force_plan(a, b, cost):
    """Minimum of sum w c over the transportation polytope, by enumerating its vertices.

    A vertex has at most m + n - 1 positive cells; for each choice of that many cells, solve
    the marginal equations restricted to them and keep non-negative exact solutions.
    """
    m, n = cost.shape
    cells = list(itertools.product(range(m), range(n)))
    rows = np.array([[1.0 if c[0] == i else 0.0 for c in cells] for i in range(m)]
                    + [[1.0 if c[1] == j else 0.0 for c in cells] for j in range(n)])
    rhs = np.concatenate([a, b])
    best, best_w = math.inf, None
    for subset in itertools.combinations(range(len(cells)), m + n - 1):
        sub = rows[:, subset]
        w_sub, *_ = np.linalg.lstsq(sub, rhs, rcond=None)
        if np.allclose(sub @ w_sub, rhs, atol=1e-12) and np.all(w_sub >= -1e-12):
            w = np.zeros(len(cells))
            w[list(subset)] = w_sub
            value = float(w @ cost.ravel())
            if value < best - 1e-12:
                best, best_w = value, w.reshape(m, n)
    return best, best_w


@pytest.mark.parametrize("seed", range(8))
def test_w2_weights_marginals_and_optimality(seed):
    rng = np.random.default_rng(seed)
    gi, gj = random_gmm(rng, int(rng.integers(1, 4))), random_gmm(rng, int(rng.integers(1, 4)))
    w = w2_weights(gi, gj)
    cost = w2_cost(gi, gj)
    np.testing.assert_allclose(w.sum(axis=1), gi.weights, atol=1e-12)
    np.testing.assert_allclose(w.sum(axis=0), gj.weights, atol=1e-12)
    assert np.all(w >= 0)
    emd = ot.emd(gi.weights, gj.weights, cost)
    assert float(np.sum(w * cost)) == pytest.approx(float(np.sum(emd * cost)), rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(w, emd, atol=1e-9)   # the optimum is unique for generic costs
    best, best_w = brute_force_plan(gi.weights, gj.weights, cost)
    assert float(np.sum(w * cost)) == pytest.approx(best, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(w, best_w, atol=1e-9)


def test_w2_cost_footnote5():
    gi, gj = GMM([1.0], [2.0], [3.0]), GMM([1.0], [-1.0], [1.0])
    assert w2_cost(gi, gj)[0, 0] == pytest.approx(9.0 + 4.0)


def test_w2_weights_2x2_by_hand():
    # cost: keep the order (0->1, 10->12) vs swap; weights 0.4/0.6 and 0.5/0.5
    gi = GMM([0.4, 0.6], [0.0, 10.0], [1.0, 1.0])
    gj = GMM([0.5, 0.5], [1.0, 12.0], [1.0, 1.0])
    # w11 = t in [max(0, 0.4 - 0.5), min(0.4, 0.5)] = [0, 0.4]; cost(t) = 1 t + 144 (0.4 - t)
    # + 81 (0.5 - t) + 4 (0.1 + t) is decreasing in t, so t = 0.4
    np.testing.assert_allclose(w2_weights(gi, gj), [[0.4, 0.0], [0.1, 0.5]], atol=1e-12)


# ----------------------------------------------------------------------------- Theorem 2 / Corollary 2
def test_theorem2_hand_value():
    gi = GMM([0.5, 0.5], [0.0, 10.0], [1.0, 2.0])
    gj = GMM([0.5, 0.5], [1.0, 12.0], [1.0, 3.0])
    # w* is the diagonal (cost 0.5 * 1 + 0.5 * 5 = 3 against 0.5 * 148 + 0.5 * 81 off it)
    np.testing.assert_allclose(w2_weights(gi, gj), np.diag([0.5, 0.5]), atol=1e-12)
    expected = 0.5 * (1 + 0 * TAU_03) + 0.5 * (2 + 1 * TAU_03)
    assert theorem2(gi, gj, epsilon=1.0, delta=0.3) == pytest.approx(expected, rel=1e-13)
    assert theorem2(gi, gj, epsilon=0.25, delta=0.3) == pytest.approx(expected / 0.25, rel=1e-13)
    assert theorem2_terms(gi, gj) == pytest.approx((1.5, 0.5), rel=1e-13)


def test_theorem2_single_components_is_theorem1():
    gi, gj = GMM.gaussian(1.0, 2.0), GMM.gaussian(-3.0, 0.5)
    eps = np.array([0.2, 1.0])
    np.testing.assert_allclose(theorem2(gi, gj, epsilon=eps, delta=0.05),
                               theorem1(1.0, 2.0, -3.0, 0.5, epsilon=eps, delta=0.05), rtol=1e-13)


@pytest.mark.parametrize("seed", range(5))
def test_theorem2_symmetric(seed):
    rng = np.random.default_rng(100 + seed)
    gi, gj = random_gmm(rng, 3), random_gmm(rng, 2)
    assert theorem2(gi, gj, epsilon=0.7, delta=0.2) == pytest.approx(theorem2(gj, gi, epsilon=0.7, delta=0.2),
                                                                     rel=1e-12)


def test_corollary2_equals_theorem2_when_components_align():
    # GMM-UBM: shared weights and standard deviations, means shifted (order kept)
    weights, stds = [0.2, 0.5, 0.3], [1.0, 0.4, 2.0]
    gi = GMM(weights, [0.0, 5.0, 12.0], stds)
    gj = GMM(weights, [0.7, 5.2, 11.0], stds)
    expected = (0.2 * 0.7 + 0.5 * 0.2 + 0.3 * 1.0) / 0.5
    assert corollary2(gi, gj, epsilon=0.5) == pytest.approx(expected, rel=1e-13)
    for delta in (0.05, 0.5):
        assert theorem2(gi, gj, epsilon=0.5, delta=delta) == pytest.approx(expected, rel=1e-9)


def test_corollary2_not_applicable():
    gi = GMM([0.5, 0.5], [0.0, 5.0], [1.0, 1.0])
    with pytest.raises(NotApplicableError):
        corollary2(gi, GMM([0.4, 0.6], [0.0, 5.0], [1.0, 1.0]), epsilon=1)
    with pytest.raises(NotApplicableError):
        corollary2(gi, GMM([0.5, 0.5], [0.0, 5.0], [1.0, 2.0]), epsilon=1)
    with pytest.raises(NotApplicableError):
        corollary2(gi, GMM.gaussian(0.0, 1.0), epsilon=1)


# ----------------------------------------------------------------------------- rounded data (gaussian.gmm.rounding)

def test_data_resolution_is_the_smallest_gap():
    from pufferfish.gaussian.gmm import data_resolution

    assert data_resolution([3, 1, 2, 2, 7]) == 1.0
    assert data_resolution([0.0, 1.5, 2.0, 4.0]) == 0.5
    assert data_resolution([5.0, 5.0, 5.0]) is None


def test_components_below_resolution_is_sigma_under_h_over_sqrt12():
    from pufferfish.gaussian.gmm import components_below_resolution

    threshold = 1.0 / math.sqrt(12.0)                               # 0.2887, the sd of U[-1/2, 1/2]
    gmm = GMM([0.2, 0.3, 0.5], [1.0, 2.0, 3.0], [0.001, threshold * 1.001, threshold * 0.999])
    assert components_below_resolution(gmm, 1.0) == [0, 2]
    assert components_below_resolution(gmm, 0.001) == []
    with pytest.raises(InvalidArgumentError, match="resolution"):
        components_below_resolution(gmm, 0.0)


def _spiked_integers():
    """Integers spread over 1..16 and 250 extra values on 10: EM on them as recorded collapses."""
    rng = np.random.default_rng(7)
    return np.concatenate([np.clip(np.round(rng.normal(8.0, 4.0, 600)), 1, 16), np.full(250, 10.0)])


def test_a_collapsed_component_is_detected_and_the_treatments_prevent_it():
    from pufferfish.gaussian.gmm import REG_COVAR, components_below_resolution, fit_gmm

    x = _spiked_integers()
    raw = fit_gmm(x, components=3, random_state=3, n_init=4, rounding="none")
    narrow = components_below_resolution(raw, 1.0)
    assert len(narrow) == 1
    k = narrow[0]
    assert raw.means[k] == pytest.approx(10.0, abs=1e-6)
    assert raw.stds[k] == pytest.approx(math.sqrt(REG_COVAR), rel=1e-3)   # only the reg_covar floor holds it
    floor = fit_gmm(x, components=3, random_state=3, n_init=4, rounding="variance")
    assert min(floor.stds) >= 1.0 / math.sqrt(12.0)                      # every variance has h^2/12 added
    dequantised = fit_gmm(x, components=3, random_state=3, n_init=4, rounding="dequantise")
    assert components_below_resolution(dequantised, 1.0) == []
    again = fit_gmm(x, components=3, random_state=3, n_init=4, rounding="dequantise")
    assert np.array_equal(dequantised.stds, again.stds)                  # seeded dequantisation

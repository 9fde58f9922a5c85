"""Calibration (pufferfish.distp.calibrate) and the monotonicity its searches rely on.

Every delta the tests compare is recomputed here from the channel matrices (explicit products and
the hockey stick written out). The monotonicity in eps_A is checked two ways: as a property on
random pairs, and through its proofs' ingredients (RR(eps2) = RR(eps1) RR(eps_x); the two-sided
geometric noise of a larger scale is the smaller plus an integer noise with non-negative masses;
the clamped and the unclamped geometric mechanisms have the same delta).
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.distp import largest_geometric_epsilon, largest_rr_epsilon, smallest_dummies, tupling_over
from pufferfish.errors import InvalidArgumentError
from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse, TwoSidedGeometric


def hockey(p, q, eps):
    big = math.exp(eps)
    return max(math.fsum(np.maximum(p - big * q, 0)), math.fsum(np.maximum(q - big * p, 0)))


def rr_delta(m, eps_a, lam0, lam1, eps):
    c = RandomizedResponse(m, eps_a).matrix()
    return hockey(np.asarray(lam0) @ c, np.asarray(lam1) @ c, eps)


def geometric_delta(domain, eps_a, lam0, lam1, eps):
    c = ClampedGeometric(domain, eps_a).matrix()
    return hockey(np.asarray(lam0) @ c, np.asarray(lam1) @ c, eps)


def pmf(m, data):
    values = np.array(data.draw(st.lists(st.floats(0.01, 1.0), min_size=m, max_size=m)))
    return values / values.sum()


def test_rr_composition_is_rr():
    # alpha(e) = keep - other = (e^e - 1) / (e^e + m - 1); RR(e1) RR(ex) = RR(e2) with alpha(ex) = alpha(e2) / alpha(e1)
    m, e1, e2 = 5, 2.0, 0.7
    alpha = lambda e: (math.exp(e) - 1) / (math.exp(e) + m - 1)  # noqa: E731
    ax = alpha(e2) / alpha(e1)
    ex = math.log((1 + (m - 1) * ax) / (1 - ax))
    product = RandomizedResponse(m, e1).matrix() @ RandomizedResponse(m, ex).matrix()
    assert np.allclose(product, RandomizedResponse(m, e2).matrix(), rtol=1e-13, atol=0)


def test_a_larger_geometric_scale_adds_integer_noise():
    # the masses of W with G_b2 = G_b1 + W, from the ratio of characteristic functions (FFT), are >= 0
    r1, r2 = math.exp(-1.3), math.exp(-0.4)                  # eps_A 1.3 -> 0.4 (scale 1/1.3 -> 1/0.4)
    size = 4096
    t = 2 * np.pi * np.arange(size) / size
    ratio = ((1 - r2) ** 2 * (1 - 2 * r1 * np.cos(t) + r1 ** 2)) / ((1 - r1) ** 2 * (1 - 2 * r2 * np.cos(t) + r2 ** 2))
    w = np.real(np.fft.ifft(ratio))
    assert w.min() > -1e-15 and abs(w.sum() - 1) < 1e-12
    k = 7                                                      # the closed form of W's masses, k != 0
    assert w[k] == pytest.approx(w[1] * r2 ** (k - 1), rel=1e-9)
    g1, g2 = TwoSidedGeometric(1.3), TwoSidedGeometric(0.4)           # G_b1 + W has the law of G_b2
    conv = np.array([sum(g1.pmf(x - j) * w[j % size] for j in range(-200, 201)) for x in (-3, 0, 5)])
    assert np.allclose(conv, g2.pmf([-3, 0, 5]), rtol=1e-10)


def test_clamped_and_unclamped_geometric_have_the_same_delta():
    domain, eps_a = (0, 2, 3, 7), 0.6
    lam0, lam1 = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.4, 0.3, 0.2, 0.1])
    noise = TwoSidedGeometric(eps_a)
    wide = np.arange(-120, 128)                               # tails beyond it below 1e-30
    unclamped = [np.asarray(lam) @ noise.pmf(wide[None, :] - np.array(domain)[:, None]) for lam in (lam0, lam1)]
    for eps in (0.0, 0.3, 1.0, 2.0):
        assert geometric_delta(domain, eps_a, lam0, lam1, eps) == pytest.approx(
            hockey(unclamped[0], unclamped[1], eps), rel=1e-12, abs=1e-17)


@settings(deadline=None)
@given(st.integers(2, 6), st.floats(0, 1.5), st.data())
def test_delta_does_not_decrease_in_eps_a(m, eps, data):
    lam0, lam1 = pmf(m, data), pmf(m, data)
    grid = np.geomspace(0.01, 30, 25)
    rr = [rr_delta(m, e, lam0, lam1, eps) for e in grid]
    assert all(b >= a - 1e-15 for a, b in zip(rr, rr[1:]))
    domain = tuple(sorted(data.draw(st.lists(st.integers(0, 12), min_size=m, max_size=m, unique=True))))
    geo = [geometric_delta(domain, e, lam0, lam1, eps) for e in grid]
    assert all(b >= a - 1e-15 for a, b in zip(geo, geo[1:]))


@pytest.mark.parametrize("eps", [0.25, 0.5, 1.0])
def test_largest_rr_and_geometric_epsilons(eps):
    rng = np.random.default_rng(8)
    lam0, lam1 = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    found = largest_rr_epsilon(6, lam0, lam1, epsilon=eps, delta=1e-5, rtol=1e-9)
    assert found.parameter > eps and rr_delta(6, found.parameter, lam0, lam1, eps) <= 1e-5
    assert rr_delta(6, found.parameter * (1 + 3e-9), lam0, lam1, eps) > 1e-5        # the largest, within rtol
    domain = (1, 2, 4, 5, 8, 9)
    found = largest_geometric_epsilon(domain, lam0, lam1, epsilon=eps, delta=1e-5, rtol=1e-9)
    assert geometric_delta(domain, found.parameter, lam0, lam1, eps) <= 1e-5
    assert geometric_delta(domain, found.parameter * (1 + 3e-9), lam0, lam1, eps) > 1e-5


def test_no_noise_needed_and_equal_laws():
    lam = [0.5, 0.3, 0.2]
    assert largest_rr_epsilon(3, lam, lam, epsilon=0.1, delta=1e-5).parameter == math.inf
    assert largest_geometric_epsilon((0, 1, 2), lam, lam, epsilon=0.1, delta=1e-5).parameter == math.inf
    close = [0.5, 0.3 + 1e-7, 0.2 - 1e-7]                     # total variation 1e-7 < delta
    assert largest_rr_epsilon(3, lam, close, epsilon=0.0, delta=1e-5).parameter == math.inf


def test_smallest_dummies_is_the_smallest():
    rng = np.random.default_rng(2)
    lam0, lam1 = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))
    base = RandomizedResponse(3, 2.0)
    found = smallest_dummies(base, lam0, lam1, epsilon=0.1, delta=1e-3)
    k = int(found.parameter)
    assert k > 0 and found.delta_upper <= 1e-3
    # recomputed through the mechanism's exact route (C(3 + k, k) count vectors)
    at = lambda j: tupling_over(base, dummies=j).delta(lam0, lam1, epsilon=0.1)  # noqa: E731
    assert at(k).method == "exact" and at(k).delta <= 1e-3 < at(k - 1).delta
    assert smallest_dummies(base, lam0, lam1, epsilon=0.1, delta=1e-3, max_dummies=k - 1).reason.startswith("k =")


@pytest.mark.parametrize("call, text", [
    (lambda: largest_rr_epsilon(1, [1.0], [1.0], epsilon=0.1, delta=1e-5), "size = 1"),
    (lambda: largest_rr_epsilon(3, [0.5, 0.5], [0.5, 0.5], epsilon=0.1, delta=1e-5), "lambda0: 2 masses"),
    (lambda: largest_rr_epsilon(2, [0.5, 0.5], [0.4, 0.6], epsilon=0.1, delta=2.0), "delta = 2"),
    (lambda: largest_geometric_epsilon((0, 0), [0.5, 0.5], [0.5, 0.5], epsilon=0.1, delta=1e-5), "domain"),
    (lambda: smallest_dummies(RandomizedResponse(2, 1.0), [0.5, 0.5], [0.4, 0.6], epsilon=-1, delta=1e-5),
     "epsilon = -1"),
])
def test_bad_input_is_one_line(call, text):
    with pytest.raises(InvalidArgumentError) as caught:
        call()
    assert text in str(caught.value) and "\n" not in str(caught.value)


def test_distp_is_a_paper_package():
    # paper 003's package imports the layers below the papers only: the audits (layer 4), the shared settings,
    # files and plotting; no registry, other paper, cli or pipeline
    import ast
    from pathlib import Path
    package = Path(__file__).resolve().parents[2] / "src" / "pufferfish" / "distp"
    allowed = ("pufferfish._lazy", "pufferfish.errors", "pufferfish.checks", "pufferfish.certified", "pufferfish.lattice",
               "pufferfish.mechanisms", "pufferfish.distp", "pufferfish.audit", "pufferfish.settings", "pufferfish.files",
               "pufferfish.plotting", "pufferfish.papers")  # papers: the Paper its declaration (paper.py) builds
    found = set()
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pufferfish"):
                found.add((path.name, node.module))
    assert found and not [f for f in found if not f[1].startswith(allowed)]

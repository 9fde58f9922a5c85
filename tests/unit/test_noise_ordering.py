"""Paper 004, Fig. 1: our numbers held against an independent computation (mpmath, scipy).

The densities of Y = X + N are written here from their formulas and evaluated with mpmath (30
digits): Gaussian noise, :math:`Y \\mid s \\sim G(\\mu, \\sigma^2 + s^2)`; Laplace noise, the
exponentially modified Gaussian (checked once against the convolution integral by quadrature).
The total variations are mpmath quadratures of :math:`|p_i - p_j| / 2` split at the sign
changes; the Laplace supremum is the limit of the log-ratio of the priors' moment generating
functions at :math:`1/b`; W* is a root of the two window maxima. None of it calls the code
under test. Settings: ``config.yaml`` ``gaussian.fig1`` (G(0, 1), G(1, 2^2), b = 4, Gaussian
noise of the same variance 2 b^2 = 32, window [-20, 20]); docs/for-reviewers.md, "Paper 004,
Fig. 1".
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from pufferfish.audit.mixture_privacy_loss import epsilon_achieved
from pufferfish.gaussian.methods import gaussian_noise_max_log_ratio
from pufferfish.gaussian.noise_ordering import (crossover_half_width, gaussian_noise_total_variation,
                                                laplace_noise_total_variation)
from pufferfish.mixture import GMM

MU_I, SD_I, MU_J, SD_J, B = 0.0, 1.0, 1.0, 2.0, 4.0
S = math.sqrt(2.0) * B                       # the same variance as L(4): 2 b^2 = 32
WINDOW = (-20.0, 20.0)
mp.mp.dps = 30


def _laplace_density(y, mu, sd, b):
    """The density of G(mu, sd^2) + L(b) (exponentially modified Gaussian, both tails)."""
    y, mu, sd, b = (mp.mpf(v) for v in (y, mu, sd, b))
    z, r2 = y - mu, sd * mp.sqrt(2)
    return (mp.exp(sd ** 2 / (2 * b ** 2) - z / b) * mp.erfc((sd ** 2 / b - z) / r2)
            + mp.exp(sd ** 2 / (2 * b ** 2) + z / b) * mp.erfc((sd ** 2 / b + z) / r2)) / (4 * b)


def _gauss_density(y, mu, sd, s):
    return mp.npdf(mp.mpf(y), mu, mp.sqrt(mp.mpf(sd) ** 2 + mp.mpf(s) ** 2))


def _laplace_log_ratio(y, b=B):
    return mp.log(_laplace_density(y, MU_I, SD_I, b) / _laplace_density(y, MU_J, SD_J, b))


def _gauss_log_ratio(y, s=S):
    return mp.log(_gauss_density(y, MU_I, SD_I, s) / _gauss_density(y, MU_J, SD_J, s))


def _tv(diff, lo, hi, points=41):
    """(1/2) int |diff| over the line, split at the sign changes found on [lo, hi] (20 digits)."""
    with mp.workdps(20):
        grid = np.linspace(lo, hi, points)
        signs = [mp.sign(diff(y)) for y in grid]
        roots = [mp.findroot(diff, (grid[k], grid[k + 1]), solver="anderson")
                 for k in range(points - 1) if signs[k] != signs[k + 1]]
        return float(mp.quad(lambda y: abs(diff(y)), [-mp.inf, *roots, mp.inf]) / 2)


def test_the_laplace_density_is_the_convolution():
    for y in (-7.5, 3.3):
        with mp.workdps(20):
            conv = mp.quad(lambda x: mp.npdf(x, MU_J, SD_J) * mp.exp(-abs(y - x) / B) / (2 * B), [-mp.inf, y, mp.inf])
        assert _laplace_density(y, MU_J, SD_J, B) == pytest.approx(float(conv), rel=1e-14)


def test_fig1_laplace_maxima_are_the_moment_generating_function_limit():
    # y -> +inf: p(y) ~ e^{-y/b} E[e^{X/b}] / (2b), so the log ratio tends to
    # log M_i(1/b) - log M_j(1/b) = (mu_i - mu_j)/b + (sd_i^2 - sd_j^2)/(2 b^2) = -1/4 - 3/32
    limit = abs((MU_I - MU_J) / B + (SD_I ** 2 - SD_J ** 2) / (2 * B ** 2))
    assert limit == 0.34375
    grid = np.linspace(*WINDOW, 161)
    on_window = max(abs(_laplace_log_ratio(y)) for y in grid)
    assert float(on_window) == pytest.approx(limit, rel=1e-6)          # reached at y = 20 to 6 digits
    assert max(abs(_laplace_log_ratio(y)) for y in np.linspace(-300, 300, 121)) <= mp.mpf(limit) * (1 + mp.mpf("1e-25"))
    pi, pj = GMM.gaussian(MU_I, SD_I), GMM.gaussian(MU_J, SD_J)
    assert limit <= epsilon_achieved(pi, pj, b=B) <= limit * (1 + 1e-9)     # certified
    assert epsilon_achieved(pi, pj, b=B, window=WINDOW) == pytest.approx(float(on_window), rel=1e-9)


def test_fig1_gaussian_maxima_the_order_reverses():
    # over [-20, 20] the quadratic log ratio is largest at y = -20: 1.0032 > 0.34375 (Laplace)
    ours = gaussian_noise_max_log_ratio(MU_I, SD_I, MU_J, SD_J, noise_sd=S, window=WINDOW)
    independent = max(abs(_gauss_log_ratio(y)) for y in np.linspace(*WINDOW, 401))
    assert ours == pytest.approx(float(independent), rel=1e-12)
    assert ours == pytest.approx(1.0032114832, rel=1e-9)
    assert ours > 0.34375
    assert gaussian_noise_max_log_ratio(MU_I, SD_I, MU_J, SD_J, noise_sd=S) == math.inf
    assert abs(_gauss_log_ratio(1e6)) > 1e8                            # unbounded: the variances differ


@pytest.mark.parametrize(("mu_j", "sd_j", "b"), [(MU_J, SD_J, B), (1.0, 2.0, 0.25), (-3.0, 0.5, 1.0), (1.0, 2.0, 300.0)])
def test_total_variation_by_quadrature(mu_j, sd_j, b):
    s = math.sqrt(2.0) * b
    gauss = _tv(lambda y: _gauss_density(y, MU_I, SD_I, s) - _gauss_density(y, mu_j, sd_j, s), -30 * s, 30 * s)
    laplace = _tv(lambda y: _laplace_density(y, MU_I, SD_I, b) - _laplace_density(y, mu_j, sd_j, b),
                  -20 * b - 10, 20 * b + 10)
    assert gaussian_noise_total_variation(MU_I, SD_I, mu_j, sd_j, noise_sd=s) == pytest.approx(gauss, rel=1e-9)
    assert laplace_noise_total_variation(MU_I, SD_I, mu_j, sd_j, b=b) == pytest.approx(laplace, rel=1e-9)


def test_fig1_total_variation_keeps_the_papers_order():
    assert gaussian_noise_total_variation(MU_I, SD_I, MU_J, SD_J, noise_sd=S) == pytest.approx(0.0699654618, rel=1e-9)
    assert laplace_noise_total_variation(MU_I, SD_I, MU_J, SD_J, b=B) == pytest.approx(0.1026112299, rel=1e-9)


def test_fig1_crossover_half_width_is_the_root_of_the_two_maxima():
    # On [-W, W] near W = 9.9 both maxima are at y = +W (checked on the grid below), so W* is the
    # root of |r_G(W)| - |r_L(W)|; below it Gaussian noise gives the smaller maximum, above it not.
    grid = np.linspace(0.0, 12.0, 121)
    lap = np.maximum.accumulate([max(abs(_laplace_log_ratio(w)), abs(_laplace_log_ratio(-w))) for w in grid])
    gau = np.maximum.accumulate([max(abs(_gauss_log_ratio(w)), abs(_gauss_log_ratio(-w))) for w in grid])
    k = int(np.flatnonzero(gau > lap)[0])
    assert 9.0 < grid[k] <= 10.0 and all(gau[:k] <= lap[:k])
    w_star = mp.findroot(lambda w: abs(_gauss_log_ratio(w)) - abs(_laplace_log_ratio(w)), (grid[k - 1], grid[k]),
                         solver="anderson")
    assert abs(_gauss_log_ratio(-w_star)) < abs(_gauss_log_ratio(w_star))
    assert abs(_laplace_log_ratio(-w_star)) < abs(_laplace_log_ratio(w_star))
    ours = crossover_half_width(MU_I, SD_I, MU_J, SD_J, b=B, noise_sd=S)
    assert ours == pytest.approx(float(w_star), rel=1e-9)
    assert ours == pytest.approx(9.9452, abs=1e-4)
    assert crossover_half_width(MU_I, SD_I, MU_I, SD_I, b=B, noise_sd=S) == math.inf


@pytest.mark.parametrize("window", [(1.0, -1.0), (0.0, 0.0), (math.nan, 1.0), ("a", 1.0), (1.0,), "ab", 3.0])
def test_a_bad_window_is_one_line(window):
    from pufferfish.errors import PufferfishError

    with pytest.raises(PufferfishError, match="window") as excinfo:
        gaussian_noise_max_log_ratio(MU_I, SD_I, MU_J, SD_J, noise_sd=S, window=window)
    assert "\n" not in str(excinfo.value)

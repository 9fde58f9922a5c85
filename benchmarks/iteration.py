"""Speed of the iteration accountants and the exact audit (pufferfish.iteration), against the direct O(T^2) way.

Three measurements, wall clock, best of ``--repeats`` (imports excluded, printed apart):

1. One secret position at T = 10^6 steps (default), for a decaying-correlation prior
   (rho = 0.999) and a stationary prior estimated from a simulated AR(1) series: the shifts,
   both optimal bounds (``paper_bound``, c = 1, and ``contraction_bound``), the other two
   accountants and the exact audit (``account_quadratic_model``). Target: <= 2 s.
2. The same computation, ours and direct, at ``--direct-steps`` (default 3,000) where the
   direct way is feasible: the T x T covariance built as a dense matrix, q^T Sigma q and the
   conditional variance as dense products (O(T^2)), the minorant by the textbook "smallest
   slope from the current vertex" scan (O(T) per vertex, O(T^2) in the worst case). The ratio
   direct / ours is printed; at 10^6 steps the dense matrix alone would need 8 TB.
3. The bank run: ``age`` of bank-marketing (45,211 records, file order), secrets at the first,
   last and every 5000th record, eta in {0.01, 0.05}: the bounds table and the calibration
   table (10 epsilons at delta = 1e-5, every accountant audited exactly), no figures. Target: <= 10 s.

Usage: ``python benchmarks/iteration.py [--steps 1e6] [--direct-steps 3000] [--repeats 3]
[--data data/raw/bank_marketing.csv]`` (from the repository, ``src/`` on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def best(function, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = function()
        times.append(time.perf_counter() - start)
    return min(times), out


def direct_account(matrix: np.ndarray, k: int, eta: float, diameter: float, sigma: float, alpha: float) -> dict:
    """The four accountants and the exact D_alpha from a dense covariance, without the package's fast paths."""
    T = matrix.shape[0]
    q = (1 - eta) ** np.arange(T - 1, -1, -1, dtype=float)
    col = matrix[:, k - 1]
    gap = abs(eta * diameter * (q @ col) / col[k - 1])
    cond = matrix - np.outer(col, col) / col[k - 1]          # O(T^2) memory and time
    variance = sigma ** 2 * (q @ q) + eta ** 2 * (q @ cond @ q)
    s = eta * diameter * np.abs(col) / col[k - 1]

    def naive_minorant(c: float) -> float:
        w = (c ** np.arange(T - 1, -1, -1, dtype=float)) if c < 1 else np.ones(T)
        P = np.concatenate([[0.0], np.cumsum(w * w)])
        R = np.concatenate([[0.0], np.cumsum(w * s)])
        i, cost = 0, 0.0
        while i < T:                                          # smallest slope from vertex i, farthest on ties
            slopes = (R[i + 1:] - R[i]) / (P[i + 1:] - P[i])
            j = i + 1 + int(np.flatnonzero(slopes <= slopes.min() * (1 + 1e-15) + 1e-300)[-1])
            cost += (R[j] - R[i]) ** 2 / (P[j] - P[i])
            i = j
        return cost

    costs = {"paper_bound": naive_minorant(1.0), "contraction_bound": naive_minorant(1 - eta),
             "dp_assumption": s[k - 1] ** 2 / (T - k + 1), "composition": float(s @ s)}
    out = {name: alpha * x / (2 * sigma ** 2) for name, x in costs.items()}
    out["exact"] = alpha * gap ** 2 / (2 * variance)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=float, default=1e6)
    parser.add_argument("--direct-steps", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", default="data/raw/bank_marketing.csv")
    args = parser.parse_args()
    T = int(args.steps)

    start = time.perf_counter()
    import scipy.optimize  # noqa: F401  (the minorant's isotonic regression)
    import scipy.signal  # noqa: F401   (the FFT convolution)

    from pufferfish.iteration import (StationaryCovariance, account_quadratic_model, biased_autocovariance,
                                      decaying_correlation)
    from pufferfish.iteration.experiments import calibration_table, read_series, series_table
    from pufferfish.iteration.settings import SeriesSettings
    print(f"imports (numpy, scipy.optimize, scipy.signal, pufferfish.iteration): {time.perf_counter() - start:.2f} s")

    rng = np.random.default_rng(20240507)
    series = scipy.signal.lfilter([1.0], [1.0, -0.95], rng.normal(size=T))      # an AR(1) series, rho = 0.95
    start = time.perf_counter()
    stationary = StationaryCovariance(biased_autocovariance(series))
    print(f"\n1. one secret, T = {T:,} steps (target <= 2 s); the autocovariance of the series "
          f"(FFT, once per prior): {time.perf_counter() - start:.3f} s")
    priors = {"decaying rho=0.999": decaying_correlation(T, 0.999), "stationary (AR(1) sample)": stationary}
    for label, cov in priors.items():
        for k in (1, T // 2, T):
            seconds, account = best(lambda: account_quadratic_model(cov, secret_index=k, eta=0.01, diameter=1.0),
                                    args.repeats)
            values = account.renyi(sigma=1.0, alpha=2.0)
            print(f"   {label:28s} k = {k:>9,}: {seconds:6.3f} s   paper {values['paper_bound']:.4g}  "
                  f"contraction {values['contraction_bound']:.4g}  exact {values['exact']:.4g}")

    n = args.direct_steps
    print(f"\n2. ours against the direct O(T^2) computation at T = {n:,} (the direct way at T = {T:,} would "
          f"need a {T * T * 8 / 1e12:.0f} TB matrix)")
    cov = decaying_correlation(n, 0.99)
    dense = 0.99 ** np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    slowest = 0.0
    for k in (1, n // 2, n):
        ours_s, account = best(lambda: account_quadratic_model(cov, secret_index=k, eta=0.01, diameter=1.0),
                               args.repeats)
        direct_s, direct = best(lambda: direct_account(dense, k, 0.01, 1.0, 1.0, 2.0), 1)
        values = account.renyi(sigma=1.0, alpha=2.0)
        worst = max(abs(values[name] - direct[name]) / max(abs(direct[name]), 1e-300) for name in direct)
        slowest = max(slowest, direct_s)
        print(f"   k = {k:>6,}: ours {ours_s:7.4f} s   direct {direct_s:7.3f} s   ratio {direct_s / ours_s:7.1f}   "
              f"largest relative difference {worst:.1e}")
    print(f"   the direct way scaled by (T / {n:,})^2 to T = {T:,}: about {slowest * (T / n) ** 2:,.0f} s "
          f"(an estimate, not run)")

    path = Path(args.data)
    if not path.exists():
        print(f"\n3. bank run skipped: {path} not found (run the download rule or pass --data)")
        return
    settings = SeriesSettings.from_config("bank", {
        "dataset": "bank_marketing", "column": "age", "order": "file", "etas": [0.01, 0.05], "sigma": 1.0,
        "alpha": 2, "secret_every": 5000, "epsilons": {"start": 0.1, "stop": 1.0, "step": 0.1}, "delta": 1e-5})

    def bank():
        values = read_series(path, settings)
        bounds = series_table(values, settings)
        sigmas = calibration_table(values, settings)
        return values, bounds, sigmas

    seconds, (values, bounds, sigmas) = best(bank, args.repeats)
    print(f"\n3. bank run (target <= 10 s): {values.size:,} records, {bounds.secret_index.nunique()} secrets x "
          f"{len(settings.etas)} etas; bounds + calibration ({len(sigmas)} sigmas, each audited): {seconds:.2f} s")
    rejected = sigmas[~sigmas.meets_target].groupby("accountant").size()
    print(f"   rejected by the exact audit: {({k: int(v) for k, v in rejected.items()}) or 'none'} "
          f"(of {len(sigmas) // sigmas.accountant.nunique()} per accountant)")


if __name__ == "__main__":
    main()

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

4. Issue 33, each as a ratio against one ``x.sum()`` over a float64 series of the same length,
   measured in the same process (best of 50): one secret at T = 10^7 (decaying correlation 0.9,
   eta 0.01; the shifts, all four accountants and the exact audit; target <= 150), and every
   record of a synthetic series of 10^7 records (the stationary prior of an AR(1) sample; the
   exact D_alpha and the exact delta at epsilon = 1 of every record; target <= 500); every record
   of the bank series per eta (target < 0.5 s). Against the code of another checkout
   (``PYTHONPATH=/path/to/src``) the parts it lacks are skipped.

``--profile`` prints where the time of the 10^7 secret goes (cProfile, by own time);
``--memory`` the peak bytes per step and per record (tracemalloc) behind
:mod:`pufferfish.iteration.limits`.

Usage: ``python benchmarks/iteration.py [--steps 1e6] [--direct-steps 3000] [--repeats 3]
[--big-steps 1e7] [--profile] [--memory] [--data data/raw/bank_marketing.csv]`` (from the
repository, ``src/`` on ``PYTHONPATH``).
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


def one_pass(x: np.ndarray) -> float:
    """The time of one ``x.sum()``: best of 50."""
    return best(x.sum, 50)[0]


def big_secret(T: int, repeats: int, profile: bool) -> None:
    """Issue 33: one secret at T = 10^7 (decaying 0.9, eta 0.01), as a ratio against one pass."""
    from pufferfish.iteration import account_quadratic_model, decaying_correlation

    x = np.random.default_rng(1).normal(size=T)
    start = time.perf_counter()
    cov = decaying_correlation(T, 0.9)
    print(f"\n4. one secret at T = {T:,} (decaying correlation 0.9, eta 0.01; target <= 150 passes); "
          f"the prior, once: {time.perf_counter() - start:.2f} s")
    for k in (1, T // 2, T):
        seconds, account = best(lambda: account_quadratic_model(cov, secret_index=k, eta=0.01, diameter=1.0), repeats)
        sums = one_pass(x)
        values = account.renyi(sigma=1.0, alpha=2.0)
        print(f"   k = {k:>10,}: {seconds:6.3f} s = {seconds / sums:6.1f} x.sum() ({sums * 1e3:.2f} ms)   "
              f"paper {values['paper_bound']:.4g}  contraction {values['contraction_bound']:.4g}  "
              f"exact {values['exact']:.4g}")
    if profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(account_quadratic_model, cov, secret_index=T // 2, eta=0.01, diameter=1.0)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(14)


def every_record(T: int, repeats: int, path: Path) -> None:
    """Issue 33: every record of a synthetic series of T records, and of the bank series per eta."""
    try:
        from pufferfish.iteration import all_secrets_audit
    except ImportError:
        print("\n5. every record: not in this checkout (skipped)")
        return
    import scipy.signal

    from pufferfish.iteration import StationaryCovariance, biased_autocovariance

    series = scipy.signal.lfilter([1.0], [1.0, -0.95], np.random.default_rng(2).normal(size=T))
    start = time.perf_counter()
    cov = StationaryCovariance(biased_autocovariance(series))
    print(f"\n5. every record of a synthetic series of {T:,} records (AR(1) sample prior; D_2 and delta at "
          f"epsilon = 1 of each; target <= 500 passes); the prior, once: {time.perf_counter() - start:.2f} s")

    def audit(covariance, eta):
        every = all_secrets_audit(covariance, eta=eta, sigma=1.0, diameter=1.0)
        return every, every.renyi(alpha=2.0), every.delta(epsilon=1.0)

    for eta in (0.01, 0.05):
        seconds, (every, renyi, _) = best(lambda: audit(cov, eta), repeats)
        sums = one_pass(series)
        print(f"   eta = {eta:g}: {seconds:6.3f} s = {seconds / sums:6.1f} x.sum(); most exposed record "
              f"{every.most_exposed():,} (D_2 = {renyi.max():.4g})")
    if not path.exists():
        print(f"   bank: skipped ({path} not found)")
        return
    import pandas as pd

    from pufferfish.iteration.experiments import series_prior

    values = pd.read_csv(path, low_memory=False, float_precision="round_trip")["age"].to_numpy(float)
    bank, diameter = series_prior(values)
    for eta in (0.01, 0.05):
        seconds, (every, renyi, _) = best(lambda: audit(bank, eta), repeats)
        print(f"   bank, every one of {values.size:,} records, eta = {eta:g} (target < 0.5 s): {seconds:.3f} s; "
              f"most exposed record {every.most_exposed():,}")


def memory(T: int) -> None:
    """Peak traced bytes per step / record behind pufferfish.iteration.limits."""
    import tracemalloc

    from pufferfish.iteration import (EqualCorrelation, StationaryCovariance, account_quadratic_model,
                                      all_secrets_audit, biased_autocovariance, decaying_correlation)

    def peak(function) -> float:
        tracemalloc.start()
        function()
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top / T

    print(f"\n6. peak memory (tracemalloc) per step / record at T = {T:,}")
    for label, make in (("equal 0.5", lambda: EqualCorrelation(T, 0.5)), ("decaying 0.999",
                                                                          lambda: decaying_correlation(T, 0.999))):
        for k in (1, T):
            print(f"   Fig. 6 point, {label}, k = {k:,}: "
                  f"{peak(lambda: account_quadratic_model(make(), secret_index=k, eta=0.1, diameter=1.0)):.0f} B")
    x = np.random.default_rng(0).normal(size=T).cumsum()
    prior = peak(lambda: StationaryCovariance(biased_autocovariance(x)))
    print(f"   series prior (autocovariance by FFT): {prior:.0f} B")
    cov = StationaryCovariance(biased_autocovariance(x))
    print(f"   series, one secret: "
          f"{peak(lambda: account_quadratic_model(cov, secret_index=T // 2, eta=0.01, diameter=1.0)):.0f} B")

    def every():
        audit = all_secrets_audit(cov, eta=0.01, sigma=1.0, diameter=1.0)
        audit.renyi(alpha=2.0), audit.delta(epsilon=1.0), audit.smallest_sigma(epsilon=1.0, delta=1e-5)

    print(f"   series, every record (D_2, delta, smallest sigma): {peak(every):.0f} B")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=float, default=1e6)
    parser.add_argument("--direct-steps", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--big-steps", type=float, default=1e7)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--only-issue-33", action="store_true", help="sections 4 and 5 only")
    parser.add_argument("--data", default="data/raw/bank_marketing.csv")
    args = parser.parse_args()
    T = int(args.steps)
    if args.only_issue_33:
        import os

        print(f"load average: {os.getloadavg()[0]:.1f}")
        big_secret(int(args.big_steps), args.repeats, args.profile)
        every_record(int(args.big_steps), args.repeats, Path(args.data))
        if args.memory:
            memory(T)
        return

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
    if path.exists():
        bank_run(path, args.repeats)
    else:
        print(f"\n3. bank run skipped: {path} not found (run the download rule or pass --data)")
    big_secret(int(args.big_steps), args.repeats, args.profile)
    every_record(int(args.big_steps), args.repeats, path)
    if args.memory:
        memory(T)


def bank_run(path: Path, repeats: int) -> None:
    """Section 3: the bank series' bounds and calibration tables (the pipeline's job without figures)."""
    from pufferfish.iteration.experiments import calibration_table, read_series, series_table
    from pufferfish.iteration.settings import SeriesSettings

    settings = SeriesSettings.from_config("bank", {
        "dataset": "bank_marketing", "column": "age", "order": "file", "etas": [0.01, 0.05], "sigma": 1.0,
        "alpha": 2, "secret_every": 5000, "epsilons": {"start": 0.1, "stop": 1.0, "step": 0.1}, "delta": 1e-5})

    def bank():
        values = read_series(path, settings)
        bounds = series_table(values, settings)
        sigmas = calibration_table(values, settings)
        return values, bounds, sigmas

    seconds, (values, bounds, sigmas) = best(bank, repeats)
    print(f"\n3. bank run (target <= 10 s): {values.size:,} records, {bounds.secret_index.nunique()} secrets x "
          f"{len(settings.etas)} etas; bounds + calibration ({len(sigmas)} sigmas, each audited): {seconds:.2f} s")
    rejected = sigmas[~sigmas.meets_target].groupby("accountant").size()
    print(f"   rejected by the exact audit: {({k: int(v) for k, v in rejected.items()}) or 'none'} "
          f"(of {len(sigmas) // sigmas.accountant.nunique()} per accountant)")


if __name__ == "__main__":
    main()

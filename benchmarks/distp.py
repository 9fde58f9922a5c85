"""Speed and width of the tupling mechanism's certified delta (pufferfish.distp), m = 16 outputs, k = 200 dummies.

Target (issue 31): delta(eps) of one (pair, eps) certified to delta_upper <= delta (1 + 1e-6) + 1e-15
in <= 1 s. Times are wall clock and process CPU, best of ``--repeats``; every time is also printed
as a ratio to a baseline measured in the same run:

* ``base``: the exact route (count vectors, both directions) at m = 16, k = 5 (20,349 vectors), the
  largest k the exact route covers at m = 16 within a few tenths of a second;
* ``fft``: what the integrator's prototype did (design/proto/tupling.py): w rounded down and up to a
  grid of step 1e-3, the law of the sum by FFT powers, no bound on the FFT's round-off -- not
  certified, printed for its width and time only.

Cases: random input laws (Dirichlet(1), seeded), bases RR(eps_A) for eps_A in {0.5, 2, 8} and the
clamped geometric mechanism on 1..16 at eps_A = 1, dummy laws uniform and a random marginal,
eps in {0.05, 0.1, 0.25}. Then the hardest case at rtol 1e-3 .. 1e-7 and k from 20 to 400.

Usage: ``python benchmarks/distp.py [--repeats 2] [--seeds 1 2]`` (from the repository, ``src/``
on ``PYTHONPATH`` or the package installed).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.signal import fftconvolve

from pufferfish.distp import tupling_over
from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse

M, K = 16, 200


def best(function, repeats: int):
    wall, cpu, out = math.inf, math.inf, None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = function()
        wall, cpu = min(wall, time.perf_counter() - w0), min(cpu, time.process_time() - c0)
    return wall, cpu, out


def prototype_fft(mu0, mu1, nu, n, eps, step=1e-3):
    """The uncertified rounding interval of the prototype: floor/ceil w to the grid, FFT powers, both directions."""
    ends = []
    for a, b in ((mu0, mu1), (mu1, mu0)):
        w = (a - math.exp(eps) * b) / nu
        pair = []
        for q in (np.floor(w / step), np.floor(w / step) + 1):
            q = q.astype(np.int64)
            law = np.zeros(q.max() - q.min() + 1)
            np.add.at(law, q - q.min(), nu)
            acc, acc_off, base, base_off, e = np.ones(1), 0, law, int(q.min()), n
            while e:
                if e & 1:
                    acc, acc_off = np.maximum(fftconvolve(acc, base), 0), acc_off + base_off
                e >>= 1
                if e:
                    base, base_off = np.maximum(fftconvolve(base, base), 0), 2 * base_off
            values = (np.arange(acc.size) + acc_off) * step
            pair.append(float(np.sum(np.maximum(values, 0) * acc)) / n)
        ends.append(pair)
    return max(e[0] for e in ends), max(e[1] for e in ends)


def case_list(seeds):
    for seed in seeds:
        rng = np.random.default_rng(seed)
        lam0, lam1, marginal = rng.dirichlet(np.ones(M)), rng.dirichlet(np.ones(M)), rng.dirichlet(np.ones(M))
        bases = [(f"rr {e:g}", RandomizedResponse(M, e)) for e in (0.5, 2.0, 8.0)]
        bases.append(("geometric 1", ClampedGeometric(tuple(range(1, M + 1)), 1.0)))
        for label, base in bases:
            for nu in ("uniform", "marginal"):
                mechanism = tupling_over(base, dummies=K, dummy_distribution=nu,
                                         marginal=marginal if nu == "marginal" else None)
                for eps in (0.05, 0.1, 0.25):
                    yield seed, label, nu, eps, mechanism, lam0, lam1


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args(argv)
    rng = np.random.default_rng(1)
    lam0, lam1 = rng.dirichlet(np.ones(M)), rng.dirichlet(np.ones(M))
    small = tupling_over(RandomizedResponse(M, 2.0), dummies=5)
    base_wall, base_cpu, exact = best(lambda: small.delta(lam0, lam1, epsilon=0.1), args.repeats)
    print(f"baseline (exact route, m = {M}, k = 5, eps 0.1): {base_wall:.3f} s wall ({base_cpu:.3f} s cpu), "
          f"delta {exact.delta:.6e} ({exact.method})")
    mechanism = tupling_over(RandomizedResponse(M, 2.0), dummies=K)
    mu0, mu1 = mechanism.output_laws(lam0, lam1)
    fft_wall, _, (lo, hi) = best(lambda: prototype_fft(mu0, mu1, mechanism.dummy_law, K + 1, 0.1), args.repeats)
    print(f"prototype FFT (step 1e-3, uncertified), m = {M}, k = {K}, rr 2, eps 0.1: [{lo:.6e}, {hi:.6e}] "
          f"width {(hi - lo) / lo:.1e}, {fft_wall:.3f} s = {fft_wall / base_wall:.1f} x base")
    _table(args, base_wall)
    _sweeps(args, base_wall, lam0, lam1)


def _table(args, base_wall) -> None:
    print(f"\ncertified delta, m = {M}, k = {K}, rtol 1e-6, atol 1e-15 (times: wall, cpu, wall / base)")
    print(f"{'seed':>4} {'base':>12} {'nu':>8} {'eps':>5} {'delta':>13} {'width':>8} {'method':>8} {'step':>9} "
          f"{'wall s':>7} {'cpu s':>6} {'ratio':>6}")
    walls, misses = [], []
    for seed, label, nu, eps, mechanism, lam0, lam1 in case_list(args.seeds):
        wall, cpu, got = best(lambda: mechanism.delta(lam0, lam1, epsilon=eps), args.repeats)
        width = (got.delta_upper - got.delta) / got.delta if got.delta > 0 else math.inf
        walls.append(wall)
        if not got.within_tolerance:
            misses.append((seed, label, nu, eps))
        print(f"{seed:>4} {label:>12} {nu:>8} {eps:>5.2f} {got.delta:>13.6e} {width:>8.1e} {got.method:>8} "
              f"{got.step:>9.3g} {wall:>7.3f} {cpu:>6.3f} "
              f"{wall / base_wall:>6.1f}")
    print(f"  {len(walls)} (pair, eps): wall median {np.median(walls):.3f} s, max {max(walls):.3f} s; "
          f"<= 1 s: {sum(w <= 1 for w in walls)}; tolerance missed: {misses or 'none'}")


def _sweeps(args, base_wall, lam0, lam1) -> None:
    mechanism = tupling_over(RandomizedResponse(M, 2.0), dummies=K)
    print(f"\nrtol sweep, rr 2, uniform nu, eps 0.1, k = {K}")
    for rtol in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7):
        wall, _, got = best(lambda: mechanism.delta(lam0, lam1, epsilon=0.1, rtol=rtol, max_points=4_000_000),
                            args.repeats)
        print(f"  rtol {rtol:.0e}: [{got.delta:.9e}, {got.delta_upper:.9e}] width "
              f"{(got.delta_upper - got.delta) / got.delta:.2e} step {got.step:.3g} {wall:.3f} s "
              f"({wall / base_wall:.1f} x base) within tolerance {got.within_tolerance}")
    print("\nk sweep, rr 2, uniform nu, eps 0.1, rtol 1e-6")
    for k in (20, 50, 100, 200, 400):
        current = tupling_over(RandomizedResponse(M, 2.0), dummies=k)
        wall, _, got = best(lambda: current.delta(lam0, lam1, epsilon=0.1), args.repeats)
        width = (got.delta_upper - got.delta) / got.delta if got.delta > 0 else math.inf
        print(f"  k {k:>3}: delta {got.delta:.6e} width {width:.1e} ({got.method}, step {got.step:.3g}) "
              f"{wall:.3f} s ({wall / base_wall:.1f} x base)")


if __name__ == "__main__":
    main()

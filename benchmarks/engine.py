"""Benchmark of the large-system engine, its scaling in the number of users, and the baselines a researcher would write.

Not a test (no assertion on time): run it, read it. For n = 10^3, 10^4, 10^5 and 10^6 users
(10^7 with ``--huge``): n - 1 other users drawn from a seeded Dirichlet on the alphabet
0..4, given as one 2-D array (a row per user: 10^6 LatticePMF objects alone would take
about 400 MB), user i drawing from P4 or Q4 of paper 000, Table 3; epsilons 0.1 .. 1.0. Each
size runs in its own process, which prints, per stage, the best of ``--repeats`` times:

    sum      the law of the n - 1 other users (sum_of_users on the 2-D array)
    priors   both query priors R + P4, R + Q4 (direct convolution with the 5-point user)
    span     sup Delta* (the span of pi*, Lemma 7, linear-time merge)
    audit    the exact lattice audit L(theta) at the 10 Kantorovich scales span/epsilon
    tight    theta_min for the 10 epsilons (bracketing + secant/bisection on the exact audit)

``task`` = all five, ``cpu`` its process CPU time (on a shared machine the wall clock also
counts the other jobs); ``pass ms`` = one pass of ``users @ arange(5)`` over the input,
measured in the same process (best of 11), the baseline of ``t/pass`` = task / pass (issue
33's target: at most 100 at 10^7 users); ``peak MB`` = the largest resident memory of the
size's process beyond what it held once the input was built (Linux VmHWM after resetting it
through /proc/self/clear_refs; targets: 500 MB at 10^6 users, 1 GB at 10^7); ``ns/pt`` = task
time per resolved point of the priors (masses >= 1e-300).
Accuracy, per size: the sum's mass, mean and variance against the users' exact cumulants
(the mass against the product of the rows' own masses, summed exactly), the Chernoff bound on the
mass left outside the resolved hull (``tail_mass_bound``), the tight theta against the
y -> inf limit of the audit (``mgf_tail_loss``), and, where the baseline runs, the exact
audit against the dense grid.

Baseline (plain numpy / POT, as before): priors by functools.reduce(np.convolve, ...) over
all users, the plan by ot.emd_1d (span over entries above 1e-12), the audit as a sup over a
dense y grid (2 points per lattice step, lattice points included); ``ratio`` = baseline
(priors + plan + audit) / engine (sum + priors + span + audit). A baseline stage whose
estimated time exceeds 3 minutes (from the rates of the smaller sizes) is skipped and the
line says so.

Gaussian noise at 10^5 users (``pufferfish.audit.gaussian_lattice``; "skipped" without it):
the exact (epsilon, delta) audit of one Gaussian scale (``GaussianLatticeAuditor.achieved``)
and the tight sigma for 10 epsilons (``.smallest_scale``), delta = 1e-5, each beside the
baseline a researcher would write, with the values both compute and the time ratios.

* The pair: user i draws from P4 vs user i is absent (paper 000's Fig. 3 secret, Theorem 3),
  the same 99,999 other users R: priors R + P4 (the benchmark's own) and R. Not P4 vs Q4:
  at this size that secret is hidden by the crowd. P4 and Q4 have the same mean and differ in
  variance (3.4 against 0.1, beside R's 1.67e5), the priors R + P4 and R + Q4 are within
  total variation 4.8e-6 < delta, so (epsilon, 1e-5) holds without noise at every
  epsilon >= 0 (the tight sigma is 0 and the search stops at the noise-free check); no
  epsilon grid changes that, only a delta below 4.8e-6 with epsilons near 1e-5 would. The
  presence of user i moves the query's mean by 3 (R's sd is 408): the add/remove secret of
  DP, which does need noise at 10^5 users (the section prints the P4 vs Q4 check).
* The epsilons come from the pair, not from the method: eps* = the largest epsilon at which
  the noise-free hockey-stick of the priors (exact, both directions) is still 10 delta,
  rounded down to 3 digits (0.0134), and 10 epsilons log-spaced from eps*/10 to eps*. So the
  noise must cut delta between 10 and about 230 fold, and the tight sigma runs from about R's
  sd (392) to 4055. Above 0.0194 the pair needs no noise at all, which is why the 0.1 .. 1
  grid of the Laplace task cannot be used here. Each epsilon prints the noise-free delta
  (> delta), the tight sigma (> 0) and the exact audit of a new auditor there (<= delta).
* One audit: at the tight sigma of the 5th epsilon, where delta_achieved = delta (1e-5).
* Baseline (``quad_delta``): the mixture densities f_P, f_Q of the two noisy query laws on a
  uniform grid of step sigma/32 over the atoms +- 12 sigma (a kernel matrix over the atoms
  within 12 sigma of each block of y, times the two mass vectors), scipy.integrate.simpson of
  max(0, f_P - e^eps f_Q), both directions. Simpson converges only like h^2 here (the kink of
  max(0, .) where the densities cross): relative errors in delta of 0.2-1.5 % at step
  sigma/8, 1e-4 to 2e-3 at sigma/16, 7e-5 to 5e-4 at sigma/32, 1e-6 at sigma/512 (measured
  at the smallest, middle and largest tight sigma). Sigma/32, the coarsest step good to a
  few 1e-4, was picked knowing the exact answer, which favours the baseline (a researcher
  would pay for a check at half the step); once per run the quadrature is also timed at
  sigma/512 (good to about 1e-6). Its tight sigma (``quad_tight``): bisection on log sigma
  from the exact search's start (the classical Gaussian mechanism's sigma for W_inf = 5),
  to hi/lo - 1 <= 1e-6 (its delta is good to a few 1e-4 only), run when estimated within
  3 minutes, else estimated from the time of one quadrature (and labelled so). The exact
  search closes its bracket to 1e-10.

The scaling figure (``--figure PATH``; none by default, so that a run rewrites no tracked
file: ``--figure benchmarks/scaling.png`` redraws the one the documentation shows): task
time and peak memory against users, log-log, with a slope-1 (linear) reference.
``--profile N`` runs the task once at N users under cProfile and prints where the time goes.

Run: ``.venv/bin/python benchmarks/engine.py`` (a few minutes, of which the Gaussian section
takes about 1; ``--huge`` adds 10^7 users, about 2 more). ``--sizes 1e5 --repeats 1`` runs
only the 10^5 size, with the Gaussian section (the numpy/POT baseline of the Laplace task is
then skipped: without a smaller size there is no rate to estimate it from). Last lines:
``task_over_pass_at_<n>_users``, ``peak_mb_beyond_input_at_<n>_users`` (10^6 and 10^7 users),
``task_at_1000000_users: <s>`` and ``speedup_at_10000_users: <ratio>``.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

EPS = np.round(np.arange(1, 11) / 10, 10)
LIMIT = 180.0         # a baseline stage estimated to take longer than this (s) is skipped
PER_UNIT = 2          # dense grid: y points per lattice step
BLOCK_BYTES = 64e6    # the dense grid is evaluated in blocks of y of at most this many bytes
SEED = 20240507
HERE = Path(__file__).resolve().parent
# Gaussian noise at 10^5 users (gaussian_section)
G_DELTA = 1e-5        # the (epsilon, delta) target's delta (as paper 000's noise_families experiment)
G_FACTOR = 10.0       # the grid's largest epsilon: where the noise-free delta is G_FACTOR x delta ...
G_RANGE = 10.0        # ... and its smallest: that / G_RANGE (10 log-spaced epsilons)
G_MIDDLE = 4          # the one audit: at the tight sigma of the 5th epsilon (its delta is delta itself)
QUAD_PER_SIGMA = 32   # quadrature baseline: grid step sigma / QUAD_PER_SIGMA
QUAD_REACH = 12.0     # ... over the atoms +- this many sigma; the kernel is cut at this many sigma
QUAD_FINE = 512       # ... and, once, at step sigma / QUAD_FINE (about 1e-6 relative)
QUAD_RTOL = 1e-6      # its bisection stops when hi / lo - 1 <= this
QUAD_ENTRIES = 4e6    # its kernel matrix is built in blocks of at most this many entries


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
        cpu = f"{fields.get('Model name', '?').strip()}, {fields.get('CPU(s)', '?').strip()} CPU(s)"
    except (OSError, subprocess.CalledProcessError):
        cpu = platform.processor() or "?"
    import scipy
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    return (f"{cpu}; load average {load:.1f} at start; Python {platform.python_version()}; numpy {np.__version__}; "
            f"scipy {scipy.__version__}")


def p4q4():
    from pufferfish.lattice.pmf import LatticePMF
    return (LatticePMF.from_values(range(1, 6), [0.4, 0.1, 0.0, 0.1, 0.4], name="P4"),
            LatticePMF.from_values(range(1, 6), [0.0, 0.05, 0.9, 0.05, 0.0], name="Q4"))


def rows_of(n: int) -> np.ndarray:
    """The n - 1 other users: a row of probabilities on 0..4 per user."""
    return np.random.default_rng(SEED).dirichlet(np.ones(5), size=n - 1)


CPU: dict[str, float] = {}   # process CPU seconds of the best run of each stage (threads included)


def best_of(repeats: int, fn, name: str | None = None):
    best, value = math.inf, None
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        value = fn()
        wall = time.perf_counter() - start
        if wall < best:
            best = wall
            if name:
                CPU[name] = time.process_time() - cpu
    return best, value


def _status(key: str) -> float:
    """VmRSS / VmHWM of this process in MB (Linux), nan elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return math.nan


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")   # resets VmHWM to the current RSS (Linux >= 4.0)
        return True
    except OSError:
        return False


# ----------------------------------------------------------------------------- one size (in a child process)
def engine(rows: np.ndarray, repeats: int) -> dict:
    from pufferfish.audit.laplace_lattice import lattice_privacy_loss, theta_min
    from pufferfish.lattice.pmf import LatticePMF
    from pufferfish.lattice.sums import sum_of_users
    from pufferfish.lattice.transport import plan_span
    p4, q4 = p4q4()
    out = {}
    out["sum"], rest = best_of(repeats, lambda: sum_of_users(rows), "sum")
    out["priors"], (p, q) = best_of(repeats, lambda: (sum_of_users([rest, p4]), sum_of_users([rest, q4])), "priors")
    out["span"], span = best_of(repeats, lambda: plan_span(p, q), "span")
    thetas = max(span, 1) / EPS
    out["audit"], losses = best_of(repeats, lambda: [lattice_privacy_loss(p, q, t).epsilon for t in thetas], "audit")

    def tight():   # fresh pmf objects: no audit history shared between repeats
        pp, qq = LatticePMF(p.lo, p.probs), LatticePMF(q.lo, q.probs)
        return [theta_min(pp, qq, float(e)) for e in EPS]
    out["tight"], results = best_of(repeats, tight, "tight")
    out["task"] = out["sum"] + out["priors"] + out["span"] + out["audit"] + out["tight"]
    return dict(out, rest=rest, p=p, q=q, span_value=int(span), losses=losses, results=results)


def accuracy(rows: np.ndarray, eng: dict) -> dict:
    """The sum against the users' exact cumulants; the tail bound; theta_min against the MGF limit."""
    from pufferfish.audit.laplace_lattice import mgf_tail_loss
    from pufferfish.lattice.sums import tail_mass_bound
    p4, q4 = p4q4()
    rest = eng["rest"]
    j = np.arange(rows.shape[1], dtype=float)
    mean = math.fsum(rows @ j)
    var = math.fsum(rows @ (j * j) - (rows @ j) ** 2)
    x = rest.values.astype(float)
    mass = math.fsum(rest.probs)
    got_mean = math.fsum(rest.probs * x) / mass
    got_var = math.fsum(rest.probs * (x - got_mean) ** 2) / mass
    tail = [max(abs(v) for v in mgf_tail_loss(p4, q4, r.theta)) for r in eng["results"]]
    return {
        # against the rows' own masses: 1 + sum_k (sum_j rows[k, j] - 1) to first order, summed exactly
        "mass_err": mass - 1.0 - math.fsum(itertools.chain(rows.ravel().tolist(), itertools.repeat(-1.0, len(rows)))),
        "mean_rel": abs(got_mean - mean) / mean, "var_rel": abs(got_var - var) / var,
        "tail_bound": tail_mass_bound(rows, rest.lo, rest.hi),
        "tight_vs_mgf": max(abs(t - r.loss) / r.loss for t, r in zip(tail, eng["results"])),
        "theta_first": eng["results"][0].theta, "theta_last": eng["results"][-1].theta,
        "steps": [r.steps for r in eng["results"]],
    }


def dense_audit(a: np.ndarray, b: np.ndarray, xs: np.ndarray, theta: float) -> float:
    lo, hi = xs[0] - 3, xs[-1] + 3
    y = lo + np.arange((hi - lo) * PER_UNIT + 1) / PER_UNIT
    rows = max(1, int(BLOCK_BYTES // (8 * xs.size)))
    worst = 0.0
    for start in range(0, y.size, rows):
        kernel = np.exp(-np.abs(y[start:start + rows, None] - xs[None, :]) / theta)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.log(kernel @ a) - np.log(kernel @ b)
        worst = max(worst, float(np.max(np.abs(ratio))))
    return worst


def baseline(rows: np.ndarray, est: dict) -> dict:
    import ot
    p4, q4 = p4q4()
    out = {"skipped": []}
    if est["priors"] > LIMIT:
        out["skipped"].append(f"priors (np.convolve fold, estimated {est['priors']:.0f} s)" if math.isfinite(est["priors"])
                              else "priors (np.convolve fold: no smaller size run to estimate it from)")
        return out
    start = time.perf_counter()
    rest = functools.reduce(np.convolve, rows)                         # every user starts at 0
    lo, hi = min(p4.lo, q4.lo), max(p4.hi, q4.hi)
    pa, pb = np.convolve(rest, p4.pmf_on(lo, hi)), np.convolve(rest, q4.pmf_on(lo, hi))
    nz = np.flatnonzero((pa > 0) | (pb > 0))
    a, b = pa[nz[0]:nz[-1] + 1], pb[nz[0]:nz[-1] + 1]
    xs = np.arange(a.size, dtype=float)
    out["priors"] = time.perf_counter() - start
    start = time.perf_counter()
    plan = ot.emd_1d(xs, xs, a / a.sum(), b / b.sum(), metric="cityblock", dense=False).tocoo()
    gap = np.abs(plan.row - plan.col)
    out["span_naive"] = int(np.max(gap[plan.data > 0]))
    out["span_value"] = int(np.max(gap[plan.data > 1e-12]))
    out["plan"] = time.perf_counter() - start
    out["support"] = a.size
    if est["audit"] > LIMIT:
        out["skipped"].append(f"audit (dense grid, estimated {est['audit']:.0f} s)")
        return out
    start = time.perf_counter()
    out["losses"] = [dense_audit(a, b, xs, max(out["span_value"], 1) / e) for e in EPS]
    out["audit"] = time.perf_counter() - start
    out["task"] = out["priors"] + out["plan"] + out["audit"]
    # like for like: the exact audit of the baseline's own priors
    from pufferfish.audit.laplace_lattice import lattice_privacy_loss
    from pufferfish.lattice.pmf import LatticePMF
    ours = np.array([lattice_privacy_loss(LatticePMF(0, a), LatticePMF(0, b), max(out["span_value"], 1) / e).epsilon
                     for e in EPS])
    dense = np.array(out["losses"])
    finite = np.isfinite(dense)
    out["dense_vs_exact"] = float(np.max(np.abs(dense - ours)[finite] / ours[finite])) if finite.any() else math.nan
    out["dense_inf"] = int((~finite).sum())
    return out


def quad_delta(p, q, sigma: float, eps: float, per_sigma: int = QUAD_PER_SIGMA) -> float:
    """Hockey-stick divergence of Y = X + N(0, sigma^2) by dense quadrature, as a researcher would write it.

    The mixture densities f_P(y) = sum_x P(x) phi_sigma(y - x) and f_Q on a uniform grid of
    step sigma / ``per_sigma`` over the atoms +- 12 sigma (kernel matrices over the atoms within
    12 sigma of each block of y, times the two mass vectors), then scipy.integrate.simpson of
    max(0, f_P - e^eps f_Q) and of max(0, f_Q - e^eps f_P); the larger of the two.
    """
    from scipy.integrate import simpson
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    x = np.arange(lo, hi + 1, dtype=float) - 0.5 * (lo + hi)
    ab = np.stack((p.pmf_on(lo, hi), q.pmf_on(lo, hi)), axis=1)
    h = sigma / per_sigma
    reach = QUAD_REACH * sigma
    y = x[0] - reach + h * np.arange(int(math.ceil((x[-1] - x[0] + 2 * reach) / h)) + 1)
    f = np.empty((y.size, 2))
    band = min(x.size, int(2 * reach) + 1)
    step = max(1, int(QUAD_ENTRIES // band))
    for k in range(0, y.size, step):
        yb = y[k:k + step]
        i, j = np.searchsorted(x, yb[0] - reach), np.searchsorted(x, yb[-1] + reach, side="right")
        f[k:k + step] = np.exp(-0.5 * ((yb[:, None] - x[None, i:j]) / sigma) ** 2) @ ab[i:j]
    f /= sigma * math.sqrt(2 * math.pi)
    c = math.exp(eps)
    return max(simpson(np.maximum(f[:, 0] - c * f[:, 1], 0.0), dx=h),
               simpson(np.maximum(f[:, 1] - c * f[:, 0], 0.0), dx=h))


def quad_tight(p, q, eps: float, delta: float, start: float) -> tuple[float, int]:
    """The smallest sigma with quad_delta <= delta: from ``start`` (the classical Gaussian mechanism's
    sigma, as the exact search), doubled until accepted, halved until rejected, then bisection on
    log sigma until hi / lo - 1 <= QUAD_RTOL. Returns (sigma, quadratures)."""
    calls = 0

    def ok(s: float) -> bool:
        nonlocal calls
        calls += 1
        return quad_delta(p, q, s, eps) <= delta
    hi = lo = start
    if ok(start):
        while True:
            lo = lo / 2
            if not ok(lo):
                break
            hi = lo
    else:
        while True:
            hi = hi * 2
            if ok(hi):
                break
            lo = hi
    while hi / lo - 1 > QUAD_RTOL:
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi, calls


def gaussian_epsilons(p, q, delta: float) -> tuple[np.ndarray, float, float]:
    """The 10 epsilons of the Gaussian section, from the pair: eps* = the largest epsilon at which
    the noise-free hockey-stick (max of both directions) is still G_FACTOR x delta (bisection; it
    decreases in epsilon), rounded down to 3 digits; the grid is log-spaced from eps* / G_RANGE
    to eps*. Also the epsilon above which no noise is needed at all. ((nan, nan) if even
    epsilon = 0 needs no noise.)"""
    from pufferfish.audit.zero_noise import zero_noise_hockey_stick

    def zero(e: float) -> float:
        return max(zero_noise_hockey_stick(p, q, epsilon=e))

    def crossing(level: float) -> float:
        lo, hi = 0.0, 1.0
        while zero(hi) > level:
            hi *= 2
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if zero(mid) > level else (lo, mid)
        return lo
    if zero(0.0) <= G_FACTOR * delta:
        return np.array([]), math.nan, math.nan
    top = crossing(G_FACTOR * delta)
    top = math.floor(top / 10 ** (math.floor(math.log10(top)) - 2)) * 10 ** (math.floor(math.log10(top)) - 2)
    return np.geomspace(top / G_RANGE, top, 10), top, crossing(delta)


def gaussian_section(p, absent, q4) -> dict:
    """Exact (epsilon, delta) audit of Gaussian noise and the tight sigma at 10^5 users, beside dense quadrature.

    The pair: user i draws from P4 (prior ``p`` = R + P4) vs is absent (``absent`` = R), R the
    sum of the other users; ``q4`` = R + Q4 only for the check that P4 vs Q4 needs no noise.
    """
    try:
        from pufferfish.audit.gaussian_lattice import GaussianLatticeAuditor
    except ImportError:
        return {"skipped": "pufferfish.audit.gaussian_lattice not available"}
    from pufferfish.audit import Target
    from pufferfish.audit.zero_noise import zero_noise_hockey_stick
    from pufferfish.lattice.distances import wasserstein_inf
    delta = G_DELTA
    out = {"delta": delta, "atoms": int(max(p.hi, absent.hi) - min(p.lo, absent.lo) + 1),
           "p4q4_tv": max(zero_noise_hockey_stick(p, q4, epsilon=0.0))}
    eps, top, free = gaussian_epsilons(p, absent, delta)
    if not eps.size:
        return dict(out, skipped=f"the pair needs no noise at delta = {delta:g} for any epsilon")
    out.update(epsilons=eps.tolist(), eps_top=top, eps_free=free,
               zero=[max(zero_noise_hockey_stick(p, absent, epsilon=float(e))) for e in eps])

    def tight():   # a fresh auditor: nothing cached between the epsilons but what one search would keep
        aud = GaussianLatticeAuditor(p, absent)
        return [aud.smallest_scale(Target(float(e), delta=delta)) for e in eps]
    out["t_tight"], smallest = best_of(1, tight, "g_tight")
    out.update(sigma=[s.scale for s in smallest], steps=[s.steps for s in smallest],
               value=[s.value for s in smallest], reason=[s.reason for s in smallest])
    # the tight sigmas, audited again by a new auditor
    check = GaussianLatticeAuditor(p, absent)
    out["check"] = [check.achieved(s.scale, Target(float(e), delta=delta)).value if s.scale > 0 else math.nan
                    for s, e in zip(smallest, eps)]
    # one audit at a sigma whose delta is delta: the tight sigma of the middle epsilon
    e0, s0 = float(eps[G_MIDDLE]), smallest[G_MIDDLE].scale
    t0 = Target(e0, delta=delta)
    out["t_one"], one = best_of(3, lambda: GaussianLatticeAuditor(p, absent).achieved(s0, t0), "g_one")
    out["t_quad"], quad = best_of(3, lambda: quad_delta(p, absent, s0, e0), "g_quad")
    # the same quadrature refined until it agrees with the exact value to about 1e-6 (h^2 convergence)
    out["t_quad_fine"], out["quad_fine_value"] = best_of(1, lambda: quad_delta(p, absent, s0, e0, QUAD_FINE), "g_fine")
    out.update(one_sigma=s0, one_epsilon=e0, exact_value=one.value, quad_value=quad,
               quad_points=int(math.ceil((out["atoms"] - 1 + 2 * QUAD_REACH * s0) / (s0 / QUAD_PER_SIGMA))) + 1)
    # the baseline's tight sigma: bisection on quadrature, run if its estimate is within LIMIT
    span = max(int(wasserstein_inf(p, absent)), 1)
    starts = [span * math.sqrt(2 * math.log(1.25 / delta)) / float(e) for e in eps]
    per_eps = 4 + math.ceil(math.log2(math.log(2) / math.log1p(QUAD_RTOL)))      # bracket + bisection
    out["tight_quad_estimate"] = out["t_quad"] * per_eps * len(eps)
    out["quad_per_eps_estimate"] = per_eps
    if out["tight_quad_estimate"] <= LIMIT:
        out["t_tight_quad"], runs = best_of(1, lambda: [quad_tight(p, absent, float(e), delta, s)
                                                       for e, s in zip(eps, starts)], "g_tight_quad")
        out["quad_sigma"] = [r[0] for r in runs]
        out["quad_calls"] = [r[1] for r in runs]
    out["cpu"] = {k[2:]: v for k, v in CPU.items() if k.startswith("g_")}
    return out


def one_pass(rows: np.ndarray) -> float:
    """The reference of the ratios: one pass of ``users @ arange(m)`` over the input, best of 11 (wall clock)."""
    j = np.arange(rows.shape[1], dtype=float)
    return best_of(11, lambda: rows @ j)[0]


def child(n: int, repeats: int, rates: dict | None, gaussian: bool) -> dict:
    from pufferfish.lattice.sums import sum_of_users
    sum_of_users(rows_of(300), method="tilted")             # warm up: imports (scipy.fft, threadpoolctl) are
    sum_of_users(rows_of(100_000))                          # not timed (the tree and the spectral source)
    rows = rows_of(n)
    rss_input = _status("VmRSS")
    reset = _reset_peak()
    eng = engine(rows, repeats)
    peak = _status("VmHWM") if reset else math.nan
    out = {key: eng[key] for key in ("sum", "priors", "span", "audit", "tight", "task", "span_value")}
    out["task_cpu"] = sum(CPU.values())
    out["one_pass"] = one_pass(rows)
    out.update(n=n, input_mb=rows.nbytes / 1e6, rss_input=rss_input, peak_beyond_input=peak - rss_input,
               resolved=max(eng["p"].hi, eng["q"].hi) - min(eng["p"].lo, eng["q"].lo) + 1,
               rest_resolved=int(eng["rest"].probs.size), accuracy=accuracy(rows, eng))
    if rates is not None:
        base = baseline(rows, estimate(n, out["resolved"], rates))
        out["baseline"] = {k: v for k, v in base.items() if k != "losses"}
    if gaussian:
        out["gaussian"] = gaussian_section(eng["p"], eng["rest"], eng["q"])
    return out


def profile(n: int, top: int) -> int:
    """``--profile N``: the task at N users once under cProfile; the functions with the most own time."""
    import cProfile
    import pstats
    from pufferfish.lattice.sums import sum_of_users
    sum_of_users(rows_of(300), method="tilted")
    sum_of_users(rows_of(100_000))
    rows = rows_of(n)
    print(f"machine: {machine()}")
    print(f"one pass of users @ arange(5) over the {n - 1} x 5 input: {one_pass(rows) * 1e3:.1f} ms")
    prof = cProfile.Profile()
    prof.enable()
    eng = engine(rows, 1)
    prof.disable()
    print("stages (s, under the profiler): " + ", ".join(f"{k} {eng[k]:.3f}" for k in
                                                        ("sum", "priors", "span", "audit", "tight", "task")))
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)
    return 0


def run_child(n: int, repeats: int, rates: dict | None, gaussian: bool) -> dict:
    cmd = [sys.executable, __file__, "--child", str(n), "--repeats", str(repeats), "--rates", json.dumps(rates),
           "--gaussian" if gaussian else "--no-gaussian"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"size {n}: the child process failed (exit {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- the figure
def figure(results: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = np.array([r["n"] for r in results], dtype=float)
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(9.0, 3.6))
    for key, label, style in (("task", "whole task (wall clock)", "o-"), ("task_cpu", "whole task (CPU time)", "^-"),
                              ("sum", "sum of the users (wall clock)", "s--")):
        ax_t.loglog(n, [r[key] for r in results], style, label=label)
    peak = np.array([r["peak_beyond_input"] for r in results])
    ax_m.loglog(n, peak, "o-", label="peak beyond the input")
    ax_m.loglog(n, [r["input_mb"] for r in results], "s--", label="the input (2-D array)")
    for ax, ref in ((ax_t, np.array([r["task"] for r in results])), (ax_m, peak)):
        k = int(np.argmax(n))
        ax.loglog(n, ref[k] * n / n[k], ":", color="grey", label="slope 1 (linear)")
        ax.set_xlabel("users")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    ax_t.set_ylabel("seconds")
    ax_m.set_ylabel("MB")
    ax_t.set_title("time (sum, priors, span, 10 audits, theta_min x10)", fontsize=9)
    ax_m.set_title("resident memory", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)



def print_gaussian(g: dict) -> None:
    """The lines of the Gaussian section (gaussian_section's dict)."""
    delta = g.get("delta", G_DELTA)
    if "p4q4_tv" not in g:
        print(f"gaussian noise at 10^5 users: skipped: {g['skipped']}")
        return
    cpu = g.get("cpu", {})

    def t(key: str, wall: float) -> str:
        return f"{wall:.3f} s" + (f" ({cpu[key]:.3f} s cpu)" if key in cpu else "")
    print(f"gaussian noise at 10^5 users, delta = {delta:g}: pair user i ~ P4 vs user i absent (paper 000, Fig. 3's "
          f"secret), priors R + P4 and R ({g['atoms']} atoms); times wall clock (process cpu)")
    print(f"  P4 vs Q4 needs no noise at this size: its noise-free hockey-stick at epsilon = 0 (the total variation "
          f"of its priors) is {g['p4q4_tv']:.3e} {'<=' if g['p4q4_tv'] <= delta else '>'} delta")
    if "skipped" in g:
        print(f"  skipped: {g['skipped']}")
        return
    eps = g["epsilons"]
    print(f"  epsilons: 10 log-spaced, {eps[0]:.5g} .. {eps[-1]:.5g} (the noise-free delta of the pair is "
          f"{G_FACTOR:g} x delta at {g['eps_top']:.5g}, delta at {g['eps_free']:.5g}: no noise needed above)")
    e0, v0 = g["one_epsilon"], g["exact_value"]
    print(f"  one audit at sigma = {g['one_sigma']:.10g}, epsilon = {e0:.5g} (its tight sigma): exact {t('one', g['t_one'])}, "
          f"delta {v0:.10e}; quadrature (Simpson, step sigma/{QUAD_PER_SIGMA}, {g['quad_points']} points) "
          f"{t('quad', g['t_quad'])}, delta {g['quad_value']:.10e} (rel. diff {(g['quad_value'] - v0) / v0:+.1e}): "
          f"time ratio quadrature/exact {g['t_quad'] / g['t_one']:.2f}")
    print(f"    the quadrature at step sigma/{QUAD_FINE}: {t('fine', g['t_quad_fine'])}, delta "
          f"{g['quad_fine_value']:.10e} (rel. diff {(g['quad_fine_value'] - v0) / v0:+.1e}): time ratio "
          f"{g['t_quad_fine'] / g['t_one']:.1f}")
    if "t_tight_quad" in g:
        base = (f"bisection on quadrature (step sigma/{QUAD_PER_SIGMA}, to hi/lo - 1 <= {QUAD_RTOL:g}) "
                f"{t('tight_quad', g['t_tight_quad'])}, {min(g['quad_calls'])}-{max(g['quad_calls'])} quadratures "
                f"per epsilon: time ratio {g['t_tight_quad'] / g['t_tight']:.2f}")
    else:
        base = (f"bisection on quadrature ESTIMATED, not run (over {LIMIT:.0f} s): {g['tight_quad_estimate']:.0f} s "
                f"= {g['quad_per_eps_estimate']} quadratures per epsilon x {g['t_quad']:.3f} s: time ratio "
                f"{g['tight_quad_estimate'] / g['t_tight']:.2f} (estimated)")
    print(f"  tight sigma for 10 epsilons: exact {t('tight', g['t_tight'])}, {min(g['steps'])}-{max(g['steps'])} "
          f"exact audits per epsilon (to hi/lo - 1 <= 1e-10); {base}")
    print(f"    {'epsilon':>8}  {'noise-free delta':>18}  {'tight sigma (exact)':>19}  {'exact audit there':>26}  "
          f"{'bisection (quadrature)':>22}  {'rel. diff':>9}")
    needs = meets = 0
    for k, e in enumerate(eps):
        z, s, v = g["zero"][k], g["sigma"][k], g["check"][k]
        needs += bool(z > delta and s > 0)
        meets += bool(v <= delta)
        qs = g["quad_sigma"][k] if "quad_sigma" in g else math.nan
        print(f"    {e:8.5f}  {z:9.3e} {'> delta' if z > delta else '<= delta':>8}  {s:19.10g}  "
              f"{v:16.10e} {'<= delta' if v <= delta else '> delta':>9}  {qs:22.10g}  {(qs - s) / s:+9.1e}")
    print(f"  checks: noise needed (noise-free delta > delta and tight sigma > 0) at {needs} of {len(eps)} epsilons; "
          f"exact audit (a new auditor) at the tight sigma <= delta at {meets} of {len(eps)}")


# ----------------------------------------------------------------------------- main
def estimate(n: int, support: int, rates: dict) -> dict:
    """Baseline time estimates from the rates measured at smaller n (fold ~ n^2, audit ~ support^2);
    ``support`` is the engine's resolved support (the baseline's own priors are about as long)."""
    if not rates:    # nothing measured yet: only the smallest sizes run without an estimate
        return {"priors": 0.0, "audit": 0.0} if n <= 10 ** 4 else {"priors": math.inf, "audit": math.inf}
    return {"priors": rates["priors"] * n * n, "audit": rates["audit"] * support * support}


def list_ratio(n: int, repeats: int) -> int:
    """``--list-ratio N``: sum_of_users on N - 1 users given as LatticePMF objects against the same users as one
    2-D array, best of ``repeats`` each, alternated, in one process; prints both times and their ratio
    (issue 24: at most 2) and whether the two laws are identical. Building the objects is not timed."""
    from pufferfish.lattice.pmf import LatticePMF
    from pufferfish.lattice.sums import sum_of_users
    rows = rows_of(n)
    start = time.perf_counter()
    users = [LatticePMF(0, row) for row in rows]
    built = time.perf_counter() - start
    best = {"array": math.inf, "list": math.inf}
    laws = {}
    for _ in range(repeats):
        for name, arg in (("array", rows), ("list", users)):
            start = time.perf_counter()
            laws[name] = sum_of_users(arg)
            best[name] = min(best[name], time.perf_counter() - start)
    a, b = laws["array"], laws["list"]
    same = a.lo == b.lo and np.array_equal(a.probs, b.probs)
    ratio = best["list"] / best["array"]
    print(f"machine: {machine()}")
    print(f"sum_of_users, {n - 1} users on 0..4 (seeded Dirichlet), best of {repeats}: array {best['array']:.3f} s, "
          f"list of LatticePMF {best['list']:.3f} s (building the {n - 1} objects: {built:.1f} s, not timed)")
    print(f"list_over_array_ratio: {ratio:.2f} (<= 2: {'met' if ratio <= 2 else 'NOT met'}); "
          f"laws identical: {same}")
    return 0 if same else 1


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--huge", action="store_true", help="also 10^7 users")
    parser.add_argument("--sizes", type=float, nargs="*", help="numbers of users (default 1e3 1e4 1e5 1e6)")
    parser.add_argument("--repeats", type=int, default=3, help="engine times are the best of this many runs")
    parser.add_argument("--figure", type=Path, help="draw the scaling figure to this PNG (none by default; "
                                                    "benchmarks/scaling.png is the one the documentation shows)")
    parser.add_argument("--json", type=Path, help="also write the measurements of every size to this JSON file")
    parser.add_argument("--replot", type=Path, help="only redraw the figure from a --json file (needs --figure)")
    parser.add_argument("--list-ratio", type=float, metavar="N",
                        help="only time sum_of_users on N - 1 users as a list of LatticePMF against the 2-D array")
    parser.add_argument("--profile", type=float, metavar="N", help="only profile the task at N users (cProfile)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--rates", default="null", help=argparse.SUPPRESS)
    parser.add_argument("--gaussian", action=argparse.BooleanOptionalAction, default=False, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


HEAD = (f"{'users':>8} {'resolved':>8} | {'sum':>7} {'priors':>7} {'span':>7} {'audit':>7} {'tight':>7} "
        f"{'task':>7} {'cpu':>7} | {'pass ms':>7} {'t/pass':>6} | {'peak MB':>8} {'input MB':>8} | {'ns/pt':>7} | "
        f"{'b.task':>7} {'ratio':>7}")


def table_line(res: dict) -> str:
    """One size's line of the table (times in s; t/pass = task / one pass of users @ arange(5))."""
    base = res.get("baseline", {})
    ratio = base["task"] / (res["task"] - res["tight"]) if "task" in base else math.nan
    b_task = f"{base['task']:7.2f}" if "task" in base else f"{'skip':>7}"
    return (f"{res['n']:>8} {res['resolved']:>8} | {res['sum']:7.3f} {res['priors']:7.4f} {res['span']:7.4f} "
            f"{res['audit']:7.4f} {res['tight']:7.3f} {res['task']:7.3f} {res['task_cpu']:7.3f} | "
            f"{res['one_pass'] * 1e3:7.2f} {res['task'] / res['one_pass']:6.0f} | {res['peak_beyond_input']:8.0f} "
            f"{res['input_mb']:8.0f} | {res['task'] / res['resolved'] * 1e9:7.0f} | {b_task} {ratio:7.1f}")


def run_sizes(args: argparse.Namespace) -> list[dict]:
    """Every size in its own process; the table line of each as it ends."""
    sizes = [int(s) for s in (args.sizes or [1e3, 1e4, 1e5, 1e6])] + ([10 ** 7] if args.huge else [])
    print(f"machine: {machine()}")
    print(f"task: n users on 0..4 (seeded Dirichlet, a 2-D array), pair P4 vs Q4 (paper 000, Table 3), "
          f"epsilons {EPS[0]}..{EPS[-1]} (10); each size in its own process")
    print(f"engine times: best of {args.repeats} (s, wall clock), 1 for 10^7; task = all five stages, cpu = its process "
          f"CPU time (the wall clock of a shared machine counts the others' load); pass ms = one pass of "
          f"users @ arange(5) in the same process (best of 11), t/pass = task / pass; peak MB = beyond the input")
    print(HEAD)
    print("-" * len(HEAD))
    rates, results = {}, []
    for n in sizes:
        res = run_child(n, 1 if n >= 10 ** 7 else args.repeats, rates if n <= 10 ** 5 else None,
                        gaussian=(n == 10 ** 5))
        results.append(res)
        print(table_line(res), flush=True)
        base = res.get("baseline", {})
        if "priors" in base:
            rates["priors"] = base["priors"] / (n * n)
        if "audit" in base:
            rates["audit"] = base["audit"] / base["support"] ** 2
    return results


def print_accuracy(results: list[dict]) -> None:
    print()
    print("accuracy (sum against the users' exact cumulants; mass against the product of the rows' own masses, "
          "summed exactly):")
    for res in results:
        acc, base = res["accuracy"], res.get("baseline", {})
        line = (f"  n={res['n']}: rest resolved on {res['rest_resolved']} points; mass error {acc['mass_err']:.1e}, "
                f"mean {acc['mean_rel']:.1e}, variance {acc['var_rel']:.1e} (relative); mass outside the resolved hull "
                f"<= {acc['tail_bound']:.1e} (Chernoff); span {res['span_value']}; theta_min "
                f"{acc['theta_first']:.9g} .. {acc['theta_last']:.9g} in {min(acc['steps'])}-{max(acc['steps'])} audits, "
                f"its loss vs the MGF tail limit {acc['tight_vs_mgf']:.1e}")
        if "dense_vs_exact" in base:
            line += (f"; baseline span {base['span_value']} ({base['span_naive']} over all non-zero plan entries), "
                     f"dense grid vs exact audit on its priors {base['dense_vs_exact']:.1e}"
                     + (f" ({base['dense_inf']} dense audits inf)" if base["dense_inf"] else ""))
        for s in base.get("skipped", []):
            line += f"; baseline {s} skipped" + (f": over {LIMIT:.0f} s" if "estimated" in s else "")
        print(line)


def print_targets(results: list[dict]) -> None:
    """The issue targets: task / one pass and memory beyond the input at 10^6 and 10^7 users; the old last lines."""
    by_n = {r["n"]: r for r in results}
    for n, (ratio_target, mb_target) in ((10 ** 6, (None, 500)), (10 ** 7, (100, 1000))):
        if n not in by_n:
            continue
        r = by_n[n]
        ratio = r["task"] / r["one_pass"]
        verdict = f" (<= {ratio_target}: {'met' if ratio <= ratio_target else 'NOT met'})" if ratio_target else ""
        print(f"at {n} users: task {r['task']:.3f} s = {ratio:.0f} x one pass of users @ arange(5) "
              f"({r['one_pass'] * 1e3:.1f} ms, same process){verdict}; sum {r['sum'] / r['one_pass']:.0f} x; "
              f"peak {r['peak_beyond_input']:.0f} MB beyond the input (<= {mb_target} MB: "
              f"{'met' if r['peak_beyond_input'] <= mb_target else 'NOT met'})")
        print(f"task_over_pass_at_{n}_users: {ratio:.1f}")
        print(f"peak_mb_beyond_input_at_{n}_users: {r['peak_beyond_input']:.0f}")
    if 10 ** 6 in by_n:
        print(f"task_at_1000000_users: {by_n[10 ** 6]['task']:.3f}")
    if 10 ** 4 in by_n and "task" in by_n[10 ** 4].get("baseline", {}):
        r = by_n[10 ** 4]
        print(f"speedup_at_10000_users: {r['baseline']['task'] / (r['task'] - r['tight']):.1f}")


def main() -> int:
    args = parse()
    if args.child:
        print(json.dumps(child(args.child, args.repeats, json.loads(args.rates), args.gaussian)))
        return 0
    if args.list_ratio:
        return list_ratio(int(args.list_ratio), args.repeats)
    if args.profile:
        return profile(int(args.profile), 25)
    if args.replot:
        if not args.figure:
            raise SystemExit("--replot needs --figure PATH (the PNG to draw)")
        figure(json.loads(args.replot.read_text()), args.figure)
        print(f"scaling figure: {args.figure}")
        return 0
    results = run_sizes(args)
    print_accuracy(results)
    gauss = next((r["gaussian"] for r in results if "gaussian" in r), None)
    if gauss is not None:
        print()
        print_gaussian(gauss)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if args.figure and len(results) > 1:
        figure(results, args.figure)
        print(f"\nscaling figure: {args.figure}")
    print_targets(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())

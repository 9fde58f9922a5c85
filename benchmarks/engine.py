"""Benchmark of the large-system engine against the baseline a researcher would write.

Not a test (no assertion on time): run it, read it. For 10^2, 10^3, 10^4 and 10^5 users
(n - 1 other users drawn from a seeded Dirichlet on the alphabet 0..4, user i drawing from
P4 or Q4 of paper 000, Table 3; epsilons 0.1, 0.2, ..., 1.0) it times, in the same run:

engine (this package)
    sum      the law of the n - 1 other users (sum_of_users: batched direct levels, tilted FFT)
    priors   both query priors R + P4, R + Q4 (direct convolution with the 5-point user)
    span     sup Delta* (the span of pi*, Lemma 7, linear-time merge)
    audit    the exact lattice audit L(theta) at the 10 Kantorovich scales span/epsilon
    tight    theta_min for the 10 epsilons (bracketing + bisection on the exact audit)

baseline (plain numpy / POT)
    priors   functools.reduce(np.convolve, ...) over all users (exact, O(n^2))
    plan     ot.emd_1d on the two priors (zeros trimmed), span = max |x - x'| over its entries
             above 1e-12 (over all non-zero entries, round-off makes it far larger: printed too)
    audit    the loss sup over a dense y grid (2 points per lattice step, hull +- 3, lattice
             points included, so its sup is exact too): exp(-|y - x| / theta) in blocks of
             y, a BLAS product with both priors, at the same 10 scales

The compared task is "priors + span + the 10 audits" (the baseline cannot afford theta_min:
bisection needs about 40 dense audits per epsilon; its estimated time is printed). A
baseline stage whose estimated time exceeds a minute is skipped and the line says so.
Columns: ``hull`` the pair's mathematical hull (4(n-1)+5 points), ``resolved`` the part the
priors store (masses >= 1e-300); ``ns/pt sum`` the engine's sum per point of the hull of
the n-1 users, ``ns/pt rest`` its span + audits + theta_min per resolved point; both are
flat when the engine is linear. Last line: ``speedup_at_10000_users: <ratio>``.

Run: ``.venv/bin/python benchmarks/engine.py`` (about 2 minutes; ``--quick`` stops at 10^4).
"""

from __future__ import annotations

import argparse
import functools
import math
import platform
import subprocess
import sys
import time

import numpy as np
import ot

from pufferfish.audit.laplace import lattice_privacy_loss, mgf_tail_loss, theta_min
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.sums import sum_of_users
from pufferfish.lattice.transport import plan_span

EPS = np.round(np.arange(1, 11) / 10, 10)
P4 = LatticePMF.from_values(range(1, 6), [0.4, 0.1, 0.0, 0.1, 0.4], name="P4")
Q4 = LatticePMF.from_values(range(1, 6), [0.0, 0.05, 0.9, 0.05, 0.0], name="Q4")
MINUTE = 60.0
PER_UNIT = 2          # dense grid: y points per lattice step
BLOCK_BYTES = 64e6    # the dense grid is evaluated in blocks of y of at most this many bytes


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
        cpu = f"{fields.get('Model name', '?').strip()}, {fields.get('CPU(s)', '?').strip()} CPU(s)"
    except (OSError, subprocess.CalledProcessError):
        cpu = platform.processor() or "?"
    return f"{cpu}; Python {platform.python_version()}; numpy {np.__version__}; POT {ot.__version__}"


def users_of(n: int) -> list[LatticePMF]:
    rng = np.random.default_rng(20240507)
    return [LatticePMF(0, w) for w in rng.dirichlet(np.ones(5), size=n - 1)]


def best_of(repeats: int, fn):
    best, value = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


# ----------------------------------------------------------------------------- the engine
def engine(users: list[LatticePMF], repeats: int) -> dict:
    out = {}
    out["sum"], rest = best_of(repeats, lambda: sum_of_users(users))
    out["priors"], (p, q) = best_of(repeats, lambda: (sum_of_users([rest, P4]), sum_of_users([rest, Q4])))
    out["span"], span = best_of(repeats, lambda: plan_span(p, q))
    thetas = max(span, 1) / EPS
    out["audit"], losses = best_of(repeats, lambda: [lattice_privacy_loss(p, q, t).epsilon for t in thetas])

    def tight():   # fresh pmf objects: no audit history shared between repeats
        pp, qq = LatticePMF(p.lo, p.probs), LatticePMF(q.lo, q.probs)
        return [theta_min(pp, qq, float(e)) for e in EPS]
    out["tight"], results = best_of(repeats, tight)
    out.update(p=p, q=q, span_value=span, losses=np.array(losses), results=results,
               resolved=max(p.hi, q.hi) - min(p.lo, q.lo) + 1)
    out["task"] = out["sum"] + out["priors"] + out["span"] + out["audit"]
    out["issue"] = out["task"] + out["tight"]
    return out


# ----------------------------------------------------------------------------- the baseline
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


def baseline(users: list[LatticePMF], est: dict) -> dict:
    out = {"skipped": []}
    arrays = [u.probs for u in users]
    if est["priors"] > MINUTE:
        out["skipped"].append(f"priors (np.convolve fold, estimated {est['priors']:.0f} s)")
        return out
    start = time.perf_counter()
    rest = functools.reduce(np.convolve, arrays)                      # every user starts at 0
    lo, hi = min(P4.lo, Q4.lo), max(P4.hi, Q4.hi)
    pa = np.convolve(rest, P4.pmf_on(lo, hi))                          # both priors on one grid
    pb = np.convolve(rest, Q4.pmf_on(lo, hi))
    nz = np.flatnonzero((pa > 0) | (pb > 0))
    a, b = pa[nz[0]:nz[-1] + 1], pb[nz[0]:nz[-1] + 1]
    xs = np.arange(a.size, dtype=float)
    out["priors"] = time.perf_counter() - start
    out["pmfs"] = (LatticePMF(0, a), LatticePMF(0, b))
    start = time.perf_counter()
    plan = ot.emd_1d(xs, xs, a / a.sum(), b / b.sum(), metric="cityblock", dense=False)
    plan = plan.tocoo()
    gap = np.abs(plan.row - plan.col)
    out["span_naive"] = int(np.max(gap[plan.data > 0]))      # round-off entries included
    out["span_value"] = int(np.max(gap[plan.data > 1e-12]))  # entries above 1e-12, as pi* in float64
    out["plan"] = time.perf_counter() - start
    out["support"] = a.size
    if est["audit"] > MINUTE:
        out["skipped"].append(f"audit (dense grid, estimated {est['audit']:.0f} s)")
        return out
    start = time.perf_counter()
    out["losses"] = np.array([dense_audit(a, b, xs, max(out["span_value"], 1) / e) for e in EPS])
    out["audit"] = time.perf_counter() - start
    out["task"] = out["priors"] + out["plan"] + out["audit"]
    return out


def estimate(n: int, support: int, rates: dict) -> dict:
    """Baseline time estimates from the rates measured at smaller n (fold ~ n^2, audit ~ support^2)."""
    if not rates:
        return {"priors": 0.0, "audit": 0.0, "tight": 0.0}
    return {"priors": rates["priors"] * n * n, "audit": rates["audit"] * support * support,
            "tight": rates["audit"] * support * support * 4 * len(EPS)}


# ----------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="stop at 10^4 users")
    args = parser.parse_args()
    sizes = [100, 1000, 10_000] + ([] if args.quick else [100_000])
    print(f"machine: {machine()}")
    print(f"task: n users on 0..4 (seeded Dirichlet), pair P4 vs Q4 (paper 000, Table 3), epsilons {EPS[0]}..{EPS[-1]} (10)")
    head = (f"{'users':>7} {'hull':>7} {'resolved':>8} | {'sum':>7} {'priors':>7} {'span':>7} {'audit':>7} "
            f"{'tight':>7} {'task':>7} {'issue':>7} | {'b.prior':>7} {'b.plan':>7} {'b.audit':>7} {'b.task':>7} | "
            f"{'ratio':>7} | {'ns/pt sum':>9} {'ns/pt rest':>10}")
    print("engine times are best of 3 (s); task = sum + priors + span + 10 audits; issue = task + theta_min x10")
    print(head)
    print("-" * len(head))
    rates, notes, ratios, issue = {}, [], {}, {}
    for n in sizes:
        users = users_of(n)
        eng = engine(users, repeats=3)
        est = estimate(n, eng["resolved"], rates)
        base = baseline(users, est)
        hull = 4 * (n - 1) + 5                # the pair's hull: R on 0..4(n-1), plus a user on 1..5
        ratio = base["task"] / eng["task"] if "task" in base else math.nan
        ratios[n] = ratio
        issue[n] = eng["issue"]
        per_hull = eng["sum"] / (4 * (n - 1) + 1) * 1e9
        per_point = (eng["span"] + eng["audit"] + eng["tight"]) / eng["resolved"] * 1e9

        def cell(key):
            return f"{base[key]:7.3f}" if key in base else f"{'skip':>7}"
        print(f"{n:>7} {hull:>7} {eng['resolved']:>8} | {eng['sum']:7.3f} {eng['priors']:7.4f} {eng['span']:7.4f} "
              f"{eng['audit']:7.4f} {eng['tight']:7.3f} {eng['task']:7.3f} {eng['issue']:7.3f} | "
              f"{cell('priors')} {cell('plan')} {cell('audit')} {cell('task')} | "
              f"{ratio:7.1f} | {per_hull:9.0f} {per_point:10.0f}")
        # calibrate the estimates for the next size
        if "priors" in base:
            rates["priors"] = base["priors"] / (n * n)
        if "audit" in base:
            rates["audit"] = base["audit"] / (base["support"] ** 2)
        steps = [r.steps for r in eng["results"]]
        tail = [max(abs(v) for v in mgf_tail_loss(P4, Q4, r.theta)) for r in eng["results"]]
        base_span = (f"{base['span_value']}, {base['span_naive']} over all non-zero entries"
                     if "span_value" in base else "skipped")
        note = (f"  n={n}: span {eng['span_value']} (baseline emd_1d: {base_span}); "
                f"theta_min {eng['results'][0].theta:.9g} .. {eng['results'][-1].theta:.9g}; "
                f"audit steps/epsilon {min(steps)}-{max(steps)}; "
                f"L(theta_min) vs MGF tail limit max rel diff {max(abs(t - r.loss) / r.loss for t, r in zip(tail, eng['results'])):.1e}")
        if "losses" in base:
            # like for like: the exact audit of the baseline's own priors (np.convolve keeps
            # subnormal masses at the hull ends, which the engine's priors resolve to 0)
            pa, pb = base["pmfs"]
            ours = np.array([lattice_privacy_loss(pa, pb, max(base["span_value"], 1) / e).epsilon for e in EPS])
            finite = np.isfinite(base["losses"])
            rel = np.abs(base["losses"] - ours)[finite] / ours[finite]
            note += f"; on the baseline's priors, exact audit vs dense grid max rel diff {np.max(rel):.1e}"
            if not finite.all():
                note += (f" ({(~finite).sum()} of {finite.size} dense audits are inf: the linear-space densities "
                         "underflow to 0 at the hull ends)")
        for s in base["skipped"]:
            note += f"; baseline {s} skipped: over a minute"
        tight_est = rates.get("audit", math.nan) * eng["resolved"] ** 2 * 4 * len(EPS)
        note += f"; baseline theta_min (~40 dense audits/epsilon) not run, estimated {tight_est:.0f} s"
        notes.append(note)
    print()
    for note in notes:
        print(note)
    if 100_000 in issue:
        verdict = "met" if issue[100_000] <= 2.0 else "NOT met"
        print(f"issue target at 10^5 users (sum, both priors, sup Delta*, 10 exact audits, theta_min x10 <= 2 s): "
              f"{issue[100_000]:.3f} s, {verdict}")
    print(f"speedup_at_10000_users: {ratios[10_000]:.1f}")


if __name__ == "__main__":
    sys.exit(main())

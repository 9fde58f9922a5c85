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

The Gaussian section (10^5 users, Gaussian noise beside a quadrature baseline): benchmarks/engine_gaussian.py.

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
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench_measure import CPU, LIMIT, reset_memory_peak, memory_status, best_of, machine
from engine_gaussian import gaussian_section, print_gaussian

EPS = np.round(np.arange(1, 11) / 10, 10)
PER_UNIT = 2          # dense grid: y points per lattice step
BLOCK_BYTES = 64e6    # the dense grid is evaluated in blocks of y of at most this many bytes
SEED = 20240507
HERE = Path(__file__).resolve().parent


def p4q4():
    from pufferfish.lattice.pmf import LatticePMF
    return (LatticePMF.from_values(range(1, 6), [0.4, 0.1, 0.0, 0.1, 0.4], name="P4"),
            LatticePMF.from_values(range(1, 6), [0.0, 0.05, 0.9, 0.05, 0.0], name="Q4"))


def rows_of(n: int) -> np.ndarray:
    """The n - 1 other users: a row of probabilities on 0..4 per user."""
    return np.random.default_rng(SEED).dirichlet(np.ones(5), size=n - 1)




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


def one_pass(rows: np.ndarray) -> float:
    """The reference of the ratios: one pass of ``users @ arange(m)`` over the input, best of 11 (wall clock)."""
    j = np.arange(rows.shape[1], dtype=float)
    return best_of(11, lambda: rows @ j)[0]


def child(n: int, repeats: int, rates: dict | None, gaussian: bool) -> dict:
    from pufferfish.lattice.sums import sum_of_users
    sum_of_users(rows_of(300), method="tilted")             # warm up: imports (scipy.fft, threadpoolctl) are
    sum_of_users(rows_of(100_000))                          # not timed (the tree and the spectral source)
    rows = rows_of(n)
    rss_input = memory_status("VmRSS")
    reset = reset_memory_peak()
    eng = engine(rows, repeats)
    peak = memory_status("VmHWM") if reset else math.nan
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

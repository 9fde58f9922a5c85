"""The ``pufferfish`` command on small CSVs written here: closed forms, the pipeline's own rows, bad input.

The oracles are independent of the code under test:

* pure-epsilon Laplace on two-point priors (a released 0/1 value): the output density ratio
  f_P(y) / f_Q(y) = ((1-p) + p t) / ((1-q) + q t), t = L_b(y-1) / L_b(y), is monotone in t
  and t ranges over [r, 1/r], r = exp(-1/b); so the privacy loss is
  max(log g(1/r), -log g(r)) and the tight scale solves a linear equation in r
  (:func:`tight_two_point`, derived in its docstring);
* GWM (paper 002, Cor. 3.1): W_inf / epsilon, with W_inf = 1 between two different Bernoullis;
* hockey-stick and Renyi divergences of the noisy outputs by numerical integration (scipy
  ``quad``) of the mixture densities;
* the pipeline: the comparison job's own function (:func:`pufferfish.comparison.experiments.write_pair`
  on the priors :func:`pufferfish.wasserstein.conditionals.write_conditional_priors` writes) on
  the records of paper 002's Table-1 pair table1/adult (race = Asian-Pac-Islander vs Other).
"""
from __future__ import annotations

import io
import itertools
import json
import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import pufferfish
from pufferfish import cli, command_line
from pufferfish.comparison import command as comparison_command
from pufferfish.iteration import command as iteration_command

SRC = Path(pufferfish.__file__).resolve().parents[1]
REPO = SRC.parent
EPS = [0.01, 0.1, 0.5, 1.0, 0.69, 0.7, 2.0]


# ------------------------------------------------------------------------------ helpers
def two_point_csv(path: Path, counts: dict[str, tuple[int, int]], *, released="x", secret="s") -> Path:
    """Records with ``secret`` = key and ``released`` 0 (first count) or 1 (second count)."""
    rows = [(value, s) for s, (zeros, ones) in counts.items() for value in [0] * zeros + [1] * ones]
    pd.DataFrame(rows, columns=[released, secret]).to_csv(path, index=False)
    return path


def run(argv, capsys) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def as_frame(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), dtype={"secret_i": str, "secret_j": str}, float_precision="round_trip")


def loss_two_point(p: float, q: float, b: float) -> float:
    """The pure-epsilon privacy loss of Laplace(b) on Bernoulli(p) vs Bernoulli(q) (module docstring)."""
    r = math.exp(-1.0 / b)

    def g(t):
        return ((1 - p) + p * t) / ((1 - q) + q * t)

    return max(abs(math.log(g(r))), abs(math.log(g(1.0 / r))))


def tight_two_point(p: float, q: float, eps: float) -> float:
    """The smallest Laplace b with loss_two_point(p, q, b) <= eps.

    With p > q (swap otherwise: the loss is symmetric), g increases in t, so the loss is
    max(log g(1/r), -log g(r)). log g(1/r) <= eps  <=>  p + (1-p) r <= e^eps (q + (1-q) r)
    <=> r >= (p - e^eps q) / (e^eps (1-q) - (1-p)) = r2; -log g(r) <= eps  <=>
    (1-q) + q r <= e^eps ((1-p) + p r)  <=>  r >= ((1-q) - e^eps (1-p)) / (e^eps p - q) = r1.
    The loss falls as r = exp(-1/b) grows, so b = -1 / log max(r1, r2), and b = 0 when
    max(r1, r2) <= 0 (the priors themselves meet eps).
    """
    if p < q:
        p, q = q, p
    e = math.exp(eps)
    r1 = ((1 - q) - e * (1 - p)) / (e * p - q)
    r2 = (p - e * q) / (e * (1 - q) - (1 - p))
    r = max(r1, r2)
    return 0.0 if r <= 0 else -1.0 / math.log(r)


def mixture(p: float, noise):
    """The density of X + N, X ~ Bernoulli(p), N with density ``noise``."""
    return lambda y: (1 - p) * noise(y) + p * noise(y - 1)


def quad(f, points=(0.0, 1.0)) -> float:
    lo, hi = -60.0, 61.0  # beyond, the integrands below are < 1e-20 for the scales used here
    parts = [lo, *points, hi]
    return sum(integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-12, limit=400)[0] for a, b in zip(parts, parts[1:]))


def hockey(p: float, q: float, noise, eps: float) -> float:
    """max over both directions of int [f_P - e^eps f_Q]_+ dy."""
    fp, fq = mixture(p, noise), mixture(q, noise)
    return max(quad(lambda y: max(fp(y) - math.exp(eps) * fq(y), 0.0)),
               quad(lambda y: max(fq(y) - math.exp(eps) * fp(y), 0.0)))


def renyi2(p: float, q: float, noise) -> float:
    """max over both directions of D_2 = log int f_P^2 / f_Q dy, the integrand in log space
    (``noise`` a frozen scipy distribution: its ``logpdf``)."""
    def log_mixture(prob):
        return lambda y: np.logaddexp(math.log1p(-prob) + noise.logpdf(y), math.log(prob) + noise.logpdf(y - 1))

    lp, lq = log_mixture(p), log_mixture(q)

    def d(f, h):
        return math.log(sum(integrate.quad(lambda y: math.exp(2 * f(y) - h(y)), a, b, epsabs=1e-15, epsrel=1e-12,
                                           limit=400)[0] for a, b in ((-np.inf, 0.0), (0.0, 1.0), (1.0, np.inf))))

    return max(d(lp, lq), d(lq, lp))


# ------------------------------------------------------------------------------ closed forms
def test_the_closed_form_itself():
    # p = 1/2, q = 1/4, eps = 1/2: r2 = (1/2 - e^.5/4) / (3 e^.5/4 - 1/2), r1 < 0 (by hand: 0.11924, b = 0.47024)
    e = math.exp(0.5)
    assert tight_two_point(0.5, 0.25, 0.5) == pytest.approx(-1 / math.log((0.5 - e / 4) / (0.75 * e - 0.5)), rel=1e-15)
    assert tight_two_point(0.5, 0.25, 0.5) == pytest.approx(0.47024, abs=5e-5)
    # the priors meet eps >= log 2 (max |log p/q|, |log (1-p)/(1-q)| = log 2): no noise
    assert tight_two_point(0.5, 0.25, math.log(2) + 1e-9) == 0.0
    for eps in (0.01, 0.5, 0.69):
        b = tight_two_point(0.5, 0.25, eps)
        assert loss_two_point(0.5, 0.25, b) == pytest.approx(eps, rel=1e-12)


def test_calibrate_laplace_on_two_point_priors_matches_the_closed_forms(tmp_path, capsys):
    data = two_point_csv(tmp_path / "d.csv", {"a": (2, 2), "b": (3, 1)})  # p = 1/2, q = 1/4
    code, out, err = run(["calibrate", data, "--released", "x", "--secret", "s", "--epsilon", *EPS,
                          "--noise", "laplace", "--format", "csv"], capsys)
    assert code == 0 and err == ""
    frame = as_frame(out)
    assert list(frame.columns) == comparison_command.COLUMNS
    assert set(frame.noise) == {"laplace"} and frame.meets_target.all()
    assert (frame.secret_i == "a").all() and (frame.secret_j == "b").all()
    tight = frame[frame.method == "tight"]
    assert tight.epsilon.tolist() == EPS
    for eps, scale, achieved in zip(tight.epsilon, tight.scale, tight.achieved):
        want = tight_two_point(0.5, 0.25, eps)
        if want == 0:
            assert scale == 0 and achieved == pytest.approx(math.log(2), rel=1e-12)  # the priors' own loss
        else:
            assert scale == pytest.approx(want, rel=1e-9)
            assert achieved == pytest.approx(loss_two_point(0.5, 0.25, scale), rel=1e-9)
            assert achieved <= eps * (1 + 1e-9)
    gwm = frame[frame.method == "gwm_laplace"]
    np.testing.assert_allclose(gwm.scale, 1.0 / np.array(EPS), rtol=1e-15)   # W_inf = 1
    np.testing.assert_allclose(gwm.achieved, [loss_two_point(0.5, 0.25, b) for b in gwm.scale], rtol=1e-9)


def test_calibrate_every_pair_reports_the_binding_one(tmp_path, capsys):
    """Three secret values: each row is the pair needing the largest scale, audited over every pair."""
    probs = {"a": 0.5, "b": 0.25, "c": 0.1}
    data = two_point_csv(tmp_path / "d.csv", {"a": (10, 10), "b": (15, 5), "c": (18, 2)})
    eps = [0.1, 1.0]
    code, out, err = run(["calibrate", data, "--released", "x", "--secret", "s", "--epsilon", *eps,
                          "--noise", "laplace", "--format", "csv"], capsys)
    assert code == 0
    frame = as_frame(out)
    pairs = list(itertools.combinations(probs, 2))
    for row in frame[frame.method == "tight"].itertuples():
        want = {pair: tight_two_point(probs[pair[0]], probs[pair[1]], row.epsilon) for pair in pairs}
        binding = max(want, key=want.get)
        assert (row.secret_i, row.secret_j) == binding
        assert row.scale == pytest.approx(want[binding], rel=1e-9)
        worst = max(loss_two_point(probs[i], probs[j], row.scale) for i, j in pairs)
        assert row.achieved == pytest.approx(worst, rel=1e-9) and row.meets_target
    # GWM: W_inf = 1 for every pair, the same scale; the tie goes to the largest W_2 = sqrt|p - q|: a vs c
    gwm = frame[frame.method == "gwm_laplace"]
    assert set(zip(gwm.secret_i, gwm.secret_j)) == {("a", "c")}
    for row in gwm.itertuples():
        assert row.scale == pytest.approx(1 / row.epsilon, rel=1e-15)
        worst = max(loss_two_point(probs[i], probs[j], row.scale) for i, j in pairs)
        assert row.achieved == pytest.approx(worst, rel=1e-9)
    # the table names the binding pair in its header; one pair only with --pair
    code, out, _ = run(["calibrate", data, "--released", "x", "--secret", "s", "--epsilon", "1",
                        "--noise", "laplace"], capsys)
    assert code == 0 and out.splitlines()[0].startswith("binding pair of 3: s = a vs c")
    code, out, _ = run(["calibrate", data, "--released", "x", "--secret", "s", "--pair", "c", "b", "--epsilon", "1",
                        "--noise", "laplace", "--format", "json"], capsys)
    records = json.loads(out)
    assert {(r["secret_i"], r["secret_j"]) for r in records} == {("c", "b")}
    tight = [r for r in records if r["method"] == "tight"]
    assert tight[0]["scale"] == pytest.approx(tight_two_point(0.1, 0.25, 1.0), rel=1e-9)


def test_json_is_a_list_of_records_with_nulls(tmp_path, capsys):
    data = two_point_csv(tmp_path / "d.csv", {"a": (2, 2), "b": (3, 1)})
    code, out, _ = run(["calibrate", data, "--released", "x", "--secret", "s", "--epsilon", "0.5",
                        "--format", "json"], capsys)
    records = json.loads(out)
    # 5 Laplace, 3 Gaussian, 2 Cauchy, 3 geometric methods: every group of the comparison
    assert code == 0 and isinstance(records, list) and len(records) == 13
    assert all(list(r) == comparison_command.COLUMNS for r in records)
    cauchy = [r for r in records if r["noise"] == "cauchy"]
    assert cauchy and all(r["delta"] is None and r["alpha"] == 2.0 and r["guarantee"] == "renyi" for r in cauchy)
    assert all(isinstance(r["meets_target"], bool) for r in records)


def test_audit_matches_integrals_of_the_output_densities(tmp_path, capsys):
    p, q, scale, eps = 0.5, 0.25, 0.7, 0.3
    data = two_point_csv(tmp_path / "d.csv", {"a": (2, 2), "b": (3, 1)})
    expected = {
        ("laplace", "epsilon"): loss_two_point(p, q, scale),
        ("laplace", "epsilon_delta"): hockey(p, q, stats.laplace(scale=scale).pdf, eps),
        ("gaussian", "epsilon_delta"): hockey(p, q, stats.norm(scale=scale).pdf, eps),
        ("gaussian", "renyi"): renyi2(p, q, stats.norm(scale=scale)),
        ("cauchy", "renyi"): renyi2(p, q, stats.cauchy(scale=scale)),
    }
    for noise in ("laplace", "gaussian", "cauchy"):
        code, out, _ = run(["audit", data, "--released", "x", "--secret", "s", "--noise", noise, "--scale", scale,
                            "--epsilon", eps, "--alpha", "2", "--format", "csv"], capsys)
        assert code == 0
        frame = as_frame(out)
        assert list(frame.columns) == comparison_command.COLUMNS and (frame.method == comparison_command.GIVEN).all()
        got = {(noise, r.guarantee): r for r in frame.itertuples()}
        assert set(got) == {k for k in expected if k[0] == noise}
        for key, row in got.items():
            assert row.achieved == pytest.approx(expected[key], rel=1e-7, abs=1e-15), key
            bound = row.delta if row.guarantee == "epsilon_delta" else eps
            assert row.meets_target == (row.achieved <= bound)
    # without --epsilon: the values that need no target epsilon, no verdict
    code, out, _ = run(["audit", data, "--released", "x", "--secret", "s", "--noise", "laplace", "--scale", scale,
                        "--format", "csv"], capsys)
    frame = as_frame(out)
    assert code == 0 and frame.guarantee.tolist() == ["epsilon"] and frame.meets_target.isna().all()
    assert frame.achieved.iloc[0] == pytest.approx(loss_two_point(p, q, scale), rel=1e-9)


def test_audit_of_a_calibrated_scale_gives_back_its_epsilon(tmp_path, capsys):
    data = two_point_csv(tmp_path / "d.csv", {"a": (2, 2), "b": (3, 1)})
    b = tight_two_point(0.5, 0.25, 0.4)
    code, out, _ = run(["audit", data, "--released", "x", "--secret", "s", "--noise", "laplace", "--scale", repr(b),
                        "--epsilon", "0.4", "--format", "csv"], capsys)
    row = as_frame(out).set_index("guarantee").loc["epsilon"]
    assert code == 0 and row.achieved == pytest.approx(0.4, rel=1e-12)


def test_geometric_noise_needs_no_code_of_its_own(tmp_path, capsys):
    """On 0/1 priors the geometric output ratio takes the same two values as Laplace's (y <= 0:
    ((1-p) + p r) / ((1-q) + q r); y >= 1: ((1-p) r + p) / ((1-q) r + q)), so the loss is
    loss_two_point and the tight pure-epsilon scale tight_two_point; the hockey stick is a sum
    over the integers, computed here term by term."""
    data = two_point_csv(tmp_path / "d.csv", {"a": (2, 2), "b": (3, 1)})  # p = 1/2, q = 1/4
    code, out, err = run(["calibrate", data, "--released", "x", "--secret", "s", "--epsilon", 0.1, 0.5, 2.0,
                          "--noise", "geometric", "--format", "csv"], capsys)
    assert code == 0 and err == ""
    frame = as_frame(out)
    assert set(frame.noise) == {"geometric"} and frame.meets_target.all()
    assert frame.method.unique().tolist() == ["tight_geometric", "tight_geometric_epsilon", "tight_geometric_renyi"]
    pure = frame[frame.method == "tight_geometric_epsilon"]
    for eps, scale in zip(pure.epsilon, pure.scale):
        assert scale == pytest.approx(tight_two_point(0.5, 0.25, eps), rel=1e-9)

    def geometric_hockey(p, q, b, eps):
        r = math.exp(-1 / b)
        y = np.arange(-int(80 * b) - 80, int(80 * b) + 81)
        pmf = (1 - r) / (1 + r) * r ** np.abs(y).astype(float)
        shifted = (1 - r) / (1 + r) * r ** np.abs(y - 1).astype(float)
        fp, fq = (1 - p) * pmf + p * shifted, (1 - q) * pmf + q * shifted
        return max(np.maximum(fp - math.exp(eps) * fq, 0).sum(), np.maximum(fq - math.exp(eps) * fp, 0).sum())

    code, out, _ = run(["audit", data, "--released", "x", "--secret", "s", "--noise", "geometric", "--scale", 0.7,
                        "--epsilon", 0.3, "--format", "csv"], capsys)
    rows = as_frame(out).set_index("guarantee")
    assert code == 0 and rows.index.tolist() == ["epsilon", "epsilon_delta", "renyi"]
    assert rows.loc["epsilon", "achieved"] == pytest.approx(loss_two_point(0.5, 0.25, 0.7), rel=1e-12)
    assert rows.loc["epsilon_delta", "achieved"] == pytest.approx(geometric_hockey(0.5, 0.25, 0.7, 0.3), rel=1e-10)


# ------------------------------------------------------------------------------ the pipeline's numbers
#: table1/adult's binding pair in UCI Adult's adult.data: income <=50K / >50K counts of each race
ADULT_PAIR = {"Asian-Pac-Islander": (763, 276), "Other": (246, 25)}
ADULT_EPS = [0.1, 0.5, 1.0]


@pytest.fixture(scope="module")
def adult_pair(tmp_path_factory):
    """A CSV of the records of table1/adult's pair, and the comparison job's rows for it."""
    from pufferfish.comparison.experiments import write_pair
    from pufferfish.wasserstein.conditionals import write_conditional_priors

    tmp = tmp_path_factory.mktemp("adult")
    rows = [(race, label) for race, (low, high) in ADULT_PAIR.items() for label in ["<=50K"] * low + [">50K"] * high]
    data = tmp / "adult.csv"
    pd.DataFrame(rows, columns=["race", "income"]).to_csv(data, index=False)
    (tmp / "adult.json").write_text(json.dumps({"sha256": None, "member": None, "url": None}))
    spec = {"dataset": "adult_train", "attribute": "income", "encoding": {"indicator": [">50K"]}, "column": "race"}
    write_conditional_priors(setting="adult", spec=spec, data_csv=data, data_json=tmp / "adult.json",
                             out_csv=tmp / "priors.csv", out_json=tmp / "priors.json")
    config = {"wasserstein": {"settings": {"adult": spec}},
              "comparison": {"epsilons": ADULT_EPS, "delta": 1e-5, "alpha": 2}}
    pipeline = write_pair(pair="table1/adult", config=config, data_users={}, table1_priors=str(tmp / "priors.json"),
                          out_csv=tmp / "rows.csv")
    return data, pipeline


ADULT_ARGS = ["--released", "income", "--indicator", ">50K", "--secret", "race", "--epsilon", *ADULT_EPS,
              "--format", "csv"]


def _same_as_pipeline(frame: pd.DataFrame, pipeline: pd.DataFrame) -> None:
    assert list(frame.columns) == comparison_command.COLUMNS and len(frame) == len(pipeline) == 39  # 13 methods x 3 epsilons
    assert (frame.secret_i == "Asian-Pac-Islander").all() and (frame.secret_j == "Other").all()
    for column in ("method", "noise", "guarantee"):
        assert frame[column].tolist() == pipeline[column].tolist()
    for column in ("epsilon", "delta", "alpha", "scale", "achieved"):  # the same numbers, to the bit
        np.testing.assert_array_equal(frame[column].to_numpy(float), pipeline[column].to_numpy(float))
    assert frame.meets_target.tolist() == pipeline.meets_target.tolist()


def test_calibrate_gives_the_pipelines_rows_for_a_table1_pair(adult_pair, capsys):
    data, pipeline = adult_pair
    code, out, _ = run(["calibrate", data, *ADULT_ARGS], capsys)
    assert code == 0
    frame = as_frame(out)
    _same_as_pipeline(frame, pipeline)
    # and the closed form on these two-point priors (p = 276/1039, q = 25/271)
    tight = frame[frame.method == "tight"]
    for eps, scale in zip(tight.epsilon, tight.scale):
        assert scale == pytest.approx(tight_two_point(276 / 1039, 25 / 271, eps), rel=1e-9)
    assert tight.scale.iloc[0] == pytest.approx(2.0152, abs=1e-4)  # results/theta/noise_comparison.csv, table1/adult


def test_the_command_in_a_subprocess_gives_the_same_rows(adult_pair):
    data, pipeline = adult_pair
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "pufferfish", "calibrate", str(data), "--pair", "Asian-Pac-Islander",
                           "Other", *map(str, ADULT_ARGS)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    _same_as_pipeline(as_frame(proc.stdout), pipeline)


# ------------------------------------------------------------------------------ the command itself
def test_the_console_script_is_declared():
    with open(REPO / "pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)["project"]
    assert project["scripts"]["pufferfish"] == "pufferfish.cli:main"


@pytest.mark.parametrize("command", [[], ["calibrate"], ["audit"], ["iteration"]])
def test_help_shows_an_example(command):
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, "-m", "pufferfish", *command, "--help"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""
    assert "example:\n  pufferfish " in proc.stdout


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_lines_on_a_terminal_or_after_a_second(monkeypatch):
    tty = _Terminal()
    progress = command_line.Progress(45, stream=tty)
    progress.step(3, "a vs b")
    assert tty.getvalue() == "pair 3/45: a vs b\n"
    quiet = io.StringIO()
    progress = command_line.Progress(45, stream=quiet)
    progress.step(1, "a vs b")
    assert quiet.getvalue() == ""                        # quick work, not a terminal: nothing
    monkeypatch.setattr(command_line.time, "monotonic", lambda: progress.start + 2 * command_line.PROGRESS_AFTER)
    progress.step(2, "a vs c")
    assert quiet.getvalue() == "pair 2/45: a vs c\n"
    single = command_line.Progress(1, stream=_Terminal())
    single.step(1, "a vs b")
    assert single.stream.getvalue() == ""                # one pair: no progress to report


BAD = [
    # (arguments after the data file, file contents, exit status, what the line must name)
    (["--released", "x", "--secret", "s", "--epsilon", "1"], None, 1, "missing.csv"),
    (["--released", "y", "--secret", "s", "--epsilon", "1"], "ok", 1, "'y'"),
    (["--released", "x", "--secret", "race", "--epsilon", "1"], "ok", 1, "'race'"),
    (["--released", "x", "--secret", "s", "--epsilon", "0"], "ok", 2, "--epsilon"),
    (["--released", "x", "--secret", "s", "--epsilon", "1", "-0.5"], "ok", 2, "--epsilon = -0.5"),
    (["--released", "x", "--secret", "s", "--epsilon", "inf"], "ok", 2, "--epsilon"),
    (["--released", "x", "--secret", "s", "--epsilon", "one"], "ok", 2, "'one'"),
    (["--released", "x", "--secret", "s", "--epsilon", "1", "--delta", "1"], "ok", 2, "--delta"),
    (["--released", "x", "--secret", "s", "--epsilon", "1", "--alpha", "0.5"], "ok", 2, "--alpha"),
    (["--released", "x", "--secret", "s", "--epsilon", "1", "--noise", "uniform"], "ok", 2, "'uniform'"),
    (["--released", "x", "--secret", "s", "--pair", "a", "z", "--epsilon", "1"], "ok", 1, "'z'"),
    (["--released", "x", "--secret", "s", "--pair", "a", "a", "--epsilon", "1"], "ok", 2, "--pair"),
    (["--released", "x", "--secret", "x", "--epsilon", "1"], "ok", 2, "'x'"),
    (["--released", "t", "--secret", "s", "--epsilon", "1"], "ok", 1, "'t'"),          # text, not numbers
    (["--released", "x", "--secret", "s", "--epsilon", "1"], "frac", 1, "'0.5'"),       # not integers
    (["--released", "t", "--secret", "s", "--indicator", "zz", "--epsilon", "1"], "ok", 1, "'zz'"),
    (["--released", "x", "--secret", "s", "--domain", "0", "0.5", "--epsilon", "1"], "ok", 1, "domain"),
    (["--released", "x", "--secret", "one", "--epsilon", "1"], "ok", 1, "column one"),  # a single secret value
    (["--released", "x", "--secret", "s", "--epsilon", "1"], "empty", 1, "bad.csv"),
    (["--released", "x", "--epsilon", "1"], "ok", 2, "--secret"),
]
FILES = {"ok": "x,s,t,one\n0,a,u,k\n1,a,v,k\n1,b,u,k\n0,b,w,k\n", "frac": "x,s\n0.5,a\n1,b\n", "empty": ""}


@pytest.mark.parametrize("args,contents,status,names", BAD)
def test_bad_input_ends_in_one_line_naming_it(tmp_path, capsys, args, contents, status, names):
    data = tmp_path / ("missing.csv" if contents is None else "bad.csv")
    if contents is not None:
        data.write_text(FILES[contents])
    code, out, err = run(["calibrate", data, *args], capsys)
    assert code == status
    assert out == ""
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert names in err and "Traceback" not in err


def test_audit_bad_input(tmp_path, capsys):
    data = two_point_csv(tmp_path / "d.csv", {"a": (2, 2), "b": (3, 1)})
    for args, names in ((["--noise", "laplace", "--scale", "-1"], "--scale"), (["--noise", "cauchy"], "--scale"),
                        (["--noise", "poisson", "--scale", "1"], "'poisson'")):
        code, _, err = run(["audit", data, "--released", "x", "--secret", "s", *args], capsys)
        assert code == 2 and err.count("\n") == 1 and names in err


def test_no_traceback_from_a_real_process(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, "-m", "pufferfish", "calibrate", str(tmp_path / "nothing.csv"), "--released",
                           "x", "--secret", "s", "--epsilon", "1"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == f"error: {tmp_path / 'nothing.csv'}: no such file\n"


# ------------------------------------------------------------------------------ pufferfish iteration
# Oracles: the pipeline's own calibration_table on the same values (the command must give its rows
# to the bit), and, independently of pufferfish.iteration, for every accountant the exact audit
# worked out densely here (numpy's direct autocorrelation, scipy's Toeplitz matrix, Gaussian
# conditioning by hand, the hockey stick by scipy.stats.norm), and for ``dp_assumption`` (records
# treated as independent: shifts s_k = eta D at the secret only, X = (eta D)^2 / (T - k + 1), the
# closed form of accountants.py) the sigma itself against dp-accounting's RDP accountant.
def series_csv(path: Path, size: int = 40, seed: int = 3, smooth: bool = False) -> tuple[Path, np.ndarray]:
    """A correlated series of ``size`` records, written as column x: a random walk plus noise, or
    (``smooth``) a slow sine plus little noise, so correlated that ``dp_assumption`` fails."""
    rng = np.random.default_rng(seed)
    if smooth:
        values = np.sin(np.arange(size) / 8.0) + 0.01 * rng.normal(size=size)
    else:
        values = np.cumsum(rng.normal(size=size)) * 0.3 + rng.normal(size=size)
    pd.DataFrame({"x": values, "label": ["r"] * size}).to_csv(path, index=False)
    return path, pd.read_csv(path, float_precision="round_trip")["x"].to_numpy()


def dense_model(values: np.ndarray, k: int, eta: float):
    """(Delta, data variance, gain, D, Sigma) of w_T for secret x_k, densely (exact.py's module docstring)."""
    from scipy.linalg import toeplitz

    n = values.size
    y = values - values.mean()
    gamma = np.correlate(y, y, mode="full")[n - 1:] / n          # (1/n) sum_t y_t y_{t+h}
    sigma = toeplitz(gamma)
    diameter = float(values.max() - values.min())
    q = (1.0 - eta) ** np.arange(n - 1, -1, -1)
    col = sigma[:, k - 1]
    gap = abs(eta * diameter * (q @ col) / col[k - 1])
    data = eta ** 2 * (q @ sigma @ q - (q @ col) ** 2 / col[k - 1])
    return gap, data, float(q @ q), diameter, sigma


def hockey_stick(gap: float, std: float, eps: float) -> float:
    """delta(eps) between N(0, std^2) and N(gap, std^2) (Balle and Wang 2018, Thm 8), by scipy.stats.norm."""
    a = gap / std
    return float(stats.norm.cdf(a / 2 - eps / a) - math.exp(eps) * stats.norm.cdf(-a / 2 - eps / a))


def dp_accounting_epsilon(cost: float, sigma: float, delta: float) -> float:
    """epsilon of a Gaussian mechanism of sensitivity sqrt(cost) and noise sigma, by dp-accounting's RDP accountant."""
    import dp_accounting

    from pufferfish.iteration.accountants import ORDERS

    accountant = dp_accounting.rdp.RdpAccountant(list(ORDERS))
    accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier=sigma / math.sqrt(cost)))
    return accountant.get_epsilon(delta)


ITER_EPS, ITER_DELTA, ITER_ETAS = [0.05, 0.5, 2.0, 8.0], 1e-5, [0.02, 0.3, 1.0]


def test_iteration_gives_the_pipelines_calibration_rows(tmp_path, capsys):
    from pufferfish.iteration.experiments import CALIBRATION_COLUMNS, calibration_table
    from pufferfish.iteration.settings import SeriesSettings

    data, values = series_csv(tmp_path / "series.csv")
    # the pipeline's secrets for secret_every = 10 over 40 records: 1, 10, 20, 30, 40
    settings = SeriesSettings(name="s", dataset="d", column="x", order="file", etas=tuple(ITER_ETAS), sigma=1.0,
                              alpha=2.0, secret_every=10, epsilons=tuple(ITER_EPS), delta=ITER_DELTA)
    pipeline = calibration_table(values, settings)
    code, out, err = run(["iteration", data, "--column", "x", "--eta", *ITER_ETAS, "--epsilon", *ITER_EPS,
                          "--delta", ITER_DELTA, "--secret-index", 1, 10, 20, 30, 40, "--format", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), float_precision="round_trip")
    assert list(got.columns) == CALIBRATION_COLUMNS == iteration_command.ITERATION_COLUMNS
    assert len(got) == len(pipeline) == 3 * 5 * 4 * 5
    pd.testing.assert_frame_equal(got, pipeline.astype({"meets_target": bool}), check_exact=True, check_dtype=False)


@pytest.mark.parametrize("smooth", [False, True])
def test_iteration_against_a_dense_exact_audit_and_dp_accounting(tmp_path, capsys, smooth):
    data, values = series_csv(tmp_path / "series.csv", smooth=smooth)
    secrets = [1, 7, 40]
    code, out, err = run(["iteration", data, "--column", "x", "--eta", *ITER_ETAS, "--epsilon", *ITER_EPS,
                          "--delta", ITER_DELTA, "--secret-index", *secrets, "--format", "csv"], capsys)
    assert code == 0, err
    rows = pd.read_csv(io.StringIO(out), float_precision="round_trip")
    assert len(rows) == 3 * 3 * 4 * 5 and set(rows.accountant) == {"paper_bound", "contraction_bound",
                                                                      "dp_assumption", "composition", "exact"}
    checked = 0
    for row in rows.itertuples():
        gap, data_var, gain, diameter, _ = dense_model(values, row.secret_index, row.eta)
        std = math.sqrt(row.sigma ** 2 * gain + data_var)
        oracle = max(0.0, hockey_stick(gap, std, row.epsilon))
        # the hockey stick subtracts two Phi values: absolute precision ~1e-16 of the larger one
        assert row.exact_delta == pytest.approx(oracle, rel=1e-7, abs=1e-15), row
        if abs(oracle - ITER_DELTA) > 1e-6 * ITER_DELTA:
            assert row.meets_target == (oracle <= ITER_DELTA), row
        if row.accountant == "exact" and row.sigma > 0:
            # the exact audit's own smallest sigma sits on the target
            assert oracle == pytest.approx(ITER_DELTA, rel=1e-6), row
        if row.accountant == "dp_assumption":
            cost = (row.eta * diameter) ** 2 / (values.size - row.secret_index + 1)
            assert dp_accounting_epsilon(cost, row.sigma * (1 + 1e-9), ITER_DELTA) <= row.epsilon
            assert dp_accounting_epsilon(cost, row.sigma * (1 - 1e-9), ITER_DELTA) > row.epsilon
            checked += 1
    assert checked == 3 * 3 * 4
    # the valid accountants are met by the exact audit, with no less sigma than the exact one
    valid = rows[rows.accountant.isin(["paper_bound", "contraction_bound", "composition", "exact"])]
    assert valid.meets_target.all()
    # records treated as independent: refuted by the exact audit on the smooth series only
    assert (~rows[rows.accountant == "dp_assumption"].meets_target).any() == smooth
    for _, group in rows.groupby(["eta", "secret_index", "epsilon"]):
        sigmas = dict(zip(group.accountant, group.sigma))
        valid_sigmas = [sigmas[n] for n in ("paper_bound", "contraction_bound", "composition")]
        assert sigmas["exact"] <= min(valid_sigmas) * (1 + 1e-12)
        assert sigmas["contraction_bound"] <= sigmas["paper_bound"] * (1 + 1e-12) <= sigmas["composition"] * (1 + 1e-9)


def test_iteration_renyi_target_by_closed_forms(tmp_path, capsys):
    data, values = series_csv(tmp_path / "series.csv", size=25)
    alpha = 3.0
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.2, "--epsilon", 0.1, 1.0, "--alpha", alpha,
                          "--secret-index", 1, 25, "--format", "json"], capsys)
    assert code == 0, err
    rows = pd.DataFrame(json.loads(out))
    assert list(rows.columns) == iteration_command.RENYI_COLUMNS
    for row in rows.itertuples():
        gap, data_var, gain, diameter, sigma_matrix = dense_model(values, row.secret_index, row.eta)
        exact = alpha * gap ** 2 / (2 * (row.sigma ** 2 * gain + data_var))     # D_alpha of two Gaussians
        assert row.exact_renyi == pytest.approx(exact, rel=1e-9)
        if row.accountant == "dp_assumption":       # alpha X / (2 sigma^2) = epsilon
            cost = (row.eta * diameter) ** 2 / (values.size - row.secret_index + 1)
            assert row.sigma == pytest.approx(math.sqrt(alpha * cost / (2 * row.epsilon)), rel=1e-12)
        if row.accountant == "composition":         # X = sum_t s_t^2, s_t = eta D |Sigma_tk| / Sigma_kk
            col = sigma_matrix[:, row.secret_index - 1]
            cost = float(np.sum((row.eta * diameter * np.abs(col) / col[row.secret_index - 1]) ** 2))
            assert row.sigma == pytest.approx(math.sqrt(alpha * cost / (2 * row.epsilon)), rel=1e-9)
        if row.accountant == "exact" and row.sigma > 0:
            assert exact == pytest.approx(row.epsilon, rel=1e-9)
        assert row.meets_target == (exact <= row.epsilon * (1 + 1e-9))


def test_iteration_table_and_progress(tmp_path, capsys, monkeypatch):
    data, _ = series_csv(tmp_path / "series.csv", size=30)
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.1, "--epsilon", 1, "--delta", 1e-5], capsys)
    assert code == 0 and err == ""                       # one secret, quick, not a terminal: no progress
    header, blank, names, *lines = out.splitlines()
    assert "30 records of 'x'" in header and blank == "" and names.split() == iteration_command.ITERATION_COLUMNS
    assert [line.split()[0] for line in lines] == ["paper_bound", "contraction_bound", "dp_assumption",
                                                   "composition", "exact"]
    assert all(line.split()[2] == "1" for line in lines)  # the default secret: the first record
    monkeypatch.setattr(command_line, "PROGRESS_AFTER", -1.0)     # as if every step came after the threshold
    code, out, err = run(["iteration", data, "--column", "x", "--eta", 0.1, 0.5, "--epsilon", 1, "--delta", 1e-5,
                          "--secret-index", 1, 30, "--format", "csv"], capsys)
    assert code == 0
    assert err.splitlines() == [f"secret {n}/4: eta = {eta}, record {k} of 30"
                                for n, (eta, k) in enumerate([(0.1, 1), (0.1, 30), (0.5, 1), (0.5, 30)], 1)]
    assert len(out.splitlines()) == 1 + 4 * 5


ITER_BAD = [
    # (arguments after the data file, exit status, what the line must name)
    (["--column", "x", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5"], 1, "missing.csv"),
    (["--column", "z", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5"], 1, "--column 'z'"),
    (["--column", "t", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5"], 1, "--column 't'"),      # text
    (["--column", "gap", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5"], 1, "record 2"),        # a hole
    (["--column", "c", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5"], 1, "constant"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5", "--secret-index", "5"], 1,
     "--secret-index 5"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5", "--secret-index", "0"], 2,
     "--secret-index"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5", "--secret-index", "1.5"], 2,
     "'1.5'"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "0", "--delta", "1e-5"], 2, "--epsilon"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "-1", "--delta", "1e-5"], 2, "--epsilon"),
    (["--column", "x", "--eta", "0", "--epsilon", "1", "--delta", "1e-5"], 2, "--eta"),
    (["--column", "x", "--eta", "1.5", "--epsilon", "1", "--delta", "1e-5"], 2, "--eta = 1.5"),
    (["--column", "x", "--eta", "nan", "--epsilon", "1", "--delta", "1e-5"], 2, "--eta"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "1", "--delta", "0"], 2, "--delta"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "1"], 2, "--delta"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "1", "--delta", "1e-5", "--alpha", "2"], 2, "--alpha"),
    (["--column", "x", "--eta", "0.1", "--epsilon", "1", "--alpha", "1"], 2, "--alpha"),
    (["--eta", "0.1", "--epsilon", "1", "--delta", "1e-5"], 2, "--column"),
]


@pytest.mark.parametrize("args,status,names", ITER_BAD)
def test_iteration_bad_input_ends_in_one_line_naming_it(tmp_path, capsys, args, status, names):
    data = tmp_path / ("missing.csv" if status == 1 and names == "missing.csv" else "bad.csv")
    if data.name == "bad.csv":
        data.write_text("x,t,gap,c\n0.5,u,1,2\n1.5,v,,2\n-0.25,w,3,2\n2,u,4,2\n")
    code, out, err = run(["iteration", data, *args], capsys)
    assert code == status
    assert out == ""
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert names in err and "Traceback" not in err

"""Extreme epsilons at the audit's boundary: an answer worked out by hand, or one clear line.

* The noise-free hockey stick at e^epsilon beyond a float: [P(x) - e^eps Q(x)]_+ is P(x) where
  Q(x) = 0 and 0 elsewhere once e^eps Q(x) >= P(x) (by hand below), never NaN or an overflow.
* An (epsilon, delta) target above EPSILON_DELTA_MAX is refused, naming epsilon.
* The command answers every extreme epsilon with one ``error:`` line or audited rows.
"""

from __future__ import annotations

import io
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from pufferfish.audit.target import EPSILON_DELTA_MAX, Target, target_for
from pufferfish.audit.zero_noise import zero_noise_hockey_stick
from pufferfish.errors import ComputationError, ConfigError, PufferfishError
from pufferfish.lattice.pmf import LatticePMF

P = LatticePMF(offset=0, probs=np.array([0.5, 0.5]))      # {0: 1/2, 1: 1/2}
Q = LatticePMF(offset=0, probs=np.array([0.25, 0.75]))    # {0: 1/4, 1: 3/4}
R = LatticePMF(offset=0, probs=np.array([1.0]))            # a point mass at 0


@pytest.mark.parametrize("epsilon", [709.0, 709.78, 710.0, 1e4, 1e300])
def test_zero_noise_hockey_stick_past_the_float_range(epsilon):
    # P against R: R(1) = 0, so the forward sum keeps P(1) = 1/2; backward: R(0) = 1 - e^eps P(0) < 0
    assert zero_noise_hockey_stick(P, R, epsilon=epsilon) == (0.5, 0.0)
    # no zero mass: every term is cut once e^eps exceeds max ratio 2
    assert zero_noise_hockey_stick(P, Q, epsilon=epsilon) == (0.0, 0.0)


def test_zero_noise_hockey_stick_below_the_switch_is_the_sum():
    # eps = ln 1.5: forward [1/2 - 3/8]_+ + [1/2 - 9/8]_+ = 1/8; backward [1/4 - 3/4]_+ + [3/4 - 3/4]_+ = 0
    forward, backward = zero_noise_hockey_stick(P, Q, epsilon=math.log(1.5))
    assert forward == pytest.approx(0.125, rel=1e-15)
    assert backward == pytest.approx(0.0, abs=1e-16)


def test_an_epsilon_delta_target_beyond_the_float_range_is_refused():
    assert Target(EPSILON_DELTA_MAX, delta=1e-5).epsilon == EPSILON_DELTA_MAX
    with pytest.raises(ConfigError, match=r"^epsilon = 710\.0: .* at most 700$"):
        target_for("epsilon_delta", 710.0, delta=1e-5)
    # pure epsilon and Renyi targets carry no e^epsilon: any finite epsilon
    assert Target(1e300).epsilon == 1e300
    assert Target(1e300, alpha=2.0).epsilon == 1e300


def test_computation_error_is_a_user_facing_arithmetic_error():
    assert issubclass(ComputationError, PufferfishError) and issubclass(ComputationError, ArithmeticError)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = tmp_path_factory.mktemp("extremes") / "d.csv"
    rng = np.random.default_rng(1)
    pd.DataFrame({"s": rng.choice(["a", "b"], 200), "x": rng.integers(0, 10, 200)}).to_csv(path, index=False)
    return path


# cauchy at 1e-300 refines MAX_PANELS = 2,000,000 quadrature panels before its one line (about 15 s of
# CPU): slow tier; its fast twin, below, is the same command with the cap at 2,000 panels
@pytest.mark.parametrize("noise,epsilon", [("laplace", "710"), ("gaussian", "1e300"),
                                           pytest.param("cauchy", "1e-300", marks=pytest.mark.slow),
                                           ("geometric", "1e300"), ("laplace", "1e-300")])
def test_the_command_answers_extreme_epsilons_in_one_line_or_rows(records, noise, epsilon):
    run = subprocess.run([sys.executable, "-m", "pufferfish", "calibrate", str(records), "--released", "x",
                          "--secret", "s", "--epsilon", epsilon, "--noise", noise, "--format", "csv"],
                         capture_output=True, text=True, timeout=120)
    assert "Traceback" not in run.stderr
    if run.returncode:
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and run.stdout == ""
    else:
        frame = pd.read_csv(io.StringIO(run.stdout))
        assert len(frame) > 0 and frame["meets_target"].astype(bool).all()


def test_the_command_answers_a_quadrature_beyond_its_panel_cap_in_one_line(records, monkeypatch, capsys):
    """The fast twin of the command at cauchy, 1e-300 (slow tier): the same run in process with the
    panel cap of the Renyi quadrature at 2,000 (a Cauchy audit at an everyday epsilon refines fewer)
    reaches the same refusal: one ``error:`` line naming the cap, exit 1, nothing on stdout."""
    from pufferfish.audit import quadrature
    from pufferfish.cli import main

    monkeypatch.setattr(quadrature, "MAX_PANELS", 2000)
    args = ["calibrate", str(records), "--released", "x", "--secret", "s", "--noise", "cauchy", "--format", "csv"]
    assert main([*args, "--epsilon", "0.5"]) == 0                   # under the lowered cap: rows
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert len(frame) > 0 and frame["meets_target"].astype(bool).all()
    assert main([*args, "--epsilon", "1e-300"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == ["error: Renyi quadrature: more than 2000 panels to refine"]

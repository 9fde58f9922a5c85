"""The verdict of an audit (pufferfish.audit.target, pufferfish.audit.verdict): the target built from a
guarantee, the verdict of one scale (0, finite, inf, NaN), the worst of several pairs, the one
audit-table schema.

Every number is a closed form: Laplace(b) noise on point masses a distance d apart has the
privacy loss d / b exactly (the log-ratio (|y - d| - |y|) / b is at most d / b); its hockey
stick at epsilon is 1 - e^((eps - d/b)/2) when d/b > eps (the mass where the log-ratio exceeds
eps, minus e^eps times the other's); two priors that differ only by masses are judged without
noise by their own divergences (max log ratio, sum of positive parts).
"""
import math

import numpy as np
import pandas as pd
import pytest

from pufferfish.audit import (AUDIT_COLUMNS, Target, Verdict, audit_frame, audit_row, audit_scale, lattice_auditor,
                              target_for, worst_case)
from pufferfish.audit.verdict import NO_NOISE_NOTE, NOT_MET_AT_ZERO_NOTE
from pufferfish.errors import ArgumentTypeError, ConfigError, InvalidArgumentError
from pufferfish.lattice import LatticePMF


def shift(d):
    """The Laplace auditor of point masses 0 and d (loss d / b)."""
    return lattice_auditor("laplace", "epsilon", LatticePMF.point(0), LatticePMF.point(d))


# ------------------------------------------------------------------ target_for
def test_target_for_takes_what_the_guarantee_needs():
    assert target_for("epsilon", 0.5, delta=1e-5, alpha=2.0) == Target(0.5)
    assert target_for("epsilon_delta", 0.5, delta=1e-5, alpha=2.0) == Target(0.5, delta=1e-5)
    assert target_for("renyi", 0.5, delta=1e-5, alpha=3.0) == Target(0.5, alpha=3.0)
    assert target_for("epsilon_delta", 0.5, delta=1e-5).bound == 1e-5


@pytest.mark.parametrize("guarantee, kwargs, message", [
    ("epsilon_delta", {}, "guarantee = 'epsilon_delta' needs delta"),
    ("renyi", {"delta": 0.1}, "guarantee = 'renyi' needs alpha"),
    ("pure", {}, "guarantee = 'pure': must be one of epsilon, epsilon_delta, renyi"),
    ("epsilon", {"delta": 2.0}, "delta = 2.0: must be < 1"),            # checked even where unused
    ("epsilon", {"alpha": 1.0}, "alpha = 1"),
    ("renyi", {"alpha": 2.0, "delta": 0.0}, "delta = 0"),
])
def test_target_for_refuses_naming_the_parameter(guarantee, kwargs, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        target_for(guarantee, 0.5, **kwargs)


# ------------------------------------------------------------------ audit_scale
@pytest.mark.parametrize("b", [1e-3, 0.5, 6.0, 1e6])
def test_a_finite_scale_is_the_exact_audit(b):
    v = audit_scale(shift(3), b, Target(0.5))
    assert v.scale == b and v.forward == pytest.approx(3 / b, rel=1e-13) and v.value == pytest.approx(3 / b, rel=1e-13)
    assert 3 / b <= v.value <= 3 / b * (1 + 1e-9)                    # certified: never below the truth
    assert v.meets == (v.value <= 0.5) and v.note == ""


def test_meets_means_the_certified_value_is_at_most_the_target():
    # value 3 / 6 = 0.5 exactly: a bound 0.5 (1 + 2e-9) is met (the certified value is at most
    # 1e-9 relative above the truth), a bound 0.5 / (1 + 1e-10) is not (no tolerance)
    assert audit_scale(shift(3), 6.0, Target(0.5 * (1 + 2e-9))).meets
    assert not audit_scale(shift(3), 6.0, Target(0.5 / (1 + 1e-10))).meets


def test_scale_zero_is_the_noise_free_audit():
    p, q = LatticePMF.from_values([0, 1], [0.5, 0.5]), LatticePMF.from_values([0, 1], [0.4, 0.6])
    aud = lattice_auditor("laplace", "epsilon", p, q)
    met = audit_scale(aud, 0.0, Target(0.3))      # max |log P/Q| = log(0.5/0.4) = 0.223
    assert met.meets and met.note == NO_NOISE_NOTE
    assert (met.forward, met.backward) == pytest.approx((math.log(0.5 / 0.4), math.log(0.6 / 0.5)), rel=1e-15)
    missed = audit_scale(aud, 0.0, Target(0.1))
    assert not missed.meets and missed.note == NOT_MET_AT_ZERO_NOTE
    # (epsilon, delta) without noise: sum [P - e^eps Q]_+ = [0.5 - e^0.1 0.4]_+ + 0 = 0.0579...
    hs = audit_scale(lattice_auditor("laplace", "epsilon_delta", p, q), 0.0, Target(0.1, delta=0.05))
    assert hs.forward == pytest.approx(0.5 - math.exp(0.1) * 0.4, rel=1e-14) and not hs.meets


@pytest.mark.parametrize("scale", [math.inf, math.nan])
def test_inf_and_nan_cannot_be_audited(scale):
    v = audit_scale(shift(3), scale, Target(0.5))
    assert not v.meets and math.isnan(v.value) and "cannot be audited" in v.note
    with pytest.raises(InvalidArgumentError, match="scale = -inf"):
        audit_scale(shift(3), -math.inf, Target(0.5))
    with pytest.raises(ConfigError, match="not renyi"):        # the target is still checked
        audit_scale(shift(3), scale, Target(0.5, alpha=2.0))


# ------------------------------------------------------------------ worst_case
def counted(d):
    aud = shift(d)
    aud.calls = 0
    achieved = aud.achieved

    def spy(scale, target):
        aud.calls += 1
        return achieved(scale, target)

    aud.achieved = spy
    return aud


def test_worst_case_is_the_largest_loss_and_its_pair():
    auditors = [shift(1), shift(3), shift(2)]
    v, k = worst_case(auditors, 2.0, Target(1.0))
    assert k == 1 and v.value == pytest.approx(1.5, rel=1e-13) and not v.meets
    v, k = worst_case(auditors, 4.0, Target(1.0))
    assert k == 1 and v.value == pytest.approx(0.75, rel=1e-13) and v.meets


def test_worst_case_skips_pairs_whose_bound_cannot_change_the_maximum():
    """Sound bounds d / b (here exact): the pair d = 3 is audited first; the others' bounds are
    below its loss, so they are not audited. Loose bounds (inf) audit everyone."""
    auditors = [counted(1), counted(3), counted(2)]
    v, k = worst_case(auditors, 2.0, Target(1.0), bound=[0.5, 1.5, 1.0])
    assert k == 1 and v.value == pytest.approx(1.5, rel=1e-13)
    assert [a.calls for a in auditors] == [0, 1, 0]
    v2, k2 = worst_case(auditors, 2.0, Target(1.0), bound=[math.inf] * 3)
    assert (v2.value, k2) == (v.value, k) and [a.calls for a in auditors] == [1, 2, 1]


def test_worst_case_of_a_scale_that_cannot_be_audited():
    v, k = worst_case([shift(1), shift(3)], math.inf, Target(1.0))
    assert math.isnan(v.value) and not v.meets and k == 0


@pytest.mark.parametrize("kwargs, error, message", [
    ({"auditors": []}, InvalidArgumentError, "at least one pair"),
    ({"auditors": "P"}, ArgumentTypeError, "auditors = 'P'"),
    ({"auditors": [1.0]}, ArgumentTypeError, r"auditors\[0\]"),
    ({"bound": [1.0, 2.0]}, InvalidArgumentError, "2 values for 1 pairs"),
    ({"bound": [math.nan]}, InvalidArgumentError, r"bound\[0\] = nan"),
])
def test_worst_case_refuses_bad_arguments(kwargs, error, message):
    args = {"auditors": [shift(1)], "scale": 1.0, "target": Target(1.0), **kwargs}
    with pytest.raises(error, match=message):
        worst_case(**args)


# ------------------------------------------------------------------ the audit table
def test_audit_columns_are_the_one_schema_of_the_audit_tables():
    # the experiments write their audit rows through audit_row / audit_frame: none defines its own columns
    from pufferfish.sensitivity import experiments

    assert not hasattr(experiments, "AUDIT_COLUMNS") and len(AUDIT_COLUMNS) == 18


def test_audit_row_puts_the_value_in_its_guarantees_column():
    b, d = 2.0, 3
    eps = 1.0
    v = audit_scale(lattice_auditor("laplace", "epsilon_delta", LatticePMF.point(0), LatticePMF.point(d)), b,
                    Target(eps, delta=1e-3))
    # hockey stick of a Laplace shift d/b = 1.5 > eps: 1 - e^((eps - d/b)/2)
    assert v.value == pytest.approx(1 - math.exp((eps - d / b) / 2), rel=1e-12)
    row = audit_row(v, experiment="x", panel="p", method="tight_laplace_delta", noise="laplace", scale_min=4.0,
                    tight_note="")
    assert list(row) == AUDIT_COLUMNS
    assert row["delta_achieved"] == v.value and math.isnan(row["epsilon_achieved"]) and math.isnan(row["renyi_achieved"])
    assert row["violation"] is True and row["claimed"] is True and row["delta"] == 1e-3 and math.isnan(row["alpha"])
    assert (row["loss_forward"], row["loss_backward"], row["scale"], row["epsilon"]) == (v.forward, v.backward, b, eps)


def test_audit_frame_has_exactly_the_schema():
    v = audit_scale(shift(1), 4.0, Target(0.5))
    rows = [audit_row(v, experiment="x", panel="", method="tight", noise="laplace")]
    frame = audit_frame(rows)
    assert list(frame.columns) == AUDIT_COLUMNS and len(frame) == 1
    assert frame.epsilon_achieved.iloc[0] == pytest.approx(0.25, rel=1e-13) and not frame.violation.iloc[0]
    empty = audit_frame([])
    assert list(empty.columns) == AUDIT_COLUMNS and len(empty) == 0
    partial = audit_frame([{"method": "gwm_laplace", "scale": 1.0}])   # columns that do not apply: empty
    assert pd.isna(partial.delta.iloc[0]) and partial.method.iloc[0] == "gwm_laplace"
    with pytest.raises(InvalidArgumentError, match="columns nope are not audit columns"):
        audit_frame([{"nope": 1}])


def test_verdict_value_is_the_larger_direction():
    assert Verdict(1.0, Target(1.0), 0.2, 0.7, True).value == 0.7
    assert np.isnan(Verdict(1.0, Target(1.0), math.nan, 0.7, False).value)

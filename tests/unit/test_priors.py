"""Conditioning and encodings of data-derived priors."""
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from pufferfish.errors import DataError, InvalidDistributionError
from pufferfish.multiuser.user_priors import data_user_prior
from pufferfish.data_priors import condition, empirical_pmf, encode


@pytest.fixture
def frame():
    return pd.DataFrame({
        "race": ["White", "White", "Black", None, "White", "Black"],
        "education-num": [13, 9, 9, 10, None, 16],
        "romantic": ["yes", "no", "no", "yes", "no", "yes"],
        "freetime": [5, 2, 5, 5, 2, 1],
    })


def test_condition_drops_and_counts_missing_rows(frame):
    cond = condition(frame, attribute="education-num", given={"race": "White"}, dataset="toy")
    assert cond.values.tolist() == [13, 9]
    assert (cond.rows_in_dataset, cond.rows_dropped_missing, cond.rows_matching) == (6, 2, 2)


def test_numeric_condition_value_matches_integers(frame):
    cond = condition(frame, attribute="romantic", given={"freetime": 5}, dataset="toy")
    assert cond.values.tolist() == ["yes", "no", "yes"]


def test_missing_values_listed_in_config_are_dropped():
    data = pd.DataFrame({"sex": [0, 0, 1, 1], "chol": [0, 200, 250, 0]})
    cond = condition(data, attribute="chol", given={"sex": 1}, dataset="heart", missing_values=[0])
    assert cond.values.tolist() == [250] and cond.rows_dropped_missing == 2


def test_absent_value_lists_the_values_present(frame):
    with pytest.raises(DataError, match=r"dataset toy: no row has race = 'Whit' \(values present: Black, White\)"):
        condition(frame, attribute="education-num", given={"race": "Whit"}, dataset="toy")


def test_absent_column_is_named(frame):
    with pytest.raises(DataError, match="dataset toy: no column 'educaton'"):
        condition(frame, attribute="educaton", given={"race": "White"}, dataset="toy")


def test_encodings(frame):
    assert encode(frame.romantic, {"codes": ["no", "yes"]}, name="u").tolist() == [2, 1, 1, 2, 1, 2]
    assert encode(frame.romantic, {"indicator": ["yes"]}, name="u").tolist() == [1, 0, 0, 1, 0, 1]
    assert encode(pd.Series([3.0, 7.0]), "numeric", name="u").tolist() == [3, 7]
    with pytest.raises(DataError, match=r"u: value\(s\) 'maybe' not in encoding codes"):
        encode(pd.Series(["yes", "maybe"]), {"codes": ["no", "yes"]}, name="u")
    with pytest.raises(DataError, match="needs integer values, found 'yes'"):
        encode(frame.romantic, "numeric", name="u")
    with pytest.raises(DataError, match="indicator value 'Yes' never occurs"):
        encode(frame.romantic, {"indicator": ["Yes"]}, name="u", column=frame.romantic)


def test_empirical_pmf_is_exact_count_over_total():
    pmf = empirical_pmf(np.array([1, 2, 2, 2, 5]), name="u")
    assert pmf.exact_on(1, 5) == [Fraction(1, 5), Fraction(3, 5), 0, 0, Fraction(1, 5)]


def test_data_user_prior_record(frame):
    spec = {"dataset": "toy", "attribute": "romantic", "given": {"freetime": 5}, "encoding": {"indicator": ["yes"]}}
    pmf, record = data_user_prior(frame, spec, name="romantic_free5")
    assert pmf.exact == (Fraction(1, 3), Fraction(2, 3))
    assert record["rows_used"] == 3 and record["values"] == [0, 1] and record["counts"] == [1, 2]
    assert record["encoding"].startswith("indicator")


def test_config_user_prior_written_as_given(tmp_path):
    """Table 3's P4 (paper 000), zero mass at 3 kept: the file is the config row, not a refit."""
    import json

    from pufferfish.multiuser.user_priors import write_config_user
    spec = {"values": [1, 2, 3, 4, 5], "probabilities": [0.4, 0.1, 0.0, 0.1, 0.4], "presence": 0.5}
    write_config_user(name="P4", spec=spec, out_csv=tmp_path / "P4.csv", out_json=tmp_path / "P4.json")
    assert (tmp_path / "P4.csv").read_text() == "value,probability\n1,0.4\n2,0.1\n3,0.0\n4,0.1\n5,0.4\n"
    record = json.loads((tmp_path / "P4.json").read_text())
    assert record["presence"] == 0.5 and record["source"] == "config.yaml multiuser.users.P4"
    with pytest.raises(InvalidDistributionError, match=r"multiuser.users.P4: probabilities sum to 1.1"):
        write_config_user(name="P4", spec={**spec, "probabilities": [0.5, 0.1, 0.0, 0.1, 0.4]},
                          out_csv=tmp_path / "bad.csv", out_json=tmp_path / "bad.json")
    assert not (tmp_path / "bad.csv").exists()

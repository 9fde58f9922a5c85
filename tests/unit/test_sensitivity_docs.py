"""The ``>>>`` examples of docs/math/closed-forms.md run and print what the page says."""
from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np

PAGE = Path(__file__).resolve().parents[2] / "docs" / "math" / "closed-forms.md"


def test_closed_forms_page_examples_run():
    # code fences are dropped (a fence right after an output line would read as output)
    text = "\n".join("" if line.startswith("```") else line for line in PAGE.read_text(encoding="utf-8").splitlines())
    test = doctest.DocTestParser().get_doctest(text, {"np": np}, PAGE.name, str(PAGE), 0)
    assert len(test.examples) >= 10
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0

"""docs/conf.py reads both kinds of docstrings: numpydoc sections with LaTeX (:math:, .. math::)
left as written, and the older Google-style ones whose plain-text math is escaped."""
from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_conf", REPO / "docs" / "conf.py")
conf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conf)          # no side effect: the API pages are written by setup()


def processed(docstring: str, what: str = "function") -> list[str]:
    lines = inspect.cleandoc(docstring).splitlines()
    conf.process_docstring(None, what, "pufferfish.x.f", None, {}, lines)
    return lines


NUMPY = r'''
The Laplace scale of pure epsilon-DP.

.. math::

   b = \frac{\Delta}{\epsilon}, \qquad |x - x'| \le \Delta

(paper 002, Cor. 3.1, with :math:`\Delta = W_\infty` and :math:`D_\alpha(P \| Q)`).

Parameters
----------
sensitivity : float
    :math:`\Delta \ge 0`, the largest shift of the query.
epsilon : float or array-like
    The target :math:`\epsilon > 0`.

Returns
-------
numpy.ndarray
    :math:`b` for each :math:`\epsilon`.

Raises
------
ConfigError
    If :math:`\Delta < 0`.
'''


def test_numpydoc_sections_become_fields_and_latex_is_left_as_written():
    lines = processed(NUMPY)
    text = "\n".join(lines)
    assert ":param sensitivity: :math:`\\Delta \\ge 0`, the largest shift of the query." in lines
    assert ":type sensitivity: float" in lines
    assert ":param epsilon: The target :math:`\\epsilon > 0`." in lines
    assert ":returns: *numpy.ndarray* -- :math:`b` for each :math:`\\epsilon`." in lines
    assert any(line.startswith(":raises ConfigError:") and ":math:`\\Delta < 0`" in line for line in lines)
    # the display block and the inline roles reach Sphinx untouched: no \| or \_ inserted
    assert "   b = \\frac{\\Delta}{\\epsilon}, \\qquad |x - x'| \\le \\Delta" in lines
    assert ":math:`D_\\alpha(P \\| Q)`" in text
    assert "Parameters" not in text and "----------" not in text


def test_google_docstrings_with_plain_text_math_still_render_as_written():
    lines = processed('''
        The span sup |x - x'| of pi* over D_i and W_, times 2*b.

        Args:
            p: the first prior, P(X = x | s_i).
            q: the second prior.

        Returns:
            The span |x - x'|.
    ''')
    assert lines[0] == "The span sup \\|x - x'\\| of pi\\* over D_i and W\\_, times 2\\*b."
    assert ":param p: the first prior, P(X = x \\| s_i)." in lines
    assert ":returns: The span \\|x - x'\\|." in lines


def test_data_keeps_its_text():
    assert processed("what it is: the detail, |x|", what="data") == ["what it is: the detail, \\|x\\|"]

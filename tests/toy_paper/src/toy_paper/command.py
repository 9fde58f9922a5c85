"""``pufferfish toy``: the exact loss of randomized response on a bit, for two Bernoulli priors."""

from __future__ import annotations

import argparse

from pufferfish import command_line as cl

__all__ = ["EXAMPLE", "add_parser", "run"]

EXAMPLE = """example:
  pufferfish toy --priors 0.2 0.7 --epsilon 0.5 1

  Randomized response on a bit whose law is Bernoulli(0.2) under one secret and
  Bernoulli(0.7) under the other: the exact pufferfish loss at each epsilon.
"""


def _probability(text: str) -> float:
    return cl.number(text, name="--priors", lo=0.0, hi=1.0)


def add_parser(subparsers, formatter_class) -> argparse.ArgumentParser:
    """Add ``pufferfish toy`` to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser("toy", formatter_class=formatter_class, epilog=EXAMPLE,
                                   help="randomized response on a bit, audited exactly (a toy paper)",
                                   description="The exact pufferfish loss of randomized response on a bit.")
    parser.add_argument("--priors", type=_probability, nargs=2, required=True, metavar=("P_I", "P_J"),
                        help="Pr(bit = 1) under each secret")
    parser.add_argument("--epsilon", type=cl.epsilon, nargs="+", required=True, metavar="E", help="epsilons (> 0)")
    parser.add_argument("--format", choices=cl.FORMATS, default="table", help="output format (default table)")
    return parser


def run(args) -> str:
    """The output of ``pufferfish toy`` for parsed ``args``."""
    import pandas as pd

    from toy_paper.experiments import audit_rows

    rows = pd.DataFrame(audit_rows(tuple(args.priors), args.epsilon, rtol=1e-9))
    rows = rows.assign(achieved=rows.epsilon_achieved, meets_target=~rows.violation)
    header = (f"randomized response on a bit: Bernoulli({args.priors[0]:g}) vs Bernoulli({args.priors[1]:g}); "
              "scale: the probability of flipping the bit")
    return cl.render(rows, header, args.format, ["epsilon", "scale", "achieved", "meets_target"])

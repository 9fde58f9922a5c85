r"""``pufferfish calibrate`` and ``pufferfish audit``: the noise comparison on a practitioner's own CSV.

A table of records, a column :math:`X` to be released with additive noise and a column
:math:`S` whose value must stay secret: for a secret pair :math:`(s_i, s_j)` the adversary's
priors are :math:`\Pr(X \mid S = s_i)` and :math:`\Pr(X \mid S = s_j)`, paper 002's attribute
privacy (docs/math/paper002-wasserstein.md), built with the pipeline's own code
(:func:`pufferfish.wasserstein.conditionals.conditional_priors`). Then:

* ``pufferfish calibrate``: every mechanism of the comparison job
  (:func:`pufferfish.comparison.compare.compare_pair`) on the pair, each scale audited exactly
  (:func:`pufferfish.audit.auditor.lattice_auditor`): for one pair, the very rows the pipeline
  writes to ``results/theta/noise_comparison.csv``; ``--noise`` keeps one family;
* ``pufferfish audit``: what a given scale of a given noise achieves on the same priors.

Without ``--pair`` every pair of observed secret values is computed and each row is that of
the *binding* pair (:mod:`pufferfish.comparison.binding`: the largest scale, ties broken as in
Table 1); its ``achieved`` is the worst exact audit of that scale over all pairs
(:func:`pufferfish.audit.verdict.worst_case`). A mistake (a missing file, an unknown column or
noise, a secret value without records, :math:`\epsilon \le 0`, a non-numeric column, a scale
that is not a positive number) ends in one line ``error: ...``. The comparison paper declares
both commands (:data:`pufferfish.comparison.paper.PAPER`).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from pufferfish import command_line as cl
from pufferfish.errors import UsageError
from pufferfish.files import read_records

__all__ = ["COLUMNS", "GIVEN", "CALIBRATE_EXAMPLE", "AUDIT_EXAMPLE", "add_calibrate_parser", "add_audit_parser",
           "build_priors", "calibrate", "audit", "run"]

#: columns of the csv and json outputs of ``calibrate`` and ``audit``
COLUMNS = ["secret_i", "secret_j", "noise", "method", "guarantee", "epsilon", "delta", "alpha", "scale", "achieved",
           "meets_target"]
#: the ``method`` of the rows of ``pufferfish audit`` (a scale given, not calibrated)
GIVEN = "given_scale"

CALIBRATE_EXAMPLE = """\
example:
  pufferfish calibrate adult.csv --released income --indicator '>50K' --secret race \\
      --epsilon 0.5 1 --noise laplace

  Pr(income | race = r) for every race r, every pair of races, and for each Laplace method
  and epsilon the scale of the binding pair (the one needing the most noise), audited
  exactly on every pair. --pair 'Asian-Pac-Islander' 'Other' computes one pair only.
"""
AUDIT_EXAMPLE = """\
example:
  pufferfish audit students.csv --released G3 --secret paid --noise laplace --scale 14 \\
      --epsilon 0.1 0.5

  What Laplace noise of scale 14 added to the grade G3 achieves when 'paid' is the secret:
  the pure epsilon, and the delta of (epsilon, delta)-PP at each --epsilon, exactly.
"""


def _scale(text: str) -> float:
    return cl.number(text, name="--scale", lo=0.0)


# ------------------------------------------------------------------------------ parser
def _data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", metavar="DATA.csv", help="the records, one per row, with a header line")
    parser.add_argument("--released", required=True, metavar="COL",
                        help="the column released with noise (integers, or see --indicator)")
    parser.add_argument("--secret", required=True, metavar="COL", help="the column whose value must stay secret")
    parser.add_argument("--pair", nargs=2, metavar=("A", "B"),
                        help="one secret pair (default: every pair of observed values; the binding one is reported)")
    parser.add_argument("--indicator", nargs="+", metavar="VALUE",
                        help="release 1 where the released column is one of these values, else 0 "
                             "(default: its values as integers)")
    parser.add_argument("--domain", nargs=2, type=float, metavar=("LO", "HI"),
                        help="the values the released column can take (every value must lie in it; "
                             "default: the span observed)")
    parser.add_argument("--delta", type=cl.delta, default=cl.DEFAULT_DELTA,
                        help=f"delta of (epsilon, delta)-PP (default {cl.DEFAULT_DELTA:g})")
    parser.add_argument("--alpha", type=cl.alpha, default=cl.DEFAULT_ALPHA,
                        help=f"Renyi order of the Cauchy rows (default {cl.DEFAULT_ALPHA:g})")
    parser.add_argument("--format", choices=cl.FORMATS, default="table", help="output format (default table)")


def add_calibrate_parser(subparsers, formatter_class):
    """Add ``pufferfish calibrate`` to ``subparsers`` (``--noise``: every family of
    :func:`pufferfish.audit.auditor.noises`, or all)."""
    from pufferfish.audit import noises

    cal = subparsers.add_parser("calibrate", formatter_class=formatter_class, epilog=CALIBRATE_EXAMPLE,
                                help="the noise scale of every method for target epsilons, audited",
                                description="The noise scale of every registered method for each --epsilon, on "
                                            "the priors Pr(released | secret = s), each scale audited exactly.")
    _data_arguments(cal)
    cal.add_argument("--epsilon", type=cl.epsilon, nargs="+", required=True, metavar="E", help="target epsilons (> 0)")
    cal.add_argument("--noise", choices=(*noises(), "all"), default="all", help="which noise family (default all)")
    return cal


def add_audit_parser(subparsers, formatter_class):
    """Add ``pufferfish audit`` to ``subparsers``."""
    from pufferfish.audit import noises

    aud = subparsers.add_parser("audit", formatter_class=formatter_class, epilog=AUDIT_EXAMPLE,
                                help="what a given noise scale achieves, exactly",
                                description="What noise of a given scale achieves on the priors Pr(released | "
                                            "secret = s), for every guarantee its exact auditor checks.")
    _data_arguments(aud)
    aud.add_argument("--noise", choices=noises(), required=True, help="the noise family")
    aud.add_argument("--scale", type=_scale, required=True, metavar="S",
                     help="the noise scale (Laplace b, Gaussian sigma, Cauchy gamma, geometric b: "
                          "Pr(G = g) proportional to exp(-|g| / b))")
    aud.add_argument("--epsilon", type=cl.epsilon, nargs="+", metavar="E",
                     help="target epsilons: verdicts, and the delta of (epsilon, delta)-PP at each")
    return aud


# ------------------------------------------------------------------------------ data
def _check_columns(frame, path: str, args) -> None:
    from pufferfish.errors import DataError

    for option, name in (("--released", args.released), ("--secret", args.secret)):
        if name not in frame.columns:
            raise DataError(f"{option} {name!r}: no such column in {path} (columns: {', '.join(map(str, frame.columns))})")
    if args.released == args.secret:
        raise UsageError(f"--released and --secret are both {args.released!r}")


def _numeric_domain(frame, path: str, args) -> list[float]:
    """The domain of a numeric released column: ``--domain`` or the span observed; a DataError
    naming the column and the first value that is not an integer."""
    import numpy as np
    import pandas as pd

    from pufferfish.errors import DataError

    column = frame[args.released]
    values = column.dropna()
    numbers = pd.to_numeric(values, errors="coerce")
    bad = values[numbers.isna() | (numbers != np.round(numbers))]
    if len(bad):
        raise DataError(f"--released {args.released!r} in {path}: needs integer values, found {str(bad.iloc[0])!r} "
                        f"(give --indicator VALUE to release 1 where the column equals VALUE)")
    if args.domain is not None:
        lo, hi = args.domain
        if not lo < hi:
            raise UsageError(f"--domain {lo:g} {hi:g}: must be increasing")
        return [lo, hi]
    if numbers.empty:
        raise DataError(f"--released {args.released!r} in {path}: has no values")
    lo, hi = float(numbers.min()), float(numbers.max())
    return [lo, hi if hi > lo else lo + 1.0]


def build_priors(frame, path: str, args):
    """Pr(released | secret = s) for the secret values of ``--pair`` (or every value present),
    by the pipeline's :func:`~pufferfish.wasserstein.conditionals.conditional_priors`."""
    from pufferfish.errors import ConfigError, DataError
    from pufferfish.wasserstein.conditionals import SECTION, conditional_priors
    from pufferfish.data_priors import condition

    _check_columns(frame, path, args)
    spec = {"dataset": path, "attribute": args.released, "column": args.secret}
    if args.indicator:
        spec["encoding"] = {"indicator": list(args.indicator)}
        if args.domain is not None:
            raise UsageError("--domain goes with a numeric released column, not with --indicator")
    else:
        spec["encoding"] = "numeric"
        spec["domain"] = _numeric_domain(frame, path, args)
    if args.pair is not None:
        a, b = args.pair
        if a == b:
            raise UsageError(f"--pair {a!r} {b!r}: the two secret values must differ")
        for value in (a, b):
            try:
                condition(frame, attribute=args.released, given={args.secret: value}, dataset=path)
            except DataError as err:
                raise DataError(f"--pair: {err}") from None
        spec["values"] = [a, b]
    try:
        return conditional_priors(frame, spec, setting=Path(path).name)
    except (ConfigError, DataError) as err:  # the pipeline names its config section; the command names the file
        text = str(err).replace(f"config: {SECTION}.", "").replace(f"{SECTION}.", "")
        raise DataError(text) from None


# ------------------------------------------------------------------------------ calibrate
def calibrate(priors, args) -> tuple:
    """The rows of ``pufferfish calibrate`` (:data:`COLUMNS`, then ``note``) and the header naming
    the binding pair(s) (:func:`pufferfish.comparison.binding.binding_rows`)."""
    from pufferfish.comparison.binding import binding_rows, conditional_pairs
    from pufferfish.comparison.compare import methods_by_noise

    column = priors.record["column"]
    pairs = conditional_pairs(priors.conditionals, column=column)
    groups = methods_by_noise()
    methods = [m for noise, group in groups.items() if args.noise in ("all", noise) for m in group]
    found = binding_rows(pairs, epsilons=args.epsilon, delta=args.delta, alpha=args.alpha, methods=methods,
                         progress=cl.Progress(len(pairs)).step)
    binding = found.binding()
    if len(pairs) == 1:
        header = f"secret pair: {column} = {pairs[0].secret_i} vs {pairs[0].secret_j}"
    elif len(binding) == 1:
        (i, j, _), = binding
        header = (f"binding pair of {len(pairs)}: {column} = {i} vs {j} (the largest scale of every row; "
                  "achieved: the worst exact audit of that scale over all pairs)")
    else:
        header = (f"binding pair of {len(pairs)} per row (the largest scale; achieved: the worst exact audit "
                  "of that scale over all pairs): " + "; ".join(f"{column} = {i} vs {j} ({n} rows)"
                                                                 for i, j, n in binding))
    return found.rows[COLUMNS + ["note"]], header


# ------------------------------------------------------------------------------ audit
def _audit_targets(args) -> list:
    """Every target of ``pufferfish audit``: each guarantee the noise's lattice auditors check, at
    every ``--epsilon`` (without one: the epsilon and Renyi values, which need no target epsilon)."""
    from pufferfish.audit import GUARANTEES, auditor_classes, target_for

    audited = {g for c in auditor_classes("lattice") if c.noise == args.noise for g in c.guarantees}
    targets = []
    for guarantee in (g for g in GUARANTEES if g in audited):
        if args.epsilon:
            targets.extend(target_for(guarantee, e, delta=args.delta, alpha=args.alpha) for e in args.epsilon)
        elif guarantee != "epsilon_delta":   # the delta of (epsilon, delta)-PP needs an epsilon
            targets.append(target_for(guarantee, 1.0, alpha=args.alpha))
    return targets


def audit(priors, args) -> tuple:
    """The rows of ``pufferfish audit``: per guarantee of the noise's auditor (and epsilon), the
    achieved value of ``--scale``, the worst over the pairs (:func:`pufferfish.audit.verdict.worst_case`),
    and the pair it comes from."""
    import pandas as pd

    from pufferfish.audit import lattice_auditor, worst_case
    from pufferfish.comparison.binding import conditional_pairs

    column = priors.record["column"]
    pairs = conditional_pairs(priors.conditionals, column=column)
    targets = _audit_targets(args)
    progress = cl.Progress(len(targets), what="target")
    auditors, rows = {}, []
    for k, target in enumerate(targets):
        progress.step(k + 1, f"{target.guarantee} at epsilon = {target.epsilon:g}")
        if target.guarantee not in auditors:
            auditors[target.guarantee] = [lattice_auditor(args.noise, target.guarantee, n.pair.prior_i,
                                                          n.pair.prior_j) for n in pairs]
        verdict, worst = worst_case(auditors[target.guarantee], args.scale, target)
        rows.append({"secret_i": pairs[worst].secret_i, "secret_j": pairs[worst].secret_j, "noise": args.noise,
                     "method": GIVEN, "guarantee": target.guarantee,
                     "epsilon": target.epsilon if args.epsilon else math.nan,
                     "delta": target.delta if target.delta is not None else math.nan,
                     "alpha": target.alpha if target.alpha is not None else math.nan, "scale": args.scale,
                     "achieved": verdict.value, "meets_target": bool(verdict.meets) if args.epsilon else None,
                     "note": verdict.note})
    frame = pd.DataFrame(rows, columns=COLUMNS + ["note"])
    what = f"the largest achieved value over {len(pairs)} pairs" if len(pairs) > 1 else "secret pair"
    header = f"{args.noise} noise of scale {args.scale:g}; {what}: " + "; ".join(
        f"{column} = {i} vs {j}" for (i, j) in frame.groupby(["secret_i", "secret_j"], sort=False).size().index)
    return frame, header



def run(args) -> str:
    """The output of ``pufferfish calibrate`` or ``pufferfish audit`` for parsed ``args``."""
    frame = read_records(args.data)
    priors = build_priors(frame, args.data, args)
    rows, header = (calibrate if args.command == "calibrate" else audit)(priors, args)
    return cl.render(rows, header, args.format, COLUMNS)

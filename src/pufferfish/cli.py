r"""The ``pufferfish`` command: noise scales for a practitioner's own CSV, each audited exactly.

A table of records, a column :math:`X` to be released with additive noise and a column
:math:`S` whose value must stay secret: for a secret pair :math:`(s_i, s_j)` the adversary's
priors are :math:`\Pr(X \mid S = s_i)` and :math:`\Pr(X \mid S = s_j)`, paper 002's attribute
privacy (docs/math/paper002-wasserstein.md), built with the pipeline's own code
(:func:`pufferfish.wasserstein.conditionals.conditional_priors`). Then:

* ``pufferfish calibrate``: every mechanism of the comparison job
  (:func:`pufferfish.comparison.compare.compare_pair`) on the pair, each scale audited exactly
  (:func:`pufferfish.audit.auditor.lattice_auditor`): for one pair, the very rows the pipeline
  writes to ``results/theta/noise_comparison.csv``; ``--noise`` keeps one family;
* ``pufferfish audit``: what a given scale of a given noise achieves on the same priors;
* ``pufferfish iteration``: the :math:`\sigma` each accountant of :mod:`pufferfish.iteration`
  certifies for a noisy-gradient run over one column's records
  (:func:`pufferfish.iteration.experiments.calibration_table`), each audited exactly.

Without ``--pair`` every pair of observed secret values is computed and each row is that of
the *binding* pair (:mod:`pufferfish.comparison.binding`: the largest scale, ties broken as in
Table 1); its ``achieved`` is the worst exact audit of that scale over all pairs
(:func:`pufferfish.audit.verdict.worst_case`). A mistake (a missing file, an unknown column or
noise, a secret value without records, :math:`\epsilon \le 0`, a non-numeric column, a scale
that is not a positive number) ends in one line ``error: ...`` on stderr, exit status 2 for a
usage mistake and 1 for the data, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from pufferfish.errors import PufferfishError, UsageError
from pufferfish.files import read_records, read_user_file
from pufferfish.pipeline import distp_command

__all__ = ["main"]

#: columns of the csv and json outputs of ``calibrate`` and ``audit``
COLUMNS = ["secret_i", "secret_j", "noise", "method", "guarantee", "epsilon", "delta", "alpha", "scale", "achieved",
           "meets_target"]
#: ``--format`` values
FORMATS = ("table", "csv", "json")
#: the ``method`` of the rows of ``pufferfish audit`` (a scale given, not calibrated)
GIVEN = "given_scale"
#: defaults of delta and alpha: those of config.yaml's ``comparison`` section
DEFAULT_DELTA = 1e-5
DEFAULT_ALPHA = 2.0
#: progress lines start when the work has taken this long (seconds), or at once on a terminal
PROGRESS_AFTER = 1.0
#: relative tolerance of the iteration's verdicts, as every verdict of the comparison
#: (:data:`pufferfish.comparison.compare.RTOL`, which ``calibrate`` and ``audit`` use)
RTOL = 1e-9
#: columns of ``pufferfish iteration`` for an (epsilon, delta) target: those of the pipeline's
#: ``results/theta/iteration_*_sigma.csv`` (:data:`pufferfish.iteration.experiments.CALIBRATION_COLUMNS`)
ITERATION_COLUMNS = ["accountant", "eta", "secret_index", "epsilon", "delta", "sigma", "exact_delta", "meets_target"]
#: columns of ``pufferfish iteration --alpha A`` (Renyi target D_alpha <= epsilon): alpha for delta, and the
#: exact D_alpha at the sigma for the exact delta
RENYI_COLUMNS = ["accountant", "eta", "secret_index", "epsilon", "alpha", "sigma", "exact_renyi", "meets_target"]
#: columns of ``pufferfish iteration --all-secrets`` for an (epsilon, delta) target: one row per record (and
#: eta, epsilon), the exact audit of that record as the secret (:func:`pufferfish.iteration.all_secrets_audit`)
ALL_SECRETS_COLUMNS = ["secret_index", "eta", "epsilon", "delta", "alpha", "sigma", "exact", "exact_delta",
                       "exact_sigma", "meets_target"]
#: the same for a Renyi target (``--alpha``): no delta
ALL_SECRETS_RENYI_COLUMNS = ["secret_index", "eta", "epsilon", "alpha", "sigma", "exact", "exact_sigma",
                             "meets_target"]
#: the SeriesSettings name of the command's series (never shown: messages are reworded)
SERIES_NAME = "cli"

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
ITERATION_EXAMPLE = """\
example:
  pufferfish iteration readings.csv --column x --eta 0.1 --epsilon 1 2 --delta 1e-5 \\
      --secret-index 1 50

  Noisy gradient descent with the quadratic loss (a noisy running mean) over the column's
  values in file order, the adversary's prior the stationary Gaussian of the column's
  sample autocovariance, D = max - min: the sigma each accountant certifies for
  (epsilon, delta) when record 1 (then record 50) is the secret, and the exact delta of
  the run at that sigma. --alpha 2 instead of --delta: the Renyi target D_2 <= epsilon.

  pufferfish iteration readings.csv --column x --eta 0.1 --epsilon 1 --delta 1e-5 \
      --all-secrets --sigma 2 --format csv

  Every record as the secret, exactly (no accountant): per record its exact D_2 and delta
  at sigma = 2, and the smallest sigma the exact audit accepts for it; the header names
  the most exposed record.
"""


class _Parser(argparse.ArgumentParser):
    """argparse that ends a usage mistake in one line ``error: ...`` (status 2), not the usage block."""

    def error(self, message: str):
        raise UsageError(f"{message} (see `{self.prog} --help`)")


# ------------------------------------------------------------------------------ argument types
def _number(text: str, *, name: str, **bounds) -> float:
    from pufferfish.checks import real

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name} = {text!r}: not a number") from None
    try:
        return real(value, name=name, **bounds)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _epsilon(text: str) -> float:
    return _number(text, name="--epsilon", lo=0.0, lo_open=True)


def _delta(text: str) -> float:
    return _number(text, name="--delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def _alpha(text: str) -> float:
    return _number(text, name="--alpha", lo=1.0, lo_open=True)


def _scale(text: str) -> float:
    return _number(text, name="--scale", lo=0.0)


def _eta(text: str) -> float:
    return _number(text, name="--eta", lo=0.0, hi=1.0, lo_open=True)


def _secret_index(text: str) -> int:
    from pufferfish.iteration.limits import limit_message, max_records

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--secret-index = {text!r}: not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"--secret-index = {value}: must be >= 1 (records are numbered from 1)")
    if value > max_records():   # no series this machine can hold has such a record
        raise argparse.ArgumentTypeError(limit_message("--secret-index", value, max_records(), "records"))
    return value


def _sigma(text: str) -> float:
    return _number(text, name="--sigma", lo=0.0, lo_open=True)



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
    parser.add_argument("--delta", type=_delta, default=DEFAULT_DELTA,
                        help=f"delta of (epsilon, delta)-PP (default {DEFAULT_DELTA:g})")
    parser.add_argument("--alpha", type=_alpha, default=DEFAULT_ALPHA,
                        help=f"Renyi order of the Cauchy rows (default {DEFAULT_ALPHA:g})")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")


def build_parser() -> argparse.ArgumentParser:
    """The ``pufferfish`` parser and its subcommands (``--noise``: every family of :func:`pufferfish.audit.auditor.noises`)."""
    from pufferfish.audit import noises as audited

    noises = audited()
    fmt = argparse.RawDescriptionHelpFormatter
    parser = _Parser(prog="pufferfish", formatter_class=fmt,
                     description="Noise calibration for pufferfish privacy on your own CSV, every scale "
                                 "audited exactly.",
                     epilog=CALIBRATE_EXAMPLE)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    cal = sub.add_parser("calibrate", formatter_class=fmt, epilog=CALIBRATE_EXAMPLE,
                         help="the noise scale of every method for target epsilons, audited",
                         description="The noise scale of every registered method for each --epsilon, on the "
                                     "priors Pr(released | secret = s), each scale audited exactly.")
    _data_arguments(cal)
    cal.add_argument("--epsilon", type=_epsilon, nargs="+", required=True, metavar="E", help="target epsilons (> 0)")
    cal.add_argument("--noise", choices=(*noises, "all"), default="all", help="which noise family (default all)")
    aud = sub.add_parser("audit", formatter_class=fmt, epilog=AUDIT_EXAMPLE,
                         help="what a given noise scale achieves, exactly",
                         description="What noise of a given scale achieves on the priors Pr(released | secret = s), "
                                     "for every guarantee its exact auditor checks.")
    _data_arguments(aud)
    aud.add_argument("--noise", choices=noises, required=True, help="the noise family")
    aud.add_argument("--scale", type=_scale, required=True, metavar="S",
                     help="the noise scale (Laplace b, Gaussian sigma, Cauchy gamma, geometric b: "
                          "Pr(G = g) proportional to exp(-|g| / b))")
    aud.add_argument("--epsilon", type=_epsilon, nargs="+", metavar="E",
                     help="target epsilons: verdicts, and the delta of (epsilon, delta)-PP at each")
    it = sub.add_parser("iteration", formatter_class=fmt, epilog=ITERATION_EXAMPLE,
                        help="the sigma of noisy gradient descent over correlated records, audited",
                        description="The sigma each accountant of pufferfish.iteration certifies for noisy gradient "
                                    "descent with the quadratic loss over one column's records in file order "
                                    "(paper 002, Section 6.4), each sigma audited exactly.")
    it.add_argument("data", metavar="DATA.csv", help="the records, one per row, with a header line")
    it.add_argument("--column", required=True, metavar="COL", help="the numeric column: record t is step t")
    it.add_argument("--eta", type=_eta, nargs="+", required=True, metavar="E", help="step sizes, in (0, 1]")
    it.add_argument("--epsilon", type=_epsilon, nargs="+", required=True, metavar="E", help="target epsilons (> 0)")
    target = it.add_mutually_exclusive_group(required=True)
    target.add_argument("--delta", type=_delta, metavar="D", help="delta of the (epsilon, delta) target, in (0, 1)")
    target.add_argument("--alpha", type=_alpha, metavar="A",
                        help="instead of --delta: the Renyi target D_alpha <= epsilon at order A > 1")
    it.add_argument("--secret-index", type=_secret_index, nargs="+", metavar="K",
                    help="1-based positions of the secret record (default 1, the first)")
    it.add_argument("--all-secrets", action="store_true",
                    help="every record as the secret, by the exact audit alone (one convolution per eta, no "
                         "accountant): one row per record (and eta, epsilon) with secret_index (1-based), exact "
                         "(the exact Renyi divergence at --alpha, default 2, and --sigma, as in the series "
                         "tables), exact_delta (with --delta: the exact delta at epsilon, so the rows that fail "
                         "the target at --sigma show), exact_sigma (the smallest sigma the exact audit accepts "
                         "for that record: its largest protects every record) and meets_target; the header "
                         "names the most exposed record per eta")
    it.add_argument("--sigma", type=_sigma, metavar="S",
                    help="with --all-secrets: the noise standard deviation audited (default 1, as the series "
                         "tables)")
    it.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    distp_command.add_parser(sub, fmt)
    return parser


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


class Progress:
    """``<what> k/n: ...`` lines on stderr (``pair 3/45: a vs b``), at once on a terminal, else
    once the work has taken :data:`PROGRESS_AFTER` seconds (a single step prints nothing)."""

    def __init__(self, total: int, stream=None, *, what: str = "pair"):
        self.total, self.stream, self.start, self.what = total, stream or sys.stderr, time.monotonic(), what
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def step(self, k: int, text: str) -> None:
        if self.total > 1 and (self.tty or time.monotonic() - self.start > PROGRESS_AFTER):
            print(f"{self.what} {k}/{self.total}: {text}", file=self.stream, flush=True)


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
                         progress=Progress(len(pairs)).step)
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
    from pufferfish.comparison.compare import RTOL

    column = priors.record["column"]
    pairs = conditional_pairs(priors.conditionals, column=column)
    targets = _audit_targets(args)
    progress = Progress(len(targets), what="target")
    auditors, rows = {}, []
    for k, target in enumerate(targets):
        progress.step(k + 1, f"{target.guarantee} at epsilon = {target.epsilon:g}")
        if target.guarantee not in auditors:
            auditors[target.guarantee] = [lattice_auditor(args.noise, target.guarantee, n.pair.prior_i,
                                                          n.pair.prior_j) for n in pairs]
        verdict, worst = worst_case(auditors[target.guarantee], args.scale, target, rtol=RTOL)
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


# ------------------------------------------------------------------------------ iteration
def _series_settings(args):
    """The pipeline's typed settings of a series for the command's arguments (the prior, D and
    the calibration of :mod:`pufferfish.iteration.experiments` read only these fields)."""
    from pufferfish.iteration.settings import SeriesSettings

    return SeriesSettings(name=SERIES_NAME, dataset=args.data, column=args.column, order="file",
                          etas=tuple(args.eta), sigma=1.0, alpha=args.alpha or DEFAULT_ALPHA,
                          secret_every=1, epsilons=tuple(args.epsilon), delta=args.delta or DEFAULT_DELTA)


def read_column(args):
    """The values of ``--column`` in file order, read as the pipeline reads a series
    (:func:`pufferfish.iteration.experiments.read_series`), its messages in the command's words."""
    from pufferfish.errors import DataError
    from pufferfish.iteration.experiments import read_series

    settings = _series_settings(args)
    try:
        return read_user_file(args.data, read_series, args.data, settings)
    except DataError as err:
        import re

        where = f"iteration.series.{SERIES_NAME}"
        text = (str(err).replace(f" ({where})", "")
                .replace(f"({where} needs every record)", "(every record is a step of the run)")
                .replace(f"{args.data}: no column {args.column!r}", f"--column {args.column!r}: no such column in "
                                                                   f"{args.data}")
                .replace(f"{args.data}.{args.column}:", f"--column {args.column!r} in {args.data}:"))
        # the pipeline counts data rows from 0; the command counts records (and secret indices) from 1
        text = re.sub(r"\brow (\d+) is", lambda m: f"record {int(m.group(1)) + 1} (line {int(m.group(1)) + 2}) is",
                      text)
        raise DataError(text) from None


def iteration(values, args) -> tuple:
    r"""The rows of ``pufferfish iteration``: per eta, secret index, epsilon and accountant (and
    ``exact``, the exact audit's own smallest sigma) the sigma and its exact audit.

    The prior and D are the pipeline's (:func:`~pufferfish.iteration.experiments.series_prior`),
    the model's costs those of :func:`~pufferfish.iteration.model.account_quadratic_model`; an
    :math:`(\epsilon, \delta)` target gives the rows of
    :func:`~pufferfish.iteration.experiments.calibration_table` (the pipeline's
    ``iteration_*_sigma.csv``), a Renyi target (``--alpha``) those of
    :func:`~pufferfish.iteration.calibrate.sigma_for_renyi` and
    :func:`~pufferfish.iteration.calibrate.exact_sigma`, each audited by
    :func:`~pufferfish.iteration.calibrate.audit_sigma`.
    """
    import pandas as pd

    from pufferfish.errors import DataError, InvalidArgumentError
    from pufferfish.iteration.accountants import ACCOUNTANTS
    from pufferfish.iteration.calibrate import audit_sigma, exact_sigma, sigma_for_renyi
    from pufferfish.iteration.experiments import calibration_table, series_prior
    from pufferfish.iteration.model import account_quadratic_model

    settings = _series_settings(args)
    _check_iteration_sizes(values, args)
    try:
        covariance, diameter = series_prior(values)
    except InvalidArgumentError:   # biased_autocovariance refuses a constant series
        raise DataError(f"--column {args.column!r} in {args.data}: is constant over its {len(values)} record(s) "
                        "(variance 0): no prior to estimate") from None
    if args.all_secrets:
        return _all_secrets(covariance, diameter, args)
    secrets = list(dict.fromkeys(args.secret_index or [1]))
    late = [k for k in secrets if k > covariance.size]
    if late:
        raise DataError(f"--secret-index {late[0]}: past the last record ({args.data} has {covariance.size} "
                        f"records in --column {args.column!r})")
    steps = [(eta, k) for eta in args.eta for k in secrets]
    progress = Progress(len(steps), what="secret")
    frames = []
    for n, (eta, k) in enumerate(steps):
        progress.step(n + 1, f"eta = {eta:g}, record {k} of {covariance.size}")
        account = account_quadratic_model(covariance, secret_index=k, eta=eta, diameter=diameter,
                                          sigma=settings.sigma)
        if args.alpha is None:
            frames.append(calibration_table(values, settings, rtol=RTOL,
                                            accounts=(covariance, diameter, {(eta, k): account})))
            continue
        rows = []
        for epsilon in args.epsilon:
            smallest = exact_sigma(account.audit, epsilon=epsilon, alpha=args.alpha)
            for name in (*ACCOUNTANTS, "exact"):
                sigma = smallest if name == "exact" else sigma_for_renyi(account.costs[name], alpha=args.alpha,
                                                                         epsilon=epsilon)
                check = audit_sigma(account.audit, sigma, epsilon=epsilon, alpha=args.alpha, rtol=RTOL)
                rows.append({"accountant": name, "eta": eta, "secret_index": k, "epsilon": epsilon,
                             "alpha": args.alpha, "sigma": check.scale, "exact_renyi": check.value,
                             "meets_target": bool(check.meets)})
        frames.append(pd.DataFrame(rows, columns=RENYI_COLUMNS))
    rows = pd.concat(frames, ignore_index=True)
    target = (f"D_{args.alpha:g} <= epsilon" if args.alpha is not None else f"(epsilon, delta = {args.delta:g})")
    header = (f"noisy gradient descent, quadratic loss, over {covariance.size} records of {args.column!r} in file "
              f"order; prior: stationary Gaussian (sample autocovariance), D = {diameter:.6g}; target {target}; "
              "exact: the exact audit's own smallest sigma")
    return rows, header


def _check_iteration_sizes(values, args) -> None:
    """The options that go together, and the sizes this machine can hold (:mod:`pufferfish.iteration.limits`),
    before anything is computed."""
    from pufferfish.errors import DataError
    from pufferfish.iteration.limits import limit_message, max_records, max_rows

    if args.all_secrets and args.secret_index is not None:
        raise UsageError("--secret-index and --all-secrets: give one (--all-secrets audits every record)")
    if args.sigma is not None and not args.all_secrets:
        raise UsageError("--sigma: only with --all-secrets (otherwise sigma is what the command calibrates)")
    records, bound = len(values), max_records(len(args.eta))
    if records > bound:
        raise DataError(limit_message(f"--column {args.column!r} in {args.data}: the records", records, bound,
                                      f"records with {len(args.eta)} eta(s)"))
    rows, most = records * len(args.eta) * len(args.epsilon), max_rows(records, len(args.eta))
    if args.all_secrets and rows > most:
        raise UsageError(limit_message("--all-secrets: records x etas x epsilons", rows, most, "output rows"))


def _all_secrets(covariance, diameter, args) -> tuple:
    """The rows of ``pufferfish iteration --all-secrets`` (:data:`ALL_SECRETS_COLUMNS`, or
    :data:`ALL_SECRETS_RENYI_COLUMNS` with ``--alpha``) and their header."""
    import numpy as np
    import pandas as pd

    from pufferfish.iteration.every_secret import all_secrets_audit

    alpha, sigma = args.alpha or DEFAULT_ALPHA, args.sigma or 1.0
    frames, exposed = [], []
    for eta in args.eta:
        audit = all_secrets_audit(covariance, eta=eta, sigma=sigma, diameter=diameter)
        exact = audit.renyi(alpha=alpha)
        exposed.append(f"eta = {eta:g}: record {audit.most_exposed()} (exact {exact.max():.6g})")
        for epsilon in args.epsilon:
            frame = pd.DataFrame({"secret_index": np.arange(1, covariance.size + 1), "eta": eta, "epsilon": epsilon,
                                  "alpha": alpha, "sigma": sigma, "exact": exact})
            if args.alpha is None:
                frame["delta"] = args.delta
                frame["exact_delta"] = audit.delta(epsilon=epsilon)
                frame["exact_sigma"] = audit.smallest_sigma(epsilon=epsilon, delta=args.delta)
                frame["meets_target"] = frame.exact_delta <= args.delta * (1.0 + RTOL)
            else:
                frame["exact_sigma"] = audit.smallest_sigma(epsilon=epsilon, alpha=alpha)
                frame["meets_target"] = frame.exact <= epsilon * (1.0 + RTOL)
            frames.append(frame)
    target = f"D_{alpha:g} <= epsilon" if args.alpha is not None else f"(epsilon, delta = {args.delta:g})"
    header = (f"noisy gradient descent, quadratic loss, over {covariance.size} records of {args.column!r} in file "
              f"order; prior: stationary Gaussian (sample autocovariance), D = {diameter:.6g}; every record as the "
              f"secret, exact audit at sigma = {sigma:g} (exact: D_{alpha:g}); target {target}; exact_sigma: the "
              f"smallest sigma the exact audit accepts for the record; most exposed: {'; '.join(exposed)}")
    return pd.concat(frames, ignore_index=True), header


def iteration_columns(args) -> list[str]:
    """The output columns of ``pufferfish iteration`` for these arguments."""
    if args.all_secrets:
        return ALL_SECRETS_RENYI_COLUMNS if args.alpha is not None else ALL_SECRETS_COLUMNS
    return RENYI_COLUMNS if args.alpha is not None else ITERATION_COLUMNS


# ------------------------------------------------------------------------------ output
def render(frame, header: str, fmt: str, columns: Sequence[str] = COLUMNS) -> str:
    """``frame`` as CSV or a JSON list of records (exactly ``columns``, default :data:`COLUMNS`), or
    as an aligned table under ``header`` (text left, numbers right; a ``note`` such as which
    paper-000 method is the best one follows the method's name)."""
    columns = list(columns)
    if fmt == "csv":
        return frame[columns].to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        records = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                   for r in frame[columns].astype(object).to_dict("records")]
        return json.dumps(records, indent=1, default=_plain) + "\n"
    numbers = ("epsilon", "delta", "alpha", "scale", "achieved", "eta", "secret_index", "sigma", "exact_delta",
               "exact_renyi", "exact", "exact_sigma")
    cells = []
    for row in frame.to_dict("records"):
        # the comparison's notes: "= <method>" (which paper-000 method is the best) goes beside the method
        parts = [n for n in str(row.get("note") or "").split("; ") if n]
        notes = [next((n for n in parts if n.startswith("= ")), "")] + [n for n in parts if not n.startswith("= ")]
        line = []
        for column in columns:
            value = row[column]
            if column in numbers:
                line.append("" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.6g}")
            elif column == "meets_target":
                line.append("" if value is None else ("yes" if value else "NO"))
            elif column == "method" and notes[0]:
                line.append(f"{value} ({notes[0]})")
            else:
                line.append(str(value))
        cells.append(line + ["; ".join(notes[1:])])
    names = columns + (["note"] if any(line[-1] for line in cells) else [])
    widths = [max(len(c), *(len(line[k]) for line in cells)) for k, c in enumerate(names)]

    def text(line):
        return "  ".join(v.rjust(w) if names[k] in numbers else v.ljust(w)
                         for k, (v, w) in enumerate(zip(line, widths))).rstrip()

    return "\n".join([header, "", text(names), *map(text, cells)]) + "\n"


def _plain(value):
    """numpy scalars as Python numbers for json."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{value!r} is not JSON serializable")


# ------------------------------------------------------------------------------ main
def _run(args) -> str:
    if args.command == "distp":
        return distp_command.run(args)
    if args.command == "iteration":
        rows, header = iteration(read_column(args), args)
        return render(rows, header, args.format, iteration_columns(args))
    frame = read_records(args.data)
    priors = build_priors(frame, args.data, args)
    rows, header = (calibrate if args.command == "calibrate" else audit)(priors, args)
    return render(rows, header, args.format)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``pufferfish`` console script: 0 on success, 2 for a usage mistake, 1 for the data.

    The user's mistakes (:class:`~pufferfish.errors.PufferfishError`, and ``OSError`` such as an
    unreadable file) end in one line ``error: ...`` on stderr; anything else is a bug and keeps
    its traceback.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after ``pufferfish`` (default: the command line).

    Returns
    -------
    int
        The exit status: 0 on success, 2 for a usage mistake, 1 for the data.

    Raises
    ------
    SystemExit
        From :mod:`argparse` for ``--help`` (status 0) and a malformed command line (status 2,
        its one-line message on stderr).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        text = _run(args)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except (PufferfishError, OSError) as err:
        print(f"error: {_one_line(err)}", file=sys.stderr)
        return 1
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `pufferfish ... | head`
        return 0
    return 0


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    if isinstance(err, OSError) and err.filename is not None and str(err.filename) not in text:
        text = f"{err.filename}: {text}"
    return text or type(err).__name__

r"""``pufferfish iteration``: the :math:`\sigma` of noisy gradient descent over one column's records, audited.

The :math:`\sigma` each accountant of :mod:`pufferfish.iteration` certifies for a
noisy-gradient run over one column's records
(:func:`pufferfish.iteration.experiments.calibration_table`, the pipeline's
``results/theta/iteration_*_sigma.csv``), each audited exactly; ``--all-secrets`` audits
every record as the secret (:func:`pufferfish.iteration.every_secret.all_secrets_audit`). A
mistake ends in one line ``error: ...`` naming the option or the file. Declared by the
iteration paper (:data:`pufferfish.iteration.paper.PAPER`).
"""

from __future__ import annotations

import argparse

from pufferfish import command_line as cl
from pufferfish.errors import UsageError
from pufferfish.files import read_user_file

__all__ = ["RTOL", "ITERATION_COLUMNS", "RENYI_COLUMNS", "ALL_SECRETS_COLUMNS", "ALL_SECRETS_RENYI_COLUMNS",
           "EXAMPLE", "add_parser", "read_column", "iteration", "iteration_columns", "run"]

#: relative tolerance of the iteration's verdicts
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

EXAMPLE = """\
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




def _eta(text: str) -> float:
    return cl.number(text, name="--eta", lo=0.0, hi=1.0, lo_open=True)


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
    return cl.number(text, name="--sigma", lo=0.0, lo_open=True)


def add_parser(subparsers, formatter_class) -> argparse.ArgumentParser:
    """Add ``pufferfish iteration`` to ``subparsers`` (argparse subparsers) and return its parser."""
    it = subparsers.add_parser("iteration", formatter_class=formatter_class, epilog=EXAMPLE,
                               help="the sigma of noisy gradient descent over correlated records, audited",
                               description="The sigma each accountant of pufferfish.iteration certifies for noisy "
                                           "gradient descent with the quadratic loss over one column's records in "
                                           "file order (paper 002, Section 6.4), each sigma audited exactly.")
    it.add_argument("data", metavar="DATA.csv", help="the records, one per row, with a header line")
    it.add_argument("--column", required=True, metavar="COL", help="the numeric column: record t is step t")
    it.add_argument("--eta", type=_eta, nargs="+", required=True, metavar="E", help="step sizes, in (0, 1]")
    it.add_argument("--epsilon", type=cl.epsilon, nargs="+", required=True, metavar="E", help="target epsilons (> 0)")
    target = it.add_mutually_exclusive_group(required=True)
    target.add_argument("--delta", type=cl.delta, metavar="D", help="delta of the (epsilon, delta) target, in (0, 1)")
    target.add_argument("--alpha", type=cl.alpha, metavar="A",
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
    it.add_argument("--format", choices=cl.FORMATS, default="table", help="output format (default table)")
    return it


def _series_settings(args):
    """The pipeline's typed settings of a series for the command's arguments (the prior, D and
    the calibration of :mod:`pufferfish.iteration.experiments` read only these fields)."""
    from pufferfish.iteration.settings import SeriesSettings

    return SeriesSettings(name=SERIES_NAME, dataset=args.data, column=args.column, order="file",
                          etas=tuple(args.eta), sigma=1.0, alpha=args.alpha or cl.DEFAULT_ALPHA,
                          secret_every=1, epsilons=tuple(args.epsilon), delta=args.delta or cl.DEFAULT_DELTA)


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
    progress = cl.Progress(len(steps), what="secret")
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

    alpha, sigma = args.alpha or cl.DEFAULT_ALPHA, args.sigma or 1.0
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
                frame["meets_target"] = frame.exact_delta <= args.delta
            else:
                frame["exact_sigma"] = audit.smallest_sigma(epsilon=epsilon, alpha=alpha)
                frame["meets_target"] = frame.exact <= epsilon
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



def run(args) -> str:
    """The output of ``pufferfish iteration`` for parsed ``args`` (table, CSV or JSON)."""
    rows, header = iteration(read_column(args), args)
    return cl.render(rows, header, args.format, iteration_columns(args))

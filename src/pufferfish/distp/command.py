"""``pufferfish distp``: distribution privacy (paper 003) of one local mechanism on your CSV.

The released column's law among the records of the two ``--pair`` values of the ``--secret``
column gives lambda0, lambda1 (:func:`pufferfish.distp.experiments.case_laws`). Without
``--delta`` the command prints delta(eps) for each ``--epsilon`` (exact, or a certified
interval for the tupling mechanism), the pure eps, the introduction's bound and the service
loss (:func:`pufferfish.distp.experiments.evaluate`); with ``--delta`` it calibrates the
mechanism for each (eps, delta) and says whether the exact audit confirms the parameter
(:func:`pufferfish.distp.experiments.calibrate`). Declared by the distp paper
(:data:`pufferfish.distp.paper.PAPER`), added to the command by :mod:`pufferfish.cli`.
"""

from __future__ import annotations

import argparse
import math

__all__ = ["EXAMPLE", "EVALUATE_COLUMNS", "CALIBRATE_COLUMNS", "add_parser", "run"]

EXAMPLE = """example:
  pufferfish distp adult.csv --released education-num --secret sex --pair Male Female \\
      --mechanism tupling_rr --base-epsilon 2 --dummies 20 --epsilon 0.5 1
  pufferfish distp adult.csv --released education-num --secret sex --pair Male Female \\
      --mechanism geometric --epsilon 0.5 --delta 1e-5
"""
#: the columns printed without --delta
EVALUATE_COLUMNS = ["mechanism", "base_epsilon", "dummies", "dummy_distribution", "epsilon", "delta", "delta_upper",
                    "pure_epsilon", "bound_epsilon", "service_loss"]
#: the columns printed with --delta
CALIBRATE_COLUMNS = ["mechanism", "epsilon", "delta", "parameter", "base_epsilon", "dummies", "service_loss",
                     "delta_achieved", "audit_confirms", "reason"]
_MECHANISMS = ("rr", "geometric", "laplace", "gaussian", "tupling_rr", "tupling_geometric")


def _real(text: str, name: str, lo: float, hi: float = math.inf, lo_open: bool = True, hi_open: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name} {text!r}: not a number") from None
    if not math.isfinite(value) or value < lo or (lo_open and value == lo) or value > hi or (hi_open and value == hi):
        raise argparse.ArgumentTypeError(f"{name} {text!r}: must be in {'(' if lo_open else '['}{lo:g}, "
                                         f"{hi:g}{')' if hi_open or hi == math.inf else ']'}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--dummies {text!r}: not an integer") from None
    if not 0 <= value <= 10_000:
        raise argparse.ArgumentTypeError(f"--dummies {text!r}: must be an integer in [0, 10000]")
    return value


def add_parser(sub, formatter_class) -> argparse.ArgumentParser:
    """Add the ``distp`` subcommand to ``sub`` (argparse subparsers) and return its parser."""
    parser = sub.add_parser("distp", formatter_class=formatter_class, epilog=EXAMPLE,
                            help="distribution privacy of a local mechanism (paper 003), audited exactly",
                            description="DistP delta(eps) of one local mechanism for the released column's laws "
                                        "given the two --pair values of --secret (paper 003), or with --delta the "
                                        "mechanism's best-utility parameter, each confirmed by an exact audit.")
    parser.add_argument("data", metavar="DATA.csv", help="the records, one per row, with a header line")
    parser.add_argument("--released", required=True, metavar="COL", help="the released column")
    parser.add_argument("--secret", required=True, metavar="COL", help="the protected column")
    parser.add_argument("--pair", nargs=2, required=True, metavar=("A", "B"), help="the two protected values")
    parser.add_argument("--mechanism", choices=_MECHANISMS, required=True, help="the local mechanism")
    parser.add_argument("--kind", choices=("ordinal", "categorical"), default="ordinal",
                        help="ordinal (integer values, every mechanism) or categorical (rr, tupling_rr); default ordinal")
    parser.add_argument("--base-epsilon", type=lambda t: _real(t, "--base-epsilon", 0.0, 700.0), metavar="E",
                        help="eps_A of the mechanism (Laplace, Gaussian: scale 1/eps_A); with --delta only for tupling")
    parser.add_argument("--dummies", type=_count, metavar="K",
                        help="k of the tupling mechanism (with --delta: the largest k tried, default 200)")
    parser.add_argument("--dummy-distribution", choices=("uniform", "marginal"), default="uniform",
                        help="the dummies' law: uniform on the outputs or the column's marginal (default uniform)")
    parser.add_argument("--epsilon", type=lambda t: _real(t, "--epsilon", 0.0, 700.0, lo_open=False), nargs="+",
                        required=True, metavar="E", help="the eps of delta(eps), or the target eps with --delta")
    parser.add_argument("--delta", type=lambda t: _real(t, "--delta", 0.0, 1.0, hi_open=True), metavar="D",
                        help="calibrate for the (eps, D) targets instead")
    parser.add_argument("--rtol", type=lambda t: _real(t, "--rtol", 0.0, 1.0), default=1e-6,
                        help="the certified interval's relative width (tupling; default 1e-6)")
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output format")
    return parser


def _check_options(args) -> None:
    from pufferfish.errors import UsageError

    tupling = args.mechanism.startswith("tupling_")
    if args.kind == "categorical" and args.mechanism not in ("rr", "tupling_rr"):
        raise UsageError(f"--mechanism {args.mechanism}: a categorical column takes rr or tupling_rr")
    if args.base_epsilon is None and (tupling or args.delta is None):
        raise UsageError(f"--base-epsilon: needed for --mechanism {args.mechanism}"
                         + ("" if tupling else " (or --delta to calibrate it)"))
    if args.base_epsilon is not None and args.delta is not None and not tupling:
        raise UsageError(f"--base-epsilon with --delta: --mechanism {args.mechanism} calibrates it; leave it out")
    if args.dummies is not None and not tupling:
        raise UsageError(f"--dummies: only for tupling_rr and tupling_geometric, not {args.mechanism}")
    if tupling and args.delta is None and args.dummies is None:
        raise UsageError(f"--dummies: needed for --mechanism {args.mechanism} (or --delta to find the smallest k)")


def _laws(args):
    """The case's laws from the CSV, each data mistake one line naming the option or the file."""
    from pufferfish.files import read_records
    from pufferfish.distp.experiments import case_laws
    from pufferfish.errors import DataError

    frame = read_records(args.data)
    for option, name in (("--released", args.released), ("--secret", args.secret)):
        if name not in frame.columns:
            raise DataError(f"{option} {name!r}: no such column in {args.data}")
    if args.released == args.secret:
        raise DataError(f"--released and --secret are both {args.released!r}")
    if args.pair[0] == args.pair[1]:
        raise DataError(f"--pair {args.pair[0]!r} {args.pair[1]!r}: the two values must differ")
    numeric = frame[args.secret].dtype.kind in "iufb"
    values = [_pair_value(text, args.secret) if numeric else text for text in args.pair]
    spec = {"released": args.released, "protected": args.secret, "values": values, "kind": args.kind}
    try:
        return case_laws(frame, spec, name="command")
    except DataError as err:
        message = str(err)
        for text, value in zip(args.pair, values):  # a number as the user wrote it (7, not 7.0)
            if value is not text:
                message = message.replace(f"{args.secret} = {value!r} ", f"{args.secret} = {text} ")
        raise DataError(message.replace("distp.cases.command", args.data)
                        .replace(f"no record with {args.secret} =", f"--pair: no record with {args.secret} =")
                        .replace("kind ordinal needs", "--kind ordinal (the default) needs")) from None


def _pair_value(text: str, secret: str):
    """A ``--pair`` value of a numeric column: an int where the text is one (``7``), else a float."""
    from pufferfish.errors import DataError

    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    raise DataError(f"--pair {text!r}: {secret!r} is numeric")


def run(args) -> str:
    """The output of ``pufferfish distp`` for parsed ``args`` (table, CSV or JSON).

    Raises
    ------
    UsageError, DataError, InvalidArgumentError
        One line naming the option or the file.
    TargetNotMetError
        With ``--delta``: some target has no parameter the exact audit confirms (the table is
        its ``output``; the command prints it and exits with status 1).
    """
    import pandas as pd

    from pufferfish.audit.target import target_for
    from pufferfish.distp.experiments import calibrate, evaluate
    from pufferfish.errors import TargetNotMetError

    _check_options(args)
    laws = _laws(args)
    if args.delta is None:
        rows = evaluate(laws, args.mechanism, base_epsilon=args.base_epsilon, epsilons=args.epsilon,
                        dummies=args.dummies or 0, dummy_distribution=args.dummy_distribution, rtol=args.rtol)
        exact = all(r["delta"] == r["delta_upper"] for r in rows)
        note = "delta exact" if exact else "delta certified: the true value lies in [delta, delta_upper]"
        return _render(pd.DataFrame(rows), EVALUATE_COLUMNS, args, laws, note)
    rows = []
    for eps in args.epsilon:
        target = target_for("epsilon_delta", eps, delta=args.delta)
        row, verdict = calibrate(laws, args.mechanism, target, base_epsilon=args.base_epsilon,
                                 dummy_distribution=args.dummy_distribution,
                                 max_dummies=200 if args.dummies is None else args.dummies, rtol=args.rtol)
        rows.append({**row, "epsilon": eps, "delta": args.delta, "dummies": row.get("dummies", math.nan),
                     "base_epsilon": row.get("base_epsilon", math.nan),
                     "delta_achieved": math.nan if verdict is None else verdict.value,
                     "audit_confirms": verdict is not None and verdict.meets})
    unmet = [r["epsilon"] for r in rows if not r["audit_confirms"]]
    note = ("the exact audit confirms every parameter" if not unmet else
            "NOT every parameter is confirmed by the exact audit (audit_confirms = NO; see reason)")
    text = _render(pd.DataFrame(rows), CALIBRATE_COLUMNS, args, laws, note)
    if unmet:
        raise TargetNotMetError(f"--mechanism {args.mechanism}: no parameter meets (epsilon, {args.delta:g}) at "
                                f"epsilon = {', '.join(f'{e:g}' for e in unmet)} (see the table's reason column)",
                                output=text)
    return text


def _render(frame, columns: list, args, laws, note: str) -> str:
    import json

    frame = frame.reindex(columns=columns)
    if args.format == "csv":
        return frame.to_csv(index=False, lineterminator="\n")
    if args.format == "json":
        records = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                   for r in frame.astype(object).to_dict("records")]
        return json.dumps(records, indent=1, default=str) + "\n"
    shown = frame.astype(object).where(frame.notna(), "")
    if "audit_confirms" in shown:
        shown["audit_confirms"] = ["yes" if v is True else "NO" for v in frame["audit_confirms"]]
    header = (f"# {args.released} given {args.secret} = {args.pair[0]} ({laws.counts[0]} records) vs "
              f"{args.pair[1]} ({laws.counts[1]} records); {len(laws.domain)} values; {note}\n")
    return header + shown.to_string(index=False, float_format=lambda v: f"{v:.6g}") + "\n"

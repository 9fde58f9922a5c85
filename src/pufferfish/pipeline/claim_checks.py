"""The checks of the ledger of claims (``workflow/report/claims.yaml``).

A claim is a sentence of the docs, the README or a report caption that states a fact about the
results; its ``check`` names one function of :data:`CHECKS` and gives it its arguments. Every
check reads result tables (:class:`Tables`) and returns a :class:`Verdict`: what the tables hold
(``value``, as text) and whether the sentence is true of them (``holds``).

Numbers are selected from a table by a *selection* (:func:`select`): ``file`` (a CSV or JSON
file under the run's directory, or a list of such files read as one table; ``records`` names a
list inside a JSON file, one row per element; ``explode`` a column of lists, one row per item),
``where`` (column -> value, or a list of values, compared as text), ``count_by`` (columns: one
row per group, its size in column ``count``), ``pivot`` (``index``, ``columns``, ``values`` and
``aggfunc``, default ``first``: one column per value of ``columns``, e.g. one per method),
``query`` (a boolean expression of the columns, after the pivot), ``expr`` (an expression of
the columns) or ``column``, and ``reduce`` (:data:`REDUCERS`). Expressions are parsed by
:func:`evaluate` and allow only column names, numbers, arithmetic, comparisons,
``and``/``or``/``not`` and the functions of :data:`FUNCTIONS`: nothing of the YAML is handed to
Python's ``eval``.

A selected number is compared with the sentence by one of :data:`COMPARISONS`; ``printed``
holds when the number shows as the printed text at the printed precision (``"2.46"`` holds for
any value in [2.455, 2.465], ``"42"`` only for 42 when the value is a count).
"""

from __future__ import annotations

import ast
import json
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pufferfish.errors import ConfigError, DataError

if TYPE_CHECKING:  # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["Verdict", "Tables", "CHECKS", "REDUCERS", "FUNCTIONS", "COMPARISONS", "evaluate", "select",
           "printed_matches", "compare", "values", "combine", "conditional_distance", "plan_moves",
           "checked_files"]

#: how the selected values become one number
REDUCERS = ("single", "min", "max", "sum", "count", "range", "mean", "median", "all", "any", "nunique")
#: the functions an expression may call (numpy's, elementwise)
FUNCTIONS = ("abs", "log", "log10", "exp", "sqrt", "isfinite", "isnan")
#: how a selected number is compared with the sentence
COMPARISONS = ("printed", "equals", "at_most", "at_least", "below", "above")

_AGGREGATES = ("first", "min", "max", "mean", "count")
_SELECT_KEYS = {"file", "records", "explode", "where", "count_by", "query", "pivot", "expr", "column", "reduce"}


@dataclass(frozen=True)
class Verdict:
    """What a check found: ``value``, the numbers read (text), and whether the claim ``holds``."""

    value: str
    holds: bool


class Tables:
    """The result files under ``root``, each read once (CSV by :func:`pufferfish.files.read_table`,
    JSON as one row, or one row per element of the list at ``records``)."""

    def __init__(self, root: str | Path = "."):
        self.root = Path(root)
        self._cache: dict = {}

    def frame(self, file: str, records: str | None = None) -> pd.DataFrame:
        """The table of ``file`` (a :class:`~pufferfish.errors.DataError` naming it when it cannot be read)."""
        import pandas as pd

        key = (file, records)
        if key not in self._cache:
            path = self.root / file
            try:
                if path.suffix == ".json":
                    with open(path, encoding="utf-8") as handle:
                        data = json.load(handle)
                    for part in (records.split(".") if records else []):
                        data = data[part]
                    self._cache[key] = pd.json_normalize(data)
                else:
                    from pufferfish.files import read_table
                    self._cache[key] = read_table(path)
            except (OSError, ValueError, KeyError, TypeError) as err:
                raise DataError(f"{file}{' ' + records if records else ''} cannot be read: {err}") from None
        return self._cache[key]


# ------------------------------------------------------------------------------ expressions
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow, ast.Mod: operator.mod}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.Eq: operator.eq, ast.NotEq: operator.ne}


def evaluate(expr: str, frame: pd.DataFrame):
    """The value of ``expr`` over the columns of ``frame`` (a Series, or a number).

    Only column names, numbers and strings, ``+ - * / ** %``, comparisons (chained allowed),
    ``and``, ``or``, ``not`` and calls of :data:`FUNCTIONS` are accepted; anything else (an
    attribute, a subscript, a call of another function) is a :class:`~pufferfish.errors.ConfigError` naming it. A
    name that is no column of ``frame`` is a :class:`~pufferfish.errors.DataError` (the table does not hold what
    the claim reads).
    """
    try:
        tree = ast.parse(str(expr), mode="eval")
    except SyntaxError:
        raise ConfigError(f"claims: expression {expr!r} is not an expression (a column named like a Python "
                          "keyword, e.g. lambda, cannot be named in one: select it with 'where')") from None
    return _node(tree.body, frame, expr)


def _node(node, frame, expr):
    import numpy as np

    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in frame.columns:
            raise DataError(f"expression {expr!r}: no column {node.id!r} (columns: {', '.join(map(str, frame.columns))})")
        return frame[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_node(node.left, frame, expr), _node(node.right, frame, expr))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        inner = _node(node.operand, frame, expr)
        return -inner if isinstance(node.op, ast.USub) else ~np.asarray(inner, dtype=bool)
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        left, result = _node(node.left, frame, expr), True
        for op, right_node in zip(node.ops, node.comparators):
            right = _node(right_node, frame, expr)
            result = result & _COMPARE[type(op)](left, right)
            left = right
        return result
    if isinstance(node, ast.BoolOp):
        parts = [np.asarray(_node(v, frame, expr), dtype=bool) for v in node.values]
        combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        out = parts[0]
        for part in parts[1:]:
            out = combine(out, part)
        return out
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
            and not node.keywords and len(node.args) == 1):
        return getattr(np, node.func.id)(_node(node.args[0], frame, expr))
    raise ConfigError(f"claims: expression {expr!r}: {ast.unparse(node)!r} is not allowed "
                      f"(columns, numbers, arithmetic, comparisons, and/or/not, {', '.join(FUNCTIONS)})")


# ------------------------------------------------------------------------------ selection
def _rows(tables: Tables, spec: Mapping) -> pd.DataFrame:
    """The rows of ``spec``'s table that its ``where``, ``query`` and ``pivot`` select."""
    import numpy as np
    import pandas as pd

    files = spec["file"] if isinstance(spec["file"], list) else [spec["file"]]
    frame = pd.concat([tables.frame(f, spec.get("records")) for f in files], ignore_index=True)
    if "explode" in spec:
        frame = frame.explode(spec["explode"], ignore_index=True)
    for column, wanted in (spec.get("where") or {}).items():
        if column not in frame.columns:
            raise DataError(f"{spec['file']} has no column {column!r}")
        wanted = [str(v) for v in wanted] if isinstance(wanted, list) else [str(wanted)]
        frame = frame[frame[column].astype(str).isin(wanted)]
    if "count_by" in spec:
        try:
            frame = frame.groupby(spec["count_by"], dropna=False).size().reset_index(name="count")
        except KeyError as err:
            raise DataError(f"{spec['file']} has no column {err}") from None
    if "pivot" in spec:
        pivot = spec["pivot"]
        aggfunc = pivot.get("aggfunc", "first")
        if aggfunc not in _AGGREGATES or set(pivot) - {"index", "columns", "values", "aggfunc"}:
            raise ConfigError(f"claims: pivot {dict(pivot)!r}: keys index, columns, values and aggfunc "
                              f"({', '.join(_AGGREGATES)})")
        try:
            frame = frame.pivot_table(index=pivot["index"], columns=pivot["columns"], values=pivot["values"],
                                      aggfunc=aggfunc, dropna=False).reset_index()
        except KeyError as err:
            raise DataError(f"{spec['file']} has no column {err}") from None
        frame.columns = [str(c) for c in frame.columns]
    if "query" in spec:
        frame = frame[np.asarray(evaluate(spec["query"], frame), dtype=bool)] if len(frame) else frame
    return frame


def select(tables: Tables, spec: Mapping) -> float:
    """The number ``spec`` selects (see the module's description).

    Raises
    ------
    ConfigError
        ``spec`` has an unknown key or reducer, or an expression that is not allowed (the claim
        itself is malformed).
    DataError
        A column the table does not have, nothing selected where a value is needed, or several
        values for ``single`` (the results do not hold what the claim reads: it does not hold).
    """
    import numpy as np
    import pandas as pd

    unknown = set(spec) - _SELECT_KEYS - set(COMPARISONS)
    if unknown or "file" not in spec:
        raise ConfigError(f"claims: a selection needs 'file'; unknown key(s) {', '.join(sorted(unknown))}" if unknown
                          else "claims: a selection needs 'file'")
    reduce = spec.get("reduce", "single")
    if reduce not in REDUCERS:
        raise ConfigError(f"claims: reduce {reduce!r} is not one of {', '.join(REDUCERS)}")
    frame = _rows(tables, spec)
    if reduce == "count":
        return float(len(frame))
    if "expr" in spec:
        values = evaluate(spec["expr"], frame)
    elif "column" in spec:
        if spec["column"] not in frame.columns:
            raise DataError(f"{spec['file']} has no column {spec['column']!r}")
        values = frame[spec["column"]]
    else:
        raise ConfigError(f"claims: a selection of {spec['file']} with reduce {reduce!r} needs 'expr' or 'column'")
    values = pd.Series(np.atleast_1d(np.asarray(values))) if len(frame) else pd.Series([], dtype=float)
    if reduce == "nunique":
        return float(values.nunique())
    try:
        values = values.astype(float).dropna()
    except ValueError:
        raise ConfigError(f"claims: {_describe(spec)} of {spec['file']} is not a number") from None
    if reduce in ("all", "any"):
        return float(getattr(values.astype(bool), reduce)())
    if values.empty:
        raise DataError(f"nothing of {spec['file']} is selected by {_describe(spec)}")
    if reduce == "single":
        if len(values) != 1:
            raise DataError(f"{_describe(spec)} selects {len(values)} values of {spec['file']}, expected one")
        return float(values.iloc[0])
    if reduce == "range":
        return float(values.max() - values.min())
    return float(getattr(values, reduce)())


def _describe(spec: Mapping) -> str:
    return ", ".join(f"{k} {spec[k]}" for k in ("where", "query", "expr", "column") if k in spec) or "the table"


# ------------------------------------------------------------------------------ relations
def printed_matches(value: float, text) -> bool:
    """Whether ``value`` shows as ``text`` at ``text``'s precision (half a unit of its last digit
    either way; ``"inf"`` only for infinity; thousands separators ignored)."""
    text = str(text).strip().replace(",", "").replace("\u2009", "")
    if text in ("inf", "-inf"):
        return value == float(text)
    if not math.isfinite(value):
        return False
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    half = 0.5 * 10.0 ** ((int(exponent) if exponent else 0) - decimals)
    return abs(value - float(text)) <= half * (1 + 1e-9)


def compare(value: float, spec: Mapping) -> bool:
    """Whether ``value`` meets every relation of ``spec`` (:data:`COMPARISONS`; at least one)."""
    tests = {"printed": lambda v, t: printed_matches(v, t), "equals": lambda v, t: v == float(t),
             "at_most": lambda v, t: v <= float(t), "at_least": lambda v, t: v >= float(t),
             "below": lambda v, t: v < float(t), "above": lambda v, t: v > float(t)}
    given = [k for k in COMPARISONS if k in spec]
    if not given:
        raise ConfigError(f"claims: a value needs one of {', '.join(COMPARISONS)} ({_describe(spec)})")
    return all(tests[k](value, spec[k]) for k in given)


def _shown(value: float) -> str:
    return f"{value:.6g}"


# ------------------------------------------------------------------------------ the checks
def values(tables: Tables, args) -> Verdict:
    """Every item of ``args`` (a selection with its relation, or a list of them) holds."""
    items = args if isinstance(args, list) else [args]
    shown, holds = [], True
    for item in items:
        value = select(tables, item)
        shown.append(_shown(value))
        holds = holds and compare(value, item)
    return Verdict("; ".join(shown), holds)


def combine(tables: Tables, args: Mapping) -> Verdict:
    """An expression ``expr`` of several selected numbers, each named in ``of`` (``{name:
    selection}``, e.g. two scales of different tables), compared as ``args`` says."""
    import numpy as np
    import pandas as pd

    if not isinstance(args.get("of"), Mapping) or "expr" not in args:
        raise ConfigError("claims: combine needs 'of' ({name: selection}) and 'expr'")
    named = {str(name): select(tables, spec) for name, spec in args["of"].items()}
    value = float(np.asarray(evaluate(args["expr"], pd.DataFrame([named]))).ravel()[0])
    return Verdict(f"{_shown(value)} ({', '.join(f'{k} {_shown(v)}' for k, v in named.items())})", compare(value, args))


def _pmfs(tables: Tables, args: Mapping):
    """The two conditionals ``pair`` as lattice pmfs: of a priors table (``file``; columns
    ``secret`` (or the one named by ``secret``), ``value``, ``probability``), or, with
    ``released``, of the records of a data table (``file``, one or several read as one): the
    values of column ``released`` among the records whose column ``secret`` is each of ``pair``."""
    import pandas as pd

    from pufferfish.lattice.pmf import LatticePMF

    files = args["file"] if isinstance(args["file"], list) else [args["file"]]
    frame = pd.concat([tables.frame(f) for f in files], ignore_index=True)
    column = args.get("secret", "secret")
    if column not in frame.columns or ("released" in args and args["released"] not in frame.columns):
        raise DataError(f"{args['file']} has no column {column!r} or {args.get('released')!r}")
    out = []
    for name in args["pair"]:
        rows = frame[frame[column].astype(str) == str(name)]
        if rows.empty:
            raise DataError(f"{args['file']} has no {column} = {name}")
        if "released" in args:
            counts = rows[args["released"]].value_counts().sort_index()
            out.append(LatticePMF.from_counts([int(v) for v in counts.index], [int(c) for c in counts.to_numpy()]))
        else:
            out.append(LatticePMF.from_values(rows["value"].astype(int).tolist(),
                                              rows["probability"].astype(float).tolist()))
    return out


def conditional_distance(tables: Tables, args) -> Verdict:
    """The Wasserstein distance of order ``order`` (a number, or ``inf``) between the two
    conditionals ``pair`` (of a priors table, or of records with ``released``), compared as the
    item says; ``args`` is one item or a list of them."""
    from pufferfish.lattice.distances import wasserstein_inf, wasserstein_p

    shown, holds = [], True
    for item in args if isinstance(args, list) else [args]:
        p, q = _pmfs(tables, item)
        order = item.get("order", 1)
        value = float(wasserstein_inf(p, q)) if str(order) == "inf" else float(wasserstein_p(p, q, float(order)))
        shown.append(_shown(value))
        holds = holds and compare(value, item)
    return Verdict("; ".join(shown), holds)


def plan_moves(tables: Tables, args: Mapping) -> Verdict:
    """The monotone transport plan between the conditionals ``pair`` moves exactly the printed
    ``moves`` (``[x, x']`` pairs) over ``distance``, carrying in all the printed ``mass``."""
    from pufferfish.lattice.transport import kantorovich_plan

    p, q = _pmfs(tables, args)
    plan = kantorovich_plan(p, q)
    far = [(int(x), int(y), float(m)) for x, y, m in zip(plan.x, plan.x_prime, plan.mass)
           if m > 0 and abs(int(y) - int(x)) == int(args["distance"])]
    mass = sum(m for _, _, m in far)
    moves = sorted([x, y] for x, y, _ in far)
    holds = moves == sorted([int(a), int(b)] for a, b in args["moves"]) and compare(mass, args)
    return Verdict(f"{', '.join(f'{a} -> {b}' for a, b in moves)}; mass {_shown(mass)}", holds)


#: every check a claim can name, by name
CHECKS: dict[str, Callable[[Tables, object], Verdict]] = {
    "values": values,
    "combine": combine,
    "conditional_distance": conditional_distance,
    "plan_moves": plan_moves,
}


def checked_files(args) -> list[str]:
    """Every ``file`` the arguments of a check read (sorted, unique)."""
    found: set[str] = set()

    def walk(node):
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "file" and isinstance(value, (str, list)):
                    found.update([value] if isinstance(value, str) else map(str, value))
                else:
                    walk(value)
        elif isinstance(node, Sequence) and not isinstance(node, str):
            for value in node:
                walk(value)

    walk(args)
    return sorted(found)

"""Conditional priors of a released attribute given each value of a secret column (config ``wasserstein``).

Paper 002's attribute-privacy experiments (Pierquin et al., ICML 2024, Section 6.2 and
Appendix F.2.3) release one column X of a record and protect another column S of the same
record. A setting of config ``wasserstein.settings`` declares them by name, without code:

* ``dataset``: a key of ``datasets``;
* ``attribute`` and ``encoding``: the released column and how its values become integers,
  as in ``multiuser.data_users`` (``numeric``, ``{codes: [...]}`` or ``{indicator: [...]}``);
* ``column``: the secret column; ``values`` (optional): the secret values, in order
  (default: every value present, sorted); every pair of them is a secret pair;
* the DP sensitivity, the range of X's domain: ``domain: [lo, hi]`` (range hi - lo; every
  encoded value must lie in it), or ``range`` directly; without either, an ``indicator``
  encoding has range 1 and ``codes`` range (number of codes - 1); a ``numeric`` attribute
  needs one of them (the range of the data would understate DP's sensitivity).

:func:`conditional_priors` reads Pr(X | S = s) for each secret value s off the table
(:func:`pufferfish.data_priors.condition`, ``encode``, ``empirical_pmf``): exact
fractions count / rows. Rows missing X or S are dropped and counted once. The rule
helpers write them to ``results/priors/wasserstein_<setting>.csv`` (``secret,value,probability``)
and ``.json`` (the counts, from which :func:`read_conditional_priors` rebuilds the exact
priors), Table 1 to ``results/theta/wasserstein_table1.csv`` and one figure per setting.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pufferfish.errors import ConfigError, DataError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.files import write_csv, write_json
from pufferfish.data_priors import condition, describe_encoding, empirical_pmf, encode
from pufferfish.wasserstein.table1 import (PairSensitivity, SecretConditional, binding_pair, setting_sensitivities,
                                           table1_frame)

__all__ = ["ConditionalPriors", "declared_range", "secret_values", "conditional_priors", "prior_rows",
           "write_conditional_priors", "read_priors_record", "read_conditional_priors", "write_table1", "setting_table1_rows",
           "plot_conditionals", "write_conditionals_figure", "PRIOR_COLUMNS", "FIGURE_COLUMNS", "SECTION"]

log = logging.getLogger("pufferfish")

#: the config section of the settings
SECTION = "wasserstein.settings"
#: columns of results/priors/wasserstein_<setting>.csv
PRIOR_COLUMNS = ["secret", "value", "probability"]
#: columns of results/figures/wasserstein/<setting>.csv
FIGURE_COLUMNS = ["setting", "secret", "value", "probability", "cdf"]


@dataclass(frozen=True, eq=False)
class ConditionalPriors:
    """Pr(X | S = s) for each secret value s of one setting, with the DP range and the row accounting.

    Attributes:
        setting: the key of the setting in ``wasserstein.settings``.
        conditionals: one :class:`SecretConditional` per secret value, in order.
        attribute_range: the DP sensitivity (the range of X's domain).
        range_source: where ``attribute_range`` comes from (for captions).
        record: provenance (dataset, attribute, encoding, secret column, row counts, and
            each secret value's values and counts), the JSON written beside the priors.
    """

    setting: str
    conditionals: tuple[SecretConditional, ...]
    attribute_range: float
    range_source: str
    record: dict = field(default_factory=dict)


def _where(setting: str) -> str:
    return f"{SECTION}.{setting}"


def declared_range(spec: Mapping, *, setting: str) -> tuple[float, str]:
    r"""The DP sensitivity a setting declares and where it comes from (module docstring).

    Parameters
    ----------
    spec : collections.abc.Mapping
        One entry of ``wasserstein.settings``.
    setting : str
        Its key, for messages.

    Returns
    -------
    tuple
        ``(range, source)``: the sensitivity as a float and where it was declared.

    Raises
    ------
    ConfigError
        Both or neither of ``domain`` and ``range`` for a numeric attribute, a decreasing domain, a non-positive range or a single code.
    """
    where = _where(setting)
    encoding = spec.get("encoding")
    if "range" in spec and "domain" in spec:
        raise ConfigError(f"config: {where}: give `domain` or `range`, not both")
    if "range" in spec:
        value = spec["range"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ConfigError(f"config: {where}.range = {value!r}: must be a number > 0")
        return float(value), f"config `range: {value}`"
    if "domain" in spec:
        lo, hi = spec["domain"]
        if not lo < hi:
            raise ConfigError(f"config: {where}.domain = [{lo}, {hi}]: must be increasing")
        return float(hi - lo), f"config `domain: [{lo}, {hi}]`"
    if isinstance(encoding, Mapping) and "indicator" in encoding:
        return 1.0, "the indicator encoding (values 0 and 1)"
    if isinstance(encoding, Mapping) and "codes" in encoding:
        n = len(encoding["codes"])
        if n < 2:
            raise ConfigError(f"config: {where}.encoding: a single code has range 0; give `range`")
        return float(n - 1), f"the codes encoding (values 1 to {n})"
    raise ConfigError(f"config: {where}: a numeric attribute needs `domain: [lo, hi]` or `range` "
                      "(DP's sensitivity is the range of the attribute's domain, not of the data)")


def _label(value) -> str:
    """A secret value as text: integral floats without ``.0`` (a column with NaN is read as floats)."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return str(value)


def secret_values(frame: pd.DataFrame, column: str, values: Sequence | None = None) -> list:
    r"""The secret values of a setting: ``values`` as declared, or every value of ``column`` present, sorted.

    Parameters
    ----------
    frame : pandas.DataFrame
        The dataset.
    column : str
        The secret column.
    values : sequence, optional
        The declared secret values; ``None``: those present.

    Returns
    -------
    list
        The secret values, as declared or sorted (as text when their types mix).

    Raises
    ------
    KeyError
        ``column`` is not a column of ``frame`` (callers check it first).
    """
    if values is not None:
        return list(values)
    present = frame[column].dropna().unique().tolist()
    try:
        return sorted(present)
    except TypeError:  # mixed types: sort as text
        return sorted(present, key=str)


def conditional_priors(frame: pd.DataFrame, spec: Mapping, *, setting: str) -> ConditionalPriors:
    r"""Pr(attribute | column = s) for every secret value s of a ``wasserstein.settings`` entry.

    Rows missing the attribute or the secret column are dropped (and counted).

    Parameters
    ----------
    frame : pandas.DataFrame
        The dataset's table.
    spec : collections.abc.Mapping
        The setting's entry of ``wasserstein.settings``.
    setting : str
        The setting's key.

    Returns
    -------
    ConditionalPriors
        The conditionals, the range and the row accounting.

    Raises
    ------
    DataError
        A missing column, a declared value no row has, an encoded value outside the declared
        ``domain``, or fewer than two secret values (naming the setting).
    ConfigError
        The attribute is the secret column, a declared value repeats, or no range is declared.
    """
    where = _where(setting)
    attribute, column, dataset = spec["attribute"], spec["column"], spec["dataset"]
    attribute_range, range_source = declared_range(spec, setting=setting)
    for name in (attribute, column):
        if name not in frame.columns:
            raise DataError(f"{where}: dataset {dataset} has no column {name!r} "
                            f"(columns: {', '.join(map(str, frame.columns))})")
    if attribute == column:
        raise ConfigError(f"config: {where}: the released attribute and the secret column are both {attribute!r}")
    usable = frame[[attribute, column]].notna().all(axis=1)
    values = secret_values(frame[usable], column, spec.get("values"))
    if len(values) < 2:
        raise DataError(f"{where}: column {column} has {len(values)} value(s) "
                        f"({', '.join(map(_label, values)) or 'none'}); a secret pair needs two")
    conditionals, per_secret = [], []
    for value in values:
        try:
            cond = condition(frame, attribute=attribute, given={column: value}, dataset=dataset)
        except DataError as err:  # a declared secret value that no row has
            raise DataError(f"{where}.values: {err}") from None
        codes = encode(cond.values, spec["encoding"], name=f"{where} ({column} = {_label(value)})",
                       column=frame[attribute])
        _check_domain(spec, codes, f"{where}: {attribute}", f"(given {column} = {_label(value)})")
        pmf = empirical_pmf(codes, name=f"{where} ({column} = {_label(value)})")
        support, counts = np.unique(codes, return_counts=True)
        conditionals.append(SecretConditional(_label(value), pmf, cond.rows_matching))
        per_secret.append({"secret": _label(value), "rows": cond.rows_matching, "values": support.tolist(),
                           "counts": [int(c) for c in counts]})
    labels = [c.secret for c in conditionals]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"config: {where}.values: {labels} repeats a value")
    rows_in_dataset = len(frame)
    dropped = int((~usable).sum())
    used = sum(c.rows for c in conditionals)
    record = {
        "setting": setting,
        "dataset": dataset,
        "attribute": attribute,
        "encoding": describe_encoding(spec["encoding"]),
        "column": column,
        "range": attribute_range,
        "range_source": range_source,
        "rows_in_dataset": rows_in_dataset,
        "rows_dropped_missing": dropped,
        "rows_other_secret_values": rows_in_dataset - dropped - used,
        "rows_used": used,
        "secrets": per_secret,
    }
    log.info("%s: %d secret values of %s, %d rows used of %d (%d dropped for a missing value)", where,
             len(conditionals), column, used, rows_in_dataset, dropped)
    return ConditionalPriors(setting, tuple(conditionals), attribute_range, range_source, record)


def _check_domain(spec: Mapping, codes: np.ndarray, what: str, given: str) -> None:
    """Refuse an encoded value outside the setting's declared ``domain`` (if it declares one)."""
    if "domain" in spec:
        lo, hi = spec["domain"]
        outside = codes[(codes < lo) | (codes > hi)]
        if outside.size:
            raise DataError(f"{what} = {int(outside[0])} {given} is outside domain [{lo}, {hi}]")


def prior_rows(priors: ConditionalPriors) -> pd.DataFrame:
    r"""``secret,value,probability`` rows (atoms with positive mass) of every conditional.

    Parameters
    ----------
    priors : ConditionalPriors
        A setting's priors.

    Returns
    -------
    pandas.DataFrame
        The columns :data:`PRIOR_COLUMNS`, one row per atom with positive mass.

    Raises
    ------
    ValueError
        ``priors`` holds no conditional (it always holds two or more).
    """
    frames = []
    for cond in priors.conditionals:
        mask = cond.pmf.probs > 0
        frames.append(pd.DataFrame({"secret": cond.secret, "value": cond.pmf.values[mask],
                                    "probability": cond.pmf.probs[mask]}))
    return pd.concat(frames, ignore_index=True)[PRIOR_COLUMNS]


def write_conditional_priors(*, setting: str, spec: Mapping, data_csv, data_json, out_csv, out_json,
                             png=None, pdf=None, csv=None) -> ConditionalPriors:
    r"""Rule ``wasserstein_conditionals``: one setting's priors to ``out_csv`` and their record to
    ``out_json``; with ``png``, their figure (:func:`write_conditionals_figure`: PNG, PDF and the
    numbers plotted), drawn from the record as written.

    Parameters
    ----------
    setting : str
        The setting's key.
    spec : collections.abc.Mapping
        Its config entry.
    data_csv, data_json : str or os.PathLike
        The dataset's table and provenance.
    out_csv, out_json : str or os.PathLike
        Where the priors and their record go.
    png, pdf, csv : str or os.PathLike, optional
        The figure's files (``png`` given: draw it).

    Returns
    -------
    ConditionalPriors
        The priors written.

    Raises
    ------
    DataError, ConfigError
        As :func:`conditional_priors`.
    OutputError
        An output cannot be written.
    """
    frame = pd.read_csv(data_csv)
    priors = conditional_priors(frame, spec, setting=setting)
    record = dict(priors.record)
    with open(data_json, encoding="utf-8") as handle:
        source = json.load(handle)
    record["dataset_sha256"] = source.get("sha256")
    record["dataset_member"] = source.get("member")
    record["dataset_url"] = source.get("url")
    write_csv(prior_rows(priors), out_csv)
    write_json(record, out_json)
    if png is not None:
        write_conditionals_figure(priors_json=out_json, spec=spec, png=png, pdf=pdf, csv=csv)
    return priors


def read_priors_record(path) -> dict:
    r"""The JSON record of a setting's priors (for captions).

    Parameters
    ----------
    path : str or os.PathLike
        A JSON record of :func:`write_conditional_priors`.

    Returns
    -------
    dict
        The record.

    Raises
    ------
    OSError, ValueError
        The file cannot be read or is not JSON.
    """
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def read_conditional_priors(path) -> ConditionalPriors:
    r"""The exact priors of a setting from the JSON record :func:`write_conditional_priors` wrote.

    Parameters
    ----------
    path : str or os.PathLike
        The JSON record a ``wasserstein_conditionals`` job wrote.

    Returns
    -------
    ConditionalPriors
        The setting's exact priors (from the counts).

    Raises
    ------
    OSError, ValueError, KeyError
        An unreadable or incomplete record.
    """
    record = read_priors_record(path)
    conditionals = tuple(
        SecretConditional(s["secret"], LatticePMF.from_counts(s["values"], s["counts"],
                                                              name=f"{record['setting']} ({s['secret']})"), s["rows"])
        for s in record["secrets"])
    return ConditionalPriors(record["setting"], conditionals, float(record["range"]), record["range_source"], record)


# ------------------------------------------------------------------------------ Table 1
def write_table1(priors_json: Sequence, out_csv) -> pd.DataFrame:
    r"""Rule ``wasserstein_table1``: every secret pair of every setting and each setting's maxima.

    ``priors_json`` lists the records of :func:`write_conditional_priors`, in the order
    the settings appear in the config.

    Parameters
    ----------
    priors_json : sequence of str
        The settings' records, in config order.
    out_csv : str or os.PathLike
        Where Table 1 goes.

    Returns
    -------
    pandas.DataFrame
        Table 1 as written.

    Raises
    ------
    DataError
        A setting whose pairs cannot be computed (naming it).
    OutputError
        ``out_csv`` cannot be written.
    """
    rows: list[PairSensitivity] = []
    for path in priors_json:
        priors = read_conditional_priors(path)
        try:
            rows += setting_sensitivities(priors.setting, priors.conditionals, attribute_range=priors.attribute_range)
        except ValueError as err:
            raise DataError(f"{_where(priors.setting)}: {err}") from None
    frame = table1_frame(rows)
    write_csv(frame, out_csv)
    return frame


def setting_table1_rows(priors_json) -> list[dict]:
    r"""The rows of one setting as they stand in ``results/theta/wasserstein_table1.csv`` (its pairs,
    then its maximum), computed from the setting's own priors, for the caption of its figure.

    Parameters
    ----------
    priors_json : str or os.PathLike
        One setting's record.

    Returns
    -------
    list of dict
        Its Table 1 rows (empty when its pairs cannot be computed: the Table 1 job says why).

    Raises
    ------
    OSError, ValueError, KeyError
        The record cannot be read (:func:`read_conditional_priors`).
    """
    priors = read_conditional_priors(priors_json)
    try:
        rows = setting_sensitivities(priors.setting, priors.conditionals, attribute_range=priors.attribute_range)
    except ValueError:  # the job that writes Table 1 says why
        return []
    frame = table1_frame(rows)
    return [{k: (None if pd.isna(v) else v) for k, v in row.items()} for row in frame.to_dict("records")]


# ------------------------------------------------------------------------------ figure
def plot_conditionals(priors: ConditionalPriors, *, title: str, attribute_label: str, png, pdf, csv) -> PairSensitivity:
    r"""Paper 002's Figs. 2-4 (Appendix F.2.3): the conditionals of one setting, and their CDFs.

    (a) Pr(X = x | S = s), one series per secret value: grouped bars when there are few
    points, otherwise one stem plot per secret value, stacked, sharing both axes. (b) the CDFs as steps, with the horizontal gap
    W_inf of the binding pair (largest W_inf, ties by W_2) drawn where the monotone
    coupling attains it. Okabe-Ito colours and distinct markers; the numbers plotted go to
    ``csv`` (``setting,secret,value,probability,cdf``). Returns the binding pair.

    Parameters
    ----------
    priors : ConditionalPriors
        The setting's priors.
    title : str
        The figure's title.
    attribute_label : str
        The x-axis label.
    png, pdf, csv : str or os.PathLike
        The figure's files and the numbers plotted.

    Returns
    -------
    PairSensitivity
        The binding pair whose gap is drawn.

    Raises
    ------
    OutputError
        A file cannot be written.
    """
    import matplotlib.pyplot as plt

    from pufferfish.plotting import save_figure, series_style, setup_style, words

    setup_style()
    conds = priors.conditionals
    rows = setting_sensitivities(priors.setting, conds, attribute_range=priors.attribute_range)
    bind = binding_pair(rows)
    lo = min(c.pmf.lo for c in conds)
    hi = max(c.pmf.hi for c in conds)
    xs = np.arange(lo, hi + 1)
    bars = len(xs) * len(conds) <= 60
    fig, (ax_p, ax_c) = plt.subplots(1, 2, figsize=(11, 4.2 if bars else 5.6))
    stems = [ax_p] if bars else _stacked(ax_p, len(conds))
    width = 0.8 / len(conds)
    table = []
    for k, cond in enumerate(conds):
        style = series_style(k)
        probs = cond.pmf.pmf_on(lo, hi)
        cdf = np.cumsum(probs)
        label = f"{cond.secret} (n = {cond.rows})"
        if bars:
            hatch = ["", "//", "..", "xx", "\\\\", "++", "oo"][k % 7]
            ax_p.bar(xs - 0.4 + width * (k + 0.5), probs, width=width, color=style["color"], edgecolor="black",
                     linewidth=0.4, hatch=hatch, label=label)
        else:    # a stem per value with a probability (lines joining them zig-zag through each other)
            on = probs > 0
            stems[k].vlines(xs[on], 0.0, probs[on], color=style["color"], linewidth=1.2)
            stems[k].plot(xs[on], probs[on], color=style["color"], marker=style["marker"], markersize=4,
                          markerfacecolor=style["markerfacecolor"], linestyle="none",
                          label=f"{priors.record.get('column', 'secret')} = {label}")
        ax_c.step(xs, cdf, where="post", color=style["color"], linestyle=style["linestyle"], linewidth=1.6,
                  label=cond.secret)
        table.append(pd.DataFrame({"setting": priors.setting, "secret": cond.secret, "value": xs,
                                   "probability": probs, "cdf": cdf}))
    _mark_w_inf(ax_c, conds, bind)
    _label_axes(stems, ax_c, priors, rows, attribute_label)
    if len(xs) <= 25:
        for ax in (*stems, ax_c):
            ax.set_xticks(xs)
    fig.suptitle(words(title))
    fig.tight_layout()
    write_csv(pd.concat(table, ignore_index=True)[FIGURE_COLUMNS], csv)
    save_figure(fig, png, pdf)
    return bind


def _mark_w_inf(ax_c, conds, bind: PairSensitivity) -> None:
    """Draw where W_inf is attained: the plan entry of the binding pair with the largest |x - x'|."""
    from pufferfish.lattice.transport import kantorovich_plan
    from pufferfish.plotting import OKABE_ITO

    by_label = {c.secret: c for c in conds}
    plan = kantorovich_plan(by_label[bind.secret_i].pmf, by_label[bind.secret_j].pmf)
    gaps = np.abs(plan.x - plan.x_prime)
    k = int(np.argmax(gaps))
    level = float(np.sum(plan.mass[:k]) + plan.mass[k] / 2)
    ax_c.annotate("", xy=(float(plan.x_prime[k]), level), xytext=(float(plan.x[k]), level),
                  arrowprops={"arrowstyle": "<->", "color": OKABE_ITO[0], "linewidth": 1.4})
    # named in the lower right corner, where a CDF never is (it reaches 1 at the right): over no curve
    ax_c.text(0.98, 0.03, f"↔ W∞ = {bind.w_inf} ({bind.secret_i} vs {bind.secret_j})", transform=ax_c.transAxes,
              ha="right", va="bottom", fontsize=8)


def _stacked(ax_p, n: int) -> list:
    """Panel (a) as ``n`` stacked axes in ``ax_p``'s place, sharing both axes (one stem plot each)."""
    spec = ax_p.get_subplotspec()
    ax_p.remove()
    return list(spec.subgridspec(n, 1, hspace=0.12).subplots(sharex=True, sharey=True))


def _label_axes(stems: list, ax_c, priors: ConditionalPriors, rows: list, attribute_label: str) -> None:
    """Labels, titles and legends of the two panels of :func:`plot_conditionals` (panel (a): one
    axes, or the stacked ones of :func:`_stacked`, each with its series' legend)."""
    column = priors.record.get("column")
    stems[-1].set_xlabel(attribute_label)
    stems[0].set_title(f"(a) Pr({attribute_label} | {priors.record.get('column', 'secret')})")
    if len(stems) == 1:
        stems[0].set_ylabel("probability")
        stems[0].legend(title=column, loc="best")
    else:
        from matplotlib.ticker import MaxNLocator

        for ax in stems:
            ax.yaxis.set_major_locator(MaxNLocator(nbins=2))
            ax.legend(loc="best", handletextpad=0.3, borderaxespad=0.2, frameon=False)
        top = max(ax.dataLim.y1 for ax in stems)    # headroom: no marker on the top spine
        stems[0].set_ylim(-0.05 * top, 1.2 * top)
        stems[len(stems) // 2].set_ylabel("probability")
    ax_c.set_xlabel(attribute_label)
    ax_c.set_ylabel("cumulative probability")
    # from 0, or just below the lowest CDF value when every CDF starts high (a binary attribute)
    lowest = min(float(np.min(line.get_ydata())) for line in ax_c.get_lines())
    ax_c.set_ylim(0.0 if lowest < 0.3 else np.floor(10 * lowest) / 10 - 0.05, 1.08)
    ax_c.set_title(f"(b) CDFs; max W∞ = {max(r.w_inf for r in rows if not r.is_max)}, "
                   f"max W₂ = {max(r.w_2 for r in rows if not r.is_max):.3f}, DP range = {priors.attribute_range:g}")
    ax_c.legend(title=priors.record.get("column"), loc="upper left")


def write_conditionals_figure(*, priors_json, spec: Mapping, png, pdf, csv) -> PairSensitivity:
    r"""The figure of one setting's conditionals (end of rule ``wasserstein_conditionals``).

    Parameters
    ----------
    priors_json : str or os.PathLike
        The setting's record.
    spec : collections.abc.Mapping
        Its config entry (``title``).
    png, pdf, csv : str or os.PathLike
        The outputs of :func:`plot_conditionals`.

    Returns
    -------
    PairSensitivity
        The binding pair drawn.

    Raises
    ------
    OutputError
        A file cannot be written.
    """
    priors = read_conditional_priors(priors_json)
    title = spec.get("title") or priors.setting
    record = priors.record
    return plot_conditionals(priors, title=f"{title}: {record['attribute']} given {record['column']} "
                                           f"(UCI {record['dataset']})",
                             attribute_label=record["attribute"], png=png, pdf=pdf, csv=csv)

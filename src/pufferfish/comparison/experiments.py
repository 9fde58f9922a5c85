r"""The ``comparison`` section of config.yaml: which pairs, resolved to secret pairs, and the outputs.

A pair is named ``<experiment>/<panel>`` (a panel of a ``multiuser.experiments`` entry, e.g.
``fig5/adult``), ``<experiment>`` (an experiment with one pair), or ``table1/<setting>`` (a
setting of ``wasserstein.settings``: its binding pair, the largest :math:`W_\infty`, ties broken
by the largest :math:`W_2`, :func:`pufferfish.wasserstein.table1.binding_pair`). Each pair's rows
go to ``results/audit/noise_comparison/<slug>.csv`` and, in the one audit schema, to
``results/audit/comparison_<slug>.csv`` (read by the audit summary), with its figure
``results/figures/comparison/<slug>.*``; the rule ``comparison_table`` gathers the rows into
``results/theta/noise_comparison.csv``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from pufferfish.errors import ConfigError

__all__ = ["TABLE1", "slug", "parse_pair", "pair_inputs", "pair_config", "resolve_pair", "write_pair", "write_figure",
           "write_table", "pair_caption"]

log = logging.getLogger("pufferfish")

#: the prefix of a pair taken from paper 002's Table 1 settings (config ``wasserstein.settings``)
TABLE1 = "table1"


def slug(pair: str) -> str:
    """The file name of a pair: ``fig5/adult`` -> ``fig5__adult``.

    Parameters
    ----------
    pair : str
        A pair reference of config ``comparison.pairs``.

    Returns
    -------
    str

    Raises
    ------
    ArgumentTypeError
        ``pair`` is not a string.
    """
    from pufferfish.checks import instance

    return instance(pair, str, name="pair").replace("/", "__")


def parse_pair(pair: str, config: Mapping) -> tuple[str, str, str]:
    """``(kind, name, panel)`` of a pair reference.

    Parameters
    ----------
    pair : str
        ``<experiment>/<panel>``, ``<experiment>`` or ``table1/<setting>``.
    config : Mapping
        The validated config.

    Returns
    -------
    (str, str, str)
        kind ``multiuser`` or ``table1``, the experiment or setting, the panel (``""`` for none).

    Raises
    ------
    ConfigError
        The reference is malformed or points at nothing (naming it).
    """
    where = f"config: comparison.pairs: {pair!r}"
    if not isinstance(pair, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*(/[A-Za-z0-9_]+)?", pair):
        raise ConfigError(f"{where}: must be <experiment>, <experiment>/<panel> or {TABLE1}/<setting>")
    name, _, panel = pair.partition("/")
    if name == TABLE1:
        settings = (config.get("wasserstein") or {}).get("settings", {})
        if panel not in settings:
            raise ConfigError(f"{where}: no wasserstein.settings.{panel} (have: {', '.join(settings) or 'none'})")
        return TABLE1, panel, ""
    experiments = config.get("multiuser", {}).get("experiments", {})
    if name not in experiments:
        raise ConfigError(f"{where}: no multiuser.experiments.{name}")
    panels = experiments[name].get("panels")
    if panels is None and panel:
        raise ConfigError(f"{where}: multiuser.experiments.{name} has no panels (write {name!r})")
    if panels is not None and panel not in panels:
        raise ConfigError(f"{where}: multiuser.experiments.{name} has no panel {panel!r} "
                          f"(have: {', '.join(panels)})")
    return "multiuser", name, panel


def pair_inputs(pair: str, config: Mapping, multiuser) -> dict[str, object]:
    """The priors a pair of config ``comparison`` reads (the inputs of the workflow's rule
    ``comparison_pair``): the provenance records of its experiment's data users (``multiuser``:
    the typed settings of paper 000, :class:`pufferfish.multiuser.settings.MultiuserSettings`)
    or its Table 1 setting's conditionals."""
    kind, name, _ = parse_pair(pair, config)
    if kind == TABLE1:
        return {"table1": f"results/priors/wasserstein_{name}.json"}
    return {"users": [f"results/priors/{u}.json" for u in multiuser.data_users_of(name)]}


def pair_config(pair: str, config: Mapping) -> dict:
    """The part of the config one pair reads (its experiment or setting, the users, the grid): a
    param of its job, so that editing another experiment or the list of pairs does not rerun it."""
    kind, name, _ = parse_pair(pair, config)
    section = config["comparison"]
    out = {"comparison": {k: section[k] for k in ("epsilons", "delta", "alpha")}}
    if kind == TABLE1:
        out["wasserstein"] = {"settings": {name: config["wasserstein"]["settings"][name]}}
    else:
        mu = config["multiuser"]
        out["multiuser"] = {"users": mu["users"], "data_users": mu["data_users"],
                            "experiments": {name: mu["experiments"][name]}}
    return out


def resolve_pair(pair: str, config: Mapping, *, data_users: Mapping[str, str] = {},
                 table1_priors: str | None = None):
    """The :class:`~pufferfish.lattice.SecretPair` of a reference and a description of it.

    Parameters
    ----------
    pair : str
        A reference (:func:`parse_pair`).
    config : Mapping
        The validated config.
    data_users : Mapping[str, str]
        Name -> prior JSON of the data-derived users it needs.
    table1_priors : str, optional
        The JSON of the setting's conditional priors (``results/priors/wasserstein_<setting>.json``).

    Returns
    -------
    (SecretPair, str)

    Raises
    ------
    ConfigError
        A reference that points at nothing.
    """
    from pufferfish.lattice import Draws, SecretPair

    kind, name, panel = parse_pair(pair, config)
    if kind == TABLE1:
        from pufferfish.wasserstein.conditionals import read_conditional_priors
        from pufferfish.wasserstein.table1 import binding_pair, setting_sensitivities

        priors = read_conditional_priors(table1_priors)
        rows = setting_sensitivities(name, priors.conditionals, attribute_range=priors.attribute_range)
        bind = binding_pair(rows)
        by_secret = {c.secret: c for c in priors.conditionals}
        first, second = by_secret[bind.secret_i], by_secret[bind.secret_j]
        column = priors.record.get("column", "secret")
        text = (f"{pair}: {priors.record.get('attribute', 'X')} given {column} = {bind.secret_i} vs {bind.secret_j} "
                f"(binding pair: W_inf = {bind.w_inf}, W_2 = {bind.w_2:.4g})")
        return SecretPair.of(Draws(first.pmf, f"{column}={first.secret}"), Draws(second.pmf, f"{column}={second.secret}"),
                             []), text
    from pufferfish.multiuser.secret_pairs import build_users, experiment_pairs, secret_label
    from pufferfish.multiuser.user_priors import load_data_users

    mu = config["multiuser"]
    users = build_users(mu, load_data_users(data_users))
    spec = mu["experiments"][name]
    pairs = experiment_pairs(spec, users)
    secrets = (spec["panels"][panel] if panel else spec)["secrets"]
    text = f"{pair}: {secret_label(secrets[0])} vs {secret_label(secrets[1])}"
    return pairs[panel], text


def write_pair(*, pair: str, config: Mapping, data_users: Mapping[str, str], table1_priors: str | None,
               out_csv, out_audit=None, png=None, pdf=None, csv=None) -> pd.DataFrame:
    """Step ``comparison_pair``: every mechanism on one pair, each scale audited exactly.

    Parameters
    ----------
    pair : str
        A reference of config ``comparison.pairs`` (:func:`parse_pair`).
    config : Mapping
        The validated config (its ``comparison`` section and what the pair names).
    data_users : Mapping[str, str]
        Name -> prior JSON of the data-derived users the pair needs.
    table1_priors : str or None
        The setting's conditional priors (a Table 1 pair).
    out_csv : path-like
        The comparison's rows (:data:`~pufferfish.comparison.compare.COLUMNS`, with ``description``).
    out_audit : path-like, optional
        The same verdicts in the audit schema (:data:`pufferfish.audit.verdict.AUDIT_COLUMNS`),
        experiment ``comparison_<slug>``.
    png, pdf, csv : path-like, optional
        The figure (:func:`write_figure`), drawn from the rows as written.

    Returns
    -------
    pandas.DataFrame
        The rows written to ``out_csv``.

    Raises
    ------
    ConfigError, NotApplicableError
        A reference that points at nothing, a method not stated for the pair.
    OutputError
        A file that cannot be written.
    """
    from pufferfish.comparison.compare import compare_audited, winner_lines
    from pufferfish.files import write_csv
    from pufferfish.settings import epsilon_grid

    spec = config["comparison"]  # its epsilons, delta and alpha: the job does not get the list of pairs
    secret_pair, text = resolve_pair(pair, config, data_users=data_users, table1_priors=table1_priors)
    epsilons = epsilon_grid(spec["epsilons"], "comparison.epsilons")
    result = compare_audited(pair, secret_pair, epsilons=epsilons, delta=float(spec["delta"]),
                             alpha=float(spec["alpha"]), experiment=f"comparison_{slug(pair)}")
    frame = result.rows
    for row in frame[~frame.meets_target].itertuples(index=False):
        log.warning("%s: %s scale %.6g at epsilon = %g misses its %s target (achieved %.6g)", pair, row.method,
                    row.scale, row.epsilon, row.guarantee, row.achieved)
    for line in winner_lines(frame):
        log.info(line)
    frame.insert(1, "description", text)
    write_csv(frame, out_csv)
    if out_audit is not None:
        write_csv(result.audit, out_audit)
    if png is not None:
        write_figure(rows_csv=out_csv, png=png, pdf=pdf, csv=csv)
    return frame


def write_figure(*, rows_csv, png, pdf, csv) -> None:
    """The figure of one pair from its audited rows (end of step ``comparison_pair``).

    Parameters
    ----------
    rows_csv : path-like
        The rows :func:`write_pair` wrote.
    png, pdf, csv : path-like
        The figure (:func:`pufferfish.comparison.plots.plot_pair`) and the numbers it plots.

    Returns
    -------
    None

    Raises
    ------
    OutputError
        A file that cannot be written.
    """
    from pufferfish.comparison.plots import plot_pair
    from pufferfish.files import read_table

    frame = read_table(rows_csv)
    plot_pair(frame, title=str(frame["description"].iloc[0]), png=png, pdf=pdf, csv=csv)


def write_table(frames: Sequence[str], out_csv) -> pd.DataFrame:
    """Step ``comparison_table``: the per-pair rows, in config order, as one table.

    Parameters
    ----------
    frames : sequence of path-like
        The rows of every pair (:func:`write_pair`), in config order.
    out_csv : path-like
        results/theta/noise_comparison.csv.

    Returns
    -------
    pandas.DataFrame
        The table (:data:`~pufferfish.comparison.compare.COLUMNS`).

    Raises
    ------
    OutputError
        The table cannot be written.
    """
    from pufferfish.comparison.compare import COLUMNS
    from pufferfish.files import read_table, write_csv

    table = pd.concat([read_table(path)[COLUMNS] for path in frames], ignore_index=True)
    write_csv(table, out_csv)
    return table


def pair_caption(csv) -> str:
    """Caption text of one pair's figure: the least noise per epsilon, the audit's verdict, the
    scales of 0, and the curves drawn on top of each other.

    Parameters
    ----------
    csv : path-like
        The pair's rows (:func:`write_pair`).

    Returns
    -------
    str
        reStructuredText: one bullet per epsilon (``epsilon = <e>: least noise ...``,
        :func:`~pufferfish.comparison.compare.winner_lines`), then the verdict.

    Raises
    ------
    OSError
        The file cannot be read.
    """
    from pufferfish.comparison.compare import as_flags, coinciding, winner_lines
    from pufferfish.files import read_table

    frame = read_table(csv)
    frame["meets_target"] = as_flags(frame["meets_target"])
    bad = frame[~frame.meets_target]
    verdict = ("Every scale meets its target by exact audit." if bad.empty else
               "Scales that miss their target (exact audit): " + "; ".join(
                   f"{r.method} at epsilon = {r.epsilon:g}" for r in bad.itertuples(index=False)))
    zeros = frame[frame.scale == 0]
    first_zero = zeros.groupby("method", sort=False).epsilon.min()
    zero_text = ("" if zeros.empty else " Scale 0 (the priors already meet the target, drawn as triangles on the "
                 "floor): " + "; ".join(sorted(f"{m} at epsilon >= {e:g}" for m, e in first_zero.items())) + ".")
    same = coinciding(frame)
    same_text = ("" if not same else " Curves drawn on top of each other (the same value to 3 digits at every "
                 "epsilon): " + "; ".join(f"{a} and {b}" for a, b in same) + ".")
    lines = winner_lines(frame, with_pair=False)
    return "\n".join(f"* {line}" for line in lines) + "\n\n" + verdict + zero_text + same_text

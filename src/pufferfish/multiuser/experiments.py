r"""Experiments of the multi-user paper (000) as declared in config.yaml (``multiuser`` section).

The workflow scripts call :func:`write_data_user` / :func:`write_config_user` (the users'
priors) and :func:`write_experiment` (one figure or table: :func:`run_experiment` calibrates
every method and audits every scale through :mod:`pufferfish.audit.verdict`, :func:`run_plan`
draws the transport plan and :math:`\Delta^*` of a ``kind: plan`` experiment). Nothing here is
specific to a figure: a new experiment in config.yaml needs no code. The methods and their
derivations: docs/math/paper000-multiuser.md.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pufferfish import registry
from pufferfish.audit import Smallest, Target, audit_frame, audit_row, audit_scale, lattice_auditor, noise_std, target_for
from pufferfish.checks import instance
from pufferfish.data_priors import condition, describe_encoding, empirical_pmf, encode
from pufferfish.errors import ConfigError, NotApplicableError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.system import Absent, Draws, Reports, SecretPair, User
from pufferfish.lattice.transport import delta_star, kantorovich_plan
from pufferfish.multiuser.settings import ExperimentSettings, users_from_config
from pufferfish.registry import calibrate
from pufferfish.settings import AuditSettings

__all__ = [
    "data_user_prior", "build_users", "secret_from_spec", "secret_label", "experiment_pairs", "run_experiment",
    "ExperimentResult", "run_plan", "prior_frame", "THETA_COLUMNS", "read_user_prior", "load_data_users",
    "config_user_prior", "write_config_user", "write_data_user", "write_experiment", "write_figure",
    "describe_secret",
]

log = logging.getLogger("pufferfish")

#: columns of results/theta/multiuser_<experiment>.csv: ``theta`` is the method's noise scale
#: (Laplace b, Gaussian sigma or Cauchy gamma, by ``noise``), ``theta_min`` the smallest scale of the
#: same noise and guarantee that the exact audit accepts, ``std`` the noise's standard deviation
#: (sqrt(2) b, sigma; empty for Cauchy); ``epsilon_achieved`` / ``delta_achieved`` /
#: ``renyi_achieved`` what the scale achieves against its target (pure epsilon / (epsilon, delta) /
#: D_alpha <= epsilon), the other two empty
THETA_COLUMNS = ["panel", "method", "epsilon", "theta", "epsilon_achieved", "theta_min", "noise", "delta", "alpha",
                 "std", "delta_achieved", "renyi_achieved"]


# ------------------------------------------------------------------------------ data users
def data_user_prior(frame: pd.DataFrame, spec: Mapping, *, name: str) -> tuple[LatticePMF, dict]:
    """Pr(attribute | given) of a dataset, encoded to integers (config ``multiuser.data_users``).

    Parameters
    ----------
    frame : pandas.DataFrame
        The dataset's records.
    spec : Mapping
        The user's validated config entry: ``dataset``, ``attribute``, ``given``, ``encoding``.
    name : str
        The user's key (messages, the record).

    Returns
    -------
    (LatticePMF, dict)
        The exact empirical pmf and its provenance record (dataset, condition, encoding, row
        counts, values and their counts).

    Raises
    ------
    DataError
        No rows meet the condition, or a value the encoding cannot code (naming the user).
    """
    cond = condition(frame, attribute=spec["attribute"], given=spec["given"], dataset=spec["dataset"])
    codes = encode(cond.values, spec["encoding"], name=f"multiuser.data_users.{name}", column=frame[spec["attribute"]])
    pmf = empirical_pmf(codes, name=f"multiuser.data_users.{name}")
    record = {
        "user": name,
        "dataset": spec["dataset"],
        "attribute": spec["attribute"],
        "given": dict(spec["given"]),
        "encoding": describe_encoding(spec["encoding"]),
        **cond.record(),
        "values": pmf.support.tolist(),
        "counts": [int(c) for c in np.unique(codes, return_counts=True)[1]],
    }
    return pmf, record


def prior_frame(pmf: LatticePMF) -> pd.DataFrame:
    """``value,probability`` rows of a pmf (atoms with positive mass).

    Parameters
    ----------
    pmf : LatticePMF

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ArgumentTypeError
        ``pmf`` is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    """
    instance(pmf, LatticePMF, name="pmf")
    mask = pmf.probs > 0
    return pd.DataFrame({"value": pmf.values[mask], "probability": pmf.probs[mask]})


def read_user_prior(path, *, name: str, record: Mapping | None = None) -> LatticePMF:
    """Read a ``value,probability`` prior written by the data-user rule.

    Parameters
    ----------
    path : path-like or None
        The prior's CSV (not read when ``record`` carries the counts).
    name : str
        The user's key.
    record : Mapping, optional
        Its provenance JSON: with ``values`` and ``counts``, the exact fractions are rebuilt.

    Returns
    -------
    LatticePMF

    Raises
    ------
    OSError, InvalidArgumentError
        A file that cannot be read, values that are not a pmf.
    """
    if record is not None and "counts" in record:
        return LatticePMF.from_counts(record["values"], record["counts"], name=name)
    frame = pd.read_csv(path, float_precision="round_trip")
    return LatticePMF.from_values(frame["value"].tolist(), frame["probability"].tolist(), name=name)


# ------------------------------------------------------------------------------ config -> model
def build_users(mu_config: Mapping, data_pmfs: Mapping[str, LatticePMF]) -> dict[str, User]:
    r"""Every user of the validated ``multiuser`` config: lattice users and data-derived users.

    Parameters
    ----------
    mu_config : Mapping
        The ``multiuser`` section's ``users`` and ``data_users`` (read as
        :func:`pufferfish.multiuser.settings.users_from_config`: the presence :math:`\zeta` is the
        schema's default where config leaves it out).
    data_pmfs : Mapping[str, LatticePMF]
        The priors of the data-derived users read so far (:func:`load_data_users`); a data user
        without one is left out.

    Returns
    -------
    dict of str to User

    Raises
    ------
    ConfigError
        A section the typed settings refuse.
    """
    lattice, data = users_from_config({"users": mu_config.get("users", {}), "data_users": mu_config.get("data_users", {})})
    users = {}
    for name, spec in lattice.items():
        pmf = LatticePMF.from_values(spec.values, spec.probabilities, name=f"multiuser.users.{name}")
        users[name] = User(pmf, spec.presence, name)
    for name, spec in data.items():
        if name in data_pmfs:
            users[name] = User(data_pmfs[name], spec.presence, name)
    return users


def secret_from_spec(spec, users: Mapping[str, User]):
    """A secret of config: ``absent`` / ``{value: a}`` / ``{user: NAME}``.

    Parameters
    ----------
    spec : str or Mapping
        The validated secret.
    users : Mapping[str, User]
        The users it may name.

    Returns
    -------
    Absent, Reports or Draws

    Raises
    ------
    ConfigError
        An unknown user.
    """
    if spec == "absent":
        return Absent()
    if "value" in spec:
        return Reports(int(spec["value"]))
    name = spec["user"]
    if name not in users:
        raise ConfigError(f"config: unknown user {name!r}")
    return Draws(users[name].pmf, name)


def experiment_pairs(spec: Mapping, users: Mapping[str, User]) -> dict[str, SecretPair]:
    """The secret pair of every panel of an experiment (panel ``""`` when there is one pair).

    Parameters
    ----------
    spec : Mapping
        The experiment's validated config entry.
    users : Mapping[str, User]
        Every user it names.

    Returns
    -------
    dict of str to SecretPair

    Raises
    ------
    ConfigError
        A user it names that ``users`` lacks.
    """
    panels = spec["panels"] if "panels" in spec else {"": {"secrets": spec["secrets"]}}
    pairs = {}
    for panel, pspec in panels.items():
        rest = [users[name] for name in pspec.get("rest", spec.get("rest", []))]
        first, second = (secret_from_spec(s, users) for s in pspec["secrets"])
        pairs[panel] = SecretPair.of(first, second, rest)
    return pairs


def secret_label(spec) -> str:
    """A secret's label: ``absent``, ``reports <a>`` or ``draws from <user>``.

    Parameters
    ----------
    spec : str or Mapping
        The validated secret.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        A mapping with neither ``value`` nor ``user``.
    """
    if spec == "absent":
        return "absent"
    if "value" in spec:
        return f"reports {spec['value']}"
    return f"draws from {spec['user']}"


# ------------------------------------------------------------------------------ running
@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """Every table one experiment writes (see :func:`run_experiment`): ``theta``
    (:data:`THETA_COLUMNS`), ``audit`` (:data:`pufferfish.audit.verdict.AUDIT_COLUMNS`), the query
    ``priors`` of every panel, and the ``violations`` (experiment, panel, method, epsilon, scale,
    achieved) the audit found."""

    theta: pd.DataFrame
    audit: pd.DataFrame
    priors: pd.DataFrame
    violations: list = field(default_factory=list)


class _PairAudits:
    """The exact audits of one secret pair: one auditor per (noise, guarantee) of the records
    audited, and each target's smallest scale, computed once and shared by every method of
    that noise and guarantee (a method whose scale *is* the smallest one, and ``scale_min``)."""

    def __init__(self, pair: SecretPair, options: Mapping[tuple[str, str], Mapping]):
        self.p, self.q = pair.prior_i, pair.prior_j
        self._options = options
        self._auditors: dict = {}
        self._smallest: dict = {}

    def auditor(self, record):
        kind = (record.noise, record.guarantee)
        if kind not in self._auditors:
            self._auditors[kind] = lattice_auditor(*kind, self.p, self.q, **self._options.get(kind, {}))
        return self._auditors[kind]

    def smallest(self, record, target: Target) -> Smallest:
        key = (record.noise, record.guarantee, target)
        if key not in self._smallest:
            self._smallest[key] = self.auditor(record).smallest_scale(target)
        return self._smallest[key]


def run_experiment(name: str, spec: Mapping, users: Mapping[str, User], *, audit) -> ExperimentResult:
    r"""Calibrate and audit one experiment of config ``multiuser.experiments`` (paper 000's figures and tables).

    For every panel, method and epsilon: the method's noise scale (:func:`pufferfish.registry.calibrate`,
    or the audit's own smallest scale for a record that is one), its verdict against the
    method's target (:func:`pufferfish.audit.verdict.audit_scale`: the record's guarantee at epsilon,
    with the experiment's ``delta`` or ``alpha``, :func:`pufferfish.audit.target.target_for`), and the
    smallest scale of the same noise and guarantee (``scale_min``). The automatic records
    (``tight``: paper 000's :math:`\theta_{\min}`, whose search takes ``audit.bisection_rtol``
    and ``audit.bisection_max_steps``) are added to every experiment. A scale whose achieved
    value exceeds its bound times 1 + ``audit.rtol`` is a violation: logged as a warning and
    flagged in the audit table, never dropped.

    Parameters
    ----------
    name : str
        The experiment's key in ``multiuser.experiments``.
    spec : Mapping
        Its validated config entry (:class:`~pufferfish.multiuser.settings.ExperimentSettings`).
    users : Mapping[str, User]
        Every user it names (:func:`build_users`).
    audit : Mapping or AuditSettings
        Config ``audit``.

    Returns
    -------
    ExperimentResult

    Raises
    ------
    ConfigError
        A spec or audit section the settings refuse, a user it names that ``users`` lacks.
    NotApplicableError
        A method not stated for a panel's secret pair (naming the experiment and panel).
    """
    settings = ExperimentSettings.from_config(name, spec)
    check = audit if isinstance(audit, AuditSettings) else AuditSettings.from_config(audit)
    instance(users, Mapping, name="users")
    params = {k: v for k, v in (("delta", settings.delta), ("alpha", settings.alpha)) if v is not None}
    search = {"rtol": check.bisection_rtol, "max_steps": check.bisection_max_steps}
    options = {(r.noise, r.guarantee): search for r in map(registry.get, registry.names(automatic=True))}
    experiment = f"multiuser_{name}"
    rows, priors = [], []
    for panel, pair in experiment_pairs(spec, users).items():
        priors.extend(_panel_priors(spec, panel, pair))
        audits = _PairAudits(pair, options)
        scales = _panel_scales(settings, panel, pair, params, audits)
        rows.extend(_audit_rows(experiment, panel, scales, settings.epsilons, params, audits, check.rtol))
    violations = [(r["experiment"], r["panel"], r["method"], r["epsilon"], r["scale"], _achieved(r))
                  for r in rows if r["violation"]]
    theta = pd.DataFrame([_theta_row(r) for r in rows], columns=THETA_COLUMNS)
    return ExperimentResult(theta, audit_frame(rows), pd.concat(priors, ignore_index=True), violations)


def _panel_priors(spec: Mapping, panel: str, pair: SecretPair) -> list[pd.DataFrame]:
    """The query priors of a panel's two secrets, as ``panel, secret, value, probability`` rows."""
    frames = []
    for k, (label, pmf) in enumerate((("s_i", pair.prior_i), ("s_j", pair.prior_j))):
        frame = prior_frame(pmf)
        frame.insert(0, "secret", f"{label}: {secret_label(_spec_of(spec, panel, k))}")
        frame.insert(0, "panel", panel)
        frames.append(frame)
    return frames


def _panel_scales(settings: ExperimentSettings, panel: str, pair: SecretPair, params: Mapping,
                  audits: _PairAudits) -> dict[str, np.ndarray]:
    """Every method's scale per epsilon, then the automatic records' (searched first: their audits
    seed the later searches of the pair, as the order of paper 000's tables always had it)."""
    epsilons = np.asarray(settings.epsilons)
    automatic = {m: _smallest_scales(registry.get(m), epsilons, params, audits)
                 for m in registry.names(automatic=True)}
    kinds = (registry.secret_kind(pair.first), registry.secret_kind(pair.second))
    scales = {}
    for method in settings.methods:
        record = registry.get(method)
        try:
            if record.smallest:  # the audit's own smallest scale: computed once, for both columns
                registry.check_applicable(record, kinds, params)
                scales[method] = _smallest_scales(record, epsilons, params, audits)
            else:
                scales[method] = calibrate(method, pair, epsilons=epsilons, **params)
        except NotApplicableError as err:
            where = f"multiuser.experiments.{settings.name}" + (f".panels.{panel}" if panel else "")
            raise NotApplicableError(f"{where}: {err}") from None
    scales.update(automatic)
    return scales


def _smallest_scales(record, epsilons: np.ndarray, params: Mapping, audits: _PairAudits) -> np.ndarray:
    """The smallest scale the exact audit of ``record``'s noise and guarantee accepts, per epsilon."""
    return np.array([audits.smallest(record, target_for(record.guarantee, float(e), **params)).scale
                     for e in epsilons])


def _audit_rows(experiment: str, panel: str, scales: Mapping[str, np.ndarray], epsilons, params: Mapping,
                audits: _PairAudits, rtol: float) -> list[dict]:
    """The audit rows (:data:`pufferfish.audit.verdict.AUDIT_COLUMNS`) of every method and epsilon of a panel."""
    rows = []
    for method, values in scales.items():
        record = registry.get(method)
        for eps, scale in zip(epsilons, values):
            target = target_for(record.guarantee, float(eps), **params)
            smallest = audits.smallest(record, target)
            verdict = audit_scale(audits.auditor(record), float(scale), target, rtol=rtol)
            row = audit_row(verdict, experiment=experiment, panel=panel, method=method, noise=record.noise,
                            scale_min=smallest.scale, tight_note=smallest.reason)
            if row["violation"]:
                log.warning("%s%s: %s %s scale=%.6g at %s achieves %s=%.6g (violation)", experiment,
                            f" [{panel}]" if panel else "", method, record.noise, scale, _describe(target),
                            _ACHIEVED[record.guarantee], verdict.value)
            rows.append(row)
    return rows


def _achieved(row: Mapping) -> float:
    """The achieved value of an audit row: the column of its guarantee."""
    return row[f"{_COLUMN[row['guarantee']]}_achieved"]


def _theta_row(row: Mapping) -> dict:
    """The row of results/theta/multiuser_<experiment>.csv (:data:`THETA_COLUMNS`) of an audit row."""
    scale = row["scale"]
    std = noise_std(row["noise"], scale) if math.isfinite(scale) else math.nan
    return {"panel": row["panel"], "method": row["method"], "epsilon": row["epsilon"], "theta": scale,
            "epsilon_achieved": row["epsilon_achieved"], "theta_min": row["scale_min"], "noise": row["noise"],
            "delta": row["delta"], "alpha": row["alpha"], "std": std, "delta_achieved": row["delta_achieved"],
            "renyi_achieved": row["renyi_achieved"]}


#: the name of the achieved quantity of each guarantee (log lines), and its audit column
_ACHIEVED = {"epsilon": "epsilon", "epsilon_delta": "delta", "renyi": "D_alpha"}
_COLUMN = {"epsilon": "epsilon", "epsilon_delta": "delta", "renyi": "renyi"}


def _describe(target: Target) -> str:
    if target.guarantee == "epsilon_delta":
        return f"(epsilon, delta) = ({target.epsilon:g}, {target.delta:g})"
    if target.guarantee == "renyi":
        return f"(alpha, epsilon) = ({target.alpha:g}, {target.epsilon:g})"
    return f"epsilon = {target.epsilon:g}"


def run_plan(name: str, spec: Mapping, users: Mapping[str, User]) -> tuple[pd.DataFrame, pd.DataFrame]:
    r"""The monotone plan :math:`\pi^*` (eq. 6) and the CDF / :math:`\Delta^*` table (Lemma 7) of a ``kind: plan`` experiment.

    Lemma 7 (the sup of the plan's :math:`|x - x'|` is :math:`\sup \Delta^*`) is checked.

    Parameters
    ----------
    name : str
        The experiment's key.
    spec : Mapping
        Its validated config entry (one secret pair).
    users : Mapping[str, User]
        Every user it names.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The plan's non-zero entries ``x, x_prime, mass`` (:math:`x` under the first secret,
        :math:`x'` under the second) and ``x, F_i, F_j, delta_star`` at every lattice point
        between the extreme atoms.

    Raises
    ------
    ConfigError
        An experiment with panels.
    """
    if "panels" in spec:
        raise ConfigError(f"config: multiuser.experiments.{name}: kind 'plan' takes one secret pair (secrets), not panels")
    pair = experiment_pairs(spec, users)[""]
    p, q = pair.prior_i, pair.prior_j
    plan = kantorovich_plan(p, q)
    xs, ds = delta_star(p, q)
    if plan.span != int(ds.max()):  # Lemma 7: a mismatch would be a bug, never a result
        raise AssertionError(f"multiuser_{name}: plan span {plan.span} != sup Delta* {int(ds.max())}")
    lo, hi = int(xs[0]), int(xs[-1])
    cdf = pd.DataFrame({"x": xs, "F_i": p.cdf_on(lo, hi), "F_j": q.cdf_on(lo, hi),
                        "delta_star": ds})
    return pd.DataFrame({"x": plan.x, "x_prime": plan.x_prime, "mass": plan.mass}), cdf


def _spec_of(spec: Mapping, panel: str, k: int):
    return (spec["panels"][panel]["secrets"] if panel else spec["secrets"])[k]


# ------------------------------------------------------------------------------ file-level steps
def load_data_users(records: Mapping[str, str]) -> dict[str, LatticePMF]:
    """The priors of data-derived users from their provenance JSONs, exact (:func:`read_user_prior`).

    Parameters
    ----------
    records : Mapping[str, str]
        User -> the path of its provenance JSON.

    Returns
    -------
    dict of str to LatticePMF

    Raises
    ------
    OSError, ValueError
        A file that cannot be read or is not JSON.
    """
    import json

    out = {}
    for name, path in records.items():
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
        out[name] = read_user_prior(None, name=name, record=record)
    return out


def write_data_user(*, name: str, spec: Mapping, data_csv, data_json, out_csv, out_json) -> dict:
    """Step ``multiuser_data_user``: the prior of one data-derived user, with its provenance.

    Parameters
    ----------
    name : str
        The user's key.
    spec : Mapping
        Its validated config entry.
    data_csv, data_json : path-like
        The dataset and its download record (its sha256 goes to the provenance).
    out_csv, out_json : path-like
        The prior (``value,probability``) and its provenance record.

    Returns
    -------
    dict
        The provenance record.

    Raises
    ------
    DataError, OutputError
        As :func:`data_user_prior`; a file that cannot be written.
    """
    import json

    from pufferfish.files import write_csv, write_json
    frame = pd.read_csv(data_csv)
    pmf, record = data_user_prior(frame, spec, name=name)
    with open(data_json, encoding="utf-8") as handle:
        source = json.load(handle)
    record["dataset_sha256"] = source.get("sha256")
    log.info("%s: %s rows in %s, %s dropped (missing), %s used; values %s", name, record["rows_in_dataset"],
             spec["dataset"], record["rows_dropped_missing"], record["rows_used"], record["values"])
    write_csv(prior_frame(pmf), out_csv)
    write_json(record, out_json)
    return record


def config_user_prior(spec: Mapping, *, name: str) -> tuple[LatticePMF, dict]:
    """A lattice user given in config (``multiuser.users``: Tables 2-4 of paper 000, Bernoulli users).

    Parameters
    ----------
    spec : Mapping
        The user's validated config entry (``values``, ``probabilities``, ``presence``).
    name : str
        Its key.

    Returns
    -------
    (LatticePMF, dict)
        The pmf and its provenance record (source, values and probabilities as written, presence).

    Raises
    ------
    InvalidArgumentError
        Values and probabilities that are not a pmf.
    """
    pmf = LatticePMF.from_values(spec["values"], spec["probabilities"], name=f"multiuser.users.{name}")
    record = {
        "user": name,
        "source": f"config.yaml multiuser.users.{name}",
        "values": [int(v) for v in spec["values"]],
        "probabilities": [float(p) for p in spec["probabilities"]],
        "presence": float(spec["presence"]),  # the schema's default is filled in when config leaves it out
    }
    return pmf, record


def write_config_user(*, name: str, spec: Mapping, out_csv, out_json) -> dict:
    """Step ``multiuser_config_users``: the prior of one config lattice user (``value,probability``).

    Parameters
    ----------
    name, spec
        As :func:`config_user_prior`.
    out_csv, out_json : path-like
        The prior and its provenance record.

    Returns
    -------
    dict
        The provenance record.

    Raises
    ------
    InvalidArgumentError, OutputError
        As :func:`config_user_prior`; a file that cannot be written.
    """
    from pufferfish.files import write_csv, write_json
    pmf, record = config_user_prior(spec, name=name)
    write_csv(pd.DataFrame({"value": record["values"], "probability": record["probabilities"]}), out_csv)
    write_json(record, out_json)
    return record


def write_experiment(*, name: str, spec: Mapping, multiuser: Mapping, audit: Mapping,
                     data_users: Mapping[str, str], out_theta, out_audit, out_priors, out_png=None, out_pdf=None,
                     out_csv=None, out_plan=None, out_cdf=None) -> ExperimentResult:
    r"""Step ``multiuser_experiment``: one experiment from its users to its figure.

    Writes theta, audit and query priors (:func:`run_experiment`); for a ``kind: plan``
    experiment with ``out_plan`` / ``out_cdf``, :math:`\pi^*` and the CDF / :math:`\Delta^*` table
    (:func:`run_plan`); and with ``out_png`` the figure (:func:`write_figure`), drawn from the
    tables as written. One job does all of it, so the users are read and the libraries
    imported once per experiment.

    Parameters
    ----------
    name, spec, audit
        As :func:`run_experiment`.
    multiuser : Mapping
        The ``multiuser`` section's ``users`` and ``data_users`` (:func:`build_users`).
    data_users : Mapping[str, str]
        Data user -> its provenance JSON (:func:`load_data_users`).
    out_theta, out_audit, out_priors : path-like
        The experiment's tables.
    out_png, out_pdf, out_csv : path-like, optional
        Its figure and the numbers plotted.
    out_plan, out_cdf : path-like, optional
        The plan and the CDF / :math:`\Delta^*` table (``kind: plan``).

    Returns
    -------
    ExperimentResult

    Raises
    ------
    ConfigError, NotApplicableError, OutputError
        As :func:`run_experiment`; a file that cannot be written.
    """
    from pufferfish.files import write_csv
    users = build_users(multiuser, load_data_users(data_users))
    result = run_experiment(name, spec, users, audit=audit)
    write_csv(result.priors, out_priors)
    write_csv(result.audit, out_audit)
    write_csv(result.theta, out_theta)
    if out_plan is not None:
        plan, cdf = run_plan(name, spec, users)
        log.info("multiuser_%s: %d plan entries, sup |x - x'| = %d", name, len(plan), int(cdf.delta_star.max()))
        write_csv(cdf, out_cdf)
        write_csv(plan, out_plan)
    if out_png is not None:
        write_figure(name=name, spec=spec, theta_csv=out_theta, priors_csv=out_priors, plan_csv=out_plan,
                     user_records=list(data_users.values()), png=out_png, pdf=out_pdf, csv=out_csv)
    return result


def describe_secret(spec, records: Mapping[str, Mapping]) -> str:
    """A short label of a secret for figures: data users as ``attribute | condition (n=rows)``.

    Parameters
    ----------
    spec : str or Mapping
        The validated secret.
    records : Mapping[str, Mapping]
        User -> its provenance record (the data users).

    Returns
    -------
    str

    Raises
    ------
    KeyError
        A data user's record without its condition or row count.
    """
    if isinstance(spec, Mapping) and spec.get("user") in records:
        rec = records[spec["user"]]
        given = ", ".join(f"{k}={v}" for k, v in rec["given"].items())
        return f"{rec['attribute']} | {given} (n={rec['rows_used']})"
    return secret_label(spec)


def write_figure(*, name: str, spec: Mapping, theta_csv, priors_csv, plan_csv=None, user_records=(),
                 png, pdf, csv) -> None:
    """The figure of an experiment (end of step ``multiuser_experiment``): the plan figure (kind plan)
    or theta against epsilon (kind theta).

    Parameters
    ----------
    name, spec
        The experiment's key and validated config entry.
    theta_csv, priors_csv : path-like
        Its theta and query-prior tables, as written.
    plan_csv : path-like, optional
        Its plan (``kind: plan``).
    user_records : sequence of path-like
        The provenance JSONs of the data-derived users (the panel titles: attribute, condition
        and rows used).
    png, pdf, csv : path-like
        The figure and the numbers plotted.

    Returns
    -------
    None

    Raises
    ------
    OSError, OutputError
        A file that cannot be read or written.
    """
    import json
    import textwrap

    from pufferfish.files import read_table
    from pufferfish.multiuser.plots import plot_plan, plot_theta
    records = {}
    for path in user_records:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
        records[record["user"]] = record
    theta = read_table(theta_csv)
    title = spec.get("title", name)
    if spec["kind"] == "plan":
        labels = [f"{k}: {describe_secret(s, records)}" for k, s in zip(("sᵢ", "sⱼ"), spec["secrets"])]
        plot_plan(pd.read_csv(plan_csv, float_precision="round_trip"),
                  pd.read_csv(priors_csv, float_precision="round_trip"), theta, title=title, secret_labels=labels,
                  png=png, pdf=pdf, csv=csv)
    else:
        panel_titles = {}
        for panel, pspec in spec.get("panels", {}).items():
            text = " vs ".join(describe_secret(s, records) for s in pspec["secrets"])
            panel_titles[panel] = panel + "\n" + "\n".join(textwrap.wrap(text, 48))
        plot_theta(theta, title=title, panel_titles=panel_titles, png=png, pdf=pdf, csv=csv)

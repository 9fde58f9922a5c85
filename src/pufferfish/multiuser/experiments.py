r"""Experiments of the multi-user paper (000) as declared in config.yaml (``multiuser`` section).

The workflow scripts call :func:`~pufferfish.multiuser.user_priors.write_data_user` /
:func:`~pufferfish.multiuser.user_priors.write_config_user` (the users' priors,
:mod:`pufferfish.multiuser.user_priors`) and :func:`write_experiment` (one figure or table:
:func:`run_experiment` calibrates every method and audits every scale through
:mod:`pufferfish.audit.verdict`, :func:`run_plan` draws the transport plan and :math:`\Delta^*` of a
``kind: plan`` experiment, on the secret pairs of :mod:`pufferfish.multiuser.secret_pairs`). Nothing
here is specific to a figure: a new experiment in config.yaml needs no code. The methods and their
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
from pufferfish.errors import ConfigError, NotApplicableError
from pufferfish.lattice.system import SecretPair, User
from pufferfish.lattice.transport import delta_star, kantorovich_plan
from pufferfish.multiuser.secret_pairs import build_users, describe_secret, experiment_pairs, secret_label
from pufferfish.multiuser.settings import ExperimentSettings
from pufferfish.multiuser.user_priors import load_data_users, prior_frame
from pufferfish.registry import calibrate
from pufferfish.settings import AuditSettings

__all__ = ["run_experiment", "ExperimentResult", "run_plan", "THETA_COLUMNS", "write_experiment", "write_figure"]

log = logging.getLogger("pufferfish")


#: columns of results/theta/multiuser_<experiment>.csv: ``theta`` is the method's noise scale
#: (Laplace b, Gaussian sigma or Cauchy gamma, by ``noise``), ``theta_min`` the smallest scale of the
#: same noise and guarantee that the exact audit accepts, ``std`` the noise's standard deviation
#: (sqrt(2) b, sigma; empty for Cauchy); ``epsilon_achieved`` / ``delta_achieved`` /
#: ``renyi_achieved`` what the scale achieves against its target (pure epsilon / (epsilon, delta) /
#: D_alpha <= epsilon), the other two empty
THETA_COLUMNS = ["panel", "method", "epsilon", "theta", "epsilon_achieved", "theta_min", "noise", "delta", "alpha",
                 "std", "delta_achieved", "renyi_achieved"]


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
    and ``audit.bisection_max_steps``) are added to every experiment. A scale whose certified
    achieved value exceeds its bound (no tolerance) is a violation: logged as a warning and
    flagged in the audit table, never dropped.

    Parameters
    ----------
    name : str
        The experiment's key in ``multiuser.experiments``.
    spec : Mapping
        Its validated config entry (:class:`~pufferfish.multiuser.settings.ExperimentSettings`).
    users : Mapping[str, User]
        Every user it names (:func:`~pufferfish.multiuser.secret_pairs.build_users`).
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
        rows.extend(_audit_rows(experiment, panel, scales, settings.epsilons, params, audits))
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
                audits: _PairAudits) -> list[dict]:
    """The audit rows (:data:`pufferfish.audit.verdict.AUDIT_COLUMNS`) of every method and epsilon of a panel."""
    rows = []
    for method, values in scales.items():
        record = registry.get(method)
        for eps, scale in zip(epsilons, values):
            target = target_for(record.guarantee, float(eps), **params)
            smallest = audits.smallest(record, target)
            verdict = audit_scale(audits.auditor(record), float(scale), target)
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
        The ``multiuser`` section's ``users`` and ``data_users``
        (:func:`~pufferfish.multiuser.secret_pairs.build_users`).
    data_users : Mapping[str, str]
        Data user -> its provenance JSON (:func:`~pufferfish.multiuser.user_priors.load_data_users`).
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

"""Experiments of the multi-user paper as declared in config.yaml (``multiuser`` section).

The workflow scripts only call :func:`data_user_prior` (one data-derived user) and
:func:`run_experiment` (one figure or table: calibrate every method, audit every theta,
compute theta_min, and, for ``kind: plan``, the transport plan and Delta*). Nothing here
is specific to a figure: a new experiment in config.yaml needs no code.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pufferfish import registry
from pufferfish.audit import Target, lattice_auditor
from pufferfish.audit import noise_std
from pufferfish.audit.laplace_lattice import lattice_privacy_loss, theta_min
from pufferfish.errors import ConfigError, NotApplicableError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.registry import calibrate
from pufferfish.data_priors import condition, describe_encoding, empirical_pmf, encode
from pufferfish.lattice.system import Absent, Draws, Reports, SecretPair, User
from pufferfish.lattice.transport import delta_star, kantorovich_plan
from pufferfish.multiuser.settings import ExperimentSettings, users_from_config
from pufferfish.settings import AuditSettings

__all__ = [
    "data_user_prior", "build_users", "secret_from_spec", "experiment_pairs", "run_experiment",
    "ExperimentResult", "run_plan", "prior_frame", "THETA_COLUMNS", "AUDIT_COLUMNS", "MULTIUSER_AUDIT_COLUMNS",
    "read_user_prior", "config_user_prior", "write_config_user", "noise_std",
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
#: columns shared by every results/audit/<experiment>.csv (both papers)
AUDIT_COLUMNS = ["experiment", "panel", "method", "epsilon", "delta", "scale", "epsilon_achieved",
                 "delta_achieved", "scale_min", "violation"]
#: columns the multi-user audit tables add after :data:`AUDIT_COLUMNS`
MULTIUSER_AUDIT_COLUMNS = ["loss_forward", "loss_backward", "tight_note", "noise", "guarantee", "alpha",
                           "renyi_achieved"]


# ------------------------------------------------------------------------------ data users
def data_user_prior(frame: pd.DataFrame, spec: Mapping, *, name: str) -> tuple[LatticePMF, dict]:
    """Pr(attribute | given) of a dataset, encoded to integers (config ``multiuser.data_users``).

    Returns the exact empirical pmf and a provenance record (dataset, condition, encoding,
    row counts).
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
    """``value,probability`` rows of a pmf (atoms with positive mass)."""
    mask = pmf.probs > 0
    return pd.DataFrame({"value": pmf.values[mask], "probability": pmf.probs[mask]})


def read_user_prior(path, *, name: str, record: Mapping | None = None) -> LatticePMF:
    """Read a ``value,probability`` prior written by the data-user rule.

    When ``record`` (its provenance JSON) carries the counts, the exact fractions are rebuilt.
    """
    if record is not None and "counts" in record:
        return LatticePMF.from_counts(record["values"], record["counts"], name=name)
    frame = pd.read_csv(path, float_precision="round_trip")
    return LatticePMF.from_values(frame["value"].tolist(), frame["probability"].tolist(), name=name)


# ------------------------------------------------------------------------------ config -> model
def build_users(mu_config: Mapping, data_pmfs: Mapping[str, LatticePMF]) -> dict[str, User]:
    """Every user of the validated ``multiuser`` config (``users`` and ``data_users``, read as
    :func:`pufferfish.multiuser.settings.users_from_config`: the presence zeta is the schema's
    default where config leaves it out): lattice users and data-derived users."""
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
    """``absent`` / ``{value: a}`` / ``{user: NAME}`` -> :class:`Absent` / :class:`Reports` / :class:`Draws`."""
    if spec == "absent":
        return Absent()
    if "value" in spec:
        return Reports(int(spec["value"]))
    name = spec["user"]
    if name not in users:
        raise ConfigError(f"config: unknown user {name!r}")
    return Draws(users[name].pmf, name)


def experiment_pairs(spec: Mapping, users: Mapping[str, User]) -> dict[str, SecretPair]:
    """The secret pair of every panel of an experiment (panel ``""`` when there is one pair)."""
    panels = spec["panels"] if "panels" in spec else {"": {"secrets": spec["secrets"]}}
    pairs = {}
    for panel, pspec in panels.items():
        rest = [users[name] for name in pspec.get("rest", spec.get("rest", []))]
        first, second = (secret_from_spec(s, users) for s in pspec["secrets"])
        pairs[panel] = SecretPair.of(first, second, rest)
    return pairs


def secret_label(spec) -> str:
    if spec == "absent":
        return "absent"
    if "value" in spec:
        return f"reports {spec['value']}"
    return f"draws from {spec['user']}"


# ------------------------------------------------------------------------------ running
@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """Every table one experiment writes (see :func:`run_experiment`)."""

    theta: pd.DataFrame
    audit: pd.DataFrame
    priors: pd.DataFrame
    violations: list = field(default_factory=list)


def _target(record, epsilon: float, params: Mapping) -> Target:
    """The target a method's scale is audited against: its guarantee at ``epsilon`` (and delta / alpha)."""
    if record.guarantee == "epsilon_delta":
        return Target(epsilon, delta=params["delta"])
    if record.guarantee == "renyi":
        return Target(epsilon, alpha=params["alpha"])
    return Target(epsilon)


def run_experiment(name: str, spec: Mapping, users: Mapping[str, User], *, audit: Mapping) -> ExperimentResult:
    """Calibrate, audit and (for ``kind: plan``) transport-plan one experiment.

    For every panel, method and epsilon: the method's noise scale, what it achieves against
    its target by the exact audit of its noise and guarantee
    (:func:`pufferfish.audit.lattice_auditor`, both directions), and the smallest scale of the
    same noise and guarantee. The target is the record's guarantee at epsilon: pure epsilon,
    (epsilon, delta) with the experiment's ``delta``, or D_alpha <= epsilon with its ``alpha``.
    ``tight`` (Laplace, pure epsilon: theta_min) is added to every experiment. A scale whose
    achieved value exceeds its bound (epsilon or delta) * (1 + audit.rtol) is a violation: it
    is logged as a warning and flagged in the audit table, never silently dropped.
    """
    epsilons = np.asarray(ExperimentSettings.from_config(name, spec).epsilons)
    settings = audit if isinstance(audit, AuditSettings) else AuditSettings.from_config(audit)
    rtol, brtol, steps = settings.rtol, settings.bisection_rtol, settings.bisection_max_steps
    params = {key: spec[key] for key in ("delta", "alpha") if spec.get(key) is not None}
    pairs = experiment_pairs(spec, users)
    theta_rows, audit_rows, prior_rows, violations = [], [], [], []
    experiment = f"multiuser_{name}"
    for panel, pair in pairs.items():
        p, q = pair.prior_i, pair.prior_j
        for label, secret_spec, pmf in (("s_i", _spec_of(spec, panel, 0), p), ("s_j", _spec_of(spec, panel, 1), q)):
            frame = prior_frame(pmf)
            frame.insert(0, "secret", f"{label}: {secret_label(secret_spec)}")
            frame.insert(0, "panel", panel)
            prior_rows.append(frame)
        tight_results = [theta_min(p, q, float(e), rtol=brtol, max_steps=steps) for e in epsilons]
        auditors, smallest = {}, {}

        def smallest_scale(record, target: Target):
            """The audit's smallest scale for ``record``'s noise and guarantee (once per target)."""
            kind = (record.noise, record.guarantee)
            if kind not in auditors:
                auditors[kind] = lattice_auditor(record.noise, record.guarantee, p, q)
            if (kind, target) not in smallest:
                smallest[(kind, target)] = auditors[kind].smallest_scale(target)
            return smallest[(kind, target)]

        thetas = {}
        for method in spec["methods"]:
            record = registry.get(method)
            try:
                if record.smallest:   # the audit's own smallest scale: computed once, for both columns
                    registry.check_applicable(record, (registry.secret_kind(pair.first),
                                                       registry.secret_kind(pair.second)), params)
                    thetas[method] = np.array([smallest_scale(record, _target(record, float(e), params)).scale
                                               for e in epsilons])
                else:
                    thetas[method] = calibrate(method, pair, epsilons=epsilons, **params)
            except NotApplicableError as err:
                where = f"multiuser.experiments.{name}" + (f".panels.{panel}" if panel else "")
                raise NotApplicableError(f"{where}: {err}") from None
        thetas["tight"] = np.array([t.theta for t in tight_results])
        for method, values in thetas.items():
            record = registry.get(method)
            kind = (record.noise, record.guarantee)
            for k, (eps, theta) in enumerate(zip(epsilons, values)):
                target = _target(record, float(eps), params)
                if kind == ("laplace", "epsilon"):      # paper 000's audit, as before
                    tmin, note = tight_results[k].theta, tight_results[k].reason
                    if theta > 0 and np.isfinite(theta):
                        loss = lattice_privacy_loss(p, q, theta)
                        achieved, fwd, bwd = loss.epsilon, loss.forward, loss.backward
                    elif theta == 0:
                        achieved = fwd = bwd = float(tight_results[k].loss) if tmin == 0 else np.inf
                    else:
                        achieved = fwd = bwd = np.nan
                else:
                    best = smallest_scale(record, target)
                    tmin, note = best.scale, best.reason
                    if theta > 0 and np.isfinite(theta):
                        got = auditors[kind].achieved(float(theta), target)
                        fwd, bwd = got.forward, got.backward
                    elif theta == 0:
                        got = auditors[kind].noise_free(target)
                        fwd, bwd = got.forward, got.backward
                    else:
                        fwd = bwd = np.nan
                    achieved = max(fwd, bwd)
                violation = bool(achieved > target.bound * (1.0 + rtol))
                if violation:
                    violations.append((experiment, panel, method, float(eps), float(theta), float(achieved)))
                    log.warning("%s%s: %s %s scale=%.6g at %s achieves %s=%.6g (violation)", experiment,
                                f" [{panel}]" if panel else "", method, record.noise, theta, _describe(target),
                                _ACHIEVED[record.guarantee], achieved)
                values_by = {g: (achieved if g == record.guarantee else np.nan) for g in _ACHIEVED}
                delta = target.delta if target.delta is not None else np.nan
                alpha = target.alpha if target.alpha is not None else np.nan
                theta_rows.append({"panel": panel, "method": method, "epsilon": float(eps), "theta": float(theta),
                                   "epsilon_achieved": values_by["epsilon"], "theta_min": tmin,
                                   "noise": record.noise, "delta": delta, "alpha": alpha,
                                   "std": noise_std(record.noise, float(theta)),
                                   "delta_achieved": values_by["epsilon_delta"],
                                   "renyi_achieved": values_by["renyi"]})
                audit_rows.append({"experiment": experiment, "panel": panel, "method": method, "epsilon": float(eps),
                                   "delta": delta, "scale": float(theta), "epsilon_achieved": values_by["epsilon"],
                                   "delta_achieved": values_by["epsilon_delta"], "scale_min": tmin,
                                   "violation": violation, "loss_forward": fwd, "loss_backward": bwd,
                                   "tight_note": note, "noise": record.noise, "guarantee": record.guarantee,
                                   "alpha": alpha, "renyi_achieved": values_by["renyi"]})
    theta = pd.DataFrame(theta_rows, columns=THETA_COLUMNS)
    audit_frame = pd.DataFrame(audit_rows, columns=AUDIT_COLUMNS + MULTIUSER_AUDIT_COLUMNS)
    priors = pd.concat(prior_rows, ignore_index=True)
    return ExperimentResult(theta, audit_frame, priors, violations)


#: the name of the achieved quantity of each guarantee (log lines)
_ACHIEVED = {"epsilon": "epsilon", "epsilon_delta": "delta", "renyi": "D_alpha"}


def _describe(target: Target) -> str:
    if target.guarantee == "epsilon_delta":
        return f"(epsilon, delta) = ({target.epsilon:g}, {target.delta:g})"
    if target.guarantee == "renyi":
        return f"(alpha, epsilon) = ({target.alpha:g}, {target.epsilon:g})"
    return f"epsilon = {target.epsilon:g}"


def run_plan(name: str, spec: Mapping, users: Mapping[str, User]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The monotone plan pi* (eq. 6) and the CDF/Delta* table (Lemma 7) of a ``kind: plan`` experiment.

    Returns ``(plan, cdf)``: plan rows ``x,x_prime,mass`` (x under the first secret, x' under
    the second; non-zero entries), cdf rows ``x,F_i,F_j,delta_star`` over every lattice point
    between the extreme atoms. Lemma 7 (sup of the plan's |x - x'| = sup Delta*) is checked.
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
def _load_data_users(records: Mapping[str, str]) -> dict[str, LatticePMF]:
    import json
    out = {}
    for name, path in records.items():
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
        out[name] = read_user_prior(None, name=name, record=record)
    return out


def write_data_user(*, name: str, spec: Mapping, data_csv, data_json, out_csv, out_json) -> dict:
    """Step ``multiuser_data_user``: the prior of one data-derived user, with its provenance."""
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

    Returns the pmf and its provenance record (source, values and probabilities as written,
    presence zeta).
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
    """Step ``multiuser_config_users``: the prior of one config lattice user (``value,probability``)."""
    from pufferfish.files import write_csv, write_json
    pmf, record = config_user_prior(spec, name=name)
    write_csv(pd.DataFrame({"value": record["values"], "probability": record["probabilities"]}), out_csv)
    write_json(record, out_json)
    return record


def write_experiment(*, name: str, spec: Mapping, multiuser: Mapping, audit: Mapping,
                     data_users: Mapping[str, str], out_theta, out_audit, out_priors, out_png=None, out_pdf=None,
                     out_csv=None, out_plan=None, out_cdf=None) -> ExperimentResult:
    """Step ``multiuser_experiment``: one experiment from its users to its figure.

    Writes theta, audit and query priors (:func:`run_experiment`); for a ``kind: plan``
    experiment with ``out_plan``/``out_cdf``, pi* and the CDF/Delta* table (:func:`run_plan`);
    and with ``out_png`` the figure (:func:`write_figure`: PNG, PDF and the CSV of the numbers
    plotted), drawn from the tables as written. One job does all of it, so the users are read
    and the libraries imported once per experiment.
    """
    from pufferfish.files import write_csv
    users = build_users(multiuser, _load_data_users(data_users))
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
    """A short label of a secret for figures: data users as ``attribute | condition (n rows)``."""
    if isinstance(spec, Mapping) and spec.get("user") in records:
        rec = records[spec["user"]]
        given = ", ".join(f"{k}={v}" for k, v in rec["given"].items())
        return f"{rec['attribute']} | {given} (n={rec['rows_used']})"
    return secret_label(spec)


def write_figure(*, name: str, spec: Mapping, theta_csv, priors_csv, plan_csv=None, user_records=(),
                 png, pdf, csv) -> None:
    """The figure of an experiment (end of step ``multiuser_experiment``): the plan figure (kind plan)
    or theta against epsilon (kind theta).

    ``user_records`` are the provenance JSONs of the data-derived users (for the panel titles:
    attribute, condition and rows used).
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

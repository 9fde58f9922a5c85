"""The two experiments of the closed-form sensitivities: attribute privacy on UCI data, diffusions.

* :func:`run_attribute_privacy` -- for each configured (dataset, released, protected)
  triple: the DP sensitivity (the released column's observed range), the closed form of
  Prop. 6.2 with the Gaussian fitted to the two columns, and the exact W_inf / W_2 between
  the data's own conditionals Pr(released | protected = v), maximised over every pair of
  observed protected values (as Table 1 does: :mod:`pufferfish.wasserstein.table1`).
  Writes ``results/theta/attribute_privacy.csv`` (:data:`ATTRIBUTE_COLUMNS`), the audit
  table (the project's audit format: :data:`AUDIT_COLUMNS`) and the figure. Each scale
  (GWM Laplace, analytic GWM Gaussian, DAGWM Cauchy; from the closed form and from the
  empirical distances) is audited exactly on every pair of the data's conditionals; a
  scale that fails is flagged (``violation``), in the audit table and in the figure. The
  closed-form scales are a baseline the project does not vouch for on these data (Prop. 6.2
  holds for a Gaussian prior, which the data are not): their rows have ``claimed`` False, so
  a failure is reported as the baseline's, not as a violation of the project's methods.
* :func:`run_diffusion` -- Prop. 6.3's bound D e^(-lambda t) against the exact OU W_inf and
  the largest synchronously coupled distance over seeded Euler-Maruyama paths
  (``results/theta/diffusion.csv``, :data:`DIFFUSION_COLUMNS`), a check table
  (:data:`CHECK_COLUMNS`: a coupled distance above the bound is a ``violation``), the exact
  audit of the OU scales calibrated from the bound (:func:`diffusion_audit`, audit format,
  every row ``claimed``: Prop. 6.3 is exact for OU) and the figure.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pufferfish.audit import Target, lattice_auditor
from pufferfish.errors import DataError
from pufferfish.files import write_csv
from pufferfish.sensitivity.captions import coupling_violation_lines
from pufferfish.data_priors import empirical_pmf, encode
from pufferfish.sensitivity.attribute import two_column_sensitivity
from pufferfish.sensitivity.diffusion import POTENTIALS, coupled_distances, diffusion_sensitivity, ou_w_inf, potential
from pufferfish.sensitivity.scales import GWM_METHODS, scales_from_sensitivity
from pufferfish.sensitivity.settings import AttributePrivacySettings, AttributeTriple, DiffusionSettings
from pufferfish.wasserstein.table1 import PairSensitivity, SecretConditional, setting_sensitivities

__all__ = ["ATTRIBUTE_COLUMNS", "AUDIT_COLUMNS", "DIFFUSION_COLUMNS", "CHECK_COLUMNS", "FIGURE_COLUMNS",
           "EXPERIMENT", "DIFFUSION_EXPERIMENT", "SOURCES", "CLAIMED_SOURCES", "TripleResult", "triple_columns",
           "attribute_triple", "audit_triple", "run_attribute_privacy", "diffusion_rows", "diffusion_audit",
           "run_diffusion"]

log = logging.getLogger("pufferfish")

#: columns of results/theta/attribute_privacy.csv (issue 23)
ATTRIBUTE_COLUMNS = ["dataset", "released", "protected", "rows", "dp_sensitivity", "gaussian_w_inf",
                     "empirical_w_inf", "empirical_w_2"]
#: the project's audit-table columns (those of results/audit/multiuser_*.csv) and ``claimed``: True
#: where the project or the paper claims the scale attains its target on the audited priors,
#: False for a baseline shown on purpose (a closed form audited outside its Gaussian premise)
AUDIT_COLUMNS = ["experiment", "panel", "method", "epsilon", "delta", "scale", "epsilon_achieved", "delta_achieved",
                 "scale_min", "violation", "loss_forward", "loss_backward", "tight_note", "noise", "guarantee", "alpha",
                 "renyi_achieved", "claimed"]
#: columns of the attribute figure's numbers
FIGURE_COLUMNS = ["dataset", "released", "protected", "rows", "protected_values", "min_rows", "dp_sensitivity",
                  "gaussian_w_inf", "empirical_w_inf", "empirical_w_2", "closed_form_flagged"]
#: columns of results/theta/diffusion.csv (issue 23)
DIFFUSION_COLUMNS = ["potential", "lambda", "time", "diameter", "bound", "ou_exact", "coupled_max"]
#: columns of the diffusion check table
CHECK_COLUMNS = ["potential", "lambda", "time", "bound", "coupled_max", "step", "steps", "paths", "violation"]
#: the ``experiment`` of the audit rows
EXPERIMENT = "sensitivity_attribute_privacy"
#: where a scale's sensitivity comes from: the closed form (Prop. 6.2, Gaussian fit) or the data's conditionals
SOURCES = ("closed_form", "empirical")
#: the sources whose scales the project claims on the data's conditionals: the GWM theorems
#: (paper 002, Cor. 3.1, 4.1) applied to the exact W_inf / W_2 of those conditionals. The
#: closed form assumes a Gaussian prior, which the data are not: a baseline (``claimed`` False).
CLAIMED_SOURCES = ("empirical",)


def _label(value) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


# ------------------------------------------------------------------------------ attribute privacy
@dataclass(frozen=True, eq=False)
class TripleResult:
    """One triple: its row of :data:`ATTRIBUTE_COLUMNS`, its conditionals and their pairs."""

    triple: AttributeTriple
    rows: int
    dp_sensitivity: float
    gaussian_w_inf: float
    empirical_w_inf: int
    empirical_w_2: float
    conditionals: tuple[SecretConditional, ...]
    pairs: tuple[PairSensitivity, ...]

    @property
    def min_rows(self) -> int:
        """The fewest records behind one protected value's conditional."""
        return min(c.rows for c in self.conditionals)

    def row(self) -> dict:
        t = self.triple
        return {"dataset": t.dataset, "released": t.released, "protected": t.protected, "rows": self.rows,
                "dp_sensitivity": self.dp_sensitivity, "gaussian_w_inf": self.gaussian_w_inf,
                "empirical_w_inf": self.empirical_w_inf, "empirical_w_2": self.empirical_w_2}


def triple_columns(frame: pd.DataFrame, triple: AttributeTriple) -> tuple[np.ndarray, pd.Series]:
    """The two columns of a triple as the experiment reads them: (the released column's integers,
    the protected column's numbers), rows missing either dropped. Raises :class:`DataError`
    (one line naming the triple) for a missing column, no complete row, a released column
    that is not integer, a protected column that is not numeric, or a released column of a
    single value. The workflow runs it on the cached data before any job
    (:func:`pufferfish.pipeline.data_checks.check_data`)."""
    where = f"sensitivity.attribute_privacy [{triple.label}]"
    for column in (triple.released, triple.protected):
        if column not in frame.columns:
            raise DataError(f"{where}: dataset {triple.dataset} has no column {column!r} "
                            f"(columns: {', '.join(map(str, frame.columns))})")
    data = frame[[triple.released, triple.protected]].dropna()
    if data.empty:
        raise DataError(f"{where}: no row has both {triple.released} and {triple.protected}")
    released = encode(data[triple.released], "numeric", name=f"{where}: {triple.released}")
    protected = pd.to_numeric(data[triple.protected], errors="coerce")
    if protected.isna().any():
        raise DataError(f"{where}: protected column {triple.protected} is not numeric "
                        f"(e.g. {data[triple.protected][protected.isna()].iloc[0]!r}); the Gaussian fit needs numbers")
    if released.max() == released.min():
        raise DataError(f"{where}: {triple.released} takes a single value; nothing to protect")
    return released, protected


def attribute_triple(frame: pd.DataFrame, triple: AttributeTriple) -> TripleResult:
    """The sensitivities of one triple on ``frame`` (rows missing either column dropped).

    The released column must hold integers (the lattice of the exact distances); the
    protected column's values are the secrets (every pair of observed values is a secret
    pair, however few records a value has). The columns are read by :func:`triple_columns`.
    """
    where = f"sensitivity.attribute_privacy [{triple.label}]"
    released, protected = triple_columns(frame, triple)
    fit = two_column_sensitivity(released.astype(float), protected.to_numpy(dtype=float))
    dp = float(released.max() - released.min())
    conditionals = []
    for value in sorted(protected.unique()):
        codes = released[(protected == value).to_numpy()]
        conditionals.append(SecretConditional(_label(value), empirical_pmf(codes, name=f"{where} = {_label(value)}"),
                                              int(codes.size)))
    rows = setting_sensitivities(triple.label, conditionals, attribute_range=dp)
    pairs = tuple(r for r in rows if not r.is_max)
    best = next(r for r in rows if r.is_max)
    return TripleResult(triple, int(len(released)), dp, fit.sensitivity, int(best.w_inf), float(best.w_2),
                        tuple(conditionals), pairs)


def _target(guarantee: str, epsilon: float, settings: AttributePrivacySettings) -> Target:
    if guarantee == "epsilon_delta":
        return Target(epsilon, delta=settings.delta)
    if guarantee == "renyi":
        return Target(epsilon, alpha=settings.alpha)
    return Target(epsilon)


def _upper_bound(noise: str, pair: PairSensitivity, scale: float, target: Target) -> float:
    """A sound upper bound of what noise of ``scale`` achieves on ``pair``: the GWM / DAGWM theorems
    for the pair's own W_inf / W_2 (paper 002, Cor. 3.1 and Cor. 4.1; proofs in
    :mod:`pufferfish.wasserstein.methods`; the one-shift closed forms in :mod:`pufferfish.mechanisms`):
    Laplace eps <= W_inf / b; Gaussian delta <= the hockey stick of one shift W_inf (Balle-Wang);
    Cauchy D_2 <= log(1 + W_2^2 / (2 gamma^2)).
    Used only to skip exact audits that cannot change a maximum; inf when it does not apply."""
    from pufferfish.mechanisms.cauchy import cauchy_renyi2
    from pufferfish.mechanisms.gaussian import balle_wang_delta

    if scale <= 0:
        return 0.0 if pair.w_inf == 0 else math.inf
    if noise == "laplace" and target.guarantee == "epsilon":
        return pair.w_inf / scale
    if noise == "gaussian" and target.guarantee == "epsilon_delta":
        return max(balle_wang_delta(pair.w_inf, scale, epsilon=target.epsilon), 0.0)
    if noise == "cauchy" and target.guarantee == "renyi" and target.alpha == 2.0:
        return cauchy_renyi2(pair.w_2, scale)
    return math.inf


def audit_triple(result: TripleResult, settings: AttributePrivacySettings, *, rtol: float) -> list[dict]:
    """Audit rows (:data:`AUDIT_COLUMNS`) of every scale of one triple, exactly, on every secret pair.

    For each method of :data:`~pufferfish.sensitivity.scales.GWM_METHODS`, each source of
    :data:`SOURCES` and each epsilon: the scale from the source's sensitivity, the largest
    achieved loss over the pairs (``loss_forward`` / ``loss_backward``: the two directions of
    the worst pair), and ``scale_min``, the smallest scale every pair accepts (the largest of
    the pairs' smallest scales: a pair that already accepts the running maximum is not
    bisected, since the achieved loss falls as the scale grows). ``violation``: the loss
    exceeds the target by more than ``rtol``. ``claimed``: the source is one of
    :data:`CLAIMED_SOURCES` (the closed form's rows are a baseline, ``claimed`` False).

    Less work, same numbers: a pair whose sound upper bound is at most the largest exact loss
    found so far, or at most the target, cannot change the maximum or the smallest scale, and
    is not audited. The bound is the smaller of the paper's own theorems applied to the pair
    (:func:`_upper_bound`) and the pair's exact loss at a smaller scale already audited: the
    loss never grows with the scale, since a larger scale is the smaller one plus independent
    noise (Gaussian: sigma_2^2 = sigma_1^2 + s^2; Cauchy: gamma_2 = gamma_1 + c; Laplace: b_2 is
    b_1 plus the mixture (b_1/b_2)^2 delta_0 + (1 - (b_1/b_2)^2) Laplace(b_2), from the
    characteristic functions) and post-processing cannot raise a divergence.
    """
    from pufferfish import registry

    by_label = {c.secret: c for c in result.conditionals}
    sensitivity = {"closed_form": {"w_inf": result.gaussian_w_inf, "w_2": result.gaussian_w_inf},
                   "empirical": {"w_inf": float(result.empirical_w_inf), "w_2": result.empirical_w_2}}
    out = []
    for method in GWM_METHODS:
        record = registry.get(method.name)
        auditors = {}
        audited = {}  # (pair, what the loss depends on) -> [(scale, exact loss)], for bound()

        def loss_key(pair, target):
            # the loss audited: epsilon (Laplace) and D_alpha (Cauchy) do not depend on the target's
            # epsilon, delta at epsilon (Gaussian) does
            return (pair.secret_i, pair.secret_j, target.epsilon if target.guarantee == "epsilon_delta" else None,
                    target.alpha)

        def achieved(pair, scale, target):
            key = (pair.secret_i, pair.secret_j)
            if key not in auditors:
                auditors[key] = lattice_auditor(record.noise, record.guarantee, by_label[pair.secret_i].pmf,
                                                 by_label[pair.secret_j].pmf)
            got = auditors[key].achieved(scale, target) if scale > 0 else auditors[key].noise_free(target)
            audited.setdefault(loss_key(pair, target), []).append((scale, got.value))
            return got

        def bound(pair, scale, target):
            """A sound upper bound of the pair's loss at ``scale``: the theorems, or an exact loss
            at a scale at most ``scale`` (the loss never grows with the scale)."""
            known = [value for at, value in audited.get(loss_key(pair, target), ()) if at <= scale]
            return min([_upper_bound(record.noise, pair, scale, target), *known])

        def worst(scale, target):
            ranked = sorted(((bound(p, scale, target), k) for k, p in enumerate(result.pairs)), reverse=True)
            best = None
            for upper, k in ranked:
                if best is not None and upper <= best.value:
                    break
                got = achieved(result.pairs[k], scale, target)
                if best is None or got.value > best.value:
                    best = got
            return best

        for epsilon in settings.epsilons:
            target = _target(record.guarantee, epsilon, settings)
            smallest, note = 0.0, ""
            for pair in sorted(result.pairs, key=lambda r: (-r.w_inf, -r.w_2) if method.distance == "w_inf"
                               else (-r.w_2, -r.w_inf)):
                if (bound(pair, smallest, target) <= target.bound
                        or achieved(pair, smallest, target).value <= target.bound):
                    continue
                key = (pair.secret_i, pair.secret_j)
                found = auditors[key].smallest_scale(target)
                if found.scale > smallest:
                    smallest, note = found.scale, found.reason
            for source in SOURCES:
                w = sensitivity[source]
                scale = float(scales_from_sensitivity(method.name, w_inf=w["w_inf"], w_2=w["w_2"], epsilons=[epsilon],
                                                      delta=settings.delta, alpha=settings.alpha)[0])
                bad = worst(scale, target)
                value = bad.value
                violation = bool(value > target.bound * (1.0 + rtol))
                if violation:
                    log.warning("%s [%s]: %s_%s scale=%.6g at epsilon=%g achieves %.6g > %.6g (%s)", EXPERIMENT,
                                result.triple.label, source, method.name, scale, epsilon, value, target.bound,
                                "violation" if source in CLAIMED_SOURCES
                                else "the Gaussian closed form fails on the data's own conditionals")
                out.append({
                    "experiment": EXPERIMENT, "panel": result.triple.label, "method": f"{source}_{method.name}",
                    "epsilon": float(epsilon), "delta": target.delta if target.delta is not None else np.nan,
                    "scale": scale,
                    "epsilon_achieved": value if record.guarantee == "epsilon" else np.nan,
                    "delta_achieved": value if record.guarantee == "epsilon_delta" else np.nan,
                    "scale_min": smallest, "violation": violation,
                    "loss_forward": bad.forward, "loss_backward": bad.backward, "tight_note": note,
                    "noise": record.noise, "guarantee": record.guarantee,
                    "alpha": target.alpha if target.alpha is not None else np.nan,
                    "renyi_achieved": value if record.guarantee == "renyi" else np.nan,
                    "claimed": source in CLAIMED_SOURCES})
    return out


def run_attribute_privacy(settings: AttributePrivacySettings, *, data: Mapping[str, str], rtol: float, out_csv,
                          audit_csv, png, pdf, figure_csv) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The attribute-privacy experiment (module docstring).

    Args:
        settings: the typed config section.
        data: dataset key -> path of its CSV (``data/raw/<key>.csv``), for every dataset of a triple.
        rtol: the audit's relative tolerance (config ``audit.rtol``).
        out_csv, audit_csv, png, pdf, figure_csv: the output paths.

    Returns:
        (the :data:`ATTRIBUTE_COLUMNS` table, the audit table).
    """
    from pufferfish.sensitivity.plots import plot_attribute_privacy

    if not isinstance(settings, AttributePrivacySettings):
        raise TypeError(f"settings = {settings!r:.60}: must be AttributePrivacySettings")
    frames: dict[str, pd.DataFrame] = {}
    results, audit = [], []
    for triple in settings.triples:
        if triple.dataset not in data:
            raise DataError(f"sensitivity.attribute_privacy: dataset {triple.dataset!r} has no data file "
                            f"(given: {', '.join(data) or 'none'})")
        if triple.dataset not in frames:
            frames[triple.dataset] = pd.read_csv(data[triple.dataset])
        result = attribute_triple(frames[triple.dataset], triple)
        log.info("%s: %d rows, %d protected values (fewest %d records), DP %g, closed form %.4g, W_inf %d, W_2 %.4g",
                 triple.label, result.rows, len(result.conditionals), result.min_rows, result.dp_sensitivity,
                 result.gaussian_w_inf, result.empirical_w_inf, result.empirical_w_2)
        results.append(result)
        audit += audit_triple(result, settings, rtol=rtol)
    table = pd.DataFrame([r.row() for r in results], columns=ATTRIBUTE_COLUMNS)
    audit_frame = pd.DataFrame(audit, columns=AUDIT_COLUMNS)
    flagged: dict[str, list[str]] = {}
    for row in audit:
        if row["method"].startswith("closed_form_") and row["violation"] and row["noise"] not in flagged.get(
                row["panel"], []):
            flagged.setdefault(row["panel"], []).append(row["noise"])
    figure = pd.DataFrame([{**r.row(), "protected_values": len(r.conditionals), "min_rows": r.min_rows,
                            "closed_form_flagged": " ".join(flagged.get(r.triple.label, ()))}
                           for r in results], columns=FIGURE_COLUMNS)
    write_csv(table, out_csv)
    write_csv(audit_frame, audit_csv)
    write_csv(figure, figure_csv)
    plot_attribute_privacy(figure, epsilons=settings.epsilons, png=png, pdf=pdf)
    return table, audit_frame


# ------------------------------------------------------------------------------ diffusions
def _seed(settings: DiffusionSettings, name: str, rate: float, time: float) -> np.random.SeedSequence:
    """The seed of one (potential, lambda, time): the config's seed with a key made of the values
    (not their positions), so adding a lambda or a time leaves the other rows' paths unchanged."""
    return np.random.SeedSequence(settings.seed, spawn_key=(list(POTENTIALS).index(name), round(rate * 1e9),
                                                             round(time * 1e9)))


def diffusion_rows(settings: DiffusionSettings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the :data:`DIFFUSION_COLUMNS` table, the :data:`CHECK_COLUMNS` table) of every potential,
    lambda and time; ``ou_exact`` is empty (NaN) for a non-quadratic potential. The check's
    ``violation`` is decided by :func:`~pufferfish.sensitivity.captions.coupling_violation_lines`'
    rule with rtol 0 here; the pipeline applies its ``audit.rtol``."""
    from pufferfish.sensitivity.diffusion import euler_step

    if not isinstance(settings, DiffusionSettings):
        raise TypeError(f"settings = {settings!r:.60}: must be DiffusionSettings")
    rows, checks = [], []
    for name in settings.potentials:
        for rate in settings.lambdas:
            pot = potential(name, rate=rate)
            for time in settings.times:
                bound = diffusion_sensitivity(lipschitz=1.0, diameter=settings.diameter, rate=rate, times=[time],
                                              norm=1)
                exact = (ou_w_inf(settings.start, settings.start + settings.diameter, rate=rate, time=time)
                         if pot.exact else math.nan)
                coupled = float(np.max(coupled_distances(pot, start=settings.start, diameter=settings.diameter,
                                                         time=time, paths=settings.paths, max_step=settings.max_step,
                                                         seed=_seed(settings, name, rate, time))))
                step, steps = euler_step(pot, time, max_step=settings.max_step)
                rows.append({"potential": name, "lambda": rate, "time": time, "diameter": settings.diameter,
                             "bound": bound, "ou_exact": exact, "coupled_max": coupled})
                checks.append({"potential": name, "lambda": rate, "time": time, "bound": bound, "coupled_max": coupled,
                               "step": step, "steps": steps, "paths": settings.paths, "violation": coupled > bound})
    return pd.DataFrame(rows, columns=DIFFUSION_COLUMNS), pd.DataFrame(checks, columns=CHECK_COLUMNS)


#: the ``experiment`` of the diffusion audit rows
DIFFUSION_EXPERIMENT = "sensitivity_diffusion"


def diffusion_audit(settings: DiffusionSettings, *, rtol: float) -> pd.DataFrame:
    """Audit rows (:data:`AUDIT_COLUMNS`) of the OU scales calibrated from the bound D e^(-lambda t).

    For OU the two laws of X_t from the ends x_0, x_0 + D of Theta are N(m, v) and N(m + d, v),
    d = D e^(-lambda t), v = (1 - e^(-2 lambda t)) / lambda, and each scale is audited exactly:

    * ``prop6_3_gwm_laplace``: b = bound / eps (GWM, Cor. 3.1), eps-PP; achieved by the exact
      pure-epsilon loss of Laplace noise on Gaussian priors
      (:func:`pufferfish.audit.laplace_mixture.epsilon_achieved`). ``scale_min`` = d / eps: the
      log ratio tends to d / b in the tails (that module's fact (d)), so no smaller b is eps-PP.
    * ``prop6_3_gwm_gaussian_analytic``: the analytic GWM sigma of the bound, (eps, delta)-PP;
      the outputs are N(m, v + sigma^2) and N(m + d, v + sigma^2), whose hockey-stick divergence
      is Balle and Wang's exact formula for one shift d at standard deviation
      sqrt(v + sigma^2). ``scale_min`` = sqrt(max(s^2 - v, 0)), s the analytic sigma of d: the
      GWM ignores the randomness the diffusion itself adds (v), the tight scale does not.

    The release time is written in ``tight_note`` (``t = ...``); ``panel`` is
    ``quadratic lambda=<lambda>``. Only the quadratic potential has exact laws; the log cosh
    potential is checked by the coupling (:func:`diffusion_rows`). Every row is ``claimed``
    (Prop. 6.3's bound is exact for OU, so each scale must attain its target).
    """
    from pufferfish.audit.laplace_mixture import epsilon_achieved
    from pufferfish.sensitivity.diffusion import ou_law
    from pufferfish.mechanisms.gaussian import analytic_gaussian_sigma, balle_wang_delta

    rows = []
    if "quadratic" not in settings.potentials:
        return pd.DataFrame(rows, columns=AUDIT_COLUMNS)
    for rate in settings.lambdas:
        for time in settings.times:
            bound = diffusion_sensitivity(lipschitz=1.0, diameter=settings.diameter, rate=rate, times=[time], norm=1)
            m0, var = ou_law(settings.start, rate=rate, time=time)
            m1, _ = ou_law(settings.start + settings.diameter, rate=rate, time=time)
            shift, sd = abs(m1 - m0), math.sqrt(var)
            for epsilon in settings.epsilons:
                common = {"experiment": DIFFUSION_EXPERIMENT, "panel": f"quadratic lambda={rate:g}",
                          "epsilon": float(epsilon), "tight_note": f"t = {time:g}", "alpha": np.nan,
                          "renyi_achieved": np.nan, "claimed": True}
                b = float(scales_from_sensitivity("gwm_laplace", w_inf=bound, w_2=bound, epsilons=[epsilon])[0])
                loss = epsilon_achieved((m0, sd), (m1, sd), b=b) if b > 0 else (0.0 if shift == 0 else math.inf)
                rows.append({**common, "method": "prop6_3_gwm_laplace", "delta": np.nan, "scale": b,
                             "epsilon_achieved": loss, "delta_achieved": np.nan, "scale_min": shift / epsilon,
                             "violation": bool(loss > epsilon * (1.0 + rtol)), "loss_forward": loss,
                             "loss_backward": loss, "noise": "laplace", "guarantee": "epsilon"})
                sigma = float(scales_from_sensitivity("gwm_gaussian_analytic", w_inf=bound, w_2=bound,
                                                      epsilons=[epsilon], delta=settings.delta)[0])
                total = math.sqrt(var + sigma ** 2)
                got = balle_wang_delta(shift, total, epsilon=epsilon) if total > 0 else (0.0 if shift == 0 else 1.0)
                tight = analytic_gaussian_sigma(shift, epsilon=epsilon, delta=settings.delta)
                rows.append({**common, "method": "prop6_3_gwm_gaussian_analytic", "delta": settings.delta,
                             "scale": sigma, "epsilon_achieved": np.nan, "delta_achieved": got,
                             "scale_min": math.sqrt(max(tight ** 2 - var, 0.0)),
                             "violation": bool(got > settings.delta * (1.0 + rtol)), "loss_forward": got,
                             "loss_backward": got, "noise": "gaussian", "guarantee": "epsilon_delta"})
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)


def run_diffusion(settings: DiffusionSettings, *, rtol: float, out_csv, check_csv, audit_csv, png,
                  pdf, figure_csv=None) -> pd.DataFrame:
    """The diffusion experiment (module docstring): the table, the check (``violation`` with
    the audit's ``rtol``), the OU audit (:func:`diffusion_audit`) and the figure (its numbers
    are ``out_csv``, also written to ``figure_csv`` when given, beside the figure)."""
    from pufferfish.sensitivity.plots import plot_diffusion

    table, check = diffusion_rows(settings)
    check["violation"] = check["coupled_max"] > check["bound"] * (1.0 + rtol)
    for line in coupling_violation_lines(check, rtol=rtol):
        log.warning(line)
    audit = diffusion_audit(settings, rtol=rtol)
    for row in audit[audit.violation].to_dict("records"):
        log.warning("%s [%s] %s: %s scale=%.6g at epsilon=%g violates its target", DIFFUSION_EXPERIMENT, row["panel"],
                    row["tight_note"], row["method"], row["scale"], row["epsilon"])
    write_csv(table, out_csv)
    write_csv(check, check_csv)
    write_csv(audit, audit_csv)
    if figure_csv is not None:
        write_csv(table, figure_csv)
    plot_diffusion(table, violations=int(check["violation"].sum()), png=png, pdf=pdf)
    return table

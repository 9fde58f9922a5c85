r"""The two experiments of the closed-form sensitivities: attribute privacy on UCI data, diffusions.

* :func:`run_attribute_privacy` -- for each configured (dataset, released, protected) triple:
  the DP sensitivity (the range of the released column's declared domain, else its observed
  range), Prop. 6.2's closed form with the Gaussian fitted to the two columns, and the exact
  :math:`W_\infty` / :math:`W_2` between the data's own conditionals
  :math:`\Pr(\text{released} \mid \text{protected} = v)` over every pair of observed protected values
  (:data:`ATTRIBUTE_COLUMNS`); every scale (GWM Laplace, analytic GWM Gaussian, DAGWM Cauchy; from
  the closed form and from the data's distances) audited exactly on every pair
  (:func:`audit_triple`); the figure.
* :func:`run_diffusion` -- Prop. 6.3's bound :math:`D e^{-\lambda t}` against the exact OU
  :math:`W_\infty` and the largest synchronously coupled distance over seeded Euler-Maruyama paths,
  the same paths at every time (:data:`DIFFUSION_COLUMNS`, the check :data:`CHECK_COLUMNS`), the
  exact audit of the OU scales calibrated from the bound (:func:`diffusion_audit`) and the figure.

Audit rows go through :mod:`pufferfish.audit.verdict` (the one schema
:data:`~pufferfish.audit.verdict.AUDIT_COLUMNS`). The closed form is a baseline on these data
(it holds for a Gaussian prior): its rows have ``claimed`` False. docs/math/closed-forms.md.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pufferfish.audit import Target, lattice_auditor
from pufferfish.audit.target import target_for
from pufferfish.audit.verdict import Verdict, audit_frame, audit_row, audit_scale, worst_case
from pufferfish.data_priors import empirical_pmf, encode
from pufferfish.errors import DataError
from pufferfish.files import write_csv
from pufferfish.sensitivity.attribute import two_column_sensitivity
from pufferfish.sensitivity.captions import coupling_violation_lines, rising_lines
from pufferfish.sensitivity.diffusion import POTENTIALS, coupled_paths, diffusion_sensitivity, ou_w_inf, potential
from pufferfish.sensitivity.scales import GWM_METHODS, ScaleMethod, scales_from_sensitivity
from pufferfish.sensitivity.settings import AttributePrivacySettings, AttributeTriple, DiffusionSettings
from pufferfish.wasserstein.table1 import PairSensitivity, SecretConditional, setting_sensitivities

__all__ = ["ATTRIBUTE_COLUMNS", "DIFFUSION_COLUMNS", "CHECK_COLUMNS", "FIGURE_COLUMNS", "EXPERIMENT",
           "DIFFUSION_EXPERIMENT", "SOURCES", "CLAIMED_SOURCES", "TripleResult", "triple_columns", "attribute_triple",
           "audit_triple", "run_attribute_privacy", "diffusion_rows", "diffusion_audit", "run_diffusion"]

log = logging.getLogger("pufferfish")

#: columns of results/theta/attribute_privacy.csv (issue 23)
ATTRIBUTE_COLUMNS = ["dataset", "released", "protected", "rows", "dp_sensitivity", "gaussian_w_inf",
                     "empirical_w_inf", "empirical_w_2"]
#: columns of the attribute figure's numbers
FIGURE_COLUMNS = ["dataset", "released", "protected", "rows", "protected_values", "min_rows", "dp_sensitivity",
                  "dp_source", "gaussian_w_inf", "empirical_w_inf", "empirical_w_2", "closed_form_flagged"]
#: columns of results/theta/diffusion.csv (issue 23)
DIFFUSION_COLUMNS = ["potential", "lambda", "time", "diameter", "bound", "ou_exact", "coupled_max"]
#: columns of the diffusion check table
CHECK_COLUMNS = ["potential", "lambda", "time", "bound", "coupled_max", "step", "steps", "paths", "violation",
                 "rises"]
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

    @property
    def dp_source(self) -> str:
        """Where the DP sensitivity comes from: ``domain [lo, hi]`` or ``observed range``."""
        domain = self.triple.domain
        return "observed range" if domain is None else f"domain [{domain[0]}, {domain[1]}]"

    def row(self) -> dict:
        """The triple's row of :data:`ATTRIBUTE_COLUMNS`."""
        t = self.triple
        return {"dataset": t.dataset, "released": t.released, "protected": t.protected, "rows": self.rows,
                "dp_sensitivity": self.dp_sensitivity, "gaussian_w_inf": self.gaussian_w_inf,
                "empirical_w_inf": self.empirical_w_inf, "empirical_w_2": self.empirical_w_2}


def triple_columns(frame: pd.DataFrame, triple: AttributeTriple) -> tuple[np.ndarray, pd.Series]:
    """The two columns of a triple as the experiment reads them, rows missing either dropped.

    The workflow runs it on the cached data before any job
    (:func:`pufferfish.pipeline.data_checks.check_data`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The dataset.
    triple : AttributeTriple
        The triple (its ``domain``, if any, must hold every released value).

    Returns
    -------
    (numpy.ndarray, pandas.Series)
        The released column's integers and the protected column's numbers.

    Raises
    ------
    DataError
        One line naming the triple: a missing column, no complete row, a released column that is
        not integer, of a single value or outside the declared domain, a protected column that is
        not numeric.
    """
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
    if triple.domain is not None and not (triple.domain[0] <= released.min() and released.max() <= triple.domain[1]):
        raise DataError(f"{where}: {triple.released} takes values {released.min()}..{released.max()}, outside its "
                        f"declared domain [{triple.domain[0]}, {triple.domain[1]}]")
    return released, protected


def attribute_triple(frame: pd.DataFrame, triple: AttributeTriple) -> TripleResult:
    """The sensitivities of one triple on ``frame`` (rows missing either column dropped).

    The released column holds integers (the lattice of the exact distances); the protected
    column's values are the secrets (every pair of observed values is a secret pair, however few
    records a value has). The DP sensitivity is the range of the triple's declared domain, else
    the observed range.

    Parameters
    ----------
    frame : pandas.DataFrame
        The dataset.
    triple : AttributeTriple
        The triple.

    Returns
    -------
    TripleResult

    Raises
    ------
    DataError
        As :func:`triple_columns`.
    """
    where = f"sensitivity.attribute_privacy [{triple.label}]"
    released, protected = triple_columns(frame, triple)
    fit = two_column_sensitivity(released.astype(float), protected.to_numpy(dtype=float))
    dp = float(released.max() - released.min()) if triple.domain is None else float(triple.domain[1] - triple.domain[0])
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


def _upper_bound(noise: str, pair: PairSensitivity, scale: float, target: Target) -> float:
    """A sound upper bound of what noise of ``scale`` achieves on ``pair``: the GWM / DAGWM theorems
    for the pair's own W_inf / W_2 (paper 002, Cor. 3.1 and Cor. 4.1; proofs in
    :mod:`pufferfish.wasserstein.methods`; the one-shift closed forms in :mod:`pufferfish.mechanisms`):
    Laplace eps <= W_inf / b; Gaussian delta <= the hockey stick of one shift W_inf (Balle-Wang);
    Cauchy D_2 <= log(1 + W_2^2 / (2 gamma^2)).
    Used only to skip exact audits that cannot change a maximum; inf when it does not apply."""
    from pufferfish.mechanisms.cauchy import cauchy_renyi2
    from pufferfish.mechanisms.gaussian import balle_wang_delta

    if not scale > 0 or not math.isfinite(scale):
        return 0.0 if pair.w_inf == 0 and scale == 0 else math.inf
    if noise == "laplace" and target.guarantee == "epsilon":
        return pair.w_inf / scale
    if noise == "gaussian" and target.guarantee == "epsilon_delta":
        return max(balle_wang_delta(pair.w_inf, scale, epsilon=target.epsilon), 0.0)
    if noise == "cauchy" and target.guarantee == "renyi" and target.alpha == 2.0:
        return cauchy_renyi2(pair.w_2, scale)
    return math.inf


class _PairAudits:
    """The exact audits of one noise on every secret pair of a triple (:func:`audit_triple`).

    Besides the theorems' bounds (:func:`_upper_bound`), every exact value found is remembered as
    a sound upper bound at any larger scale: the loss never grows with the scale (a larger scale
    is the smaller one plus independent noise; docs/math/closed-forms.md), so it spares audits
    that cannot change a maximum (:func:`~pufferfish.audit.verdict.worst_case`'s ``bound``).
    """

    def __init__(self, result: TripleResult, noise: str, guarantee: str):
        by_label = {c.secret: c.pmf for c in result.conditionals}
        self.noise, self.pairs = noise, result.pairs
        self.auditors = [lattice_auditor(noise, guarantee, by_label[p.secret_i], by_label[p.secret_j])
                         for p in result.pairs]
        self._seen: dict[tuple, list[tuple[float, float]]] = {}

    def _key(self, k: int, target: Target) -> tuple:
        # the loss audited: epsilon (Laplace) and D_alpha (Cauchy) do not depend on the target's
        # epsilon, delta at epsilon (Gaussian) does
        return k, target.epsilon if target.guarantee == "epsilon_delta" else None, target.alpha

    def _remember(self, k: int, verdict: Verdict) -> None:
        if not math.isnan(verdict.value):
            self._seen.setdefault(self._key(k, verdict.target), []).append((verdict.scale, verdict.value))

    def bound(self, k: int, scale: float, target: Target) -> float:
        """The smaller of the theorem's bound and the exact values found at scales <= ``scale``."""
        known = [value for at, value in self._seen.get(self._key(k, target), ()) if at <= scale]
        return min([_upper_bound(self.noise, self.pairs[k], scale, target), *known])

    def audit(self, k: int, scale: float, target: Target) -> Verdict:
        """The exact verdict of ``scale`` on pair ``k`` (remembered)."""
        verdict = audit_scale(self.auditors[k], scale, target)
        self._remember(k, verdict)
        return verdict

    def worst(self, scale: float, target: Target) -> Verdict:
        """The worst verdict over the pairs (:func:`~pufferfish.audit.verdict.worst_case`)."""
        bounds = [self.bound(k, scale, target) for k in range(len(self.pairs))]
        verdict, k = worst_case(self.auditors, scale, target, bound=bounds)
        self._remember(k, verdict)
        return verdict

    def smallest(self, target: Target, *, distance: str) -> tuple[float, str]:
        """The smallest scale every pair accepts (the largest of the pairs' smallest scales) and its
        search's note. The pairs are visited from the largest distance down; a pair that already
        accepts the running maximum is not searched (the loss falls as the scale grows)."""
        order = sorted(range(len(self.pairs)), key=lambda k: (-self.pairs[k].w_inf, -self.pairs[k].w_2)
                       if distance == "w_inf" else (-self.pairs[k].w_2, -self.pairs[k].w_inf))
        smallest, note = 0.0, ""
        for k in order:
            if (self.bound(k, smallest, target) <= target.bound
                    or self.audit(k, smallest, target).value <= target.bound):
                continue
            found = self.auditors[k].smallest_scale(target)
            if found.scale > smallest:
                smallest, note = found.scale, found.reason
        return smallest, note


def _source_scale(method: ScaleMethod, result: TripleResult, source: str, epsilon: float,
                  settings: AttributePrivacySettings) -> float:
    """The scale of ``method`` at ``epsilon`` from the source's sensitivity (:data:`SOURCES`)."""
    if source == "closed_form":
        w_inf = w_2 = result.gaussian_w_inf
    else:
        w_inf, w_2 = float(result.empirical_w_inf), result.empirical_w_2
    return float(scales_from_sensitivity(method.name, w_inf=w_inf, w_2=w_2, epsilons=[epsilon], delta=settings.delta,
                                         alpha=settings.alpha)[0])


def audit_triple(result: TripleResult, settings: AttributePrivacySettings) -> list[dict]:
    """Audit rows of every scale of one triple, exactly, on every secret pair.

    For each method of :data:`~pufferfish.sensitivity.scales.GWM_METHODS`, each epsilon and each
    source of :data:`SOURCES`: the scale from the source's sensitivity, its worst verdict over the
    pairs (:func:`~pufferfish.audit.verdict.worst_case`; ``loss_forward`` / ``loss_backward`` are
    the two directions of the worst pair), and ``scale_min``, the smallest scale every pair
    accepts. ``violation``: the certified loss exceeds the target (no tolerance). ``claimed``: the
    source is one of :data:`CLAIMED_SOURCES` (the closed form's rows are a baseline). Pairs whose
    sound upper bound cannot change a maximum are not audited (:class:`_PairAudits`): less work,
    the same numbers.

    Parameters
    ----------
    result : TripleResult
        The triple's conditionals and their pairs (:func:`attribute_triple`).
    settings : AttributePrivacySettings
        The epsilons, delta and alpha.

    Returns
    -------
    list of dict
        Rows of :data:`~pufferfish.audit.verdict.AUDIT_COLUMNS`.

    Raises
    ------
    InvalidArgumentError
        None expected: the triple's conditionals and the settings were validated (job-level).
    """
    from pufferfish import registry

    out = []
    for method in GWM_METHODS:
        record = registry.get(method.name)
        audits = _PairAudits(result, record.noise, record.guarantee)
        for epsilon in settings.epsilons:
            target = target_for(record.guarantee, epsilon, delta=settings.delta, alpha=settings.alpha)
            smallest, note = audits.smallest(target, distance=method.distance)
            for source in SOURCES:
                verdict = audits.worst(_source_scale(method, result, source, epsilon, settings), target)
                if not verdict.meets:
                    log.warning("%s [%s]: %s_%s scale=%.6g at epsilon=%g achieves %.6g > %.6g (%s)", EXPERIMENT,
                                result.triple.label, source, method.name, verdict.scale, epsilon, verdict.value,
                                target.bound, "violation" if source in CLAIMED_SOURCES
                                else "the Gaussian closed form fails on the data's own conditionals")
                out.append(audit_row(verdict, experiment=EXPERIMENT, panel=result.triple.label,
                                     method=f"{source}_{method.name}", noise=record.noise, scale_min=smallest,
                                     tight_note=note, claimed=source in CLAIMED_SOURCES))
    return out


def _figure_table(results: list[TripleResult], audit: pd.DataFrame) -> pd.DataFrame:
    """The attribute figure's numbers (:data:`FIGURE_COLUMNS`): each triple's row, its conditionals'
    counts, where its DP sensitivity comes from, and the noises whose closed-form scale fails."""
    failed = audit[audit.method.str.startswith("closed_form_") & audit.violation]
    flagged = {panel: " ".join(dict.fromkeys(group.noise)) for panel, group in failed.groupby("panel", sort=False)}
    return pd.DataFrame([{**r.row(), "protected_values": len(r.conditionals), "min_rows": r.min_rows,
                          "dp_source": r.dp_source, "closed_form_flagged": flagged.get(r.triple.label, "")}
                         for r in results], columns=FIGURE_COLUMNS)


def run_attribute_privacy(settings: AttributePrivacySettings, *, data: Mapping[str, str], out_csv,
                          audit_csv, png, pdf, figure_csv) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The attribute-privacy experiment (module docstring): the tables, the audit and the figure.

    Parameters
    ----------
    settings : AttributePrivacySettings
        The typed config section.
    data : Mapping
        Dataset key -> path of its CSV (``data/raw/<key>.csv``), for every dataset of a triple.
    out_csv, audit_csv, png, pdf, figure_csv : path-like
        The output paths.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The :data:`ATTRIBUTE_COLUMNS` table and the audit table.

    Raises
    ------
    ArgumentTypeError
        ``settings`` is not :class:`~pufferfish.sensitivity.settings.AttributePrivacySettings`.
    DataError
        A triple's dataset without a data file, or data a triple cannot read (:func:`triple_columns`).
    """
    from pufferfish.errors import ArgumentTypeError
    from pufferfish.sensitivity.plots import plot_attribute_privacy

    if not isinstance(settings, AttributePrivacySettings):
        raise ArgumentTypeError(f"settings = {settings!r:.60}: must be AttributePrivacySettings")
    frames: dict[str, pd.DataFrame] = {}
    results, rows = [], []
    for triple in settings.triples:
        if triple.dataset not in data:
            raise DataError(f"sensitivity.attribute_privacy: dataset {triple.dataset!r} has no data file "
                            f"(given: {', '.join(data) or 'none'})")
        if triple.dataset not in frames:
            frames[triple.dataset] = pd.read_csv(data[triple.dataset])
        result = attribute_triple(frames[triple.dataset], triple)
        log.info("%s: %d rows, %d protected values (fewest %d records), DP %g (%s), closed form %.4g, W_inf %d, "
                 "W_2 %.4g", triple.label, result.rows, len(result.conditionals), result.min_rows,
                 result.dp_sensitivity, result.dp_source, result.gaussian_w_inf, result.empirical_w_inf,
                 result.empirical_w_2)
        results.append(result)
        rows += audit_triple(result, settings)
    table = pd.DataFrame([r.row() for r in results], columns=ATTRIBUTE_COLUMNS)
    audit = audit_frame(rows)
    figure = _figure_table(results, audit)
    write_csv(table, out_csv)
    write_csv(audit, audit_csv)
    write_csv(figure, figure_csv)
    plot_attribute_privacy(figure, epsilons=settings.epsilons, png=png, pdf=pdf)
    return table, audit


# ------------------------------------------------------------------------------ diffusions
def _seed(settings: DiffusionSettings, name: str, rate: float) -> np.random.SeedSequence:
    """The seed of one (potential, lambda)'s paths: the config's seed with a key made of the values
    (not their positions), so adding a lambda leaves the other lambdas' paths unchanged."""
    return np.random.SeedSequence(settings.seed, spawn_key=(list(POTENTIALS).index(name), round(rate * 1e9)))


def diffusion_rows(settings: DiffusionSettings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The diffusion table and its check, for every potential, lambda and time.

    The coupled maximum comes from the same seeded paths at every time of one (potential,
    lambda) (:func:`~pufferfish.sensitivity.diffusion.coupled_paths`): each path's distance
    contracts step by step, so the maximum never rises with t; ``rises`` flags a time where it
    does (it cannot, unless the code is wrong). ``violation``: the coupled maximum is above the
    bound (rtol 0 here; the pipeline applies its ``audit.rtol``, :func:`run_diffusion`).

    Parameters
    ----------
    settings : DiffusionSettings
        The typed config section (and the config's seed).

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The :data:`DIFFUSION_COLUMNS` table (``ou_exact`` NaN for a non-quadratic potential) and
        the :data:`CHECK_COLUMNS` table.

    Raises
    ------
    ArgumentTypeError
        ``settings`` is not :class:`~pufferfish.sensitivity.settings.DiffusionSettings`.
    """
    from pufferfish.errors import ArgumentTypeError

    if not isinstance(settings, DiffusionSettings):
        raise ArgumentTypeError(f"settings = {settings!r:.60}: must be DiffusionSettings")
    rows, checks = [], []
    for name in settings.potentials:
        for rate in settings.lambdas:
            pot = potential(name, rate=rate)
            run = coupled_paths(pot, start=settings.start, diameter=settings.diameter, times=settings.times,
                                paths=settings.paths, max_step=settings.max_step, seed=_seed(settings, name, rate))
            maxima = run.distances.max(axis=1)
            at = {float(t): i for i, t in enumerate(run.times)}
            for time in settings.times:
                i = at[float(time)]
                bound = diffusion_sensitivity(lipschitz=1.0, diameter=settings.diameter, rate=rate, times=[time],
                                              norm=1)
                exact = (ou_w_inf(settings.start, settings.start + settings.diameter, rate=rate, time=time)
                         if pot.exact else math.nan)
                coupled = float(maxima[i])
                rows.append({"potential": name, "lambda": rate, "time": time, "diameter": settings.diameter,
                             "bound": bound, "ou_exact": exact, "coupled_max": coupled})
                checks.append({"potential": name, "lambda": rate, "time": time, "bound": bound, "coupled_max": coupled,
                               "step": float(run.steps[i]), "steps": int(run.counts[i]), "paths": settings.paths,
                               "violation": coupled > bound, "rises": bool(i > 0 and coupled > maxima[i - 1])})
    return pd.DataFrame(rows, columns=DIFFUSION_COLUMNS), pd.DataFrame(checks, columns=CHECK_COLUMNS)


#: the ``experiment`` of the diffusion audit rows
DIFFUSION_EXPERIMENT = "sensitivity_diffusion"


def _ou_rows(settings: DiffusionSettings, rate: float, time: float, epsilon: float) -> list[dict]:
    """The two audit rows of the OU scales at one (lambda, t, epsilon) (:func:`diffusion_audit`)."""
    from pufferfish.audit.mixture_privacy_loss import epsilon_achieved
    from pufferfish.certified import quotient_upper
    from pufferfish.mechanisms.gaussian import analytic_gaussian_sigma, balle_wang_delta
    from pufferfish.sensitivity.diffusion import ou_law

    bound = diffusion_sensitivity(lipschitz=1.0, diameter=settings.diameter, rate=rate, times=[time], norm=1)
    m0, var = ou_law(settings.start, rate=rate, time=time)
    m1, _ = ou_law(settings.start + settings.diameter, rate=rate, time=time)
    shift, sd = abs(m1 - m0), math.sqrt(var)
    common = dict(experiment=DIFFUSION_EXPERIMENT, panel=f"quadratic lambda={rate:g}", tight_note=f"t = {time:g}")
    laplace = target_for("epsilon", epsilon)
    b = float(scales_from_sensitivity("gwm_laplace", w_inf=bound, w_2=bound, epsilons=[epsilon])[0])
    # Laplace noise on two Gaussians of one variance: the log-density of N(m, v) + Laplace(b) has slope in
    # [-1/b, 1/b] (the convolution's score is an average of the Laplace score), so the loss is at most
    # shift / b, its limit in the tails: the smaller of that bound (rounded up, exactly) and the audit's
    # certified value is certified, and at the paper's b = bound / eps decides the verdict exactly
    loss = (min(epsilon_achieved((m0, sd), (m1, sd), b=b), quotient_upper(shift, b)) if b > 0
            else (0.0 if shift == 0 else math.inf))
    gaussian = target_for("epsilon_delta", epsilon, delta=settings.delta)
    sigma = float(scales_from_sensitivity("gwm_gaussian_analytic", w_inf=bound, w_2=bound, epsilons=[epsilon],
                                          delta=settings.delta)[0])
    total = math.sqrt(var + sigma ** 2)
    got = balle_wang_delta(shift, total, epsilon=epsilon) if total > 0 else (0.0 if shift == 0 else 1.0)
    tight = analytic_gaussian_sigma(shift, epsilon=epsilon, delta=settings.delta)
    return [audit_row(Verdict(b, laplace, loss, loss, bool(loss <= epsilon)), method="prop6_3_gwm_laplace",
                      noise="laplace", scale_min=shift / epsilon, **common),
            audit_row(Verdict(sigma, gaussian, got, got, bool(got <= settings.delta)),
                      method="prop6_3_gwm_gaussian_analytic", noise="gaussian",
                      scale_min=math.sqrt(max(tight ** 2 - var, 0.0)), **common)]


def diffusion_audit(settings: DiffusionSettings) -> pd.DataFrame:
    """Audit rows of the OU scales calibrated from the bound D e^(-lambda t), each audited exactly.

    For OU the laws of X_t from x_0, x_0 + D are N(m, v) and N(m + d, v), d = D e^(-lambda t),
    v = (1 - e^(-2 lambda t)) / lambda (:func:`~pufferfish.sensitivity.diffusion.ou_law`):

    * ``prop6_3_gwm_laplace``: b = bound / eps (GWM, Cor. 3.1), eps-PP, audited by the exact
      pure-epsilon loss of Laplace noise on Gaussian priors
      (:func:`pufferfish.audit.mixture_privacy_loss.epsilon_achieved`); ``scale_min`` = d / eps (the
      loss tends to d / b in the tails).
    * ``prop6_3_gwm_gaussian_analytic``: the analytic GWM sigma of the bound, (eps, delta)-PP; the
      outputs N(m, v + sigma^2), N(m + d, v + sigma^2) have Balle and Wang's exact hockey stick;
      ``scale_min`` = sqrt(max(s^2 - v, 0)), s the analytic sigma of d (the diffusion's own
      noise v counts).

    The release time is in ``tight_note`` (``t = ...``), ``panel`` is ``quadratic lambda=<lambda>``;
    every row is ``claimed`` (Prop. 6.3's bound is exact for OU). Only the quadratic potential has
    exact laws: without it the table is empty.

    Parameters
    ----------
    settings : DiffusionSettings
        The typed config section.

    Returns
    -------
    pandas.DataFrame
        Rows of :data:`~pufferfish.audit.verdict.AUDIT_COLUMNS` (a row meets its target when its certified
        value is at most the target, no tolerance).

    Raises
    ------
    InvalidArgumentError
        None expected: the settings were validated (job-level).
    """
    rows = []
    if "quadratic" in settings.potentials:
        for rate in settings.lambdas:
            for time in settings.times:
                for epsilon in settings.epsilons:
                    rows += _ou_rows(settings, rate, time, epsilon)
    return audit_frame(rows)


def run_diffusion(settings: DiffusionSettings, *, rtol: float, out_csv, check_csv, audit_csv, png,
                  pdf, figure_csv=None) -> pd.DataFrame:
    """The diffusion experiment (module docstring): the table, the check, the OU audit and the figure.

    Parameters
    ----------
    settings : DiffusionSettings
        The typed config section (and the config's seed).
    rtol : float
        The check's and the audit's relative tolerance (a coupled maximum above bound (1 + rtol)
        is a ``violation``).
    out_csv, check_csv, audit_csv, png, pdf : path-like
        The output paths.
    figure_csv : path-like, optional
        The figure's numbers (``out_csv``'s table again), beside the figure.

    Returns
    -------
    pandas.DataFrame
        The :data:`DIFFUSION_COLUMNS` table.

    Raises
    ------
    ArgumentTypeError
        ``settings`` is not :class:`~pufferfish.sensitivity.settings.DiffusionSettings`.
    """
    from pufferfish.sensitivity.plots import plot_diffusion

    table, check = diffusion_rows(settings)
    check["violation"] = check["coupled_max"] > check["bound"] * (1.0 + rtol)
    for line in coupling_violation_lines(check, rtol=rtol) + rising_lines(check):
        log.warning(line)
    audit = diffusion_audit(settings)
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

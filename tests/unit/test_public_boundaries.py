"""Every public name of the package validates its arguments at the boundary (issue 24, section 4).

The walk: every module of ``pufferfish`` (found by :mod:`pkgutil`, so a module added later is
walked too) and every name in its ``__all__``. Each public object, keyed by where it is
defined (a re-export is the same entry), is either

* in :data:`CALLS`: a valid example call (every argument given by name, with its kind), which
  must succeed; then every argument in turn is replaced by each bad value of its kind (NaN,
  inf, negative, zero, empty, a string, ``None``, a wrong type...), the others kept valid, and
  the call must raise a :mod:`pufferfish.errors` error that is a ``ValueError`` or
  ``TypeError``, in one line naming the argument; or
* in :data:`EXEMPT`, with the reason (constants, result types, errors, job-level code).

A public name in neither table fails :func:`test_every_public_name_is_in_a_table`: a new
function cannot slip past. An entry whose name no longer exists fails too.

Scope. ``pufferfish.pipeline`` and the job-level modules of the paper packages (experiments,
plots, ``comparison.experiments``) are exempt by name: their arguments are typed settings built
from the config after :mod:`pufferfish.pipeline.config` validated it against the schema, and
output paths (tested by ``test_config.py``, ``test_settings.py`` and the integration runs).
Every function a user calls with numbers, priors or grids is walked.
"""
from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import re
from dataclasses import dataclass, field

import numpy as np
import pytest

import pufferfish
from pufferfish.errors import PufferfishError
from pufferfish.papers import declared

NAN, INF = math.nan, math.inf

# ------------------------------------------------------------------ bad values by kind
_NOT_NUMBER = ["0.5", None, True, [1.0]]
BAD = {
    "real": [NAN, INF, -INF, *_NOT_NUMBER],                     # any finite real
    "nonneg": [NAN, INF, -1.0, *_NOT_NUMBER],                   # >= 0
    "pos": [NAN, INF, -1.0, 0.0, *_NOT_NUMBER],                 # > 0
    "unit": [NAN, INF, -0.5, 1.5, *_NOT_NUMBER],                # in [0, 1]
    "open_unit": [NAN, INF, -0.5, 0.0, 1.0, *_NOT_NUMBER],      # in (0, 1)
    "delta0": [NAN, INF, -0.5, 1.0, *_NOT_NUMBER],              # in [0, 1)
    "alpha": [NAN, INF, -1.0, 0.5, 1.0, *_NOT_NUMBER],          # Renyi order > 1
    "order": [NAN, -INF, -1.0, 0.5, *_NOT_NUMBER],              # >= 1, inf allowed (W_inf)
    "nonneg_or_inf": [NAN, -INF, -1.0, *_NOT_NUMBER],           # >= 0, inf allowed
    "int": [NAN, INF, 1.5, "3", None, True],                    # any integer
    "count": [NAN, INF, 1.5, -1, 0, "3", None, True],           # integer >= 1
    "size": [NAN, INF, 1.5, -1, "3", None, True],               # integer >= 0
    "grid": [[NAN], [INF], [-1.0], [], "0.5", None, [True]],    # non-empty list of reals > 0
    "open_unit_opt": [NAN, INF, -0.5, 0.0, 1.0, "0.5", True, [1.0]],   # in (0, 1), or None (not used)
    "alpha_opt": [NAN, INF, -1.0, 0.5, 1.0, "0.5", True, [1.0]],       # Renyi order > 1, or None (not used)
    "open_unit_grid": [[NAN], [INF], [-0.5], [1.0], [], "0.5", None],
    "reals": [[NAN], [INF], [], "0.5", None, [True]],           # non-empty list of finite reals
    "real_or_reals": [NAN, INF, "0.5", None, True, [], [NAN], ["0.5"]],  # a finite real or a list of them
    # vectorised arguments (gaussian.methods): a number or an array of them, each checked
    "pos_v": [NAN, INF, -1.0, 0.0, "0.5", None, True, [], [NAN], [0.0]],
    "nonneg_v": [NAN, INF, -1.0, "0.5", None, True, [], [NAN], [-1.0]],
    "open_unit_v": [NAN, INF, 0.0, 1.0, "0.5", None, True, [], [NAN], [1.0]],
    "count_v": [NAN, INF, 1.5, 0, "3", None, True, [], [0]],
    "pmf": ["P", None, 1.0, [0.5, 0.5]],                        # a LatticePMF
    "pmfs": ["P", None, 1.0, [1.0], [None]],                    # a list of LatticePMF
    "gmm": ["P", None, [0.5]],                                  # a GMM or a (mean, std) prior
    "secret": ["P", None, 1.0],
    "pair": ["P", None, 1.0],
    "target": ["P", None, 1.0],
    "str": [None, 1.0, True, ""],                               # a non-empty name
    "text": [None, 1.0, True],                                  # a string, possibly empty
    "callable": [None, 1.0, "f"],
    "frame": [None, 1.0, "frame"],
    # a data column: numbers as a CSV gives them back ("0.5" is the number 0.5), no NaN, inf or text
    "data": [[NAN], [INF], [], None, "0.5", ["x"]],
    # paper 002, Section 6 (pufferfish.iteration, pufferfish.sensitivity)
    "nonneg_reals": [[NAN], [INF], [-1.0], [], "0.5", None, [True]],  # non-empty list of reals >= 0
    "step": [NAN, INF, -0.5, 0.0, 1.5, *_NOT_NUMBER],           # in (0, 1] (a step size eta)
    "pos_or_inf": [NAN, -INF, -1.0, 0.0, *_NOT_NUMBER],         # > 0, inf allowed (no bound)
    "alpha_or_inf": [NAN, -INF, -1.0, 0.5, 1.0, *_NOT_NUMBER],  # Renyi order > 1, inf allowed
    "norm": [NAN, 0.0, 3.0, -1.0, "1", None, True],             # 1, 2 or inf
    "object": ["P", None, 1.0],                                 # an instance of a package type
    "covariance": ["P", None, 1.0, [[1.0]]],                    # a pufferfish.iteration Covariance
    "matrix": [[[NAN]], [[INF]], [], "0.5", None, [[1.0, 2.0]], [[-1.0]], [[True]]],  # symmetric PSD d x d
    "indices": [[], [-1], [9], [1.5], [True], [NAN], "0", None],   # distinct attribute indices
    "int_rows": [[], [1, 2], [[1.5, 2.0]], [[NAN, 1]], [["a", 1]], [[0, 0], [0, 1]], "0", None, 1.0],
    "probs": [[[NAN, 0.5], [0.5, 0.0]], [[-0.5, 0.5], [0.5, 0.5]], [[0.25, 0.25], [0.25, 0.5]], [[0.5, 0.5]],
              [[True, False], [False, False]], [["a", 0.5], [0.25, 0.25]], "0.5", None],
    "int_weights": [[1.5], [1, 1.5], [NAN, 1], [True, 1], "1", 1.0],   # integer weights, one per record
    "secret_pairs": ["P", None, 1.0, [], [("a", "b")], [(1,)]],
    # mechanisms
    "domain": [[], [1], [1, 1], [2, 1], [0.5, 1], [True, 1], "01", None, 1.0, [NAN, 1]],   # >= 2 increasing ints
    "log_probs": [[[NAN]], [[0.5]], [], "0.5", None, [-1.0], [[True]]],   # a matrix of log probabilities
    # paper 003 (pufferfish.distp)
    "law": [[NAN, 1.0], [INF, 0.0], [-0.5, 1.5], [0.5, 0.6], [], "0.5", None, [True, 0.0], [[0.5, 0.5]]],
    "channel": [[[NAN]], [[INF]], [], "0.5", None, [[1.0, 2.0]], [[-1.0]], [[True]], [[0.5, 0.6]], [1.0]],
    "domain_opt": [[], [1], [1, 1], [2, 1], [0.5, 1], [True, 1], "01", 1.0, [NAN, 1]],   # a domain, or None
    "values": [None, 1.0, "ab"],                                # a list, tuple or array of values
    # the audit layer (pufferfish.audit.verdict, .search, .auditor)
    "verdict_scale": [-1.0, -INF, "0.5", None, True],             # >= 0, inf or NaN (cannot be audited)
    "auditors": ["P", None, 1.0, [], ["P"]],                      # a non-empty list of auditors
    "bounds": [[NAN], ["x"], "x", 1.0, [1.0, 2.0]],              # one real or inf per pair, or None
    "scale_min": [-1.0, -INF, "0.5", None, True],                 # >= 0, inf or NaN
    "bool": [None, 1.0, "yes"],
    "rows": [None, 1.0, "x", [1.0], [{"nope": 1}]],
    "history": [None, "x", 1.0, [1.0], [(1.0,)], [(-1.0, 1.0)], [(1.0, NAN)], [(NAN, 1.0)]],
    "prior_kind": [1.0, True, "", "gaussian"],                    # "lattice" or "mixture" (or None)
    "unit_list": [[NAN], [INF], [-0.5], [1.5], [], "0.5", None, [True]],   # non-empty list of reals in [0, 1]
    "size_opt": [NAN, INF, 1.5, -1, "3", True],                 # integer >= 0, or None (the default)
    "count_opt": [NAN, INF, 1.5, -1, 0, "3", True],             # integer >= 1, or None (the default)
}


@dataclass
class Call:
    """A valid call ``func(**args)``; ``kinds[name]`` picks the bad values of each argument."""

    args: dict
    kinds: dict
    extra_bad: dict = field(default_factory=dict)   # further bad values of one argument
    alias: dict = field(default_factory=dict)       # the name a message uses for an argument, if another

    def cases(self):
        for name, kind in self.kinds.items():
            for bad in BAD[kind] + self.extra_bad.get(name, []):
                yield name, bad


def _examples():
    from pufferfish.lattice.pmf import LatticePMF
    from pufferfish.lattice.sums import sum_of_users
    from pufferfish.lattice.system import Absent, Draws, Reports, SecretPair
    from pufferfish.gaussian.gmm import GMM
    from pufferfish.audit.target import Target

    p = LatticePMF.from_values([0, 1, 2], [0.2, 0.5, 0.3])
    q = LatticePMF.from_values([1, 2, 3], [0.3, 0.4, 0.3])
    b2, b9 = LatticePMF.bernoulli(0.2), LatticePMF.bernoulli(0.9)
    rest = sum_of_users([p, q])
    gmm_i = GMM(np.array([0.5, 0.5]), np.array([0.0, 1.0]), np.array([1.0, 0.5]))
    gmm_j = GMM(np.array([1.0]), np.array([0.5]), np.array([1.0]))
    gmm_k = GMM(np.array([0.5, 0.5]), np.array([0.5, 2.0]), np.array([1.0, 0.5]))   # Corollary 2's form of gmm_i
    from pufferfish.lattice.system import User
    pair = SecretPair.of(Draws(b2), Draws(b9), [User(p), User(q)])
    from pufferfish.audit import LaplaceLatticeAuditor, audit_scale
    auditor = LaplaceLatticeAuditor(p, q)
    verdict = audit_scale(auditor, 1.0, Target(0.5))
    from pufferfish.comparison.binding import NamedPair
    named_pair = NamedPair("a", "b", SecretPair.of(Reports(0), Reports(2), []))
    return dict(p=p, q=q, b2=b2, b9=b9, rest=rest, gmm_i=gmm_i, gmm_j=gmm_j, gmm_k=gmm_k, pair=pair,
                Target=Target, Draws=Draws, auditor=auditor, verdict=verdict, named_pair=named_pair)


E = _examples()
P, Q, B2, B9, REST, GI, GJ = E["p"], E["q"], E["b2"], E["b9"], E["rest"], E["gmm_i"], E["gmm_j"]
PQ = {"p": "pmf", "q": "pmf"}


def _section6():
    """Valid inputs of paper 002's Section 6 subpackages (iteration, sensitivity)."""
    from pufferfish.iteration.equal_correlation import EqualCorrelation
    from pufferfish.iteration.exact import exact_audit
    from pufferfish.iteration.model import account_quadratic_model
    from pufferfish.sensitivity.attribute import GaussianRecord
    from pufferfish.sensitivity.diffusion import potential
    from pufferfish.sensitivity.weak_dependence import JointLatticePrior, RecordSecret

    cov = EqualCorrelation(3, 0.5, 2.0)
    sigma = [[2.0, 0.5], [0.5, 1.0]]
    probs = [[0.4, 0.1], [0.1, 0.4]]
    prior = JointLatticePrior(((0, 1), (0, 1)), probs)
    return dict(cov=cov, shifts=[0.5, 1.0, 0.25], audit=exact_audit(cov, secret_index=2, eta=0.5, sigma=1.0,
                                                                     diameter=1.0),
                account=account_quadratic_model(cov, secret_index=2, eta=0.5, diameter=1.0), sigma=sigma, record=GaussianRecord([0.0, 1.0], sigma), probs=probs, prior=prior,
                potential=potential("logcosh", rate=1.0),
                secrets=[(RecordSecret(0, 0), RecordSecret(0, 1)), (RecordSecret(1, 0), RecordSecret(1, 1))])


S6 = _section6()


def pq(**more):
    """Call on the pmfs P, Q plus ``more`` (name -> (value, kind))."""
    return Call({"p": P, "q": Q, **{k: v for k, (v, _) in more.items()}}, {**PQ, **{k: c for k, (_, c) in more.items()}})


def gg(**more):
    """Call on the GMM priors prior_i, prior_j plus ``more``."""
    return Call({"prior_i": GI, "prior_j": GJ, **{k: v for k, (v, _) in more.items()}},
                {"prior_i": "gmm", "prior_j": "gmm", **{k: c for k, (_, c) in more.items()}})


def kw(**more):
    return Call({k: v for k, (v, _) in more.items()}, {k: c for k, (_, c) in more.items()})


EPS = ([0.5, 1.0], "grid")


def _distp_calls() -> dict:
    """Paper 003 (pufferfish.distp): the walked functions, on a 2-value domain."""
    from pufferfish.mechanisms import RandomizedResponse
    d = "pufferfish.distp."
    law0, law1, channel = ([0.5, 0.5], "law"), ([0.25, 0.75], "law"), ([[0.75, 0.25], [0.25, 0.75]], "channel")
    pair = {"channel": channel, "lambda0": law0, "lambda1": law1}
    rr = (RandomizedResponse(2, 1.0), "object")
    return {
        d + "divergences.check_law": Call({"values": [0.5, 0.5], "name": "law"}, {"values": "law"},
                                          alias={"values": "law"}),
        d + "divergences.check_law_pair": kw(p0=law0, p1=law1),
        d + "divergences.check_channel": kw(channel=channel),
        d + "divergences.hockey_stick": kw(p0=law0, p1=law1, epsilon=(0.1, "nonneg")),
        d + "divergences.distp_delta": kw(p0=law0, p1=law1, epsilon=(0.1, "nonneg")),
        d + "divergences.pure_epsilon": kw(p0=law0, p1=law1),
        d + "divergences.f_divergence": kw(p0=law0, p1=law1, name=("kl", "str")),
        d + "pair.check_domain": kw(domain=((0, 1, 3), "domain")),
        d + "pair.transport_distances": kw(domain=((0, 2), "domain"), lambda0=law0, lambda1=law1),
        d + "pair.pair_privacy": kw(**pair, domain=((0, 2), "domain_opt")),
        d + "claims.make_claim": kw(name=("x", "str"), exact=(1.0, "nonneg_or_inf"),
                                    constant=(1.0, "nonneg_or_inf"), distance=(2.0, "nonneg_or_inf")),
        d + "claims.xdp_claim": kw(**pair, domain=((0, 2), "domain")),
        d + "claims.dp_claim": kw(**pair),
        d + "claims.divergence_claim": kw(**pair, domain=((0, 2), "domain"), name=("kl", "str")),
        d + "sums.count_vectors": kw(atoms=(3, "count"), n=(4, "count")),
        d + "sums.exact_positive_part": kw(w=([1.0, -2.0], "reals"), nu=([0.5, 0.5], "grid"), n=(3, "count")),
        d + "sums.exact_positive_part_bounds": kw(w_lo=([1.0, -2.0], "reals"), w_hi=([1.0, -1.0], "reals"),
                                                  nu=([0.5, 0.5], "grid"), n=(3, "count")),
        d + "sums.certified_positive_part": kw(w_lo=([1.0, -2.0], "reals"), w_hi=([1.0, -2.0], "reals"),
                                               nu=([0.5, 0.5], "grid"), n=(30, "count"), rtol=(1e-3, "pos"),
                                               atol=(0.0, "nonneg"), max_points=(10_000, "count")),
        d + "tupling.Tupling": kw(channel=channel, dummies=(2, "size"), dummy_law=law0),
        d + "tupling.tupling_over": kw(base=rr, dummies=(2, "size"), dummy_distribution=("uniform", "str")),
        d + "utility.service_loss": kw(channel=channel, pmf=law0, inputs=((0, 1), "values"),
                                       outputs=((0, 1), "values"), kind=("ordinal", "str")),
        d + "calibrate.largest_rr_epsilon": Call({"size": 2, "lambda0": [0.5, 0.5], "lambda1": [0.25, 0.75],
                                                  "epsilon": 0.1, "delta": 1e-5, "rtol": 1e-6},
                                                 {"size": "count", "lambda0": "law", "lambda1": "law",
                                                  "epsilon": "nonneg", "delta": "unit", "rtol": "pos"},
                                                 extra_bad={"size": [1]}),
        d + "calibrate.largest_geometric_epsilon": kw(domain=((0, 2), "domain"), lambda0=law0, lambda1=law1,
                                                      epsilon=(0.1, "nonneg"), delta=(1e-5, "unit"),
                                                      rtol=(1e-6, "pos")),
        d + "calibrate.smallest_dummies": kw(base=rr, lambda0=law0, lambda1=law1, epsilon=(0.1, "nonneg"),
                                             delta=(0.05, "unit"), max_dummies=(20, "size"), rtol=(1e-3, "pos")),
    }

#: public callables, keyed by module.qualname of their definition -> a valid call and kinds
CALLS = {
    # ---------------------------------------------------------------- grids
    "pufferfish.grids.expand_grid": Call({"spec": [0.1, 0.2]}, {"spec": "reals"}, alias={"spec": "grid"}),
    "pufferfish.grids.check_epsilons": kw(epsilons=EPS),
    "pufferfish.grids.check_deltas": kw(deltas=([0.1], "open_unit_grid")),
    # ---------------------------------------------------------------- lattice
    "pufferfish.lattice.pmf.LatticePMF": kw(offset=(0, "int"), probs=([0.5, 0.5], "reals")),
    "pufferfish.lattice.pmf.check_lattice_size": kw(points=(10, "size"), name=("probs", "text")),
    "pufferfish.lattice.pmf.check_sum_size": kw(users=([P, Q], "pmfs")),
    "pufferfish.lattice.sums.convolve": pq(method=("auto", "str")),
    "pufferfish.lattice.sums.sum_of_users": kw(users=([P, Q], "pmfs"), method=("auto", "str")),
    "pufferfish.lattice.sums.tail_mass_bound": kw(users=([P, Q], "pmfs"), lo=(0, "int"), hi=(3, "int")),
    "pufferfish.lattice.system.User": kw(pmf=(P, "pmf"), presence=(0.5, "unit"), name=("u", "text")),
    "pufferfish.lattice.system.Reports": kw(value=(3, "int")),
    "pufferfish.lattice.system.Absent": kw(),
    "pufferfish.lattice.system.Draws": kw(pmf=(P, "pmf")),
    "pufferfish.lattice.system.QueryPrior": kw(pmf=(P, "pmf"), weight=(0.5, "unit")),
    "pufferfish.lattice.system.query_prior": kw(secret=(E["Draws"](P), "secret"), rest=(REST, "pmf"),
                                                method=("auto", "str")),
    "pufferfish.lattice.system.SecretPair": kw(first=(E["Draws"](P), "secret"), second=(E["Draws"](Q), "secret"),
                                               rest_sum=(REST, "pmf"), weight=(1.0, "unit")),
    "pufferfish.lattice.transport.kantorovich_plan": pq(tol=(1e-12, "nonneg")),
    "pufferfish.lattice.transport.delta_star": pq(tol=(1e-12, "nonneg")),
    "pufferfish.lattice.transport.plan_span": pq(),
    "pufferfish.lattice.distances.wasserstein_p": pq(order=(2.0, "order")),
    "pufferfish.lattice.distances.wasserstein_inf": pq(),
    "pufferfish.lattice.distances.near_mass": pq(distance=(1.0, "nonneg_or_inf")),
    "pufferfish.lattice.distances.delta_near": pq(delta=(0.1, "unit")),
    # ---------------------------------------------------------------- mechanisms
    "pufferfish.mechanisms.gaussian.balle_wang_delta": kw(shift=(2.0, "nonneg"), scale=(1.0, "pos"),
                                                          epsilon=(0.5, "nonneg")),
    "pufferfish.mechanisms.gaussian.analytic_gaussian_sigma": kw(sensitivity=(2.0, "nonneg"), epsilon=(0.5, "pos"),
                                                                 delta=(0.1, "open_unit")),
    "pufferfish.mechanisms.gaussian.gaussian_rdp_sigma": kw(sensitivity=(2.0, "nonneg"), epsilon=(0.5, "pos"),
                                                            delta=(0.1, "open_unit")),
    "pufferfish.mechanisms.gaussian.gaussian_rdp_sigma_at": kw(sensitivity=(2.0, "nonneg"), epsilon=(0.5, "pos"),
                                                               delta=(0.1, "open_unit"), alpha=(2.0, "alpha")),
    "pufferfish.mechanisms.gaussian.gaussian_rdp_alpha": kw(epsilon=(0.5, "pos"), delta=(0.1, "open_unit")),
    "pufferfish.mechanisms.laplace.laplace_scale": kw(sensitivity=(2.0, "nonneg"), epsilons=EPS),
    "pufferfish.mechanisms.laplace.laplace_delta": kw(shift=(2.0, "nonneg"), scale=(1.0, "pos"),
                                                      epsilon=(0.5, "nonneg")),
    "pufferfish.mechanisms.cauchy.cauchy_renyi2": kw(shift=(2.0, "nonneg"), scale=(1.0, "pos")),
    "pufferfish.mechanisms.cauchy.cauchy_renyi2_scale": kw(sensitivity=(2.0, "nonneg"), epsilons=EPS),
    "pufferfish.mechanisms.randomized_response.RandomizedResponse": Call({"size": 3, "epsilon": 1.0},
                                                                         {"size": "count", "epsilon": "nonneg"},
                                                                         extra_bad={"size": [1]}),
    "pufferfish.mechanisms.geometric.TwoSidedGeometric": kw(epsilon=(1.0, "pos")),
    "pufferfish.mechanisms.geometric.ClampedGeometric": kw(domain=((0, 1, 3), "domain"), epsilon=(1.0, "pos")),
    "pufferfish.mechanisms.channel.output_law": kw(channel=([[0.5, 0.5], [0.25, 0.75]], "matrix"),
                                                   pmf=([0.5, 0.5], "reals")),
    "pufferfish.mechanisms.channel.channel_epsilons": kw(log_channel=([[-1.0, -0.5]], "log_probs")),
    "pufferfish.mechanisms.channel.check_input_pmf": kw(pmf=([0.5, 0.5], "reals"), size=(2, "count")),
    # ---------------------------------------------------------------- audit
    "pufferfish.audit.target.Target": kw(epsilon=(0.5, "pos")),
    "pufferfish.audit.target.target_for": kw(guarantee=("epsilon_delta", "str"), epsilon=(0.5, "pos"),
                                             delta=(0.1, "open_unit_opt"), alpha=(2.0, "alpha_opt")),
    "pufferfish.audit.verdict.audit_scale": Call(
        {"auditor": E["auditor"], "scale": 1.0, "target": E["Target"](0.5)},
        {"auditor": "object", "scale": "verdict_scale", "target": "target"}),
    "pufferfish.audit.verdict.worst_case": Call(
        {"auditors": [E["auditor"]], "scale": 1.0, "target": E["Target"](0.5), "bound": [INF]},
        {"auditors": "auditors", "scale": "verdict_scale", "target": "target", "bound": "bounds"}),
    "pufferfish.audit.verdict.audit_row": kw(verdict=(E["verdict"], "object"), experiment=("x", "text"),
                                             panel=("", "text"), method=("tight", "str"), noise=("laplace", "str"),
                                             scale_min=(1.0, "scale_min"), tight_note=("", "text"),
                                             claimed=(True, "bool")),
    "pufferfish.audit.verdict.audit_frame": kw(rows=([{"method": "tight"}], "rows")),
    "pufferfish.audit.auditor.noise_std": kw(noise=("laplace", "str"), scale=(2.0, "nonneg")),
    "pufferfish.audit.auditor.noises": kw(),
    "pufferfish.audit.auditor.auditor_classes": kw(prior=("lattice", "prior_kind")),
    "pufferfish.audit.auditor.lattice_auditor": kw(noise=("laplace", "str"), guarantee=("epsilon", "str"),
                                                   p=(P, "pmf"), q=(Q, "pmf")),
    "pufferfish.audit.search.smallest_scale": kw(value=(lambda s: 1.0 / s, "callable"), bound=(0.5, "pos"),
                                                 start=(1.0, "pos"), strategy=("double", "str"),
                                                 rtol=(1e-6, "nonneg"), max_steps=(50, "count"),
                                                 floor=(1e-300, "pos"), history=([(1.0, 1.0)], "history")),
    "pufferfish.audit.search.close_bracket": kw(value=(lambda s: 1.0 / s, "callable"), bound=(0.5, "pos"),
                                                lo=(1.0, "pos"), hi=(4.0, "pos"), v_hi=(0.25, "real"),
                                                rtol=(1e-6, "nonneg"), max_steps=(50, "count"), steps=(0, "size")),
    "pufferfish.audit.atoms.PairAtoms": pq(),
    "pufferfish.audit.laplace_lattice.LaplaceLatticeAuditor": pq(rtol=(1e-10, "pos"), max_steps=(50, "count")),
    "pufferfish.audit.laplace_lattice.lattice_privacy_loss": pq(theta=(1.0, "pos")),
    "pufferfish.audit.laplace_lattice.log_density_at_lattice": kw(pmf_values=(np.array([0.5, 0.5]), "reals"),
                                                                  theta=(1.0, "pos")),
    "pufferfish.audit.laplace_lattice.theta_min": pq(epsilon=(0.5, "pos"), rtol=(1e-10, "pos"),
                                                     max_steps=(50, "count")),
    "pufferfish.audit.laplace_lattice.tight": pq(epsilons=EPS, rtol=(1e-10, "pos"), max_steps=(50, "count")),
    # ---------------------------------------------------------------- paper 003 (distp)
    **_distp_calls(),
    "pufferfish.audit.zero_noise.zero_noise_loss": pq(),
    "pufferfish.audit.zero_noise.zero_noise_directions": pq(),
    "pufferfish.audit.laplace_lattice.mgf_tail_loss": kw(a=(P, "pmf"), b=(Q, "pmf"), theta=(1.0, "pos")),
    "pufferfish.audit.laplace_lattice.laplace_hockey_stick": pq(epsilon=(0.5, "nonneg"), scale=(1.0, "pos")),
    "pufferfish.audit.zero_noise.zero_noise_hockey_stick": pq(epsilon=(0.5, "nonneg")),
    "pufferfish.audit.gaussian_lattice.GaussianLatticeAuditor": pq(rtol=(1e-10, "pos"), max_steps=(50, "count")),
    "pufferfish.audit.gaussian_lattice.gaussian_hockey_stick": pq(epsilon=(0.5, "nonneg"), sigma=(1.0, "pos")),
    "pufferfish.audit.gaussian_lattice.gaussian_renyi": pq(alpha=(2.0, "alpha"), sigma=(1.0, "pos")),
    "pufferfish.audit.zero_noise.zero_noise_renyi": pq(alpha=(2.0, "alpha")),
    "pufferfish.audit.cauchy_lattice.CauchyLatticeAuditor": pq(rtol=(1e-10, "pos"), max_steps=(50, "count")),
    "pufferfish.audit.cauchy_lattice.cauchy_renyi": pq(alpha=(2.0, "alpha"), gamma=(1.0, "pos")),
    "pufferfish.audit.geometric_lattice.GeometricLatticeAuditor": pq(rtol=(1e-10, "pos"), max_steps=(50, "count")),
    "pufferfish.audit.geometric_lattice.geometric_privacy_loss": pq(scale=(1.0, "pos")),
    "pufferfish.audit.geometric_lattice.geometric_hockey_stick": pq(epsilon=(0.5, "nonneg"), scale=(1.0, "pos")),
    "pufferfish.audit.geometric_lattice.geometric_renyi": pq(alpha=(2.0, "alpha"), scale=(1.0, "pos")),
    "pufferfish.audit.laplace_mixture.LaplaceMixtureAuditor": gg(rtol=(1e-10, "pos"), max_steps=(50, "count")),
    "pufferfish.audit.emg_density.as_prior": kw(prior=(GI, "gmm")),
    "pufferfish.audit.emg_density.emg_logpdf": kw(y=([0.0, 1.0], "reals"), prior=(GI, "gmm"), b=(1.0, "pos")),
    "pufferfish.audit.emg_density.emg_pdf": kw(y=([0.0, 1.0], "reals"), prior=(GI, "gmm"), b=(1.0, "pos")),
    "pufferfish.audit.emg_density.emg_cdf": kw(y=([0.0, 1.0], "reals"), prior=(GI, "gmm"), b=(1.0, "pos")),
    "pufferfish.audit.emg_density.emg_sf": kw(y=([0.0, 1.0], "reals"), prior=(GI, "gmm"), b=(1.0, "pos")),
    "pufferfish.audit.emg_density.tail_log_ratios": gg(b=(1.0, "pos")),
    "pufferfish.audit.mixture_hockey_stick.hockey_stick": gg(epsilon=(0.5, "nonneg"), b=(1.0, "pos")),
    "pufferfish.audit.mixture_hockey_stick.prior_hockey_stick": gg(epsilon=(0.5, "nonneg")),
    "pufferfish.audit.mixture_privacy_loss.prior_epsilon_achieved": gg(),
    "pufferfish.audit.mixture_privacy_loss.prior_epsilon_bound": gg(),
    "pufferfish.audit.mixture_hockey_stick.delta_achieved": gg(epsilon=(0.5, "nonneg"), b=(1.0, "pos")),
    "pufferfish.audit.mixture_privacy_loss.epsilon_achieved": gg(b=(1.0, "pos")),
    "pufferfish.audit.mixture_privacy_loss.epsilon_bound": gg(b=(1.0, "pos")),
    "pufferfish.audit.laplace_mixture.b_min": gg(epsilon=(0.5, "pos"), delta=(0.1, "delta0"), rtol=(1e-6, "pos"),
                                                 max_steps=(50, "count")),
    "pufferfish.gaussian.methods.gaussian_noise_max_log_ratio": kw(
        mu_i=(0.0, "real"), sd_i=(1.0, "nonneg"), mu_j=(1.0, "real"), sd_j=(1.0, "nonneg"), noise_sd=(1.0, "pos")),
    # ---------------------------------------------------------------- paper 000
    "pufferfish.multiuser.methods.theorem1": kw(a=(5, "real_or_reals"), b=(3, "real_or_reals"), epsilons=EPS),
    "pufferfish.multiuser.methods.theorem2": kw(a=(5, "real_or_reals"), epsilons=EPS),
    "pufferfish.multiuser.methods.theorem3_max": kw(pmf=(P, "pmf"), epsilons=EPS),
    "pufferfish.multiuser.methods.theorem3_brent": kw(pmf=(P, "pmf"), epsilons=EPS),
    "pufferfish.multiuser.methods.theorem4": pq(epsilons=EPS),
    "pufferfish.multiuser.methods.lemma5": kw(p=(B2, "pmf"), q=(B9, "pmf"), epsilons=EPS),
    "pufferfish.multiuser.methods.lemma6": kw(p=(B2, "pmf"), q=(B9, "pmf"), rest_sum=(REST, "pmf"), epsilons=EPS),
    "pufferfish.multiuser.methods.lemma6_best_grouping": kw(p=(B2, "pmf"), q=(B9, "pmf"), rest_sum=(REST, "pmf"),
                                                            epsilons=EPS),
    "pufferfish.multiuser.methods.lemma6_psi": kw(p=(B2, "pmf"), q=(B9, "pmf"), rest_sum=(REST, "pmf"),
                                                  grouping=("rows", "str")),
    "pufferfish.multiuser.methods.kantorovich": kw(prior_i=(P, "pmf"), prior_j=(Q, "pmf"), epsilons=EPS),
    "pufferfish.multiuser.methods.bernoulli_eq15": kw(p=(0.3, "unit"), epsilons=EPS),
    # ---------------------------------------------------------------- paper 002
    "pufferfish.wasserstein.methods.gwm_laplace": pq(epsilons=EPS),
    "pufferfish.wasserstein.methods.gawm_laplace": pq(epsilons=EPS, delta=(0.1, "open_unit")),
    "pufferfish.wasserstein.methods.gwm_gaussian_rdp": pq(epsilons=EPS, delta=(0.1, "open_unit")),
    "pufferfish.wasserstein.methods.gwm_gaussian_analytic": pq(epsilons=EPS, delta=(0.1, "open_unit")),
    "pufferfish.wasserstein.methods.dagwm_cauchy": pq(epsilons=EPS, alpha=(2.0, "alpha")),
    # ---------------------------------------------------------------- paper 002, Section 6 (iteration)
    "pufferfish.checks.as_vector": Call(
        {"values": [1.0, 2.0], "name": "x", "nonnegative": True, "min_size": 1},
        {"values": "nonneg_reals", "name": "str", "min_size": "size"}, alias={"values": "x"}),
    "pufferfish.iteration.covariance.check_covariance": Call({"value": S6["cov"], "name": "cov"},
                                                             {"value": "covariance", "name": "str"},
                                                             alias={"value": "cov"}),
    "pufferfish.iteration.dense_covariance.DenseCovariance": kw(matrix=([[2.0, 0.5], [0.5, 1.0]], "matrix")),
    "pufferfish.iteration.stationary_covariance.StationaryCovariance": Call(
        {"autocovariance": [1.0, 0.5, 0.25]}, {"autocovariance": "reals"}, extra_bad={"autocovariance": [[0.0], [1.0, 2.0]]}),
    "pufferfish.iteration.equal_correlation.EqualCorrelation": kw(size=(3, "count"), rho=(0.5, "unit"), variance=(2.0, "pos")),
    "pufferfish.iteration.stationary_covariance.decaying_correlation": kw(size=(3, "count"), rho=(0.5, "delta0"),
                                                                          variance=(2.0, "pos")),
    "pufferfish.iteration.stationary_covariance.DecayingCorrelation": kw(size=(3, "count"), rho=(0.5, "delta0"),
                                                                         variance=(2.0, "pos")),
    "pufferfish.iteration.geometric.geometric_sums": Call({"counts": [0, 3], "eta": 0.5, "power": 2},
                                                          {"counts": "nonneg_reals", "eta": "step", "power": "count"},
                                                          extra_bad={"counts": [[1.5], 3], "power": [3]}),
    "pufferfish.iteration.stationary_covariance.biased_autocovariance": Call(
        {"values": [1.0, 3.0, 2.0]}, {"values": "reals"}, extra_bad={"values": [[1.0, 1.0]]}),
    "pufferfish.iteration.shifts.shifts_from_column": Call(
        {"column": [2.0, 1.0, 0.5], "secret_index": 1, "eta": 0.5, "diameter": 1.0, "lipschitz": 1.0,
         "gradient_bound": 0.4},
        {"column": "reals", "secret_index": "count", "eta": "pos", "diameter": "nonneg", "lipschitz": "nonneg",
         "gradient_bound": "pos_or_inf"}, extra_bad={"column": [[0.0, 1.0]], "secret_index": [4]}),
    "pufferfish.iteration.shifts.step_shifts": kw(covariance=(S6["cov"], "covariance"), secret_index=(2, "count"),
                                                  eta=(0.5, "pos"), diameter=(1.0, "nonneg"),
                                                  lipschitz=(1.0, "nonneg"), gradient_bound=(0.4, "pos_or_inf")),
    "pufferfish.iteration.minorant.minimal_cost": kw(shifts=(S6["shifts"], "nonneg_reals"),
                                                     contraction=(0.5, "unit")),
    "pufferfish.iteration.minorant.optimal_allocation": kw(shifts=(S6["shifts"], "nonneg_reals"),
                                                           contraction=(0.5, "unit")),
    "pufferfish.iteration.minorant.carried_shift": Call(
        {"shifts": S6["shifts"], "allocation": [0.5, 0.5, 0.5], "contraction": 0.5},
        {"shifts": "nonneg_reals", "allocation": "reals", "contraction": "unit"},
        extra_bad={"allocation": [[0.5, 0.5]]}),
    "pufferfish.iteration.accountants.accountant_cost": Call(
        {"name": "dp_assumption", "shifts": S6["shifts"], "contraction": 0.5, "secret_index": 2},
        {"name": "str", "shifts": "nonneg_reals", "contraction": "unit", "secret_index": "count"},
        extra_bad={"name": ["exact"], "secret_index": [4]}),
    "pufferfish.iteration.accountants.renyi_bound": kw(cost=(2.0, "nonneg"), sigma=(1.0, "pos"), alpha=(2.0, "alpha")),
    "pufferfish.iteration.accountants.paper_bound": kw(shifts=(S6["shifts"], "nonneg_reals"), sigma=(1.0, "pos"),
                                                       alpha=(2.0, "alpha")),
    "pufferfish.iteration.accountants.contraction_bound": kw(shifts=(S6["shifts"], "nonneg_reals"),
                                                             contraction=(0.5, "unit"), sigma=(1.0, "pos"),
                                                             alpha=(2.0, "alpha")),
    "pufferfish.iteration.accountants.dp_assumption": kw(shifts=(S6["shifts"], "nonneg_reals"),
                                                         secret_index=(2, "count"), sigma=(1.0, "pos"),
                                                         alpha=(2.0, "alpha")),
    "pufferfish.iteration.accountants.composition": kw(shifts=(S6["shifts"], "nonneg_reals"), sigma=(1.0, "pos"),
                                                       alpha=(2.0, "alpha")),
    "pufferfish.iteration.accountants.rdp_epsilon": Call(
        {"orders": [1.5, 2.0, 8.0], "divergences": [0.1, 0.2, 0.8], "delta": 1e-5},
        {"orders": "reals", "divergences": "nonneg_reals", "delta": "open_unit"},
        extra_bad={"orders": [[0.5, 2.0, 8.0]], "divergences": [[0.1, 0.2]]}),
    "pufferfish.iteration.accountants.rdp_delta": Call(
        {"orders": [1.5, 2.0, 8.0], "divergences": [0.1, 0.2, 0.8], "epsilon": 1.0},
        {"orders": "reals", "divergences": "nonneg_reals", "epsilon": "nonneg"},
        extra_bad={"orders": [[0.5, 2.0, 8.0]], "divergences": [[0.1, 0.2]]}),
    "pufferfish.iteration.accountants.epsilon_of_cost": Call(
        {"cost": 2.0, "sigma": 3.0, "delta": 1e-5, "orders": [1.5, 2.0, 8.0]},
        {"cost": "nonneg", "sigma": "pos", "delta": "open_unit", "orders": "reals"}, extra_bad={"orders": [[0.5]]}),
    "pufferfish.iteration.accountants.delta_of_cost": Call(
        {"cost": 2.0, "sigma": 3.0, "epsilon": 1.0, "orders": [1.5, 2.0, 8.0]},
        {"cost": "nonneg", "sigma": "pos", "epsilon": "nonneg", "orders": "reals"}, extra_bad={"orders": [[0.5]]}),
    "pufferfish.iteration.geometric.step_weights": kw(size=(3, "count"), eta=(0.5, "step")),
    "pufferfish.iteration.geometric.noise_gain": kw(size=(3, "count"), eta=(0.5, "step")),
    "pufferfish.iteration.geometric.weight_sum": kw(size=(3, "count"), eta=(0.5, "step")),
    "pufferfish.iteration.geometric.log_contraction": kw(eta=(0.5, "step")),
    "pufferfish.iteration.geometric.contraction_powers": kw(eta=(0.5, "step"), count=(3, "size"), start=(2, "size")),
    "pufferfish.iteration.geometric.lag_sums": Call({"size": 3, "eta": 0.5, "count": 2},
                                                    {"size": "count", "eta": "step", "count": "count_opt"},
                                                    extra_bad={"count": [4]}),
    "pufferfish.iteration.geometric.significant_lags": kw(size=(3, "count"), eta=(0.5, "step")),
    "pufferfish.iteration.geometric.discounted_cumsum": Call({"values": [1.0, 2.0], "eta": 0.5},
                                                             {"values": "reals", "eta": "step"},
                                                             extra_bad={"values": [[[1.0]]]}),
    "pufferfish.iteration.covariance.conditional_variance": Call(
        {"total": 2.0, "cross": [1.0, 0.5], "own": 1.0, "first_index": 1},
        {"total": "real", "cross": "reals", "own": "pos", "first_index": "count"}, extra_bad={"own": [[1.0, 0.0]]}),
    "pufferfish.iteration.accountants.accountant_costs": Call(
        {"shifts": S6["shifts"], "contraction": 0.5, "secret_index": 2},
        {"shifts": "nonneg_reals", "contraction": "unit", "secret_index": "count"}, extra_bad={"secret_index": [4]}),
    "pufferfish.iteration.minorant.minimal_costs": kw(shifts=(S6["shifts"], "nonneg_reals"),
                                                      contractions=([1.0, 0.5], "unit_list")),
    "pufferfish.iteration.every_secret.all_secrets_audit": kw(covariance=(S6["cov"], "covariance"), eta=(0.5, "step"),
                                                              sigma=(1.0, "nonneg"), diameter=(1.0, "nonneg")),
    "pufferfish.iteration.every_secret.AllSecretsAudit": kw(eta=(0.5, "step"), sigma=(1.0, "nonneg"),
                                                            gain=(2.0, "pos"), mean_gap=([1.0, 0.5], "nonneg_reals"),
                                                            data_variance=([0.5, 0.5], "nonneg_reals")),
    "pufferfish.iteration.every_secret.hockey_stick": kw(mean_gap=([1.0, 0.0], "nonneg_v"), std=([1.0, 2.0], "pos_v"),
                                                         epsilon=(0.5, "nonneg")),
    "pufferfish.iteration.limits.memory_budget": kw(),
    "pufferfish.iteration.limits.max_steps": kw(memory=(10 ** 6, "size_opt")),
    "pufferfish.iteration.limits.max_records": kw(etas=(2, "count"), memory=(10 ** 6, "size_opt")),
    "pufferfish.iteration.limits.max_rows": kw(records=(100, "size"), etas=(2, "count"), memory=(10 ** 6, "size_opt")),
    "pufferfish.iteration.limits.limit_message": Call({"key": "steps", "value": 10, "bound": 5, "what": "steps"},
                                                      {"key": "str", "bound": "size", "what": "str"}),
    "pufferfish.iteration.exact.ExactAudit": kw(mean_gap=(1.0, "nonneg"), gain=(2.0, "pos"),
                                                data_variance=(0.5, "nonneg"), sigma=(1.0, "nonneg")),
    "pufferfish.iteration.exact.exact_audit": kw(covariance=(S6["cov"], "covariance"), secret_index=(2, "count"),
                                                 eta=(0.5, "step"), sigma=(0.0, "nonneg"), diameter=(1.0, "nonneg")),
    "pufferfish.iteration.calibrate.sigma_for_renyi": kw(cost=(2.0, "nonneg"), alpha=(2.0, "alpha"),
                                                         epsilon=(1.0, "pos")),
    "pufferfish.iteration.calibrate.sigma_for_epsilon_delta": Call(
        {"cost": 2.0, "epsilon": 1.0, "delta": 1e-5, "orders": [1.5, 2.0, 8.0]},
        {"cost": "nonneg", "epsilon": "pos", "delta": "open_unit", "orders": "reals"}, extra_bad={"orders": [[0.5]]}),
    "pufferfish.iteration.calibrate.exact_sigma": kw(audit=(S6["audit"], "object"), epsilon=(1.0, "pos"),
                                                     delta=(1e-5, "open_unit_opt"), alpha=(2.0, "alpha_opt")),
    "pufferfish.iteration.calibrate.audit_sigma": kw(audit=(S6["audit"], "object"), sigma=(1.0, "nonneg"),
                                                     epsilon=(1.0, "pos"), delta=(1e-5, "open_unit_opt"),
                                                     alpha=(2.0, "alpha_opt"), rtol=(1e-9, "nonneg")),
    "pufferfish.iteration.calibrate.calibrate_account": kw(account=(S6["account"], "object"), epsilon=(1.0, "pos"),
                                                           delta=(1e-5, "open_unit"), alpha=(2.0, "alpha"),
                                                           rtol=(1e-9, "nonneg")),
    "pufferfish.iteration.model.account_quadratic_model": kw(covariance=(S6["cov"], "covariance"),
                                                             secret_index=(2, "count"), eta=(0.5, "step"),
                                                             diameter=(1.0, "nonneg"), sigma=(1.0, "nonneg")),
    # ---------------------------------------------------------------- paper 002, Section 6 (sensitivity)
    "pufferfish.sensitivity.attribute.GaussianRecord": kw(mean=([0.0, 1.0], "reals"), covariance=(S6["sigma"], "matrix")),
    "pufferfish.sensitivity.attribute.attribute_coefficients": kw(covariance=(S6["sigma"], "matrix"),
                                                                  weights=([1.0, 0.0], "reals"), protected=([1], "indices")),
    "pufferfish.sensitivity.attribute.gaussian_attribute_sensitivity": kw(
        covariance=(S6["sigma"], "matrix"), weights=([1.0, 0.0], "reals"), protected=([1], "indices"),
        widths=([2.0], "nonneg_reals")),
    "pufferfish.sensitivity.attribute.conditional_query_law": kw(
        record=(S6["record"], "object"), weights=([1.0, 0.0], "reals"), protected=([1], "indices"),
        value=([0.5], "reals")),
    "pufferfish.sensitivity.attribute.two_column_sensitivity": Call(
        {"released": [1.0, 2.0, 2.5, 4.0], "protected": [0.0, 1.0, 1.0, 3.0]},
        {"released": "data", "protected": "data"}, extra_bad={"protected": [[2.0, 2.0, 2.0, 2.0]]}),
    "pufferfish.sensitivity.composition.parallel_composition": kw(epsilons=([0.5, 1.0], "nonneg_reals"),
                                                                  alpha=(2.0, "alpha_or_inf")),
    "pufferfish.sensitivity.diffusion.Potential": Call(
        {"name": "logcosh", "rate": 1.0, "curvature_max": 2.0}, {"name": "str", "rate": "pos", "curvature_max": "pos"},
        extra_bad={"name": ["quartic"], "curvature_max": [1.5]}),
    "pufferfish.sensitivity.diffusion.potential": Call({"name": "logcosh", "rate": 1.0}, {"name": "str", "rate": "pos"},
                                                       extra_bad={"name": ["quartic"]}),
    "pufferfish.sensitivity.diffusion.diffusion_sensitivity": kw(
        lipschitz=(1.0, "nonneg"), diameter=(2.0, "nonneg"), rate=(0.5, "pos"), times=([0.0, 1.0], "nonneg_reals"),
        norm=(2, "norm")),
    "pufferfish.sensitivity.diffusion.noise_norm": Call({"noise": "gaussian"}, {"noise": "str"},
                                                        extra_bad={"noise": ["cauchy", ["laplace"]]}),
    "pufferfish.sensitivity.diffusion.ou_law": Call({"x0": 1.0, "rate": 0.5, "time": 1.0},
                                                    {"x0": "real", "rate": "pos", "time": "nonneg"}),
    "pufferfish.sensitivity.diffusion.ou_w_inf": Call({"x0": 1.0, "x0_prime": -1.0, "rate": 0.5, "time": 1.0},
                                                      {"x0": "real", "x0_prime": "real", "rate": "pos", "time": "nonneg"}),
    "pufferfish.sensitivity.diffusion.euler_step": Call({"pot": S6["potential"], "time": 1.0, "max_step": 0.1},
                                                       {"pot": "object", "time": "nonneg", "max_step": "pos"}),
    "pufferfish.sensitivity.diffusion.coupled_distances": Call(
        {"pot": S6["potential"], "start": 0.0, "diameter": 1.0, "time": 0.5, "paths": 4, "max_step": 0.1, "seed": 1},
        {"pot": "object", "start": "real", "diameter": "nonneg", "time": "nonneg", "paths": "count",
         "max_step": "pos", "seed": "size"}),
    "pufferfish.sensitivity.diffusion.coupled_paths": Call(
        {"pot": S6["potential"], "start": 0.0, "diameter": 1.0, "times": [0.5, 1.0], "paths": 4, "max_step": 0.1,
         "seed": 1},
        {"pot": "object", "start": "real", "diameter": "nonneg", "times": "nonneg_reals", "paths": "count",
         "max_step": "pos", "seed": "size"}, extra_bad={"times": [[1.0, 1.0]]}),
    "pufferfish.sensitivity.scales.scales_from_sensitivity": Call(
        {"method": "gwm_gaussian_analytic", "w_inf": 1.0, "w_2": 1.0, "epsilons": [0.5, 1.0], "delta": 0.1,
         "alpha": 2.0},
        {"method": "str", "w_inf": "nonneg", "w_2": "nonneg", "epsilons": "grid", "delta": "open_unit_opt",
         "alpha": "alpha_opt"}, extra_bad={"method": ["tight_cauchy"]}),
    "pufferfish.sensitivity.weak_dependence.JointLatticePrior": kw(values=(((0, 1), (0, 1)), "int_rows"),
                                                                   probs=(S6["probs"], "probs")),
    "pufferfish.sensitivity.weak_dependence.RecordSecret": kw(record=(0, "size"), value=(1, "int")),
    "pufferfish.sensitivity.weak_dependence.product_of_marginals": kw(prior=(S6["prior"], "object")),
    "pufferfish.sensitivity.weak_dependence.query_given": Call(
        {"prior": S6["prior"], "secret": S6["secrets"][0][0], "weights": [1, 2]},
        {"prior": "object", "secret": "secret", "weights": "int_weights"}),
    "pufferfish.sensitivity.weak_dependence.weak_dependence_bound": Call(
        {"prior": S6["prior"], "pairs": S6["secrets"], "weights": [1, 2]},
        {"prior": "object", "pairs": "secret_pairs", "weights": "int_weights"}),
    # ---------------------------------------------------------------- paper 004
    "pufferfish.gaussian.methods.tau_star": kw(delta=(0.1, "open_unit_v")),
    "pufferfish.gaussian.methods.tau_lambertw": kw(delta=(0.1, "open_unit_v")),
    "pufferfish.gaussian.methods.theorem1": kw(mu_i=(0.0, "real_or_reals"), sigma_i=(1.0, "nonneg_v"), mu_j=(1.0, "real_or_reals"),
                                               sigma_j=(2.0, "nonneg_v"), epsilon=(0.5, "pos_v"),
                                               delta=(0.1, "open_unit_v")),
    "pufferfish.gaussian.methods.remark1": kw(mu_i=(0.0, "real_or_reals"), mu_j=(1.0, "real_or_reals"), epsilon=(0.5, "pos_v")),
    "pufferfish.gaussian.methods.corollary1a": kw(mus=([0.0, 1.0], "reals"), sigmas=([1.0, 2.0], "reals"),
                                                  epsilon=(0.5, "pos_v"), delta=(0.1, "open_unit_v")),
    "pufferfish.gaussian.methods.corollary1b": kw(a=(0.0, "real_or_reals"), a_prime=(1.0, "real_or_reals"), epsilon=(0.5, "pos_v")),
    "pufferfish.gaussian.methods.corollary1_identical": kw(mu=(1.0, "real_or_reals"), sigma=(1.0, "nonneg_v"), K=(3, "count_v"),
                                                           epsilon=(0.5, "pos_v"), delta=(0.1, "open_unit_v")),
    "pufferfish.gaussian.methods.check_epsilon": kw(epsilon=(0.5, "pos_v")),
    "pufferfish.gaussian.methods.check_delta": kw(delta=(0.1, "open_unit_v")),
    "pufferfish.mixture.GMM": kw(weights=(np.array([1.0]), "reals"), means=(np.array([0.0]), "reals"),
                                      stds=(np.array([1.0]), "reals")),
    "pufferfish.gaussian.gmm.fit_gmm": Call(
        {"values": [0.0, 1.0, 2.0, 3.0, 4.0], "components": 1, "random_state": 0, "n_init": 1, "max_iter": 50,
         "rounding": "dequantise"},
        {"values": "data", "components": "count", "random_state": "size", "n_init": "count", "max_iter": "count",
         "rounding": "str"},
        alias={"values": "secret"}),   # data errors name the data set's label (default "secret")
    "pufferfish.gaussian.gmm.numeric_values": kw(values=([0.0, 1.0], "data")),
    "pufferfish.gaussian.gmm.data_resolution": kw(values=([0.0, 1.0], "data")),
    "pufferfish.gaussian.gmm.components_below_resolution": kw(gmm=(GI, "gmm"), resolution=(1.0, "pos")),
    "pufferfish.gaussian.noise_ordering.gaussian_noise_total_variation": kw(
        mu_i=(0.0, "real"), sd_i=(1.0, "nonneg"), mu_j=(1.0, "real"), sd_j=(2.0, "nonneg"), noise_sd=(1.0, "pos")),
    "pufferfish.gaussian.noise_ordering.laplace_noise_total_variation": kw(
        mu_i=(0.0, "real"), sd_i=(1.0, "nonneg"), mu_j=(1.0, "real"), sd_j=(2.0, "nonneg"), b=(1.0, "pos")),
    "pufferfish.gaussian.noise_ordering.crossover_half_width": kw(
        mu_i=(0.0, "real"), sd_i=(1.0, "nonneg"), mu_j=(1.0, "real"), sd_j=(2.0, "nonneg"), b=(1.0, "pos"),
        noise_sd=(1.0, "pos"), centre=(0.0, "real")),
    "pufferfish.gaussian.gmm.w2_cost": kw(gmm_i=(GI, "gmm"), gmm_j=(GJ, "gmm")),
    "pufferfish.gaussian.gmm.w2_weights": kw(gmm_i=(GI, "gmm"), gmm_j=(GJ, "gmm")),
    "pufferfish.gaussian.gmm.theorem2_terms": kw(gmm_i=(GI, "gmm"), gmm_j=(GJ, "gmm")),
    "pufferfish.gaussian.gmm.theorem2": kw(gmm_i=(GI, "gmm"), gmm_j=(GJ, "gmm"), epsilon=(0.5, "pos_v"),
                                           delta=(0.1, "open_unit_v")),
    "pufferfish.gaussian.gmm.corollary2": kw(gmm_i=(GI, "gmm"), gmm_j=(E["gmm_k"], "gmm"), epsilon=(0.5, "pos_v"),
                                             rtol=(1e-9, "pos")),
    # ---------------------------------------------------------------- registry and comparison
    "pufferfish.registry.get": kw(name=("theorem1", "str")),
    "pufferfish.registry.names": kw(),
    "pufferfish.registry.methods": kw(),
    "pufferfish.registry.tight_methods": kw(),
    "pufferfish.registry.calibrate": kw(method=("lemma5", "str"), pair=(E["pair"], "pair"), epsilons=EPS),
    "pufferfish.registry.secret_kind": kw(secret=(E["Draws"](P), "secret")),
    "pufferfish.comparison.compare.compare_pair": kw(name=("x", "text"), pair=(E["pair"], "pair"), epsilons=([1.0], "grid"),
                                                     delta=(0.1, "open_unit"), alpha=(2.0, "alpha")),
    "pufferfish.comparison.compare.compare_pairs": kw(pairs=({"x": E["pair"]}, "frame"), epsilons=([1.0], "grid"),
                                                      delta=(0.1, "open_unit"), alpha=(2.0, "alpha")),
    "pufferfish.comparison.compare.paper000_best": kw(pair=(E["pair"], "pair"), epsilons=EPS),
    "pufferfish.comparison.compare.compare_audited": kw(name=("x", "text"), pair=(E["pair"], "pair"),
                                                        epsilons=([1.0], "grid"), delta=(0.1, "open_unit"),
                                                        alpha=(2.0, "alpha"), experiment=("comparison_x", "text")),
    "pufferfish.comparison.compare.methods_by_noise": kw(),
    "pufferfish.comparison.binding.binding_rows": kw(pairs=([E["named_pair"]], "pmfs"), epsilons=([1.0], "grid"),
                                                     delta=(0.1, "open_unit"), alpha=(2.0, "alpha")),
}

_JOB = "job-level: typed settings built from the schema-validated config, and output paths (module docstring)"
_RESULT = "a result type: built by the package from validated inputs, read by the user"
_DATA = "a constant (data), not a callable"
_ERROR = "an error class"

#: public names that are not walked, with the reason
EXEMPT = {
    **dict.fromkeys(["pufferfish.multiuser.BRENT_RTOL", "pufferfish.multiuser.LEMMA6_GROUPINGS",
                     "pufferfish.gaussian.GAUSSIAN_FIXED_KEYS", "pufferfish.gaussian.PAPER_FIGURES",
                     "pufferfish.gaussian.ROUNDINGS", "pufferfish.gaussian.gmm.REG_COVAR",
                     "pufferfish.gaussian.noise_ordering.TV_EPSILON",
                     "pufferfish.wasserstein.CAUCHY_ALPHA", "pufferfish.wasserstein.TABLE1_COLUMNS",
                     "pufferfish.iteration.ACCOUNTANTS", "pufferfish.iteration.ORDERS",
                     "pufferfish.iteration.accountants.ACCOUNTANTS", "pufferfish.iteration.accountants.ORDERS",
                     "pufferfish.iteration.minorant.Q_FLOOR", "pufferfish.iteration.geometric.BLOCK",
                     "pufferfish.iteration.limits.STEP_BYTES", "pufferfish.iteration.limits.RECORD_BYTES",
                     "pufferfish.iteration.limits.EXPOSURE_BYTES", "pufferfish.iteration.limits.ROW_BYTES",
                     "pufferfish.iteration.limits.MEMORY_FRACTION", "pufferfish.sensitivity.GWM_METHODS",
                     "pufferfish.sensitivity.NOISE_NORMS", "pufferfish.sensitivity.POTENTIALS",
                     "pufferfish.sensitivity.diffusion.NOISE_NORMS", "pufferfish.sensitivity.diffusion.POTENTIALS",
                     "pufferfish.sensitivity.scales.GWM_METHODS"], _DATA),
    **dict.fromkeys(["pufferfish.audit.target.GUARANTEES", "pufferfish.audit.target.EPSILON_DELTA_MAX", "pufferfish.audit.laplace_lattice.MIN_RTOL",
                     "pufferfish.audit.verdict.AUDIT_COLUMNS", "pufferfish.audit.verdict.NO_NOISE_NOTE",
                     "pufferfish.audit.verdict.NOT_MET_AT_ZERO_NOTE", "pufferfish.audit.auditor.PRIORS",
                     "pufferfish.audit.search.STRATEGIES", "pufferfish.audit.search.FLOOR",
                     "pufferfish.audit.search.CEILING", "pufferfish.audit.search.NO_NOISE",
                     "pufferfish.audit.search.CLOSE_SLACK", "pufferfish.audit.search.WIDE_BRACKET",
                     "pufferfish.audit.quadrature.MAX_PANELS", "pufferfish.audit.quadrature.QUAD_RTOL",
                     "pufferfish.audit.emg_density.LOG_ULPS", "pufferfish.audit.log_ratio_envelope.Z_TAIL", "pufferfish.audit.log_ratio_envelope.LAPLACE_TAIL",
                     "pufferfish.audit.log_ratio_envelope.MAX_ROUNDS", "pufferfish.audit.log_ratio_envelope.MAX_WORK",
                     "pufferfish.audit.kernel.NEAREST_RATE",
                     "pufferfish.audit.GUARANTEES", "pufferfish.audit.AUDIT_COLUMNS",
                     "pufferfish.comparison.COLUMNS", "pufferfish.comparison.COMPARABLE",
                     "pufferfish.comparison.PAPER000_BEST",
                     "pufferfish.comparison.compare.COLUMNS", "pufferfish.comparison.compare.COMPARABLE",
                     "pufferfish.comparison.compare.PAPER000_BEST",
                     "pufferfish.lattice.pmf.PMF_ATOL", "pufferfish.lattice.pmf.MAX_LATTICE_POINTS",
                     "pufferfish.lattice.sums.EXACT_MAX_WORK", "pufferfish.lattice.sums.DIRECT_LEVEL_WORK",
                     "pufferfish.lattice.sums.TILT_FLOOR", "pufferfish.lattice.tilted.TILT_FLOOR",
                     "pufferfish.lattice.system.Secret",
                     "pufferfish.lattice.transport.FLOAT_TIE_TOL", "pufferfish.multiuser.METHODS",
                     "pufferfish.multiuser.methods.METHODS", "pufferfish.multiuser.methods.LEMMA6_GROUPINGS",
                     "pufferfish.multiuser.methods.BRENT_RTOL",
                     "pufferfish.registry.SECRET_KINDS", "pufferfish.wasserstein.METHODS",
                     "pufferfish.wasserstein.methods.METHODS", "pufferfish.wasserstein.methods.CAUCHY_ALPHA",
                     "pufferfish.wasserstein.table1.TABLE1_COLUMNS", "pufferfish.wasserstein.table1.MAX_LABEL"],
                    _DATA),
    **dict.fromkeys(["pufferfish.audit.target.Achieved", "pufferfish.audit.target.Smallest",
                     "pufferfish.audit.verdict.Verdict",
                     "pufferfish.audit.laplace_lattice.PrivacyLoss", "pufferfish.audit.laplace_lattice.TightResult",
                     "pufferfish.audit.mixture_hockey_stick.HockeyStick", "pufferfish.audit.laplace_mixture.BMin",
                     "pufferfish.audit.mixture_privacy_loss.EpsilonBound",
                     "pufferfish.lattice.transport.TransportPlan", "pufferfish.wasserstein.table1.PairSensitivity",
                     "pufferfish.comparison.compare.PairComparison", "pufferfish.comparison.binding.Binding",
                     "pufferfish.comparison.binding.NamedPair"],
                    _RESULT),
    **dict.fromkeys(["pufferfish.iteration.calibrate.AccountantCalibration", "pufferfish.iteration.minorant.Allocation",
                     "pufferfish.iteration.model.ModelAccount", "pufferfish.sensitivity.attribute.TwoColumnFit",
                     "pufferfish.sensitivity.composition.RenyiGuarantee",
                     "pufferfish.sensitivity.weak_dependence.WeakDependenceBound",
                     "pufferfish.sensitivity.diffusion.CoupledPaths"], _RESULT),
    "pufferfish.iteration.covariance.Covariance": "an interface (column, quadratic); its subclasses are walked",
    "pufferfish.sensitivity.scales.ScaleMethod": "a descriptor of the constant GWM_METHODS (which registry method "
                                                 "reads which distance), not built from user input",
    **dict.fromkeys([f"pufferfish.errors.{n}" for n in pufferfish.errors.__all__], _ERROR),
    "pufferfish.audit.auditor.Auditor": "an abstract base class (not instantiable); its subclasses are walked",
    "pufferfish.audit.auditor.LatticeAuditor": "an abstract base class (not instantiable); its subclasses are walked",
    "pufferfish.gaussian.gmm.check_secret_rows": _JOB + "; a data reader of gaussian.settings.data_requests "
                                                   "(run by pufferfish.pipeline.data_checks, tested in test_gmm.py)",
    "pufferfish.audit.auditor.TightMethod": "a declaration of an auditor class (its tight registry record), "
                                            "written by the package (test_registry.py)",
    **dict.fromkeys([f"pufferfish.audit.{m}.{n}" for m, names in (
        ("quadrature", ("gk_log", "log_psi", "lse", "lse_rows")),
        ("kernel", ("log_kernel_sums", "one_sided_sums", "log_forward", "logaddexp", "nearest_sums")),
        ("roots", ("illinois_roots",)),
        ("emg_density", ("EmgFamily", "GaussianFamily", "log_sup_gaussian", "mass_between", "mass_error",
                         "certified_mass_difference")),
        ("log_ratio_envelope", ("LogRatioPair", "curvature_envelope", "excess_above", "mass_window", "limit_window",
                                "refinement_grid"))) for n in names],
        "internal numerics shared by the audit modules, on values their public callers validated "
        "(module docstring; tested through them, in test_scale.py and test_audit_roots.py)"),
    **dict.fromkeys([f"pufferfish.checks.{n}" for n in ("real", "integer", "instance", "is_real", "is_integer",
                                                         "reals", "choice", "function", "search", "label")],
                    "the validators themselves: ``value`` accepts anything by design (tests/unit/test_validation.py)"),
    "pufferfish.registry.Method": "a registry record, built by the package's own modules at import (test_registry.py)",
    "pufferfish.registry.register": "registers Method records at import (varargs of records, test_registry.py)",
    "pufferfish.registry.check_applicable": "called by calibrate on a registered Method (test_registry.py)",
    "pufferfish.cli.main": "the console script: argv strings, bad input one line on stderr and exit 1/2 (test_cli.py)",
    "pufferfish.comparison.compare.least_noise": "reads the frame compare_pair wrote (comparison job)",
    "pufferfish.comparison.compare.winner_lines": "reads the frame compare_pair wrote (comparison job)",
    "pufferfish.comparison.compare.as_flags": "reads a column of the frame compare_pair wrote (comparison job)",
    "pufferfish.comparison.compare.coinciding": "reads the frame compare_pair wrote (comparison job)",
    "pufferfish.comparison.binding.conditional_pairs": "the command's pairs of the Conditional records "
                                                       "wasserstein.conditionals builds from data (test_cli.py)",
    "pufferfish.wasserstein.table1.SecretConditional": "built by pipeline.conditionals from data (Table 1 job)",
    "pufferfish.wasserstein.table1.pair_sensitivity": "Table 1 job on SecretConditional records (test_table1.py)",
    "pufferfish.wasserstein.table1.setting_sensitivities": "Table 1 job on SecretConditional records",
    "pufferfish.wasserstein.table1.binding_pair": "Table 1 job on PairSensitivity results",
    "pufferfish.mechanisms.scales.check_scales": "called by the mechanisms on the scales they computed from "
                                                 "validated arguments (test_mechanisms_laplace_cauchy.py)",
    **dict.fromkeys(["pufferfish.mechanisms.gaussian.ANALYTIC_RTOL", "pufferfish.mechanisms.gaussian.SMALLEST",
                     "pufferfish.mechanisms.gaussian.LARGEST", "pufferfish.mechanisms.gaussian.CANCELLATION",
                     "pufferfish.mechanisms.scales.NORMAL"], _DATA),
    "pufferfish.wasserstein.table1.table1_frame": "Table 1 job on PairSensitivity results",
    # paper 003 (pufferfish.distp)
    **dict.fromkeys(["pufferfish.distp.F_DIVERGENCES", "pufferfish.distp.divergences.F_DIVERGENCES",
                     "pufferfish.distp.CLAIM_RTOL", "pufferfish.distp.claims.CLAIM_RTOL",
                     "pufferfish.distp.MAX_COUNT_VECTORS", "pufferfish.distp.sums.MAX_COUNT_VECTORS",
                     "pufferfish.distp.MAX_EPSILON", "pufferfish.distp.tupling.MAX_EPSILON",
                     "pufferfish.distp.DUMMY_DISTRIBUTIONS", "pufferfish.distp.tupling.DUMMY_DISTRIBUTIONS",
                     "pufferfish.distp.utility.LOSSES", "pufferfish.distp.grid.EXP_ULPS",
                     "pufferfish.distp.moment_bounds.UNIT_ROUNDOFF"], _DATA),
    **dict.fromkeys(["pufferfish.distp.pair.PairPrivacy", "pufferfish.distp.claims.Claim",
                     "pufferfish.distp.sums.PositivePart", "pufferfish.distp.tupling.TuplingDelta",
                     "pufferfish.distp.calibrate.Calibrated", "pufferfish.distp.grid.GridBounds"], _RESULT),
    "pufferfish.distp.grid.GridTooLarge": "an internal signal of grid_positive_part to its caller (not a user error)",
    **dict.fromkeys(["pufferfish.distp.grid.grid_positive_part", "pufferfish.distp.grid.tilt_parameter",
                     "pufferfish.distp.grid.chernoff_bound", "pufferfish.distp.grid.directed_float",
                     "pufferfish.distp.moment_bounds.positive_part_bounds",
                     "pufferfish.distp.moment_bounds.shifted_moment_bounds", "pufferfish.distp.pair.lattice_law"],
                    "the engine of sums.certified_positive_part / pair, called on the arrays those validated "
                    "(test_distp_sums.py)"),
    # issue 39's certified values: engines called on what their public callers validated (test_soundness_*.py)
    **dict.fromkeys(["pufferfish.distp.exact_laws.ball_distp_delta", "pufferfish.distp.exact_laws.rr_output_balls",
                     "pufferfish.distp.exact_laws.geometric_output_balls", "pufferfish.distp.exact_laws.base_distp_delta",
                     "pufferfish.distp.exact_laws.ball_hockey_sticks", "pufferfish.distp.exact_laws.base_hockey_sticks",
                     "pufferfish.certified.arb_upper_float"],
                    "the engine of calibrate.largest_rr_epsilon / largest_geometric_epsilon and the distp tables "
                    "(validated arguments)"),
    **dict.fromkeys(["pufferfish.gaussian.certified_values.tau_star_upper",
                     "pufferfish.gaussian.certified_values.lambertw_tau_upper",
                     "pufferfish.gaussian.certified_values.max_log_ratio_upper",
                     "pufferfish.gaussian.certified_values.total_variation_upper"],
                    "the engine of gaussian.methods / noise_ordering, called on the values those validated"),
    **dict.fromkeys(["pufferfish.iteration.gaussian_delta.certified_delta",
                     "pufferfish.iteration.gaussian_delta.delta_upper",
                     "pufferfish.iteration.gaussian_delta.renyi_upper", "pufferfish.iteration.exact.certified_fields",
                     "pufferfish.iteration.exact.field_tolerance", "pufferfish.iteration.accountants.claimed"],
                    "the engine of the exact audit and the accountants' claims, called on validated values"),
    "pufferfish.iteration.accountants.CLAIM_MARGIN": _DATA,
    "pufferfish.certified.CERTIFIED_RTOL": _DATA,
    **dict.fromkeys(["pufferfish.certified.upper", "pufferfish.certified.lower", "pufferfish.certified.quotient_upper", "pufferfish.certified.quotients_upper",
                     "pufferfish.certified.round_up", "pufferfish.certified.round_down"],
                    "the directed-rounding arithmetic of the audits, called with the floats and error bounds "
                    "the audits computed (test_certified.py)"),
    **dict.fromkeys(["pufferfish.audit.certify.U", "pufferfish.audit.certify.ACCEPT",
                     "pufferfish.audit.kernel.SCAN_MAX_BLOCK"], _DATA),
    "pufferfish.audit.kernel.scan_block": "the kernel sums' block length, for their error bound (certify)",
    **dict.fromkeys(["pufferfish.audit.certify.kernel_log_error", "pufferfish.audit.certify.from_float",
                     "pufferfish.audit.certify.arb_kernel_sums", "pufferfish.audit.certify.arb_loss",
                     "pufferfish.audit.certify.arb_laplace_hockey", "pufferfish.audit.certify.arb_geometric",
                     "pufferfish.audit.certify.arb_zero_noise"],
                    "the certified ends of the lattice audits, called on the priors and scales the auditors "
                    "validated (test_soundness_lattice.py)"),
    **dict.fromkeys(["pufferfish.audit.gaussian_certify.U", "pufferfish.audit.gaussian_certify.NDTR_REL",
                     "pufferfish.audit.gaussian_certify.TINY"], _DATA),
    **dict.fromkeys(["pufferfish.audit.gaussian_certify.log_sum_error", "pufferfish.audit.gaussian_certify.phi_mass",
                     "pufferfish.audit.gaussian_certify.run_error", "pufferfish.audit.gaussian_certify.cell_excess",
                     "pufferfish.audit.gaussian_certify.cells_excess", "pufferfish.audit.gaussian_certify.arb_runs",
                     "pufferfish.audit.gaussian_certify.positive_runs"],
                    "the certified ends of the Gaussian lattice hockey stick, called on the priors, sigma and "
                    "eps gaussian_hockey_stick validated (test_soundness_gaussian_lattice.py)"),
    **dict.fromkeys(["pufferfish.mechanisms.scales.arb_certified", "pufferfish.mechanisms.scales.scale_up"],
                    "the certified ends of the mechanisms' values and scales, called on validated floats "
                    "(test_soundness_mechanisms.py)"),
}

#: modules whose every public name is job-level (each name is still listed, by the walk, as exempt)
#: job-level code (its inputs come from the schema-validated config, the command line, or output
#: paths): the pipeline, the papers' declarations and the command's glue, the shared files /
#: plotting / data helpers and typed settings, and in each declared paper's package the modules
#: of these roles (JOB_ROLES): its declaration, typed settings, subcommands, experiments, figures
#: and captions; then two job-level modules of other names
SHARED_JOB_MODULES = ("pufferfish.pipeline.", "pufferfish.files.", "pufferfish.plotting.", "pufferfish.data_priors.",
                      "pufferfish.settings.", "pufferfish.papers.", "pufferfish.command_line.")
JOB_ROLES = ("paper", "settings", "command", "experiments", "plots", "captions")
OTHER_JOB_MODULES = ("pufferfish.wasserstein.conditionals.", "pufferfish.iteration.exposure.", "pufferfish.figure_check.",
                     "pufferfish.multiuser.user_priors.", "pufferfish.multiuser.secret_pairs.",
                     "pufferfish.gaussian.streams.", "pufferfish.gaussian.gmm_fits.")
JOB_MODULES = (*SHARED_JOB_MODULES,
               *(f"{paper.check_references.__module__.rsplit('.', 1)[0]}.{role}." for paper in declared()
                 for role in JOB_ROLES),
               *OTHER_JOB_MODULES)

def _key(module: str, name: str, obj) -> str:
    if (inspect.isclass(obj) or inspect.isfunction(obj)) and getattr(obj, "__module__", "").startswith("pufferfish"):
        return f"{obj.__module__}.{obj.__qualname__}"
    return f"{module}.{name}"


def public_names() -> dict[str, object]:
    """key -> object for every name in the ``__all__`` of every pufferfish module."""
    out = {}
    modules = ["pufferfish"] + [m.name for m in pkgutil.walk_packages(pufferfish.__path__, "pufferfish.")]
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            out.setdefault(_key(module_name, name, obj), obj)
    return out


PUBLIC = public_names()


def _is_job(key: str) -> bool:
    return key.startswith(JOB_MODULES)


def test_every_public_name_is_in_a_table():
    missing = sorted(k for k in PUBLIC if k not in CALLS and k not in EXEMPT and not _is_job(k))
    assert not missing, ("public names with no entry in CALLS or EXEMPT of "
                         f"tests/unit/test_public_boundaries.py: {missing}")
    both = sorted(set(CALLS) & set(EXEMPT))
    assert not both, f"names both walked and exempt: {both}"


def test_no_stale_entries():
    stale = sorted(k for k in list(CALLS) + list(EXEMPT) if k not in PUBLIC)
    assert not stale, f"entries for names that are no longer public: {stale}"


def test_job_modules_hold_only_job_names():
    """The job-level exemption is by module; the walked library modules are never in it."""
    walked = {k.rsplit(".", 1)[0] for k in CALLS}
    assert not [m for m in walked if _is_job(m + ".")]


def _func(key: str):
    return PUBLIC[key]


@pytest.mark.parametrize("key", sorted(CALLS))
def test_valid_example_call_succeeds(key):
    call = CALLS[key]
    _func(key)(**call.args)


_NAME = "[A-Za-z0-9_]"


@pytest.mark.parametrize("key", sorted(CALLS))
def test_bad_arguments_are_one_line_errors_naming_them(key):
    func, call = _func(key), CALLS[key]
    failures = []
    for name, bad in call.cases():
        args = {**call.args, name: bad}
        named = call.alias.get(name, name)
        try:
            result = func(**args)
        except PufferfishError as err:
            text = str(err)
            if not isinstance(err, (ValueError, TypeError)):
                failures.append(f"{name}={bad!r}: {type(err).__name__} is not a ValueError/TypeError")
            elif "\n" in text or not re.search(rf"(?<!{_NAME}){re.escape(named)}(?!{_NAME})", text):
                failures.append(f"{name}={bad!r}: message does not name {named!r} in one line: {text!r}")
        except Exception as err:  # noqa: BLE001 - any other exception is the finding
            failures.append(f"{name}={bad!r}: raw {type(err).__name__}: {str(err)[:120]}")
        else:
            failures.append(f"{name}={bad!r}: accepted, returned {str(result)[:80]}")
    assert not failures, f"{key}:\n  " + "\n  ".join(failures)

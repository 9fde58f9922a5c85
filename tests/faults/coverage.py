"""Which public functions of the package return a privacy value, and where the fault catalog covers each.

The rule (:func:`privacy_functions`): the public functions (a module's ``__all__``) and the public
methods of its public classes, in the computation layers of the package (``pufferfish.audit``,
``mechanisms``, ``iteration``, ``sensitivity``, ``distp``, ``lattice``, and
``pufferfish.gaussian.certified_values``; not their plots, commands, captions, settings, papers,
claims, experiments, exposure tables or memory limits), whose name says it returns a privacy value:
it contains one of :data:`PRIVACY_WORDS` (an epsilon, a delta, a divergence, a loss, a sensitivity,
a noise scale or gain, an accountant's cost, a certified upper end, an audit).

Each such function is a catalog target (:data:`tests.faults.catalog.CATALOG`), or reaches one
(:data:`ROUTES`: every value it returns goes through that computation, so that computation's faults
are its faults), or is excluded with the reason (:data:`EXCLUDED`). ``tests/unit/test_fault_catalog.py``
holds the package to this.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

#: a function whose name contains one of these returns a privacy value
PRIVACY_WORDS = ("delta", "epsilon", "renyi", "hockey", "loss", "divergence", "sensitivit", "sigma", "gain", "cost",
                 "upper", "positive_part", "privacy", "audit", "bound", "total_variation", "log_ratio", "tau")
#: the packages of exact computations, and single modules of a paper package that hold one
LAYERS = ("pufferfish.audit.", "pufferfish.mechanisms.", "pufferfish.iteration.", "pufferfish.sensitivity.",
          "pufferfish.distp.", "pufferfish.lattice.")
MODULES = ("pufferfish.gaussian.certified_values",)
#: modules of those packages that present, not compute
PRESENTATION = re.compile(r"\.(plots|command|captions|experiments|settings|paper|claims|exposure|limits)$")

#: public function -> the catalog computation every value of it goes through
ROUTES: dict[str, str] = {
    "pufferfish.audit.cauchy_lattice:cauchy_renyi": "audit/cauchy_lattice.renyi",
    "pufferfish.audit.gaussian_lattice:gaussian_hockey_stick": "audit/gaussian_lattice.hockey_stick",
    "pufferfish.audit.gaussian_lattice:gaussian_renyi": "audit/gaussian_lattice.renyi",
    "pufferfish.audit.geometric_lattice:geometric_privacy_loss": "audit/geometric_lattice.loss",
    "pufferfish.audit.geometric_lattice:geometric_hockey_stick": "audit/geometric_lattice.hockey_stick",
    "pufferfish.audit.geometric_lattice:geometric_renyi": "audit/geometric_lattice.renyi",
    "pufferfish.audit.laplace_lattice:lattice_privacy_loss": "audit/laplace_lattice.loss",
    "pufferfish.audit.laplace_lattice:laplace_hockey_stick": "audit/laplace_lattice.hockey_stick",
    "pufferfish.audit.mixture_hockey_stick:delta_achieved": "audit/mixture_hockey_stick.hockey_stick",
    "pufferfish.distp.divergences:hockey_stick": "distp/divergences.hockey_stick",
    "pufferfish.distp.divergences:distp_delta": "distp/divergences.hockey_stick",
    "pufferfish.distp.divergences:pure_epsilon": "distp/divergences.pure_epsilon",
    "pufferfish.distp.pair:PairPrivacy.delta": "distp/divergences.hockey_stick",
    "pufferfish.distp.pair:PairPrivacy.divergence": "distp/divergences.f_divergence",
    "pufferfish.distp.pair:pair_privacy": "distp/divergences.pure_epsilon",
    "pufferfish.distp.tupling:Tupling.pure_epsilon": "distp/divergences.pure_epsilon",
    "pufferfish.distp.exact_laws:ball_distp_delta": "distp/exact_laws.ball_hockey_sticks",
    "pufferfish.distp.exact_laws:base_hockey_sticks": "distp/exact_laws.ball_hockey_sticks",
    "pufferfish.distp.exact_laws:base_distp_delta": "distp/exact_laws.ball_hockey_sticks",
    "pufferfish.iteration.accountants:accountant_cost": "iteration/accountants.cost",
    "pufferfish.iteration.accountants:accountant_costs": "iteration/minorant.minimal_costs",
    "pufferfish.iteration.accountants:paper_bound": "iteration/accountants.renyi_bound",
    "pufferfish.iteration.accountants:contraction_bound": "iteration/accountants.renyi_bound",
    "pufferfish.iteration.accountants:rdp_delta": "iteration/accountants.rdp_delta",
    "pufferfish.iteration.accountants:delta_of_cost": "iteration/accountants.rdp_delta",
    "pufferfish.iteration.accountants:epsilon_of_cost": "iteration/accountants.epsilon_of_cost",
    "pufferfish.iteration.every_secret:hockey_stick": "iteration/every_secret.hockey_stick",
    "pufferfish.iteration.every_secret:AllSecretsAudit.renyi": "iteration/gaussian_delta.renyi_upper",
    "pufferfish.iteration.every_secret:AllSecretsAudit.delta": "iteration/gaussian_delta.delta_upper",
    "pufferfish.iteration.every_secret:AllSecretsAudit.audit": "iteration/every_secret.all_secrets_audit",
    "pufferfish.iteration.exact:ExactAudit.delta": "iteration/gaussian_delta.delta_upper",
    "pufferfish.iteration.model:ModelAccount.renyi": "iteration/accountants.renyi_bound",
    "pufferfish.mechanisms.cauchy:cauchy_renyi2": "mechanisms/cauchy.cauchy_renyi2",
    "pufferfish.mechanisms.gaussian:balle_wang_delta": "mechanisms/gaussian.balle_wang_delta",
    "pufferfish.mechanisms.gaussian:analytic_gaussian_sigma": "mechanisms/gaussian.analytic_gaussian_sigma",
    "pufferfish.mechanisms.gaussian:gaussian_rdp_sigma": "mechanisms/gaussian.gaussian_rdp_sigma",
    "pufferfish.mechanisms.channel:channel_epsilons": "mechanisms/channel.channel_epsilons",
}

#: public function -> why it is not in the fault list
EXCLUDED: dict[str, str] = {
    "pufferfish.audit.auditor:auditor_classes": "a registry of auditor classes, no number",
    "pufferfish.audit.auditor:lattice_auditor": "looks an auditor class up by noise name, no number",
    "pufferfish.audit.verdict:audit_scale": "compares a catalogued auditor's value with the target (a decision; "
                                            "the value it reports is the auditor's, faulted there)",
    "pufferfish.audit.verdict:audit_row": "a table row of audit_scale's verdict (presentation)",
    "pufferfish.audit.verdict:audit_frame": "a table of audit_scale's verdicts (presentation)",
    "pufferfish.iteration.calibrate:audit_sigma": "the verdict of exact_sigma's sigma against the target "
                                                  "(audit_scale on catalogued values)",
    "pufferfish.distp.utility:service_loss": "a utility (expected distance of the output), not a privacy value",
    "pufferfish.lattice.distances:delta_near": "an integer lattice distance (W_inf), no float a fault could nudge",
    "pufferfish.lattice.transport:delta_star": "an integer transport plan span, no float a fault could nudge",
    "pufferfish.lattice.sums:tail_mass_bound": "a bound on the prior mass cut off a truncated sum (a probability of "
                                               "the prior, not of the mechanism)",
    "pufferfish.sensitivity.weak_dependence:weak_dependence_bound": "integer W_inf bounds (Prop. 6.1 on lattices), "
                                                                    "no float a fault could nudge",
}


def _selected(name: str) -> bool:
    return any(word in name for word in PRIVACY_WORDS)


def privacy_functions() -> list[str]:
    """Every ``"module:function"`` / ``"module:Class.method"`` the rule of the module docstring selects."""
    import pufferfish

    out = []
    for info in pkgutil.walk_packages(pufferfish.__path__, "pufferfish."):
        name = info.name
        if not (name.startswith(LAYERS) or name in MODULES) or PRESENTATION.search(name):
            continue
        module = importlib.import_module(name)
        for public in getattr(module, "__all__", ()):
            obj = getattr(module, public)
            if getattr(obj, "__module__", None) != name:
                continue                                # re-exported: counted where it is defined
            if inspect.isfunction(obj) and _selected(public):
                out.append(f"{name}:{public}")
            elif inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not _selected(attr):
                        continue
                    if inspect.isfunction(member) or isinstance(member, (staticmethod, classmethod)):
                        out.append(f"{name}:{public}.{attr}")
    return sorted(out)

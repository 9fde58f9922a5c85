"""The registry of calibration methods: one record per method, read by everything else.

A :class:`Method` names the function that calibrates (``apply``), the secret pairs it is
stated for, the noise family it adds, the guarantee it targets, the parameters it needs
from the config (``delta``, ``alpha``), its plot label and the paper and equation it
cites. :func:`calibrate`, the config checks (:mod:`pufferfish.pipeline.config`), the plot
legends and the methods table of docs/for-researchers.md all read these records; a test holds the config
schema's method enum against them.

Adding a method is one function and one record in its paper's module (docs/for-researchers.md, "Adding a
method")::

    def my_bound(pair, epsilons, **_):
        return plan_span(pair.prior_i, pair.prior_j) / epsilons

    register(Method("my_bound", my_bound, pairs=None, label="my bound", citation="..."))

Records are registered when their module is imported; each paper's declaration
(:class:`pufferfish.papers.Paper`, ``methods``) holds its records, so the registry has them
all on first use, in the papers' order. The tight methods (the smallest scale the exact audit
accepts) are not written anywhere: they are derived from the lattice auditors' ``tight``
declarations (:class:`pufferfish.audit.auditor.TightMethod`), one record per auditor and
guarantee (:func:`tight_methods`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from pufferfish import audit, papers
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError, NotApplicableError
from pufferfish.grids import check_epsilons

__all__ = ["Method", "register", "get", "names", "methods", "calibrate", "secret_kind", "SECRET_KINDS",
           "check_applicable", "tight_methods"]

#: the parameters a target of each guarantee needs beyond epsilon
_NEEDS = {"epsilon": (), "epsilon_delta": ("delta",), "renyi": ("alpha",)}

#: secret kinds, as config writes them: reports a value / is absent / draws from a prior
SECRET_KINDS = ("value", "absent", "user")


@dataclass(frozen=True)
class Method:
    """One calibration method.

    ``apply(pair, epsilons, **params)`` returns the noise scale for every epsilon of the
    grid (``params`` holds ``delta`` and/or ``alpha`` when the method ``needs`` them).
    ``pairs``: the (first, second) secret kinds it is stated for (both orders are listed),
    ``None`` for any pair. ``bernoulli``: it also needs users with support in {0, 1}.
    ``noise``: one of :func:`pufferfish.audit.noises`; ``guarantee``: epsilon, epsilon_delta or renyi
    (what its scale is audited against). ``refuses``: for a method stated only for some
    parameter values, ``refuses(params)`` returns why ``params`` are outside them ("" when
    they are not), e.g. an order alpha other than 2. ``smallest``: its scale is, by
    definition, the smallest scale the exact audit of its noise and guarantee accepts
    (``Auditor.smallest_scale``), so the workflow computes it once for the method and for
    the audit's ``scale_min``. ``automatic``: added to every experiment (the tight scales);
    not listed in config.
    """

    name: str
    apply: Callable[..., np.ndarray]
    pairs: frozenset | None
    label: str
    citation: str
    noise: str = "laplace"
    guarantee: str = "epsilon"
    needs: tuple[str, ...] = ()
    refuses: Callable[[Mapping], str] | None = None
    smallest: bool = False
    bernoulli: bool = False
    automatic: bool = False

    def applies_to(self, kinds: tuple[str, str]) -> bool:
        return self.pairs is None or tuple(kinds) in self.pairs


_REGISTRY: dict[str, Method] = {}
_loaded = False


def register(*records: Method) -> tuple[Method, ...]:
    r"""Add ``records`` to the registry (a name may be registered once).

    Parameters
    ----------
    *records : Method
        The method records to add.

    Returns
    -------
    tuple of Method
        ``records``, unchanged.

    Raises
    ------
    ValueError
        Another record already holds one of the names (a programming error).
    """
    for record in records:
        if record.name in _REGISTRY and _REGISTRY[record.name] is not record:
            raise ValueError(f"method {record.name!r} is registered twice")
        _REGISTRY[record.name] = record
    return records


def _load() -> None:
    """On first use: the declared papers' records, in the papers' order (whichever module was
    imported first), then any registered otherwise, then the tight methods of the auditors."""
    global _loaded
    if not _loaded:
        _loaded = True
        declared = [record for paper in papers.declared() for record in paper.methods]
        register(*declared)
        others = [record for record in _REGISTRY.values() if record not in declared]
        _REGISTRY.clear()
        register(*declared, *others)
        register(*tight_methods())


def _smallest_scales(cls, guarantee: str, name: str):
    """apply(pair, epsilons, **params) of a tight method: the auditor's smallest scale per epsilon."""
    def apply(pair, epsilons, **params):
        auditor = cls(pair.prior_i, pair.prior_j)
        out = []
        for k, e in enumerate(check_epsilons(epsilons)):
            target = audit.target_for(guarantee, float(e), delta=params.get("delta"), alpha=params.get("alpha"))
            found = auditor.smallest_scale(target)
            if not math.isfinite(found.scale):
                raise InvalidArgumentError(f"epsilons[{k}] = {float(e)!r}: no {name} scale: {found.reason}")
            out.append(found.scale)
        return np.array(out)
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"The smallest scale of {cls.__name__} for {guarantee} (registry record {name!r})."
    return apply


def tight_methods() -> list[Method]:
    r"""The tight methods, derived: one record per lattice auditor class and guarantee it declares in
    ``tight`` (:class:`pufferfish.audit.auditor.TightMethod`), its scale the auditor's smallest scale
    (``smallest=True``); a scale that cannot be found raises with the search's reason, it is never
    returned as inf or NaN.

    Returns
    -------
    list of Method
        One automatic record per lattice auditor class and declared guarantee.

    Raises
    ------
    ImportError
        An auditor module of :mod:`pufferfish.audit` cannot be imported (a broken installation).
    """
    out = []
    for cls in audit.auditor_classes("lattice"):
        for guarantee, spec in cls.tight.items():
            out.append(Method(spec.name, _smallest_scales(cls, guarantee, spec.name), pairs=None, label=spec.label,
                              citation=spec.citation, noise=cls.noise, guarantee=guarantee, needs=_NEEDS[guarantee],
                              smallest=True, automatic=spec.automatic))
    return out


def methods() -> dict[str, Method]:
    r"""Every registered method, by name: those a config lists, then the automatic (tight) ones.

    Returns
    -------
    dict
        Name to :class:`Method`: the listable ones first, then the automatic ones.

    Raises
    ------
    ImportError
        A module registering methods cannot be imported (a broken installation).
    """
    _load()
    return {n: m for auto in (False, True) for n, m in _REGISTRY.items() if m.automatic == auto}


def names(*, automatic: bool | None = None) -> list[str]:
    r"""Method names (``automatic=False``: those a config lists; ``True``: the tight ones).

    Parameters
    ----------
    automatic : bool, optional
        ``False``: the names a config lists; ``True``: the tight ones; ``None``: all.

    Returns
    -------
    list of str
        The method names, in registry order.

    Raises
    ------
    ImportError
        As :func:`methods`.
    """
    return [n for n, m in methods().items() if automatic is None or m.automatic == automatic]


def get(name: str) -> Method:
    r"""The record of ``name``; :class:`NotApplicableError` naming the known ones otherwise.

    Parameters
    ----------
    name : str
        A registered method name.

    Returns
    -------
    Method
        Its record.

    Raises
    ------
    NotApplicableError
        No method of that name (the message lists the known ones).
    ArgumentTypeError
        ``name`` not a string.
    """
    return _lookup(name, argument="name")


def _lookup(name, *, argument: str) -> Method:
    all_methods = methods()
    if not isinstance(name, str):
        raise ArgumentTypeError(f"{argument} = {name!r:.60}: must be a method name (a string), not {type(name).__name__}")
    if name not in all_methods:
        raise NotApplicableError(f"{argument} = {name!r}: unknown method (known: {', '.join(all_methods)})")
    return all_methods[name]


def pair_of(*kinds: str) -> frozenset:
    """Both orders of a pair of secret kinds, e.g. ``pair_of("value", "absent")``."""
    return frozenset({tuple(kinds), tuple(reversed(kinds))})


def secret_kind(secret) -> str:
    r"""``value`` / ``absent`` / ``user`` of a secret object (:mod:`pufferfish.lattice.system`).

    Parameters
    ----------
    secret : object
        A :class:`~pufferfish.lattice.system.Reports`, :class:`~pufferfish.lattice.system.Absent` or :class:`~pufferfish.lattice.system.Draws`.

    Returns
    -------
    str
        ``"value"``, ``"absent"`` or ``"user"``.

    Raises
    ------
    ArgumentTypeError
        Any other object.
    """
    from pufferfish.lattice.system import Absent, Draws, Reports

    for cls, kind in ((Reports, "value"), (Absent, "absent"), (Draws, "user")):
        if isinstance(secret, cls):
            return kind
    raise ArgumentTypeError(f"secret = {secret!r:.60}: must be Reports, Absent or Draws, not {type(secret).__name__}")


def check_applicable(method: Method, kinds: Iterable[str], params: Mapping) -> None:
    r"""Raise :class:`NotApplicableError` when ``method`` is not stated for the pair, misses a
    parameter it ``needs`` or is not stated for the parameter values given (``refuses``).

    Parameters
    ----------
    method : Method
        The record checked.
    kinds : iterable of str
        The :func:`secret_kind` of the two secrets of the pair.
    params : collections.abc.Mapping
        The parameters given (``delta``, ``alpha``).

    Returns
    -------
    None
        The method applies.

    Raises
    ------
    NotApplicableError
        The pair's form, a missing needed parameter or a refused value (naming it).
    """
    kinds = tuple(kinds)
    if not method.applies_to(kinds):
        raise NotApplicableError(f"{method.name} does not apply to the secret pair ({kinds[0]}, {kinds[1]})")
    for need in method.needs:
        if params.get(need) is None:
            raise NotApplicableError(f"{method.name} needs `{need}`")
    reason = method.refuses(params) if method.refuses is not None else ""
    if reason:
        raise NotApplicableError(f"{method.name} {reason}")


def calibrate(method: str, pair, *, epsilons, **params) -> np.ndarray:
    r"""The noise scale of ``method`` (a registered name) on ``pair`` for every epsilon.

    ``params``: ``delta`` / ``alpha`` for the methods that need them.

    Parameters
    ----------
    method : str
        A registered method name.
    pair : pufferfish.lattice.system.SecretPair
        The secret pair and the other users.
    epsilons : float or sequence of float
        The grid of :math:`\epsilon > 0`.
    **params
        ``delta`` / ``alpha`` for the methods that need them.

    Returns
    -------
    numpy.ndarray
        The scale for each :math:`\epsilon`.

    Raises
    ------
    NotApplicableError
        Unknown method, a pair not of the form the method is stated for, or a needed parameter missing.
    ArgumentTypeError, InvalidArgumentError
        ``pair`` not a ``SecretPair``, or a bad grid.
    """
    from pufferfish.lattice.system import SecretPair

    record = _lookup(method, argument="method")
    if not isinstance(pair, SecretPair):
        raise ArgumentTypeError(f"pair = {pair!r:.60}: must be a SecretPair (SecretPair.of(first, second, rest)), "
                                f"not {type(pair).__name__}")
    eps = check_epsilons(epsilons)
    check_applicable(record, (secret_kind(pair.first), secret_kind(pair.second)), params)
    return np.asarray(record.apply(pair, eps, **params), dtype=float)

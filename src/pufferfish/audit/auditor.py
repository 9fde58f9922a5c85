"""The one interface every noise family's auditor implements, and the registry of the families.

An auditor holds one secret pair (two priors) and one noise family, and answers, exactly:

* :meth:`Auditor.achieved` -- what a scale achieves against a
  :class:`~pufferfish.audit.target.Target`, both directions;
* :meth:`Auditor.smallest_scale` -- the smallest scale meeting it (0 when the priors meet it
  without noise), by :func:`pufferfish.audit.search.smallest_scale`.

A family is declared once, by its class: ``noise``, ``guarantees``, ``prior`` (``"lattice"``
or ``"mixture"``), :meth:`Auditor.std`, :meth:`Auditor.start_scale`, :meth:`Auditor.floor`,
the ``search`` strategy and ``tight`` (the registry's tight method of each guarantee).
Every concrete subclass registers itself (``__init_subclass__``); :func:`auditor_classes`
imports every module ``pufferfish.audit.*_lattice`` / ``*_mixture``, so that a new family is
one new file. :func:`noises`, :func:`lattice_auditor`, :func:`noise_std` and the registry's
``tight_*`` records (:mod:`pufferfish.registry`) are derived from the classes.
Why the smallest scale is well defined (the audits fall as the scale grows): each family's module.
"""

from __future__ import annotations

import abc
import inspect
import math
from typing import ClassVar, NamedTuple

from pufferfish.audit.search import FLOOR, STRATEGIES
from pufferfish.audit.search import smallest_scale as search_smallest
from pufferfish.audit.target import GUARANTEES, Achieved, Smallest, Target
from pufferfish.audit.zero_noise import zero_noise_directions, zero_noise_hockey_stick, zero_noise_renyi
from pufferfish.errors import ArgumentTypeError, ConfigError, InvalidArgumentError

__all__ = ["PRIORS", "TightMethod", "Auditor", "LatticeAuditor", "auditor_classes", "noises", "lattice_auditor",
           "noise_std"]

#: the prior kinds an auditor is stated for
PRIORS = ("lattice", "mixture")
#: the auditor classes, in the order they registered
_CLASSES: list[type] = []


class TightMethod(NamedTuple):
    """The registry record an auditor provides for one guarantee: its smallest scale, as a method."""

    name: str
    label: str
    citation: str
    automatic: bool = False


class Auditor(abc.ABC):
    """The exact audit of one noise family on one secret pair (module docstring).

    Concrete subclasses set the class variables below and, in ``__init__``, ``rtol`` and
    ``max_steps`` (the smallest-scale search's tolerance and step budget).
    """

    #: the noise family (a name, e.g. ``"laplace"``)
    noise: ClassVar[str]
    #: the guarantees this auditor can check (a subset of :data:`~pufferfish.audit.target.GUARANTEES`)
    guarantees: ClassVar[tuple[str, ...]]
    #: the priors it is stated for (one of :data:`PRIORS`)
    prior: ClassVar[str]
    #: guarantee -> the registry's tight method computed by :meth:`smallest_scale` (lattice auditors)
    tight: ClassVar[dict[str, TightMethod]] = {}
    #: the bracketing strategy of :meth:`smallest_scale` (:data:`~pufferfish.audit.search.STRATEGIES`)
    search: ClassVar[str] = "double"
    #: position in every listing of the families (:func:`noises`, the registry's records)
    order: ClassVar[int] = 100
    rtol: float
    max_steps: int

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if inspect.isabstract(cls):
            return
        _check_declaration(cls)
        if cls not in _CLASSES:
            _CLASSES.append(cls)

    @classmethod
    @abc.abstractmethod
    def std(cls, scale: float) -> float:
        """The standard deviation of the noise at ``scale`` (NaN where it has none)."""

    @abc.abstractmethod
    def achieved(self, scale: float, target: Target) -> Achieved:
        """What noise of this ``scale`` achieves against ``target`` (both directions), exactly."""

    @abc.abstractmethod
    def start_scale(self, target: Target) -> float:
        """Where the smallest-scale search starts (a sufficient scale of a theorem, if there is one)."""

    def floor(self, target: Target) -> float:
        """No scale below this is audited by :meth:`smallest_scale` (where the audit stops resolving)."""
        return FLOOR

    def check_target(self, target: Target) -> Target:
        """``target`` if this auditor audits its guarantee, else one line saying which it audits."""
        if not isinstance(target, Target):
            raise ArgumentTypeError(f"target = {target!r:.60}: must be a pufferfish.audit.Target, "
                                    f"not {type(target).__name__}")
        if target.guarantee not in self.guarantees:
            raise ConfigError(f"{type(self).__name__} audits {', '.join(self.guarantees)}, "
                              f"not {target.guarantee} (target {target})")
        return target

    def decide(self, scale: float, target: Target) -> Achieved:
        """:meth:`achieved`, refined where its certified value exceeds the target by no more than its
        error bound might: a verdict (:func:`pufferfish.audit.verdict.audit_scale`) is then decided
        at a higher precision where the auditor has one (the lattice auditors' arb routes). The
        default: :meth:`achieved`."""
        return self.achieved(scale, target)

    def noise_free(self, target: Target) -> Achieved:
        """What releasing with no noise (scale 0) achieves against ``target``, both directions: the
        limit of :meth:`achieved` as the scale goes to 0, and an upper bound for every scale
        (post-processing)."""
        raise NotImplementedError(f"{type(self).__name__} has no noise-free audit")

    def smallest_scale(self, target: Target) -> Smallest:
        """The smallest scale whose :meth:`achieved` value meets ``target``: 0 when the priors meet
        it without noise (:meth:`noise_free`), else :func:`~pufferfish.audit.search.smallest_scale`
        with this class's ``search`` strategy from :meth:`start_scale`, seeded by the earlier
        audits of this auditor whose value the target's shares (the loss for pure epsilon, delta
        at the same epsilon, D_alpha at the same alpha)."""
        target = self.check_target(target)
        zero = self.noise_free(target).value
        seen = self._audits(target)

        def value(scale: float) -> float:
            got = self.achieved(scale, target).value
            seen.append((scale, got))
            return got

        scale, got, steps, reason = search_smallest(
            value, target.bound, start=self.start_scale(target), at_zero=zero, strategy=self.search,
            rtol=self.rtol, max_steps=self.max_steps, floor=self.floor(target), history=list(seen))
        return Smallest(target, scale, got, steps, reason)

    def _audits(self, target: Target) -> list:
        """The (scale, value) audits this auditor's searches made whose value ``target``'s shares."""
        if not hasattr(self, "_seen"):
            self._seen: dict[tuple, list] = {}
        return self._seen.setdefault(_value_key(target), [])


def _value_key(target: Target) -> tuple:
    """What an audit's value depends on besides the scale: the loss of pure epsilon does not depend
    on epsilon, delta depends on epsilon, D_alpha on alpha only."""
    return target.guarantee, target.epsilon if target.guarantee == "epsilon_delta" else None, target.alpha


def _check_declaration(cls) -> None:
    """A concrete auditor class declares a noise, its guarantees, its prior, a strategy and tight methods."""
    if not isinstance(getattr(cls, "noise", None), str):
        raise TypeError(f"{cls.__name__}: an auditor declares its noise (a string)")
    if not cls.guarantees or not set(cls.guarantees) <= set(GUARANTEES):
        raise TypeError(f"{cls.__name__}: guarantees {cls.guarantees!r} must be some of {GUARANTEES}")
    if getattr(cls, "prior", None) not in PRIORS or cls.search not in STRATEGIES:
        raise TypeError(f"{cls.__name__}: prior must be one of {PRIORS}, search one of {STRATEGIES}")
    if not set(cls.tight) <= set(cls.guarantees) or not all(isinstance(t, TightMethod) for t in cls.tight.values()):
        raise TypeError(f"{cls.__name__}: tight maps some of its guarantees to TightMethod records")


class LatticeAuditor(Auditor):
    """An auditor of noise added to two lattice priors ``p`` and ``q`` (set by the subclass).

    On the lattice the noise-free audit does not depend on the noise: the shifted noises
    separate the atoms as the scale goes to 0, so the limit is the divergence of the priors
    themselves: max_x |log P(x)/Q(x)| (pure epsilon), sum_x [P(x) - e^eps Q(x)]_+
    (hockey stick), D_alpha(P || Q) (Renyi; inf where P charges an atom Q does not).
    """

    prior = "lattice"
    p: object
    q: object

    def noise_free(self, target: Target) -> Achieved:
        target = self.check_target(target)
        if target.guarantee == "epsilon_delta":
            fwd, bwd = zero_noise_hockey_stick(self.p, self.q, epsilon=target.epsilon)
        elif target.guarantee == "renyi":
            fwd, bwd = zero_noise_renyi(self.p, self.q, alpha=target.alpha)
        else:
            fwd, bwd = zero_noise_directions(self.p, self.q)
        return Achieved(0.0, target, fwd, bwd)


def auditor_classes(prior: str | None = None) -> list[type[Auditor]]:
    """Every auditor class (of ``prior`` ``"lattice"`` or ``"mixture"`` if given), in their ``order``.

    The modules ``pufferfish.audit.*_lattice`` (and ``*_mixture``) are imported first, so that
    each family registers itself: a new family is one new module.

    Parameters
    ----------
    prior : str, optional
        ``"lattice"`` or ``"mixture"`` (:data:`PRIORS`); ``None``: every class.

    Returns
    -------
    list of type
        The concrete :class:`Auditor` subclasses, sorted by ``order``, module and name.

    Raises
    ------
    InvalidArgumentError
        ``prior`` is not None or one of :data:`PRIORS`.
    """
    from pufferfish.checks import choice

    if prior is not None:
        choice(prior, PRIORS, name="prior")
    found = [c for c in _CLASSES if prior is None or c.prior == prior]
    return sorted(found, key=lambda c: (c.order, c.__module__, c.__name__))


def noises() -> tuple[str, ...]:
    """The noise families audited (each once, in the order of :func:`auditor_classes`).

    Returns
    -------
    tuple of str
        The ``noise`` of every auditor class, without repeats.

    Raises
    ------
    ImportError
        A module of :mod:`pufferfish.audit` named like an auditor module cannot be imported
        (a broken installation; never a user mistake).
    """
    return tuple(dict.fromkeys(c.noise for c in auditor_classes()))


def lattice_auditor(noise: str, guarantee: str, p, q, **options) -> Auditor:
    """The auditor of ``noise`` for ``guarantee`` on the lattice priors ``p``, ``q``.

    Parameters
    ----------
    noise, guarantee : str
        A noise family of :func:`noises` and a guarantee its lattice auditor checks.
    p, q : LatticePMF
        The two priors.
    **options
        ``rtol``, ``max_steps`` of the auditor.

    Returns
    -------
    Auditor

    Raises
    ------
    InvalidArgumentError
        No lattice auditor of that noise checks that guarantee (the known ones named).
    """
    from pufferfish.checks import instance

    instance(noise, str, name="noise")
    instance(guarantee, str, name="guarantee")
    classes = auditor_classes("lattice")
    for cls in classes:
        if cls.noise == noise and guarantee in cls.guarantees:
            return cls(p, q, **options)
    known = ", ".join(f"{c.noise} ({'/'.join(c.guarantees)})" for c in classes)
    raise InvalidArgumentError(f"noise = {noise!r}, guarantee = {guarantee!r}: no lattice auditor (known: {known})")


def noise_std(noise: str, scale: float) -> float:
    """The standard deviation of ``noise`` at ``scale`` (NaN where the noise has none, e.g. Cauchy).

    Parameters
    ----------
    noise : str
        One of :func:`noises`.
    scale : float
        The noise scale, finite and >= 0.

    Returns
    -------
    float

    Raises
    ------
    InvalidArgumentError
        An unknown noise, or a scale that is negative or not finite.
    """
    from pufferfish.checks import choice, real

    choice(noise, noises(), name="noise")
    scale = real(scale, name="scale", lo=0.0)
    std = next(c for c in auditor_classes() if c.noise == noise).std(scale)
    return float(std) if not math.isnan(std) else math.nan

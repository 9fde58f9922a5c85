"""What an audit is checked against: the guarantee, its target, and what a scale achieves.

===================  ==============================  ======================================
``guarantee``        target                          achieved value (``forward``/``backward``)
===================  ==============================  ======================================
``"epsilon"``        pure epsilon-PP                 sup_y |log p_Y(y|s_i) / p_Y(y|s_j)|
``"epsilon_delta"``  (epsilon, delta)-PP             hockey-stick divergence H_{e^eps}
``"renyi"``          (alpha, epsilon)-RPP            Renyi divergence D_alpha(P_Y|s_i || P_Y|s_j)
===================  ==============================  ======================================

:func:`target_for` is the one place a :class:`Target` is built from a guarantee and the
parameters a caller has (docs/for-researchers.md, "A new noise: the auditor interface").
"""

from __future__ import annotations

from dataclasses import dataclass

from pufferfish.errors import ConfigError

__all__ = ["GUARANTEES", "EPSILON_DELTA_MAX", "Target", "Achieved", "Smallest", "target_for"]

#: the guarantees a target can state
GUARANTEES = ("epsilon", "epsilon_delta", "renyi")
#: the largest epsilon of an (epsilon, delta) target: its hockey stick weighs by e^epsilon, a float
#: only below 709.78 (e^700 ~ 1e304; every delta is 0 long before, for any prior on a float grid)
EPSILON_DELTA_MAX = 700.0


def _positive(name: str, value) -> float:
    from pufferfish.checks import real  # a real number (no string or bool), finite and > 0

    return real(value, name=name, lo=0.0, lo_open=True)


@dataclass(frozen=True)
class Target:
    """A privacy target: pure ``epsilon``; (``epsilon``, ``delta``) with 0 < delta < 1; or
    Renyi at order ``alpha`` > 1 with bound ``epsilon`` on D_alpha (not both delta and alpha).

    Raises
    ------
    ConfigError
        A value out of range (naming it), or both ``delta`` and ``alpha``.
    """

    epsilon: float
    delta: float | None = None
    alpha: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _positive("epsilon", self.epsilon))
        if self.delta is not None and self.alpha is not None:
            raise ConfigError(f"target: delta = {self.delta!r} and alpha = {self.alpha!r} exclude each other")
        if self.delta is not None:
            if self.epsilon > EPSILON_DELTA_MAX:
                raise ConfigError(f"epsilon = {self.epsilon!r}: an (epsilon, delta) target needs e^epsilon as a "
                                  f"float: at most {EPSILON_DELTA_MAX:g}")
            delta = _positive("delta", self.delta)
            if not delta < 1:
                raise ConfigError(f"delta = {self.delta!r}: must be < 1")
            object.__setattr__(self, "delta", delta)
        if self.alpha is not None:
            alpha = _positive("alpha", self.alpha)
            if not alpha > 1:
                raise ConfigError(f"alpha = {self.alpha!r}: must be > 1")
            object.__setattr__(self, "alpha", alpha)

    @property
    def guarantee(self) -> str:
        """``"epsilon"``, ``"epsilon_delta"`` or ``"renyi"``."""
        if self.delta is not None:
            return "epsilon_delta"
        if self.alpha is not None:
            return "renyi"
        return "epsilon"

    @property
    def bound(self) -> float:
        """The value the achieved quantity must not exceed: delta for (eps, delta), else epsilon."""
        return self.delta if self.delta is not None else self.epsilon


def target_for(guarantee: str, epsilon: float, *, delta: float | None = None, alpha: float | None = None) -> Target:
    """The :class:`Target` of ``guarantee`` at ``epsilon``: the guarantee takes what it needs.

    Parameters
    ----------
    guarantee : str
        One of :data:`GUARANTEES`.
    epsilon : float
        The bound on the loss (pure epsilon), the epsilon of (epsilon, delta), or the bound on D_alpha.
    delta, alpha : float, optional
        The delta of ``"epsilon_delta"`` and the order of ``"renyi"``; a parameter the guarantee
        does not use is ignored (but checked), so a caller passes whatever it has.

    Returns
    -------
    Target

    Raises
    ------
    ConfigError
        An unknown guarantee, a needed parameter missing (naming it), or a value out of range.
    """
    from pufferfish.checks import choice

    choice(guarantee, GUARANTEES, name="guarantee")
    if delta is not None:                              # checked even where not used: a caller's mistake
        Target(epsilon, delta=delta)
    if alpha is not None:
        Target(epsilon, alpha=alpha)
    if guarantee == "epsilon_delta":
        if delta is None:
            raise ConfigError(f"guarantee = 'epsilon_delta' needs delta (epsilon = {epsilon!r})")
        return Target(epsilon, delta=delta)
    if guarantee == "renyi":
        if alpha is None:
            raise ConfigError(f"guarantee = 'renyi' needs alpha (epsilon = {epsilon!r})")
        return Target(epsilon, alpha=alpha)
    return Target(epsilon)


@dataclass(frozen=True)
class Achieved:
    """What one noise ``scale`` achieves against ``target``, in both directions.

    ``forward`` is the achieved quantity of s_i against s_j (an epsilon, a delta at the
    target's epsilon, or a Renyi divergence at the target's alpha), ``backward`` of s_j
    against s_i.
    """

    scale: float
    target: Target
    forward: float
    backward: float

    @property
    def value(self) -> float:
        """The larger direction: what the guarantee is about."""
        return max(self.forward, self.backward)

    def meets(self) -> bool:
        """True when the certified ``value`` is ``<= bound``: no tolerance (:mod:`pufferfish.certified`)."""
        return self.value <= self.target.bound


@dataclass(frozen=True)
class Smallest:
    """The smallest accepted scale for ``target``: ``scale`` (0 when no noise is needed,
    inf with a ``reason`` when no bracket could be closed), the achieved ``value`` there,
    and the number of audits it took (``steps``)."""

    target: Target
    scale: float
    value: float
    steps: int
    reason: str = ""

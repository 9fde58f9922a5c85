"""The service quality loss of a local mechanism (paper 003's utility, as its abstract names it).

The user keeps the real (base) output y of its value x: the loss is E|x - y| for an ordinal
domain and P(y != x) for a categorical one, under an input law lambda. The tupling mechanism
sends its base's output among k dummies and the user reads the real one: its loss is its
base's, and the dummies cost bandwidth only (reported as a count, ``dummies``).
Derivation: ``docs/math/paper003-distribution.md`` (section "Utility").
"""

from __future__ import annotations

import math

import numpy as np

from pufferfish.checks import choice, instance, reals
from pufferfish.distp.divergences import check_channel, check_law
from pufferfish.errors import InvalidArgumentError

__all__ = ["LOSSES", "service_loss"]

#: the kinds of loss :func:`service_loss` computes
LOSSES = ("ordinal", "categorical")


def service_loss(channel, pmf, *, inputs, outputs, kind: str = "ordinal") -> float:
    """E|x - y| (``ordinal``) or P(y != x) (``categorical``) for x ~ ``pmf`` and y ~ row x of ``channel``.

    Parameters
    ----------
    channel : array_like
        The mechanism, a row-stochastic matrix (inputs x outputs).
    pmf : array_like
        lambda, the law of the input (one mass per row).
    inputs, outputs : list, tuple or numpy.ndarray
        The values of the rows and of the columns (numbers for ``ordinal``; any values
        compared by equality for ``categorical``).
    kind : str
        ``"ordinal"`` or ``"categorical"``.

    Returns
    -------
    float
        The expected loss, a sum of non-negative terms (fsum).

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError, InvalidDistributionError
        A bad channel or pmf, values that do not fit it, or an unknown kind.
    """
    loss = choice(kind, LOSSES, name="kind")
    matrix = check_channel(channel)
    masses = check_law(pmf, name="pmf", size=matrix.shape[0])
    instance(inputs, (list, tuple, np.ndarray), name="inputs")
    instance(outputs, (list, tuple, np.ndarray), name="outputs")
    if len(inputs) != matrix.shape[0] or len(outputs) != matrix.shape[1]:
        raise InvalidArgumentError(f"inputs, outputs: {len(inputs)} and {len(outputs)} values for a channel of "
                                   f"shape {matrix.shape}")
    if loss == "ordinal":
        x, y = reals(list(inputs), name="inputs"), reals(list(outputs), name="outputs")
        cost = np.abs(x[:, None] - y[None, :])
    else:
        cost = np.array([[float(a != b) for b in outputs] for a in inputs])
    return math.fsum((masses[:, None] * matrix * cost).ravel().tolist())

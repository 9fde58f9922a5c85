r"""The adversary's prior on the records: a Gaussian :math:`N(\mu, \Sigma)` over :math:`x_1, \dots, x_T` (scalar records).

Paper 002 (Pierquin, Bellet, Tommasi, Boussard, ICML 2024), Section 6.4 and Appendix F.5: the
shifts of the iteration depend on the prior only through the secret's column
:math:`\Sigma_{\cdot k} / \Sigma_{kk}` (:mod:`pufferfish.iteration.shifts`), and the exact audit of the
quadratic-loss model through that column and one quadratic form :math:`q^\top \Sigma q`
(:mod:`pufferfish.iteration.exact`). A covariance here is anything with those two operations
(:class:`Covariance`), so a stationary prior of a million records never builds its :math:`T \times T`
matrix. The kinds, one module each:

* :class:`~pufferfish.iteration.dense_covariance.DenseCovariance` -- a matrix given in full (checked
  symmetric, positive semi-definite);
* :class:`~pufferfish.iteration.stationary_covariance.StationaryCovariance` -- :math:`\Sigma_{tu} = \gamma(|t - u|)`,
  a Toeplitz matrix given by its autocovariance; :math:`q^\top \Sigma q` by one FFT convolution for any :math:`q`,
  and for the step weights :math:`q_t = (1 - \eta)^{T-t}` by their lag sums (:math:`O(T)`,
  :mod:`pufferfish.iteration.geometric`); with it
  :func:`~pufferfish.iteration.stationary_covariance.decaying_correlation`, :math:`\Sigma_{tu} = v \rho^{|t-u|}` (Fig. 6, "dependencies decreasing over time"), and
  :func:`~pufferfish.iteration.stationary_covariance.biased_autocovariance`, the estimator that divides by
  :math:`n`, whose Toeplitz matrix is positive semi-definite, by FFT;
* :class:`~pufferfish.iteration.equal_correlation.EqualCorrelation` -- :math:`\Sigma_{tt} = v`,
  :math:`\Sigma_{tu} = \rho v` (:math:`t \ne u`, :math:`0 \le \rho \le 1`; paper 002, Fig. 6, "all elements
  equally correlated"); closed forms, :math:`O(T)`.

The step weights' sums (:meth:`Covariance.step_variance` :math:`= \operatorname{Var}(q^\top x)`,
:meth:`Covariance.step_covariance` :math:`= \operatorname{Cov}(q^\top x, x_k)`, and the latter for every
:math:`k` at once) are what the exact audit reads (docs/math/iteration.md, "Closed forms of the
step weights"); :func:`conditional_variance` conditions on the secret record. Indices of records are
1-based, as the paper's :math:`k`.
"""

from __future__ import annotations

import numpy as np

from pufferfish.checks import as_vector, integer, label, real
from pufferfish.errors import ArgumentTypeError, InvalidArgumentError
from pufferfish.iteration.geometric import step_weights

__all__ = ["Covariance", "check_covariance", "conditional_variance"]

#: relative size below which a negative conditional variance is rounding (clipped to 0), not an invalid prior
PSD_RTOL = 1e-9


class Covariance:
    """A T x T covariance of the records seen through two operations (subclasses implement them).

    ``size`` is T; :meth:`column` is Sigma_{.k} (1-based k); :meth:`quadratic` is q^T Sigma q.
    From them, generically (a subclass may compute them faster): :meth:`record_variance` Sigma_kk
    (:meth:`record_variances` all of them), and for the step weights q_t = (1 - eta)^(T-t) of the
    exact audit :meth:`step_variance` q^T Sigma q, :meth:`step_covariance` q^T Sigma_{.k} and
    :meth:`step_covariances` (every k). :meth:`column` returns a new array.
    """

    size: int

    def column(self, secret_index: int) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def quadratic(self, q) -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def _index(self, secret_index) -> int:
        return integer(secret_index, name="secret_index", lo=1, hi=self.size)

    def record_variance(self, secret_index: int) -> float:
        """Sigma_kk, the prior variance of record k.

        Parameters
        ----------
        secret_index : int
            k, 1-based, 1 <= k <= T.

        Returns
        -------
        float
            Sigma_kk > 0.

        Raises
        ------
        InvalidArgumentError
            ``secret_index`` outside [1, T].
        """
        return float(self.column(secret_index)[self._index(secret_index) - 1])

    def record_variances(self) -> np.ndarray:
        """Sigma_11..Sigma_TT, the diagonal (a new array)."""
        return np.array([self.record_variance(k) for k in range(1, self.size + 1)])

    def constant_variance(self) -> float | None:
        """The variance Sigma_kk shared by every record, or None if they differ (or it is not known here)."""
        return None

    def step_variance(self, eta: float) -> float:
        """Var(q^T x) = q^T Sigma q for the step weights q_t = (1 - eta)^(T-t) (:func:`pufferfish.iteration.geometric.step_weights`).

        Parameters
        ----------
        eta : float
            The step size, in (0, 1].

        Returns
        -------
        float
            q^T Sigma q.

        Raises
        ------
        InvalidArgumentError
            ``eta`` outside (0, 1].
        """
        return self.quadratic(step_weights(self.size, eta))

    def step_covariance(self, eta: float, secret_index: int) -> float:
        """Cov(q^T x, x_k) = q^T Sigma_{.k} for the step weights q_t = (1 - eta)^(T-t).

        Parameters
        ----------
        eta : float
            The step size, in (0, 1].
        secret_index : int
            k, 1-based, 1 <= k <= T.

        Returns
        -------
        float
            q^T Sigma_{.k}.

        Raises
        ------
        InvalidArgumentError
            ``eta`` outside (0, 1] or ``secret_index`` outside [1, T].
        """
        return float(np.dot(step_weights(self.size, eta), self.column(secret_index)))

    def step_covariances(self, eta: float) -> np.ndarray:
        """q^T Sigma_{.k} for k = 1..T (a subclass computes them at once; this generic one column by column).

        Parameters
        ----------
        eta : float
            The step size, in (0, 1].

        Returns
        -------
        numpy.ndarray
            T values, the k-th for record k.

        Raises
        ------
        InvalidArgumentError
            ``eta`` outside (0, 1].
        """
        q = step_weights(self.size, eta)
        return np.array([np.dot(q, self.column(k)) for k in range(1, self.size + 1)])

    def _weights(self, q) -> np.ndarray:
        q = as_vector(q, name="q")
        if q.size != self.size:
            raise InvalidArgumentError(f"q: has {q.size} entries, the covariance is {self.size} x {self.size}")
        return q

    def conditional_moments(self, eta: float, secret_index: int) -> tuple[float, float]:
        r"""(Cov(q^T x, x_k), Var(q^T x | x_k)) for the step weights q_t = (1 - eta)^(T-t): what the exact
        audit reads of the prior (:func:`pufferfish.iteration.exact.exact_audit`).

        Generically :math:`q^\top \Sigma_{\cdot k}` and the difference of
        :func:`conditional_variance`, whose rounding error is a few u times
        :math:`q^\top \Sigma q`, not times the conditional variance itself: where the records are
        almost determined by x_k (rho -> 1) the conditional variance is small and loses digits
        (docs/math/iteration.md, "Accuracy of the conditional variance").
        :class:`~pufferfish.iteration.equal_correlation.EqualCorrelation` and
        :class:`~pufferfish.iteration.stationary_covariance.DecayingCorrelation` compute it without a difference.

        Parameters
        ----------
        eta : float
            The step size, in (0, 1].
        secret_index : int
            k, 1-based, 1 <= k <= T.

        Returns
        -------
        (float, float)
            :math:`q^\top \Sigma_{\cdot k}` and the conditional variance (>= 0).

        Raises
        ------
        InvalidArgumentError
            ``eta`` outside (0, 1], ``secret_index`` outside [1, T], or a prior that is not positive
            semi-definite.
        """
        k = self._index(secret_index)
        cross = self.step_covariance(eta, k)
        return cross, conditional_variance(self.step_variance(eta), cross, self.record_variance(k), first_index=k)

    def every_conditional_moments(self, eta: float) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`conditional_moments` for every record k = 1..T at once (two arrays of T values).

        Parameters
        ----------
        eta : float
            The step size, in (0, 1].

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            :meth:`step_covariances` and the conditional variances, the k-th entry for record k.

        Raises
        ------
        InvalidArgumentError
            ``eta`` outside (0, 1], or a prior that is not positive semi-definite.
        """
        cross = self.step_covariances(eta)
        own = self.constant_variance()
        return cross, conditional_variance(self.step_variance(eta), cross,
                                           self.record_variances() if own is None else own)

    def conditional_quadratic(self, q, secret_index: int) -> float:
        """q^T (Sigma - Sigma_{.k} Sigma_{k.} / Sigma_kk) q >= 0: the variance of q^T x given x_k.

        Gaussian conditioning: x | x_k has covariance Sigma - Sigma_{.k} Sigma_{k.} / Sigma_kk
        whatever the value of x_k, so this is Var(q^T x | x_k) = q^T Sigma q - (q^T Sigma_{.k})^2 /
        Sigma_kk. A negative value beyond :data:`PSD_RTOL` q^T Sigma q is not rounding: the
        matrix is not positive semi-definite, and that is refused.
        """
        q = self._weights(q)
        col = self.column(secret_index)
        k = self._index(secret_index)
        return conditional_variance(self.quadratic(q), float(np.dot(q, col)), col[k - 1], first_index=k)


def conditional_variance(total, cross, own, *, first_index: int = 1):
    """total - cross^2 / own >= 0: Var(q^T x | x_k) from Var(q^T x), Cov(q^T x, x_k) and Var(x_k).

    Gaussian conditioning (:meth:`Covariance.conditional_quadratic`). ``cross`` (and ``own``) may
    be arrays, one entry per record k (``first_index`` is the record of entry 0, for the message).
    A negative value within :data:`PSD_RTOL` |total| is rounding and becomes 0; beyond it the
    covariance is not positive semi-definite, and that is refused naming the first such record.

    Parameters
    ----------
    total : float
        q^T Sigma q (finite).
    cross : float or array_like
        q^T Sigma_{.k} (finite).
    own : float or array_like
        Sigma_kk > 0.
    first_index : int, optional
        The 1-based record of the first entry of ``cross`` (default 1).

    Returns
    -------
    float or numpy.ndarray
        The conditional variances, >= 0 (a float when ``cross`` and ``own`` are scalars).

    Raises
    ------
    InvalidArgumentError
        A non-finite input, ``own`` <= 0, or a conditional variance below -PSD_RTOL |total|.
    """
    total = real(total, name="total")
    first_index = integer(first_index, name="first_index", lo=1)
    scalar = np.ndim(cross) == 0 and np.ndim(own) == 0
    cross = as_vector(np.atleast_1d(cross), name="cross")
    if np.ndim(own) == 0:
        own = real(own, name="own", lo=0.0, lo_open=True)
    else:
        own = as_vector(own, name="own")
        if own.size != cross.size:
            raise InvalidArgumentError(f"own: has {own.size} entries, cross has {cross.size}")
        if not own.min() > 0:
            raise InvalidArgumentError(f"own = {float(own[np.flatnonzero(own <= 0)[0]])!r}: a variance must be > 0")
    value = np.square(cross)             # total - cross^2 / own, in one array
    value /= own
    np.subtract(total, value, out=value)
    negative = value < 0
    if negative.any():
        worst = value < -PSD_RTOL * max(abs(total), 1e-300)
        if worst.any():
            i = int(np.flatnonzero(worst)[0])
            raise InvalidArgumentError(f"covariance: not positive semi-definite (the conditional variance "
                                       f"of q^T x given x_{first_index + i} is {value[i]:.3g} < 0)")
        value[negative] = 0.0
    return float(value[0]) if scalar else value


def check_covariance(value, *, name: str = "covariance") -> Covariance:
    """``value`` if it is a :class:`Covariance`.

    Parameters
    ----------
    value : object
        The argument.
    name : str, optional
        Its name, for the message (default ``"covariance"``).

    Returns
    -------
    Covariance
        ``value`` itself.

    Raises
    ------
    ArgumentTypeError
        ``value`` is not a :class:`Covariance` (one line naming ``name`` and the type).
    """
    label(name)
    if not isinstance(value, Covariance):
        raise ArgumentTypeError(f"{name}: must be a Covariance (DenseCovariance, StationaryCovariance, "
                                f"EqualCorrelation...), not {type(value).__name__}")
    return value

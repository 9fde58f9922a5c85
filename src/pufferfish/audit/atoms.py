"""The atoms of two lattice priors, as the continuous-noise audits (Gaussian, Cauchy) use them.

Y = X + N with X on the integer lattice and N a continuous noise: p_Y(y) = sum_x P(x) k(y - x)
is a finite mixture over the union of the two priors' atoms. :class:`PairAtoms` holds that
union, centred on the middle of the hull so that the float coordinates of the quadrature
nodes near an atom are rounded as little as possible (docs/math/paper002-wasserstein.md).
"""

from __future__ import annotations

import numpy as np

from pufferfish.checks import instance
from pufferfish.lattice.pmf import LatticePMF, check_lattice_size

__all__ = ["PairAtoms"]


class PairAtoms:
    """The union of the atoms of ``p`` and ``q``, centred on the middle of their hull.

    Attributes: ``center`` (the hull's middle), ``x`` (the atoms charged by P or Q, less
    ``center``, increasing), ``pa`` / ``pb`` (their masses under P / Q), ``la`` / ``lb`` (the
    logs, -inf where 0), ``log_diff`` / ``sign_diff`` (log |P - Q| and its sign), ``idx_p`` /
    ``idx_q`` (the atoms P / Q charge), ``top_p`` / ``top_q`` (the largest log masses).

    Parameters
    ----------
    p, q : LatticePMF
        The two priors.

    Raises
    ------
    ArgumentTypeError
        ``p`` or ``q`` is not a :class:`~pufferfish.lattice.pmf.LatticePMF`.
    InvalidArgumentError
        Their common hull is too long to hold (:func:`~pufferfish.lattice.pmf.check_lattice_size`).
    """

    def __init__(self, p: LatticePMF, q: LatticePMF):
        instance(p, LatticePMF, name="p")
        instance(q, LatticePMF, name="q")
        lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
        check_lattice_size(hi - lo + 1, name="p, q", what=f"their common hull from {lo} to {hi}")
        a, b = p.pmf_on(lo, hi), q.pmf_on(lo, hi)
        keep = (a > 0) | (b > 0)
        self.center = 0.5 * (lo + hi)
        self.x = np.arange(lo, hi + 1, dtype=float)[keep] - self.center
        self.pa, self.pb = a[keep], b[keep]
        with np.errstate(divide="ignore"):
            self.la, self.lb = np.log(self.pa), np.log(self.pb)
            diff = self.pa - self.pb
            self.log_diff = np.log(np.abs(diff))
        self.sign_diff = np.sign(diff)
        self.idx_p, self.idx_q = np.flatnonzero(self.pa > 0), np.flatnonzero(self.pb > 0)
        self.top_p, self.top_q = float(self.la.max()), float(self.lb.max())

"""The random streams of the Gaussian-priors paper's experiments (paper 004, config ``gaussian``).

Every draw comes from ``numpy.random.Generator(PCG64(SeedSequence([seed, ...])))`` with ``seed`` =
config ``seed`` and a fixed integer path per figure, secret and panel (:data:`STREAMS`,
:func:`stream_id`, :func:`generator`), so that a figure's draws depend on nothing but its own keys.
"""

from __future__ import annotations

import hashlib

import numpy as np

from pufferfish.checks import instance, integer

__all__ = ["STREAMS", "generator", "stream_id"]



#: integer paths appended to config ``seed``: (figure, purpose) -> stream prefix
STREAMS = {
    "fig3": 3, "fig4": 4,      # figure ids
    "gmm_fit": 1,              # [seed, fig, 1, secret]          -> GaussianMixture random_state
    "noise": 2,                # [seed, fig, 2, secret, privacy] -> Laplace noise of a panel
}


def stream_id(name: str) -> int:
    """The integer path of GMM experiment ``name``: 3 and 4 for the paper's figures, else from its name.

    Parameters
    ----------
    name : str
        The experiment's key in config ``gaussian``.

    Returns
    -------
    int
        3 or 4 for fig3 and fig4; for any other key the first 4 bytes of sha256(name)
        (big-endian), so its draws do not depend on which other experiments exist.

    Raises
    ------
    ArgumentTypeError
        A name that is not a string.
    """
    name = instance(name, str, name="name")
    if name in ("fig3", "fig4"):
        return STREAMS[name]
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "big")


def generator(seed: int, *path: int) -> np.random.Generator:
    """A PCG64 generator seeded by ``SeedSequence([seed, *path])``.

    Parameters
    ----------
    seed : int
        Config ``seed``.
    *path : int
        The stream's path (:data:`STREAMS`).

    Returns
    -------
    numpy.random.Generator
        PCG64 seeded by ``SeedSequence([seed, *path])``.

    Raises
    ------
    InvalidArgumentError, ArgumentTypeError
        A seed or path entry that is not a non-negative integer.
    """
    keys = [integer(seed, name="seed", lo=0), *(integer(k, name=f"path[{i}]", lo=0) for i, k in enumerate(path))]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(keys)))

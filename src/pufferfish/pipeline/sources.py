"""A digest of the package's own source, so that Snakemake reruns jobs when the code changes.

Snakemake tracks the code of a rule's ``script:`` file, but the scripts here are thin
adapters: the computation lives in this package. Each rule passes the digest of the
modules it runs as a ``param``; editing one of them changes the param and reruns the job.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

__all__ = ["source_digest", "PACKAGE_DIR"]

PACKAGE_DIR = Path(__file__).resolve().parents[1]


def source_digest(modules: Iterable[str] | None = None, root: str | Path = PACKAGE_DIR) -> str:
    r"""sha256 (first 16 hex digits) of the named modules' source (all ``*.py`` below ``root`` if None).

    Modules are named by their dotted path below ``root``, e.g. ``pipeline.jobs``; a
    subpackage (``pipeline.fetch``) stands for every module in it.

    Parameters
    ----------
    modules : iterable of str, optional
        Dotted paths below ``root`` (``pipeline.jobs``, or a subpackage: ``pipeline.fetch``);
        ``None``: every module.
    root : str or pathlib.Path
        The package's directory (default: this package's, :data:`PACKAGE_DIR`; a paper from
        another distribution passes its own).

    Returns
    -------
    str
        The first 16 hex digits of the SHA-256 of the sources.

    Raises
    ------
    FileNotFoundError
        A named module has no source file.
    """
    root = Path(root)
    if modules is None:
        paths = sorted(root.rglob("*.py"))
    else:
        bases = [root.joinpath(*m.split(".")) for m in sorted(modules)]
        paths = [p for base in bases
                 for p in (sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")])]
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]

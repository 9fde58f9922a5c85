"""Typed settings of paper 002's Table 1 (config ``wasserstein.settings``).

Built by :mod:`pufferfish.pipeline.config` from the validated config; a job builds the
section it receives (:mod:`pufferfish.settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.settings import Encoding, read_section

__all__ = ["WassersteinSetting"]


@dataclass(frozen=True)
class WassersteinSetting:
    """One setting of paper 002's Table 1 (config ``wasserstein.settings``): the released
    ``attribute`` of ``dataset`` (encoded by ``encoding``) given each value of the secret
    ``column`` (``values``: all present when None); DP sensitivity from ``domain`` or ``range``."""

    schema_path: ClassVar[str] = "/$defs/wasserstein_setting"
    name: str
    title: str | None
    note: str
    dataset: str
    attribute: str
    encoding: Encoding
    column: str
    values: tuple | None
    domain: tuple[int, int] | None
    range: float | None

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> WassersteinSetting:
        where = f"wasserstein.settings.{name}"
        s = read_section(section, where, required=("dataset", "attribute", "encoding", "column", "note"),
                         optional=("title", "values", "domain", "range"))
        return cls(name=name, title=s.get("title"), note=str(s["note"]), dataset=str(s["dataset"]),
                   attribute=str(s["attribute"]), encoding=Encoding.from_config(s["encoding"], where=f"{where}.encoding"),
                   column=str(s["column"]), values=None if s.get("values") is None else tuple(s["values"]),
                   domain=None if s.get("domain") is None else (int(s["domain"][0]), int(s["domain"][1])),
                   range=None if s.get("range") is None else float(s["range"]))

"""Typed settings of paper 002's Table 1 (config ``wasserstein.settings``).

Built by :mod:`pufferfish.pipeline.config` from the validated config; a job builds the
section it receives (:mod:`pufferfish.settings`). The section's cross-references are checked
by :func:`check_references`; what each setting reads of its dataset is :func:`data_requests`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.errors import ConfigError
from pufferfish.settings import DataRequest, Encoding, read_section

__all__ = ["WassersteinSetting", "from_config", "check_references", "data_requests"]


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


def from_config(section: Mapping) -> dict[str, WassersteinSetting]:
    """Config ``wasserstein``, validated: its Table 1 settings by name (in config order)."""
    s = read_section(section, "wasserstein", required=(), optional=("settings",))
    return {k: WassersteinSetting.from_config(k, v) for k, v in (s.get("settings") or {}).items()}


def check_references(config: Mapping) -> None:
    """Cross-references of config ``wasserstein.settings`` (paper 002's Table 1): datasets, DP range, output names.

    Each setting's dataset is a key of ``datasets``; its DP sensitivity is declared
    (``domain`` or ``range``; implied by an ``indicator`` or ``codes`` encoding,
    :func:`pufferfish.wasserstein.conditionals.declared_range`); the released attribute is
    not the secret column; and ``results/priors/wasserstein_<setting>.*`` is not also a
    user's prior (``results/priors/<user>.*``).

    Parameters
    ----------
    config : collections.abc.Mapping
        The whole configuration, validated by the schema (defaults filled in).

    Returns
    -------
    None
        Every reference holds.

    Raises
    ------
    ConfigError
        One line naming the key and what is wrong with it.
    """
    from pufferfish.wasserstein.conditionals import SECTION, declared_range

    settings = (config.get("wasserstein") or {}).get("settings", {})
    datasets = config.get("datasets", {})
    mu = config.get("multiuser", {})
    users = set(mu.get("users", {})) | set(mu.get("data_users", {}))
    for name, spec in settings.items():
        where = f"config: {SECTION}.{name}"
        if spec["dataset"] not in datasets:
            raise ConfigError(f"{where}.dataset = {spec['dataset']!r}: not a key of datasets "
                              f"(have: {', '.join(sorted(datasets))})")
        if spec["attribute"] == spec["column"]:
            raise ConfigError(f"{where}: attribute and column are both {spec['attribute']!r}; the secret "
                              "column must be another column")
        declared_range(spec, setting=name)
        if f"wasserstein_{name}" in users:
            raise ConfigError(f"{where}: results/priors/wasserstein_{name}.csv would also be the prior of the user "
                              f"wasserstein_{name} (multiuser); rename one of them")


def data_requests(config: Mapping, reader: Callable) -> list[DataRequest]:
    r"""What each setting reads: its released ``attribute`` given each value of its secret
    ``column``, read as its job builds the conditionals
    (:func:`pufferfish.wasserstein.conditionals.conditional_priors`).

    Parameters
    ----------
    config : collections.abc.Mapping
        The whole configuration, validated by the schema.
    reader : callable
        The function its jobs read the rows with, called as ``reader(frame, **arguments)``
        (the declaration passes it: :func:`pufferfish.wasserstein.paper.read_rows`).

    Returns
    -------
    list of pufferfish.settings.DataRequest
        One request per setting: its attribute and secret column.

    Raises
    ------
    KeyError
        A setting without ``dataset``, ``attribute`` or ``column`` (the schema requires them).
    """
    requests = []
    for name, spec in (config.get("wasserstein") or {}).get("settings", {}).items():
        where = f"wasserstein.settings.{name}"
        requests.append(DataRequest(where=where, dataset=spec["dataset"], label=where, low_memory=False,
                                    columns=((f"{where}.attribute", spec["attribute"]),
                                             (f"{where}.column", spec["column"])),
                                    reader=reader,
                                    arguments={"spec": spec, "setting": name}))
    return requests

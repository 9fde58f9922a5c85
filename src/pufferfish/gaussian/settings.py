"""Typed settings of paper 004's figures and GMM experiments (config ``gaussian``).

Figs. 1, 2 and 5 have fixed keys (:data:`PAPER_FIGURES`); ``gmm`` holds the mixture fits'
settings; every other key is a GMM experiment (Figs. 3, 4 and any added one,
:func:`gmm_experiment_names`). Built by :mod:`pufferfish.pipeline.config` from the validated
config; a job builds the section it receives (:mod:`pufferfish.settings`). The section's own
checks beyond the schema are :func:`check_keys` (before it) and :func:`check_references`;
what its GMM experiments read of their datasets is :func:`data_requests`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from pufferfish.errors import ConfigError
from pufferfish.grids import MAX_GRID, check_deltas
from pufferfish.settings import DataRequest, delta_grid, epsilon_grid, floats, read_section

__all__ = ["GaussianPrior", "Fig1Settings", "IntRange", "Fig2Settings", "Fig5Settings", "GMMSettings",
           "ConditionalSecret", "PrivacyPair", "GMMExperimentSettings", "GaussianSettings", "PAPER_FIGURES",
           "GAUSSIAN_FIXED_KEYS", "ROUNDINGS", "gmm_experiment_names", "check_keys", "check_references", "data_requests"]

#: the figures of paper 004 with a fixed key in config ``gaussian``
PAPER_FIGURES = ("fig1", "fig2", "fig5")
#: keys of the ``gaussian`` section that are not GMM experiments
GAUSSIAN_FIXED_KEYS = ("fig1", "fig2", "fig5", "gmm")
#: treatments of values recorded to a resolution (config ``gaussian.gmm.rounding``;
#: :func:`pufferfish.gaussian.gmm.fit_gmm`)
ROUNDINGS = ("dequantise", "variance", "none")


def gmm_experiment_names(gaussian: Mapping) -> list[str]:
    """The GMM experiments of paper 004 in config ``gaussian`` (fig3, fig4 and any added key), sorted.

    Parameters
    ----------
    gaussian : dict
        Config ``gaussian``.

    Returns
    -------
    list of str
        Its keys that are not the fixed ones (fig1, fig2, fig5, gmm).

    Raises
    ------
    ConfigError
        A ``gaussian`` section that is not a mapping.
    """
    if not isinstance(gaussian, Mapping):
        raise ConfigError(f"config: gaussian must be a mapping, not {type(gaussian).__name__}")
    return sorted(k for k in gaussian if k not in GAUSSIAN_FIXED_KEYS)


@dataclass(frozen=True)
class GaussianPrior:
    """A Gaussian prior G(``mean``, ``std``^2)."""

    schema_path: ClassVar[str] = "/$defs/gaussian_prior"
    mean: float
    std: float

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> GaussianPrior:
        s = read_section(section, where, required=("mean", "std"))
        return cls(float(s["mean"]), float(s["std"]))


@dataclass(frozen=True)
class Fig1Settings:
    """Fig. 1 of paper 004: two Gaussian priors, Laplace noise of scale ``laplace_b``, the plotted ``window``."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/fig1"
    priors: tuple[GaussianPrior, GaussianPrior]
    laplace_b: float
    window: tuple[float, float]

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "gaussian.fig1") -> Fig1Settings:
        s = read_section(section, where, required=("priors", "laplace_b", "window"))
        priors = tuple(GaussianPrior.from_config(p, where=f"{where}.priors[{k}]") for k, p in enumerate(s["priors"]))
        return cls(priors, float(s["laplace_b"]), floats(s["window"], f"{where}.window"))  # type: ignore[arg-type]


@dataclass(frozen=True)
class IntRange:
    """The integers ``start``, ..., ``stop`` (both included)."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/fig2/properties/K"
    start: int
    stop: int

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> IntRange:
        s = read_section(section, where, required=("start", "stop"))
        return cls(int(s["start"]), int(s["stop"]))

    def values(self) -> tuple[int, ...]:
        return tuple(range(self.start, self.stop + 1))


@dataclass(frozen=True)
class Fig2Settings:
    """Fig. 2 of paper 004: Corollary 1, eq. (11), for K identical users G(``mu``, sigma^2) over
    ``K`` and each ``sigma2``, at (``epsilon``, ``delta``)."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/fig2"
    mu: float
    sigma2: tuple[float, ...]
    K: IntRange
    epsilon: float
    delta: float

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "gaussian.fig2") -> Fig2Settings:
        s = read_section(section, where, required=("mu", "sigma2", "K", "epsilon", "delta"))
        return cls(float(s["mu"]), floats(s["sigma2"], f"{where}.sigma2"),
                   IntRange.from_config(s["K"], where=f"{where}.K"), float(s["epsilon"]), float(s["delta"]))


@dataclass(frozen=True)
class Fig5Settings:
    """Fig. 5 of paper 004: tau*(delta) over the ``deltas`` grid."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/fig5"
    deltas: tuple[float, ...]

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "gaussian.fig5") -> Fig5Settings:
        s = read_section(section, where, required=("deltas",))
        return cls(delta_grid(s["deltas"], f"{where}.deltas"))


@dataclass(frozen=True)
class GMMSettings:
    """Config ``gaussian.gmm``: mixture components, EM restarts and iterations of every GMM fit,
    and the treatment of values recorded to a resolution (``rounding``, one of
    :data:`ROUNDINGS`; the schema's default ``dequantise``)."""

    schema_path: ClassVar[str] = "/properties/gaussian/properties/gmm"
    components: int
    n_init: int
    max_iter: int
    rounding: str

    @classmethod
    def from_config(cls, section: Mapping, *, where: str = "gaussian.gmm") -> GMMSettings:
        s = read_section(section, where, required=("components", "n_init", "max_iter", "rounding"))
        if s["rounding"] not in ROUNDINGS:
            raise ConfigError(f"config: {where}.rounding = {s['rounding']!r}: must be one of {', '.join(ROUNDINGS)}")
        return cls(int(s["components"]), int(s["n_init"]), int(s["max_iter"]), str(s["rounding"]))


@dataclass(frozen=True)
class ConditionalSecret:
    """A secret of a GMM experiment: the rows with ``given`` (column -> value), shown as ``label``."""

    schema_path: ClassVar[str] = "/$defs/gmm_experiment/properties/secrets/items"
    label: str
    given: dict

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> ConditionalSecret:
        s = read_section(section, where, required=("label", "given"))
        return cls(str(s["label"]), dict(s["given"]))


@dataclass(frozen=True)
class PrivacyPair:
    """An (``epsilon``, ``delta``) target."""

    schema_path: ClassVar[str] = "/$defs/privacy_pair"
    epsilon: float
    delta: float

    @classmethod
    def from_config(cls, section: Mapping, *, where: str) -> PrivacyPair:
        s = read_section(section, where, required=("epsilon", "delta"))
        return cls(float(s["epsilon"]), float(s["delta"]))


@dataclass(frozen=True)
class GMMExperimentSettings:
    """A GMM experiment of paper 004 (Figs. 3-4 and any other key of config ``gaussian``).

    A numeric ``attribute`` of ``dataset`` given each of two ``secrets`` is fitted by a GMM;
    Theorem 2 (eq. 13) is audited at every (epsilon, delta) of ``privacy`` and over the
    ``epsilons`` grid. ``missing_values`` are codes of a missing attribute (dropped), ``unit``
    labels the axes and ``note`` is added to the caption.
    """

    schema_path: ClassVar[str] = "/$defs/gmm_experiment"
    name: str
    dataset: str
    attribute: str
    note: str
    unit: str
    missing_values: tuple
    secrets: tuple[ConditionalSecret, ConditionalSecret]
    privacy: tuple[PrivacyPair, ...]
    epsilons: tuple[float, ...]

    @classmethod
    def from_config(cls, name: str, section: Mapping) -> GMMExperimentSettings:
        where = f"gaussian.{name}"
        s = read_section(section, where, required=("dataset", "attribute", "note", "unit", "missing_values", "secrets",
                                                   "privacy", "epsilons"))
        secrets = tuple(ConditionalSecret.from_config(x, where=f"{where}.secrets[{k}]")
                        for k, x in enumerate(s["secrets"]))
        privacy = tuple(PrivacyPair.from_config(p, where=f"{where}.privacy[{k}]") for k, p in enumerate(s["privacy"]))
        return cls(name=name, dataset=str(s["dataset"]), attribute=str(s["attribute"]), note=str(s["note"]),
                   unit=str(s["unit"]), missing_values=tuple(s["missing_values"]), secrets=secrets,  # type: ignore[arg-type]
                   privacy=privacy, epsilons=epsilon_grid(s["epsilons"], f"{where}.epsilons"))

    def privacy_grid(self) -> list[tuple[float, float]]:
        """(epsilon, delta): the figure's pairs, then every epsilon of the grid at each of their
        deltas; sorted by decreasing delta, then increasing epsilon."""
        pairs = [(p.epsilon, p.delta) for p in self.privacy]
        deltas = list(dict.fromkeys(d for _, d in pairs))
        check_deltas(deltas, name=f"gaussian.{self.name}.privacy.delta")
        out = list(pairs)
        for d in deltas:
            for e in self.epsilons:
                if (e, d) not in out:
                    out.append((e, d))
        return sorted(out, key=lambda p: (-p[1], p[0]))


@dataclass(frozen=True)
class GaussianSettings:
    """Config ``gaussian`` (paper 004): Figs. 1, 2 and 5 (None when absent), the mixture
    settings ``gmm``, and the GMM ``experiments`` (every other key: fig3, fig4, ...)."""

    schema_path: ClassVar[str] = "/properties/gaussian"
    fig1: Fig1Settings | None
    fig2: Fig2Settings | None
    fig5: Fig5Settings | None
    gmm: GMMSettings
    experiments: dict[str, GMMExperimentSettings]

    @classmethod
    def from_config(cls, section: Mapping) -> GaussianSettings:
        # any key but the fixed ones is a GMM experiment: only ``gmm`` (a schema default) is required
        read_section(section, "gaussian", required=("gmm",), optional=tuple(section))
        experiments = {k: GMMExperimentSettings.from_config(k, v) for k, v in section.items()
                       if k not in GAUSSIAN_FIXED_KEYS}
        return cls(fig1=Fig1Settings.from_config(section["fig1"]) if "fig1" in section else None,
                   fig2=Fig2Settings.from_config(section["fig2"]) if "fig2" in section else None,
                   fig5=Fig5Settings.from_config(section["fig5"]) if "fig5" in section else None,
                   gmm=GMMSettings.from_config(section["gmm"]), experiments=dict(sorted(experiments.items())))

    def figures(self) -> list[str]:
        """The figures of :data:`PAPER_FIGURES` present in the config."""
        return [f for f in PAPER_FIGURES if getattr(self, f) is not None]

    def figure(self, name: str) -> Fig1Settings | Fig2Settings | Fig5Settings:
        """The settings of figure ``name`` (fig1, fig2 or fig5)."""
        value = getattr(self, name, None) if name in PAPER_FIGURES else None
        if value is None:
            raise ConfigError(f"config: gaussian.{name}: not a figure of the config (have: "
                              f"{', '.join(self.figures()) or 'none'})")
        return value

    @staticmethod
    def figure_from_config(name: str, section: Mapping) -> Fig1Settings | Fig2Settings | Fig5Settings:
        """The settings of figure ``name`` (fig1, fig2 or fig5) from its section of config ``gaussian``."""
        classes = {"fig1": Fig1Settings, "fig2": Fig2Settings, "fig5": Fig5Settings}
        if name not in classes:
            raise ConfigError(f"config: gaussian.{name}: not one of {', '.join(PAPER_FIGURES)}")
        return classes[name].from_config(section, where=f"gaussian.{name}")


# ------------------------------------------------------------------------------ checks beyond the schema
def check_keys(config: Mapping) -> None:
    """Keys of config ``gaussian`` that would be misread, refused before the schema reads them.

    A mistyped fixed key (``GMM``, ``Fig5``) would be read as a GMM experiment, and a GMM
    experiment named ``<other>_theta`` would write ``<other>``'s theta figure.

    Parameters
    ----------
    config : Mapping
        The whole configuration as read (not validated yet).

    Returns
    -------
    None

    Raises
    ------
    ConfigError
        One line naming the key.
    """
    gaussian = config.get("gaussian")
    if not isinstance(gaussian, Mapping):
        return
    for key in gaussian:
        if key not in GAUSSIAN_FIXED_KEYS and key.lower() in GAUSSIAN_FIXED_KEYS:
            raise ConfigError(f"config: gaussian.{key}: not one of {', '.join(GAUSSIAN_FIXED_KEYS)} (keys are "
                              f"case-sensitive; any other key is read as a GMM experiment)")
        if key.endswith("_theta"):
            raise ConfigError(f"config: gaussian.{key}: a GMM experiment name must not end in '_theta' "
                              f"(results/figures/gaussian/<name>_theta.* are the b tables' figures)")


def check_references(config: Mapping) -> None:
    """Cross-references of config ``gaussian`` that no schema can state, on the validated mapping:
    each GMM experiment's dataset is a key of ``datasets``, Fig. 2's K range is increasing and
    at most :data:`pufferfish.grids.MAX_GRID` long, Fig. 1's window is increasing.

    Parameters
    ----------
    config : Mapping
        The whole configuration, validated by the schema (defaults filled in).

    Returns
    -------
    None

    Raises
    ------
    ConfigError
        One line naming the key and what is wrong with it.
    """
    datasets = config.get("datasets", {})
    gauss = config.get("gaussian", {})
    for fig in gmm_experiment_names(gauss):
        spec = gauss[fig]
        if spec["dataset"] not in datasets:
            raise ConfigError(f"config: gaussian.{fig}.dataset = {spec['dataset']!r}: not a key of datasets")
    if "fig2" in gauss:
        start, stop = gauss["fig2"]["K"]["start"], gauss["fig2"]["K"]["stop"]
        if stop < start:
            raise ConfigError("config: gaussian.fig2.K.stop: must be >= K.start")
        if stop - start + 1 > MAX_GRID:
            raise ConfigError(f"config: gaussian.fig2.K = {{start: {start}, stop: {stop}}}: "
                              f"at most {MAX_GRID} values allowed")
    if "fig1" in gauss:
        lo, hi = gauss["fig1"]["window"]
        if not lo < hi:
            raise ConfigError(f"config: gaussian.fig1.window = [{lo}, {hi}]: must be increasing")


def data_requests(config: Mapping, reader: Callable) -> list[DataRequest]:
    """What each secret of each GMM experiment reads, for the data checks before any job.

    The numeric ``attribute`` given the secret's ``given`` columns, checked as the GMM job reads
    them (:func:`pufferfish.gaussian.gmm.check_secret_rows`).

    Parameters
    ----------
    config : dict
        The whole configuration, validated
        (:func:`pufferfish.pipeline.config.validate_config`).
    reader : callable
        The function its jobs read the rows with, called as ``reader(frame, **arguments)``
        (the declaration passes it: :func:`pufferfish.gaussian.paper.read_rows`).

    Returns
    -------
    list of pufferfish.settings.DataRequest
        One request per secret of each GMM experiment.

    Raises
    ------
    ConfigError
        A configuration that was not validated (a GMM experiment without its keys).
    """
    for fig in gmm_experiment_names(config.get("gaussian", {})):
        GMMExperimentSettings.from_config(fig, config["gaussian"][fig])
    gauss = config.get("gaussian", {})
    components = int(gauss.get("gmm", {}).get("components", 1))
    requests = []
    for fig in gmm_experiment_names(gauss):
        spec = gauss[fig]
        for k, secret in enumerate(spec["secrets"]):
            where = f"gaussian.{fig}.secrets[{k}]"
            columns = ((f"gaussian.{fig}.attribute", spec["attribute"]),) + tuple(
                (f"{where}.given.{column}", column) for column in secret["given"])
            requests.append(DataRequest(where=where, dataset=spec["dataset"], columns=columns, low_memory=False,
                                        reader=reader,
                                        arguments={"spec": spec, "secret": secret, "components": components},
                                        label=f"gaussian.{fig}"))
    return requests

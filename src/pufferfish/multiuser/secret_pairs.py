r"""The users and secret pairs of an experiment of paper 000, from config (``multiuser.users``,
``multiuser.data_users`` and an experiment's ``secrets`` or ``panels``).

:func:`build_users` makes a :class:`~pufferfish.lattice.system.User` of every configured user,
:func:`experiment_pairs` the :class:`~pufferfish.lattice.system.SecretPair` of every panel
(:func:`secret_from_spec`: ``absent``, ``{value: a}`` or ``{user: NAME}``), and :func:`secret_label`
and :func:`describe_secret` name a secret in tables and figures.
"""

from __future__ import annotations

from collections.abc import Mapping

from pufferfish.errors import ConfigError
from pufferfish.lattice.pmf import LatticePMF
from pufferfish.lattice.system import Absent, Draws, Reports, SecretPair, User
from pufferfish.multiuser.settings import users_from_config

__all__ = ["build_users", "secret_from_spec", "experiment_pairs", "secret_label", "describe_secret"]


# ------------------------------------------------------------------------------ config -> model
def build_users(mu_config: Mapping, data_pmfs: Mapping[str, LatticePMF]) -> dict[str, User]:
    r"""Every user of the validated ``multiuser`` config: lattice users and data-derived users.

    Parameters
    ----------
    mu_config : Mapping
        The ``multiuser`` section's ``users`` and ``data_users`` (read as
        :func:`pufferfish.multiuser.settings.users_from_config`: the presence :math:`\zeta` is the
        schema's default where config leaves it out).
    data_pmfs : Mapping[str, LatticePMF]
        The priors of the data-derived users read so far
        (:func:`~pufferfish.multiuser.user_priors.load_data_users`); a data user without one is left out.

    Returns
    -------
    dict of str to User

    Raises
    ------
    ConfigError
        A section the typed settings refuse.
    """
    lattice, data = users_from_config({"users": mu_config.get("users", {}), "data_users": mu_config.get("data_users", {})})
    users = {}
    for name, spec in lattice.items():
        pmf = LatticePMF.from_values(spec.values, spec.probabilities, name=f"multiuser.users.{name}")
        users[name] = User(pmf, spec.presence, name)
    for name, spec in data.items():
        if name in data_pmfs:
            users[name] = User(data_pmfs[name], spec.presence, name)
    return users


def secret_from_spec(spec, users: Mapping[str, User]):
    """A secret of config: ``absent`` / ``{value: a}`` / ``{user: NAME}``.

    Parameters
    ----------
    spec : str or Mapping
        The validated secret.
    users : Mapping[str, User]
        The users it may name.

    Returns
    -------
    Absent, Reports or Draws

    Raises
    ------
    ConfigError
        An unknown user.
    """
    if spec == "absent":
        return Absent()
    if "value" in spec:
        return Reports(int(spec["value"]))
    name = spec["user"]
    if name not in users:
        raise ConfigError(f"config: unknown user {name!r}")
    return Draws(users[name].pmf, name)


def experiment_pairs(spec: Mapping, users: Mapping[str, User]) -> dict[str, SecretPair]:
    """The secret pair of every panel of an experiment (panel ``""`` when there is one pair).

    Parameters
    ----------
    spec : Mapping
        The experiment's validated config entry.
    users : Mapping[str, User]
        Every user it names.

    Returns
    -------
    dict of str to SecretPair

    Raises
    ------
    ConfigError
        A user it names that ``users`` lacks.
    """
    panels = spec["panels"] if "panels" in spec else {"": {"secrets": spec["secrets"]}}
    pairs = {}
    for panel, pspec in panels.items():
        rest = [users[name] for name in pspec.get("rest", spec.get("rest", []))]
        first, second = (secret_from_spec(s, users) for s in pspec["secrets"])
        pairs[panel] = SecretPair.of(first, second, rest)
    return pairs


def secret_label(spec) -> str:
    """A secret's label: ``absent``, ``reports <a>`` or ``draws from <user>``.

    Parameters
    ----------
    spec : str or Mapping
        The validated secret.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        A mapping with neither ``value`` nor ``user``.
    """
    if spec == "absent":
        return "absent"
    if "value" in spec:
        return f"reports {spec['value']}"
    return f"draws from {spec['user']}"


def describe_secret(spec, records: Mapping[str, Mapping]) -> str:
    """A short label of a secret for figures: data users as ``attribute | condition (n=rows)``.

    Parameters
    ----------
    spec : str or Mapping
        The validated secret.
    records : Mapping[str, Mapping]
        User -> its provenance record (the data users).

    Returns
    -------
    str

    Raises
    ------
    KeyError
        A data user's record without its condition or row count.
    """
    if isinstance(spec, Mapping) and spec.get("user") in records:
        rec = records[spec["user"]]
        given = ", ".join(f"{k}={v}" for k, v in rec["given"].items())
        return f"{rec['attribute']} | {given} (n={rec['rows_used']})"
    return secret_label(spec)

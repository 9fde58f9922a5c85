"""Readers of the sensitivity jobs' written tables, for figure captions and the end-of-run warnings.

The workflow calls them when it builds its DAG (a caption param is evaluated on every run), so
this module imports nothing heavier than pandas, which Snakemake has loaded already: not the
audits, scipy or matplotlib of :mod:`pufferfish.sensitivity.experiments`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pufferfish.files import read_table

__all__ = ["attribute_caption", "noise_list", "coupling_violation_lines", "rising_lines", "read_coupling_violations",
           "diffusion_caption"]


def noise_list(flagged: str) -> str:
    """The noises of a figure CSV's ``closed_form_flagged`` (``"laplace gaussian"``) as words:
    ``"Laplace and Gaussian"``.

    Parameters
    ----------
    flagged : str
        Noise names separated by spaces (possibly empty).

    Returns
    -------
    str
        Capitalised names joined by commas and a final "and" (empty for none).

    Raises
    ------
    ArgumentTypeError
        ``flagged`` is not a string.
    """
    if not isinstance(flagged, str):
        from pufferfish.errors import ArgumentTypeError

        raise ArgumentTypeError(f"flagged = {flagged!r:.60}: must be a string of noise names")
    names = [n.capitalize() for n in flagged.split()]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def attribute_caption(figure_csv) -> list[str]:
    """One line per triple of a written attribute figure CSV
    (:data:`~pufferfish.sensitivity.experiments.FIGURE_COLUMNS`), for the figure's caption: the
    data's W_inf against the closed form, whether the closed-form scales fail the exact audit
    (and for which noises), and how few records the rarest protected value has.

    Parameters
    ----------
    figure_csv : path-like
        The attribute figure's numbers, as written.

    Returns
    -------
    list of str
        One sentence per triple.

    Raises
    ------
    OSError
        The file cannot be read.
    """
    lines = []
    for row in read_table(figure_csv).to_dict("records"):
        label = f"{row['dataset']}: {row['released']} | {row['protected']}"
        flagged = row["closed_form_flagged"] if isinstance(row["closed_form_flagged"], str) else ""
        ratio = (f"{row['empirical_w_inf'] / row['gaussian_w_inf']:.3g} times"
                 if row["gaussian_w_inf"] > 0 else "above")
        distances = (f"W∞ = {row['empirical_w_inf']:g} is {ratio} the closed form {row['gaussian_w_inf']:.4g}"
                     if row["empirical_w_inf"] > row["gaussian_w_inf"]
                     else f"the closed form {row['gaussian_w_inf']:.4g} is at least W∞ = {row['empirical_w_inf']:g}")
        if flagged:
            verdict = (f"the data's own conditionals need more noise than the closed form gives: its scales FAIL "
                       f"the exact audit on them ({noise_list(flagged)} noise); {distances}")
        else:
            verdict = (f"{distances}, and the closed-form scales pass the exact audit on the data's conditionals"
                       + (" (W∞ is sufficient, not necessary)" if row["empirical_w_inf"] > row["gaussian_w_inf"]
                          else ""))
        lines.append(f"{label} ({row['rows']} records, {row['protected_values']} protected values, the rarest with "
                     f"{row['min_rows']} record{'s' if row['min_rows'] != 1 else ''}): {verdict}.")
    return lines


def coupling_violation_lines(check: pd.DataFrame, *, rtol: float = 0.0) -> list[str]:
    """One WARNING line per row of a check table whose coupled distance exceeds bound * (1 + ``rtol``).

    Parameters
    ----------
    check : pandas.DataFrame
        Rows of a diffusion check table (those to report).
    rtol : float, optional
        The tolerance the check used (default 0).

    Returns
    -------
    list of str
        One WARNING line per row.

    Raises
    ------
    KeyError
        A check column missing.
    """
    lines = []
    for row in check.to_dict("records"):
        if row["coupled_max"] > row["bound"] * (1.0 + rtol):
            lines.append(f"WARNING: diffusion {row['potential']} lambda={row['lambda']:g} t={row['time']:g}: coupled "
                         f"|X_t - X'_t| = {row['coupled_max']:.6g} exceeds the bound D e^(-lambda t) = "
                         f"{row['bound']:.6g} (Prop. 6.3); see results/theta/diffusion_check.csv")
    return lines


def rising_lines(check: pd.DataFrame) -> list[str]:
    """One WARNING line per row of a check table whose coupled maximum rises above the previous
    time's (column ``rises``): the same paths serve every time and each Euler step contracts
    their differences, so it cannot (docs/math/closed-forms.md, "Diffusions").

    Parameters
    ----------
    check : pandas.DataFrame
        A diffusion check table.

    Returns
    -------
    list of str
        One WARNING line per rising row (none without a ``rises`` column).

    Raises
    ------
    KeyError
        A check column missing.
    """
    if "rises" not in check:
        return []
    flagged = check[check["rises"].astype(str).str.lower().isin(["true", "1"])]
    return [f"WARNING: diffusion {row['potential']} lambda={row['lambda']:g} t={row['time']:g}: the coupled maximum "
            f"{row['coupled_max']:.6g} rises above the previous time's on the same paths (each step contracts the "
            f"differences); see results/theta/diffusion_check.csv" for row in flagged.to_dict("records")]


def _flagged(check: pd.DataFrame) -> pd.Series:
    """The rows of a written check table whose ``violation`` reads true (as written: ``True``/``1``)."""
    return check["violation"].astype(str).str.lower().isin(["true", "1"])


def read_coupling_violations(check_csv) -> list[str]:
    """:func:`coupling_violation_lines` of the rows of a written check table flagged ``violation``
    (the job decided them with the audit's ``rtol``); nothing if the file does not exist.

    Parameters
    ----------
    check_csv : path-like
        The diffusion check table, as written (absent: no line).

    Returns
    -------
    list of str
        The WARNING lines of its violations and rising rows.

    Raises
    ------
    OSError
        The file exists but cannot be read.
    """
    if not Path(check_csv).exists():
        return []
    check = read_table(check_csv)
    return coupling_violation_lines(check[_flagged(check)]) + rising_lines(check)


def diffusion_caption(check_csv) -> str:
    """The verdict of a written check table, for the figure's caption: the largest
    coupled_max / bound and the rows above the bound.

    Parameters
    ----------
    check_csv : path-like
        The diffusion check table, as written.

    Returns
    -------
    str
        The caption.

    Raises
    ------
    OSError
        The file cannot be read.
    """
    check = read_table(check_csv)
    ratio = check["coupled_max"] / check["bound"]
    worst = check.loc[ratio.idxmax()]
    above = int(_flagged(check).sum())
    rising = len(rising_lines(check))
    return (f"Largest coupled distance over the bound: {ratio.max():.6g} ({worst['potential']}, λ = "
            f"{worst['lambda']:g}, t = {worst['time']:g}; {int(worst['paths'])} paths, Euler step "
            f"{worst['step']:.4g}). Rows above the bound: {above} of {len(check)}"
            + ("." if above == 0 else " (a WARNING at the end of the run names each).")
            + _rising_note(check, rising))


def _rising_note(check: pd.DataFrame, rising: int) -> str:
    """What the caption says of the coupled maximum across times (tables with a ``rises`` column)."""
    if "rises" not in check:
        return ""
    if rising == 0:
        return " The same paths serve every time, and their largest distance never rises with t (each step contracts it)."
    return f" The same paths serve every time, yet their largest distance rises with t at {rising} row(s) (a WARNING names each)."

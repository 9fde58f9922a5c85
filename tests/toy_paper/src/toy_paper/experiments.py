"""The toy paper's job: randomized response on one binary attribute, audited exactly, and its figure.

With priors Bernoulli(p_i) and Bernoulli(p_j) on the released bit (its laws among the records
of the two protected values) and RR(eps) on {0, 1}, the output laws are
P_s(Y = 1) = other + (keep - other) p_s (:meth:`RandomizedResponse.output_law`); the pufferfish
loss of the release is max_y log P_i(y) / P_j(y) (forward) and the same with i and j swapped
(backward), computed from the two laws, and never above eps (RR(eps) is eps-LDP).
"""

from __future__ import annotations

import numpy as np

from pufferfish.errors import DataError

__all__ = ["bernoulli_priors", "audit_rows", "run_toy"]

#: the audit table's method and noise
METHOD, NOISE = "rr", "randomized_response"


def bernoulli_priors(frame, *, settings) -> tuple[float, float]:
    """Pr(attribute = positive | protected = v) for each v of the pair.

    Raises
    ------
    DataError
        A column is missing, or a value of the pair has no record.
    """
    for column in (settings.attribute, settings.protected):
        if column not in frame.columns:
            raise DataError(f"toy: no column {column!r}")
    out = []
    for value in settings.pair:
        rows = frame[frame[settings.protected].astype(str) == str(value)]
        if rows.empty:
            raise DataError(f"toy: no record with {settings.protected} = {value!r}")
        out.append(float((rows[settings.attribute].astype(str) == str(settings.positive)).mean()))
    return out[0], out[1]


def audit_rows(priors: tuple[float, float], epsilons, *, rtol: float) -> list[dict]:
    """One audit row (the shared schema) per eps: the flip probability of RR(eps) and the exact loss."""
    from pufferfish.audit.target import target_for
    from pufferfish.audit.verdict import Verdict, audit_row
    from pufferfish.mechanisms.randomized_response import RandomizedResponse

    rows = []
    for epsilon in epsilons:
        rr = RandomizedResponse(size=2, epsilon=epsilon)
        law_i, law_j = (rr.output_law([1.0 - p, p]) for p in priors)
        forward, backward = float(np.max(np.log(law_i / law_j))), float(np.max(np.log(law_j / law_i)))
        target = target_for("epsilon", epsilon)
        meets = max(forward, backward) <= epsilon * (1.0 + rtol)
        rows.append(audit_row(Verdict(rr.other, target, forward, backward, meets), experiment="toy_rr", panel="",
                              method=METHOD, noise=NOISE))
    return rows


def run_toy(data_csv, settings, *, rtol: float, audit_csv, theta_csv, png, pdf, figure_csv) -> None:
    """The job: the priors, the audit table, the table of flip probabilities and the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from pufferfish.audit.verdict import audit_frame
    from pufferfish.files import write_csv
    from pufferfish.plotting import save_figure, series_style, setup_style

    priors = bernoulli_priors(pd.read_csv(data_csv, low_memory=False), settings=settings)
    audit = audit_frame(audit_rows(priors, settings.epsilons, rtol=rtol))
    write_csv(audit, audit_csv)
    theta = pd.DataFrame({"epsilon": audit.epsilon, "flip_probability": audit.scale, "p_i": priors[0],
                          "p_j": priors[1], "epsilon_achieved": audit.epsilon_achieved})
    write_csv(theta, theta_csv)
    plotted = theta[["epsilon", "epsilon_achieved"]]
    write_csv(plotted, figure_csv)
    setup_style()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(plotted.epsilon, plotted.epsilon, color="#000000", linestyle="--", label="target ε")
    ax.plot(plotted.epsilon, plotted.epsilon_achieved, **series_style(0), label="randomized response: exact loss")
    ax.set_xlabel("ε")
    ax.set_ylabel("pufferfish loss of the released bit")
    ax.set_title(f"{settings.attribute} given {settings.protected} = {settings.pair[0]} vs {settings.pair[1]}")
    ax.legend()
    save_figure(fig, png, pdf)

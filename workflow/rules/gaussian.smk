# Gaussian and GMM priors (paper 004, Ding, IEEE TIFS 2024): Figs. 1-5, every scale
# audited exactly (pufferfish.audit.laplace_mixture) with the tight scale b_min beside it.
# The work is in pufferfish.gaussian.experiments; the scripts only unpack snakemake.
#   gaussian_figure          Figs. 1 and 5 (closed forms, no scale to audit): b table and figure
#   gaussian_figure_audited  Fig. 2 (eq. 11 over K): the same rule, plus its audit table
#   gaussian_gmm             the GMM fits of a GMM experiment (Figs. 3, 4 and any added key)
#   gaussian_gmm_figure      Theorem 2 on those fits, audited, and the figures
# Fig. 1's caption numbers, the rows-used record of a GMM fit (standard library only)
from pufferfish.gaussian.captions import read_fig1_values, read_gmm_rows

GAUSS = config["gaussian"]  # the validated mappings: params (Snakemake reruns a job when they change)
GAUSSIAN = SETTINGS.gaussian  # the same, typed: which figures and experiments exist, their datasets
GAUSS_CATEGORY = "Gaussian priors (paper 004)"
FIGURES = GAUSSIAN.figures()  # fig1, fig2, fig5 when present
AUDITED_FIGURES = [f for f in FIGURES if f == "fig2"]  # the figure that calibrates a scale (eq. 11)
GMM_FIGS = sorted(GAUSSIAN.experiments)  # fig3, fig4 and any other GMM experiment key

# the outputs of a figure: its b table and the figure (PNG, PDF, plotted numbers); the audited
# figure (rule gaussian_figure_audited) adds its audit table
FIGURE_OUTPUT = {
    "theta": report(
        "results/theta/gaussian_{fig}.csv",
        caption="../report/theta_table.rst",
        category="Tables: theta and b",
        labels={"table": "gaussian_{fig}"},
    ),
    "png": report(
        "results/figures/gaussian/{fig}.png",
        caption="../report/gaussian_figure.rst",
        category=GAUSS_CATEGORY,
        labels={"figure": "{fig}"},
    ),
    "pdf": "results/figures/gaussian/{fig}.pdf",
    "csv": "results/figures/gaussian/{fig}.csv",
}
AUDITED_FIGURE_OUTPUT = {**FIGURE_OUTPUT, "audit": "results/audit/gaussian_{fig}.csv"}


rule gaussian_figure:
    output:
        **FIGURE_OUTPUT,
    log:
        "results/logs/gaussian_figure/{fig}.log",
    wildcard_constraints:
        fig=alternatives(set(FIGURES) - set(AUDITED_FIGURES)),
    group:
        "pufferfish"
    params:
        code=CODE,
        spec=lambda w: GAUSS[w.fig],
        # Fig. 1's numbers for its caption, read once the job has written them
        values=lambda w, output: once_written(output.theta, read_fig1_values, {}) if w.fig == "fig1" else {},
    script:
        "../scripts/gaussian_figure.py"


# Snakemake outputs cannot depend on a wildcard: Fig. 2's extra audit table makes it this
# variant of the rule above (same script and params, plus the audit settings).
use rule gaussian_figure as gaussian_figure_audited with:
    output:
        **AUDITED_FIGURE_OUTPUT,
    wildcard_constraints:
        fig=alternatives(AUDITED_FIGURES),
    params:
        audit=config["audit"],


rule gaussian_gmm:
    input:
        csv=lambda w: raw_csv(GAUSSIAN.experiments[w.fig].dataset),
        json=lambda w: raw_json(GAUSSIAN.experiments[w.fig].dataset),
    output:
        json="results/gmm/gaussian_{fig}.json",
    log:
        "results/logs/gaussian_gmm/{fig}.log",
    wildcard_constraints:
        fig=alternatives(GMM_FIGS),
    group:
        "pufferfish"
    params:
        code=CODE,
        spec=lambda w: GAUSS[w.fig],
        gmm=GAUSS["gmm"],
        seed=config["seed"],
    script:
        "../scripts/gaussian_gmm.py"


rule gaussian_gmm_figure:
    input:
        gmm="results/gmm/gaussian_{fig}.json",
        csv=lambda w: raw_csv(GAUSSIAN.experiments[w.fig].dataset),
    output:
        theta=report(
            "results/theta/gaussian_{fig}.csv",
            caption="../report/theta_table.rst",
            category="Tables: theta and b",
            labels={"table": "gaussian_{fig}"},
        ),
        audit="results/audit/gaussian_{fig}.csv",
        png=report(
            "results/figures/gaussian/{fig}.png",
            caption="../report/gaussian_gmm_figure.rst",
            category=GAUSS_CATEGORY,
            labels={"figure": "{fig}"},
        ),
        pdf="results/figures/gaussian/{fig}.pdf",
        csv="results/figures/gaussian/{fig}.csv",
        theta_png=report(
            "results/figures/gaussian/{fig}_theta.png",
            caption="../report/gaussian_gmm_theta.rst",
            category=GAUSS_CATEGORY,
            labels={"figure": "{fig}_theta"},
        ),
        theta_pdf="results/figures/gaussian/{fig}_theta.pdf",
        theta_csv="results/figures/gaussian/{fig}_theta.csv",
    log:
        "results/logs/gaussian_gmm_figure/{fig}.log",
    wildcard_constraints:
        fig=alternatives(GMM_FIGS),
    group:
        "pufferfish"
    params:
        code=CODE,
        spec=lambda w: GAUSS[w.fig],
        audit=config["audit"],
        seed=config["seed"],
        # read when the job runs (the caption lists the rows used per secret)
        rows=lambda w, input: read_gmm_rows(input.gmm),
    script:
        "../scripts/gaussian_gmm_figure.py"


# every final output of the figures and GMM experiments present in the config
TARGETS.extend(f"results/theta/gaussian_{fig}.csv" for fig in FIGURES + GMM_FIGS)
TARGETS.extend(f"results/audit/gaussian_{fig}.csv" for fig in AUDITED_FIGURES + GMM_FIGS)
AUDIT_TABLES.extend(f"results/audit/gaussian_{fig}.csv" for fig in AUDITED_FIGURES + GMM_FIGS)
TARGETS.extend(f"results/gmm/gaussian_{fig}.json" for fig in GMM_FIGS)
TARGETS.extend(expand("results/figures/gaussian/{fig}.{ext}", fig=FIGURES + GMM_FIGS, ext=["png", "pdf", "csv"]))
TARGETS.extend(expand("results/figures/gaussian/{fig}_theta.{ext}", fig=GMM_FIGS, ext=["png", "pdf", "csv"]))

# Gaussian and GMM priors (paper 004, Ding, IEEE TIFS 2024): Figs. 1-5, every scale
# audited exactly (pufferfish.audit.gaussian_prior) with the tight scale b_min beside it.
# The work is in pufferfish.gaussian.experiments; the scripts only unpack snakemake.
GAUSS = config["gaussian"]
GAUSS_CATEGORY = "Gaussian priors (paper 004)"
GMM_FIGS = gmm_experiment_names(GAUSS)  # fig3, fig4 and any other GMM experiment key


if "fig1" in GAUSS:

    rule gaussian_fig1:
        output:
            theta=report(
                "results/theta/gaussian_fig1.csv",
                caption="../report/theta_table.rst",
                category="Tables: theta and b",
                labels={"table": "gaussian_fig1"},
            ),
            png=report(
                "results/figures/gaussian/fig1.png",
                caption="../report/gaussian_fig1.rst",
                category=GAUSS_CATEGORY,
                labels={"figure": "fig1"},
            ),
            pdf="results/figures/gaussian/fig1.pdf",
            csv="results/figures/gaussian/fig1.csv",
        params:
            code=CODE,
            spec=GAUSS["fig1"],
        log:
            "results/logs/gaussian_fig1/fig1.log",
        script:
            "../scripts/gaussian_fig1.py"


if "fig2" in GAUSS:

    rule gaussian_fig2:
        output:
            theta=report(
                "results/theta/gaussian_fig2.csv",
                caption="../report/theta_table.rst",
                category="Tables: theta and b",
                labels={"table": "gaussian_fig2"},
            ),
            audit="results/audit/gaussian_fig2.csv",
            png=report(
                "results/figures/gaussian/fig2.png",
                caption="../report/gaussian_fig2.rst",
                category=GAUSS_CATEGORY,
                labels={"figure": "fig2"},
            ),
            pdf="results/figures/gaussian/fig2.pdf",
            csv="results/figures/gaussian/fig2.csv",
        params:
            code=CODE,
            spec=GAUSS["fig2"],
            audit=config["audit"],
        log:
            "results/logs/gaussian_fig2/fig2.log",
        script:
            "../scripts/gaussian_fig2.py"


rule gaussian_gmm:
    input:
        csv=lambda w: raw_csv(GAUSS[w.fig]["dataset"]),
        json=lambda w: raw_json(GAUSS[w.fig]["dataset"]),
    output:
        json="results/gmm/gaussian_{fig}.json",
    params:
        code=CODE,
        spec=lambda w: GAUSS[w.fig],
        gmm=GAUSS["gmm"],
        seed=config["seed"],
    log:
        "results/logs/gaussian_gmm/{fig}.log",
    wildcard_constraints:
        fig=alternatives(GMM_FIGS),
    script:
        "../scripts/gaussian_gmm.py"


rule gaussian_gmm_figure:
    input:
        gmm="results/gmm/gaussian_{fig}.json",
        csv=lambda w: raw_csv(GAUSS[w.fig]["dataset"]),
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
    params:
        code=CODE,
        spec=lambda w: GAUSS[w.fig],
        audit=config["audit"],
        seed=config["seed"],
        # read when the job runs (the caption lists the rows used per secret)
        rows=lambda w, input: read_gmm_rows(input.gmm),
    log:
        "results/logs/gaussian_gmm_figure/{fig}.log",
    wildcard_constraints:
        fig=alternatives(GMM_FIGS),
    script:
        "../scripts/gaussian_gmm_figure.py"


if "fig5" in GAUSS:

    rule gaussian_fig5:
        output:
            theta=report(
                "results/theta/gaussian_fig5.csv",
                caption="../report/theta_table.rst",
                category="Tables: theta and b",
                labels={"table": "gaussian_fig5"},
            ),
            png=report(
                "results/figures/gaussian/fig5.png",
                caption="../report/gaussian_fig5.rst",
                category=GAUSS_CATEGORY,
                labels={"figure": "fig5"},
            ),
            pdf="results/figures/gaussian/fig5.pdf",
            csv="results/figures/gaussian/fig5.csv",
        params:
            code=CODE,
            spec=GAUSS["fig5"],
        log:
            "results/logs/gaussian_fig5/fig5.log",
        script:
            "../scripts/gaussian_fig5.py"


# every final output of the figures present in the config
GAUSS_TARGETS = {
    "fig1": ["results/theta/gaussian_fig1.csv"]
    + expand("results/figures/gaussian/fig1.{ext}", ext=["png", "pdf", "csv"]),
    "fig2": ["results/theta/gaussian_fig2.csv", "results/audit/gaussian_fig2.csv"]
    + expand("results/figures/gaussian/fig2.{ext}", ext=["png", "pdf", "csv"]),
    "fig5": ["results/theta/gaussian_fig5.csv"]
    + expand("results/figures/gaussian/fig5.{ext}", ext=["png", "pdf", "csv"]),
}
for fig in GMM_FIGS:
    GAUSS_TARGETS[fig] = [
        f"results/gmm/gaussian_{fig}.json",
        f"results/theta/gaussian_{fig}.csv",
        f"results/audit/gaussian_{fig}.csv",
    ] + expand("results/figures/gaussian/{fig}{kind}.{ext}", fig=fig, kind=["", "_theta"], ext=["png", "pdf", "csv"])
TARGETS.extend(t for fig, files in GAUSS_TARGETS.items() if fig in GAUSS for t in files)

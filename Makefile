# Two entry points (see README): `make reproduce` and `make test`; `make docs` builds the site.
# Both create .venv on first use, install the pinned requirements and this package,
# and are idempotent: the install step reruns only when requirements.txt or
# pyproject.toml change, and Snakemake reruns only the jobs whose inputs changed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CORES  ?= all
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: setup reproduce test test-slow test-faults test-fast test-slurm test-pages test-figures docs lint clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; v = sys.version_info; sys.exit(0 if v >= (3, 11) else "error: Python >= 3.11 is needed, found %d.%d; run make PYTHON=/path/to/python3.x" % v[:2])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $@

# A snakemake killed with SIGKILL leaves its lock in .snakemake/locks; it is removed here only
# when no snakemake process runs in this directory (else: one line saying what to do).
reproduce: $(STAMP)
	@$(BIN)/python -m pufferfish.pipeline.jobs release-stale-lock
	$(BIN)/snakemake --workflow-profile workflow/profiles/default --cores $(CORES)
	$(BIN)/snakemake --cores 1 --report results/report.html --report-stylesheet workflow/report/report.css

# every test but those marked slow, under two minutes on 2 cores; CI runs `make test-slow` too.
# pytest-xdist runs them on every CPU there is (-n auto; TEST_JOBS=n for n workers, 0 for one process);
# worksteal: a worker that runs dry takes tests from the other. The property tests draw the number of
# examples their Hypothesis profile sets (MAX_EXAMPLES in tests/conftest.py, the same for CI and a
# local run; PUFFERFISH_MAX_EXAMPLES=n for a deeper run), never one of their own.
TEST_JOBS ?= auto
test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" -n $(TEST_JOBS) --dist worksteal

# the tests marked slow (pyproject.toml): a second complete run of the tiny project (determinism),
# killed and resumed runs, a non-editable install, the mpmath oracles
test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

# the fault-injection check (tests/faults, run by CI after test-slow): for each exact computation of the
# catalog and each region of its inputs, its result is nudged by a relative 1e-6 there only and the fast
# tests that reach it are run again. One recording run of the fast unit tests (FAULT_RECORD_JOBS=n: on n
# pytest-xdist workers) finds which tests reach each (computation, region); then the fault runs, one per
# CPU at once (FAULT_JOBS=n to change), each in a forked child of a warm worker, rerunning only its tests,
# fastest first, -x. One line per (computation, region) with the test that caught it, then
# `faults caught: N of M` (exit 1 unless N = M). About 15 min on 2 cores; --only SUBSTRING for a subset.
test-faults: $(STAMP)
	PUFFERFISH_HYPOTHESIS=ci $(BIN)/python -m tests.faults.run

# the whole workflow through workflow/profiles/slurm on a real, throwaway single-node Slurm
# (.ci/slurm: Debian's packages, installed when missing; needs root, else it says so and
# exits 0), in group jobs (at most 8 sbatch jobs, at most twice the wall time of a local run it
# times itself), compared byte for byte with that local run; then a group job failing once
# (retried), one cancelled with scancel (nothing partial left, a rerun completes it), an edit
test-slurm: $(STAMP)
	bash .ci/slurm

# what reviewers and practitioners open, in a real browser: results/report.html and every page of
# docs/_build/html (run make reproduce and make docs first), in headless Chromium from Debian's
# packages (.ci/pages: installed when missing; needs root, else it says so and exits 0), driven
# by Playwright; first the checker's own tests on deliberately broken pages; screenshots in
# artifacts/pages/; last line `pages checked: N, problems: M`
test-pages: $(STAMP)
	bash .ci/pages

# every figure of a full run drawn with the figure check on (pufferfish.figure_check: hidden artists,
# contrast, text, legends over data, squeezed axes, raw identifiers): the workflow runs in a scratch
# directory (the downloaded data copied in; results/ is left alone), each figure's problems go to a
# record there, and the last line is `figures checked: N, problems: M` (exit 1 unless M = 0)
test-figures: $(STAMP)
	@scratch=$$(mktemp -d) && trap 'rm -rf "$$scratch"' EXIT && mkdir -p "$$scratch/data" && \
	cp config.yaml "$$scratch/" && { [ ! -d data/raw ] || cp -r data/raw "$$scratch/data/"; } && \
	{ PUFFERFISH_CHECK_FIGURES="$$scratch/records" $(BIN)/snakemake --workflow-profile workflow/profiles/default \
	    --cores $(CORES) --snakefile "$(CURDIR)/Snakefile" --configfile "$(CURDIR)/config.yaml" \
	    --directory "$$scratch" --quiet > "$$scratch/run.log" 2>&1 || { tail -40 "$$scratch/run.log"; exit 1; }; } && \
	$(BIN)/python -m pufferfish.figure_check "$$scratch/records" "$$scratch/results/figures"

# the unit tests only (no Snakemake run, nothing slow), under a minute
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not integration and not slow"

# the documentation site (docs/, Sphinx): warnings are errors (nitpicky cross-references, every
# public name in the API reference), then every example of the pages is executed (doctest)
docs: $(STAMP)
	$(BIN)/sphinx-build -n -W --keep-going -q -b html -d docs/_build/doctrees docs docs/_build/html
	$(BIN)/sphinx-build -n -W --keep-going -q -b doctest -d docs/_build/doctrees docs docs/_build/doctest
	@echo "docs: docs/_build/html/index.html"

# the Snakemake conventions: snakefmt --check, and snakemake --lint clean but for the conda note
lint: $(STAMP)
	BIN=$(BIN) bash .ci/lint

clean:
	rm -rf results .snakemake docs/_build docs/api/generated

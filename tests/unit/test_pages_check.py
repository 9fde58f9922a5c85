"""The browser check of the report and the site (.ci/pages_check.py) fails when it should.

Without a browser: the registered figures are read off the rules, and links and anchors are
followed on files. With the system's Chromium (marked slow; skipped where there is none, run by
``make test-pages`` before it checks the real pages): small pages with one deliberate fault each
(a missing image, a broken anchor, an unrendered formula, a TeX error, LaTeX left as text, a
console error, an uncaught exception, an empty table, a table wider than the column, a request
to the network) each give their problem and nothing else, the same pages without the fault give
none; a real Snakemake report of a tiny workflow opens every figure by its buttons, and a figure
the rules register that the report lacks is reported.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("pages_check", REPO / ".ci" / "pages_check.py")
pages_check = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("pages_check", pages_check)      # its dataclasses look their module up
_spec.loader.exec_module(pages_check)

BROWSER = os.environ.get("PUFFERFISH_CHROMIUM", "/usr/bin/chromium")


def png(width: int = 3, height: int = 2) -> bytes:
    """A valid RGB PNG (red), built by hand: the browser must decode it to a natural width."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


# ------------------------------------------------------------------------------ no browser needed
def test_registered_patterns_are_every_png_of_a_report_call(tmp_path):
    (tmp_path / "a.smk").write_text(textwrap.dedent('''
        rule one:
            output:
                png=report(
                    "results/figures/x/{name}.png",
                    caption="../report/x.rst",
                ),
                csv=report("results/theta/x.csv", caption="c.rst"),
                pdf="results/figures/x/{name}.pdf",
        rule two:
            output: report('results/figures/y/fixed.png', category="Y"), "results/figures/y/unregistered.png"
    '''))
    (tmp_path / "notes.txt").write_text('report("results/elsewhere.png")')     # not a rules file
    assert pages_check.registered_patterns(tmp_path) == ["results/figures/x/{name}.png", "results/figures/y/fixed.png"]


def test_the_workflow_registers_every_png_it_names():
    """Every PNG path written in the rules is registered with report(...): the parser sees them all."""
    rules = REPO / "workflow" / "rules"
    named = set()
    for path in rules.glob("*.smk"):
        text = path.read_text()
        named.update(pages_check.re.findall(r'[^f]"(results/[^"]+\.png)"', text))
        named.update(pages_check.unescape_fstring(m) for m in pages_check.re.findall(r'f"(results/[^"]+\.png)"', text))
    assert named and set(pages_check.registered_patterns(rules)) == named


def test_an_f_string_registration_is_a_wildcard_pattern(tmp_path):
    (tmp_path / "a.smk").write_text('png=report(f"results/figures/d/{{case}}_{f}.png", caption="x.rst")\n')
    patterns = pages_check.registered_patterns(tmp_path)
    assert patterns == ["results/figures/d/{case}_{f}.png"]
    assert pages_check.pattern_regex(patterns[0]).match("results/figures/d/adult_sex_delta.png")


def test_pattern_regex_matches_wildcards_within_one_folder():
    regex = pages_check.pattern_regex("results/figures/{paper}/{fig,[a-z0-9]+}_theta.png")
    assert regex.match("results/figures/gaussian/fig3_theta.png")
    assert not regex.match("results/figures/gaussian/deep/fig3_theta.png")
    assert not regex.match("results/figures/gaussian/fig3_theta.png.bak")
    assert not regex.match("results/figures/gaussian/fig3.png")


def test_expected_figures_and_a_pattern_that_matches_nothing(tmp_path):
    for rel in ("results/figures/a/one.png", "results/figures/a/two.png", "results/figures/b/x.pdf"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(png())
    problems = pages_check.Problems()
    got = pages_check.expected_figures(tmp_path, ["results/figures/a/{n}.png", "results/figures/b/{n}.png"], problems)
    assert got == ["results/figures/a/one.png", "results/figures/a/two.png"]
    assert problems.items == ["workflow/rules: report(...) registers results/figures/b/{n}.png, "
                              "but no such PNG is under results/"]


def test_links_and_anchors_on_files(tmp_path):
    (tmp_path / "a.html").write_text('<h1 id="top">A</h1><p><a name="old">x</a></p>')
    (tmp_path / "b.html").write_text('<section id="caf%C3%A9-x"></section><section id="café"></section>')
    (tmp_path / "data.csv").write_text("x\n1\n")
    page = "site/index.html"
    a, b = (tmp_path / "a.html").as_uri(), (tmp_path / "b.html").as_uri()
    links = {page: [f"{a}#top", f"{a}#old", f"{a}#nowhere", f"{b}#caf%C3%A9", f"{a}", (tmp_path / "data.csv").as_uri(),
                    (tmp_path / "gone.html").as_uri() + "#x", "https://doi.org/10.1/x#frag", "mailto:x@y.z"]}
    problems = pages_check.Problems()
    checked = pages_check.check_links(links, {}, problems, lambda url: url.rsplit("/", 1)[-1])
    assert checked == 7                          # the two external links are not followed
    assert problems.items == ["site/index.html: broken anchor a.html#nowhere (no id 'nowhere')",
                              "site/index.html: broken link to gone.html (no such file)"]


# ------------------------------------------------------------------------------ in the browser
def _mathjax() -> Path:
    package = Path(importlib.import_module("sphinx-mathjax-offline").__file__).parent
    return package / "static" / "mathjax" / "tex-chtml.js"


def page(body: str, *, math: bool = False) -> str:
    """An HTML page; ``math``: with the site's MathJax, configured as docs/conf.py does."""
    head = ""
    if math:
        head = ('<script>window.MathJax = {tex: {packages: {"[-]": ["noerrors", "noundefined"]}}, '
                'options: {processHtmlClass: "math"}};</script>'
                f'<script defer src="{_mathjax().as_uri()}"></script>')
    return f"<!doctype html><html><head><meta charset='utf-8'>{head}</head><body>{body}</body></html>"


GOOD = page("""
    <h1 id="top">Good</h1>
    <p><img src="figure.png" alt="a figure"> <a href="other.html#sec">other</a> <a href="#top">top</a>
       <a href="https://example.org/">outside</a></p>
    <table><tr><th>epsilon</th><th>scale</th></tr><tr><td>1</td><td>2</td></tr></table>
    <p>The bound <span class="math">\\(b = W_\\infty / \\epsilon\\)</span>, and a dollar: $5 costs.</p>
    <div class="math">\\[\\frac{\\alpha}{2\\sigma^2} \\sum_t a_t^2\\]</div>
    <pre>code may hold \\epsilon and $x$</pre>
""", math=True)
OTHER = page('<h2 id="sec">Section</h2><p><a href="index.html">back</a></p>')

#: one fault per page, and the start of the one problem it must give
FAULTS = {
    "missing image": (page('<img src="nowhere.png">'), ["image does not load", "could not load nowhere.png"]),
    "broken anchor": (page('<a href="other.html#no-such-section">x</a>'), ["broken anchor other.html#no-such-section"]),
    "broken link": (page('<a href="missing.html">x</a>'), ["broken link to missing.html"]),
    "formula not typeset": (page('<span class="math">\\(x^2\\)</span>'), ["formula not rendered by MathJax"]),
    "TeX error": (page('<span class="math">\\(\\frac{1}{\\nosuchmacro}\\)</span>', math=True),
                  ["formula with a TeX error: Undefined control sequence \\nosuchmacro"]),
    "LaTeX as text": (page("<p>the target $\\epsilon$ of the run</p>"),
                      ["LaTeX shown as text: the target $\\epsilon$"]),
    "console error": (page("<script>console.error('boom')</script>"), ["console error: boom"]),
    "uncaught exception": (page("<script>throw new Error('kaboom')</script>"), ["uncaught exception: kaboom"]),
    "empty table": (page("<table><thead><tr><th>a</th></tr></thead><tbody></tbody></table>"), ["empty table"]),
    "wide table": (page('<div style="width: 300px"><table><tr><td>' + "x" * 400 + "</td></tr></table></div>"),
                   ["table wider than the page column"]),
    "network request": (page('<script src="https://cdn.example.org/lib.js"></script>'),
                        ["request leaves file:// (blocked): https://cdn.example.org/lib.js"]),
}


@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("playwright.sync_api")
    if not Path(BROWSER).exists():
        pytest.skip(f"no browser at {BROWSER} (make test-pages installs Debian's chromium)")
    problems = pages_check.Problems()
    opened = pages_check.Browser(BROWSER, problems, lambda url: url.rsplit("/", 1)[-1])
    yield opened
    opened.close()


def _site(root: Path, fault: str | None) -> Path:
    site = root / "site"
    shutil.rmtree(site, ignore_errors=True)
    site.mkdir(parents=True)
    (site / "index.html").write_text(GOOD)
    (site / "other.html").write_text(OTHER)
    (site / "figure.png").write_bytes(png())
    if fault:
        (site / "faulty.html").write_text(FAULTS[fault][0])
    return site


def _check(browser, site: Path, out: Path) -> list[str]:
    browser.problems.items.clear()
    count, shots = pages_check.check_site(browser, site, out, browser.problems)
    assert count == len(list(site.glob("*.html")))
    return list(browser.problems.items)


@pytest.mark.slow
def test_the_good_pages_have_no_problem(browser, tmp_path):
    assert _check(browser, _site(tmp_path, None), tmp_path) == [
        "site: no page math/paper002-wasserstein.html to take a screenshot of",
        "site: no page api/index.html to take a screenshot of",
        "site: no page api/generated/pufferfish.html to take a screenshot of"]
    assert (tmp_path / "site-index.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_is_found(browser, tmp_path, fault):
    problems = [p for p in _check(browser, _site(tmp_path, fault), tmp_path) if not p.startswith("site: no page")]
    expected = FAULTS[fault][1]
    assert len(problems) == len(expected), problems
    for problem, start in zip(sorted(problems), sorted(expected)):
        assert problem.startswith(f"site/faulty.html: {start}"), problems


# ------------------------------------------------------------------------------ a real report
RULES = '''
rule fig_a:
    output: report("results/figures/a/{name}.png", caption="../report/a.rst", category="A", labels={"figure": "{name}"})
    run:
        open(output[0], "wb").write(bytes.fromhex(PNG))

rule fig_b:
    output: report("results/figures/b/{name}.png", caption="../report/a.rst", category="B", subcategory="{name}")
    run:
        open(output[0], "wb").write(bytes.fromhex(PNG))

rule table:
    output: report("results/t.csv", caption="../report/a.rst", category="A", labels={"figure": "table"})
    run:
        open(output[0], "w").write(TABLE)
'''


@pytest.fixture(scope="module")
def tiny_report(tmp_path_factory, browser):
    """A real Snakemake report of a tiny workflow: category A (labelled rows, a CSV), B (subcategories)."""
    root = tmp_path_factory.mktemp("tiny_workflow")
    (root / "workflow" / "rules").mkdir(parents=True)
    (root / "workflow" / "report").mkdir()
    (root / "workflow" / "report" / "a.rst").write_text("A figure of the **tiny** workflow.\n")
    (root / "workflow" / "rules" / "figs.smk").write_text(RULES)
    (root / "Snakefile").write_text(textwrap.dedent(f'''
        PNG = "{png().hex()}"
        TABLE = "x,y\\n1,2\\n"
        rule all:   # the default target: the first rule of the Snakefile itself, not of an include
            input: "results/figures/a/one.png", "results/figures/b/x.png", "results/figures/b/y.png", "results/t.csv"
        include: "workflow/rules/figs.smk"
    '''))
    snakemake = Path(sys.executable).parent / "snakemake"
    for extra in ([], ["--report", "report.html"]):
        run = subprocess.run([str(snakemake), "--cores", "1", "--quiet", *extra], cwd=root,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
    return root


@pytest.mark.slow
def test_every_figure_of_the_report_opens_by_its_buttons(browser, tiny_report, tmp_path):
    browser.problems.items.clear()
    expected = pages_check.expected_figures(
        tiny_report, pages_check.registered_patterns(tiny_report / "workflow" / "rules"), browser.problems)
    assert expected == ["results/figures/a/one.png", "results/figures/b/x.png", "results/figures/b/y.png"]
    views, shots = pages_check.check_report(browser, tiny_report / "report.html", expected, tmp_path, browser.problems)
    assert browser.problems.items == []
    assert views == 1 + 3 + 2                   # start page, three figures, Statistics and About
    assert sorted(s.name for s in shots) == ["report-a.png", "report-b.png", "report-start.png"]


@pytest.mark.slow
def test_a_registered_figure_missing_from_the_report(browser, tiny_report, tmp_path):
    stale = tiny_report / "results" / "figures" / "a" / "stale.png"     # on disk, registered, not in the report
    stale.write_bytes(png())
    try:
        browser.problems.items.clear()
        expected = pages_check.expected_figures(
            tiny_report, pages_check.registered_patterns(tiny_report / "workflow" / "rules"), browser.problems)
        pages_check.check_report(browser, tiny_report / "report.html", expected, tmp_path, browser.problems)
    finally:
        stale.unlink()
    assert browser.problems.items == [
        "report: figure results/figures/a/stale.png (registered with report(...)) is not in the report"]


@pytest.mark.slow
def test_main_prints_the_count_and_fails_on_a_problem(tiny_report, tmp_path, browser):
    site = _site(tmp_path, None)
    command = [sys.executable, str(REPO / ".ci" / "pages_check.py"), "--browser", BROWSER,
               "--report", str(tiny_report / "report.html"), "--site", str(site), "--rules",
               str(tiny_report / "workflow" / "rules"), "--root", str(tiny_report), "--out", str(tmp_path / "shots")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr      # the site lacks the pages given a screenshot
    assert run.stdout.strip().splitlines()[-1] == "pages checked: 8, problems: 3"
    for rel in pages_check.SITE_SHOTS:
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(OTHER.replace('href="index.html"', 'href="#sec"'))
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().splitlines()[-1] == "pages checked: 11, problems: 0"
    assert f"screenshots (1366x900): {(tmp_path / 'shots').resolve()}/" in run.stdout
    assert sorted(p.name for p in (tmp_path / "shots").glob("*.png")) == sorted(
        ["report-start.png", "report-a.png", "report-b.png", *pages_check.SITE_SHOTS.values()])

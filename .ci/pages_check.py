"""The report and the documentation site in a real browser (issue 32); run by ``.ci/pages``.

Opens ``results/report.html`` (Snakemake's report, a single-page app) and every page of the
built documentation site from the files, in headless Chromium (Debian's, driven by Playwright;
nothing is downloaded), and reports as a problem:

* a console error or an uncaught exception of the page;
* a request that leaves ``file://`` (a CDN, a font, a tracker: the pages must work offline;
  such requests are blocked, not sent) or a file the page asks for that does not exist;
* an image that does not load (``naturalWidth`` 0);
* a broken internal link: a file that does not exist, or an anchor (``#id``) the target page
  does not have (external ``http(s)`` links are not followed: no network);
* an empty table (no data cell with text), and on the site a table wider than the page's
  column at the checker's window size (the reader would scroll sideways);
* a formula that did not render: a ``.math`` element MathJax left untypeset, a MathJax error box,
  or LaTeX shown as text (``$...$`` or a TeX command outside a formula and outside code);
* a figure of the workflow missing from the report: every PNG under ``results/`` that matches a
  path the rules register with ``report(...)`` must be a result of the report, its view must open
  by the report's own buttons (category, subcategory, the row's eye button) and its image load;
  a registered pattern that matches no file is a problem too (the parser lost track of the rules).

Screenshots at a fixed window size go to ``--out``: the report's start page, one figure view per
figure folder (the paper: multiuser, gaussian, wasserstein, ...), with its caption beside it,
and the site's start page, a math page and the API reference. The last line is
``pages checked: N, problems: M``; the exit status is 1 when M > 0.
"""
from __future__ import annotations

import argparse
import base64
import re
import sys
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

#: the window of every page and screenshot (CSS pixels, device scale 1)
WINDOW = {"width": 1366, "height": 900}
#: Chromium's flags on these machines: no sandbox as root, no GPU, no background traffic
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
#: what a page may load: its own files and inline data
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
#: report(...) of a PNG in a rules file: the f prefix if any, the path pattern, wildcards in braces
REPORT_PNG = re.compile(r"""report\(\s*(f?)(["'])([^"']+?\.png)\2""")
#: site pages given a screenshot, with the file name it gets
SITE_SHOTS = {"index.html": "site-index.png", "math/paper002-wasserstein.html": "site-math-paper002.png",
              "api/index.html": "site-api-index.png", "api/generated/pufferfish.html": "site-api-pufferfish.png"}

HERE = Path(__file__).resolve().parent
SCAN_JS = (HERE / "pages_scan.js").read_text()


@dataclass
class Problems:
    """Every problem found, in the order found, as ``where: what``."""

    items: list[str] = field(default_factory=list)

    def add(self, where: str, what: str) -> None:
        line = f"{where}: {what}"
        if line not in self.items:
            self.items.append(line)


# ------------------------------------------------------------------------------ what to expect
def registered_patterns(rules: Path) -> list[str]:
    """The PNG paths the rules under ``rules`` register with ``report(...)``, wildcards in braces."""
    found = set()
    for path in sorted(rules.glob("*.smk")):
        found.update(unescape_fstring(match.group(3)) if match.group(1) else match.group(3)
                     for match in REPORT_PNG.finditer(path.read_text()))
    return sorted(found)


def unescape_fstring(pattern: str) -> str:
    """An f-string's path as a wildcard pattern: ``{{case}}`` (an escaped wildcard) -> ``{case}``; a
    replacement field such as ``{f}`` stays braced, so it matches any value, as a wildcard does."""
    return pattern.replace("{{", "{").replace("}}", "}")


def pattern_regex(pattern: str) -> re.Pattern:
    """``results/figures/{x}/{y}.png`` -> a regex matching it with any wildcard values (no ``/``)."""
    parts = re.split(r"(\{[^}]*\})", pattern)
    return re.compile("".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts) + r"\Z")


def expected_figures(root: Path, patterns: list[str], problems: Problems) -> list[str]:
    """Every PNG under ``root/results`` (relative to ``root``) matching a registered pattern."""
    files = sorted(p.relative_to(root).as_posix() for p in (root / "results").rglob("*.png"))
    expected = []
    for pattern in patterns:
        regex = pattern_regex(pattern)
        hits = [f for f in files if regex.match(f)]
        if not hits:
            problems.add("workflow/rules", f"report(...) registers {pattern}, but no such PNG is under results/")
        expected += hits
    return sorted(set(expected))


def site_pages(site: Path) -> list[Path]:
    """Every HTML page of the built site (MathJax's own files under _static are not pages)."""
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


# ------------------------------------------------------------------------------ links and anchors
class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value and (name == "id" or (tag == "a" and name == "name")):
                self.ids.add(value)


def file_ids(path: Path) -> set[str]:
    """The ids (and ``<a name>``) of an HTML file that was not opened in the browser."""
    parser = _Ids()
    parser.feed(path.read_text(errors="replace"))
    return parser.ids


def check_links(links: dict[str, list[str]], ids: dict[str, set[str]], problems: Problems, label) -> int:
    """Every ``file:`` link of every page points at an existing file and, with ``#x``, at an id x.

    ``links``: the page's name in problems -> the absolute ``href`` of its links; ``ids``: page
    URL -> the ids seen in the browser (other HTML files are parsed). Returns the links checked.
    """
    checked = 0
    for page, hrefs in links.items():
        for href in hrefs:
            if not href.startswith("file:"):
                continue                        # http(s), mailto: not followed offline
            checked += 1
            target, _, fragment = href.partition("#")
            path = Path(urllib.parse.unquote(urllib.parse.urlsplit(target).path))
            if not path.exists():
                problems.add(page, f"broken link to {label(target)} (no such file)")
                continue
            if not fragment or path.suffix != ".html":
                continue
            if target not in ids:
                ids[target] = file_ids(path)
            if urllib.parse.unquote(fragment) not in ids[target]:
                problems.add(page, f"broken anchor {label(href)} (no id {urllib.parse.unquote(fragment)!r})")
    return checked


# ------------------------------------------------------------------------------ the browser
class Browser:
    """One headless Chromium (the system's), one page, problems collected as they happen."""

    def __init__(self, executable: str, problems: Problems, label):
        from playwright.sync_api import sync_playwright

        self.problems, self.label, self.where = problems, label, "?"
        self._profile = tempfile.TemporaryDirectory(prefix="pages-check-profile-")
        self._pw = sync_playwright().start()
        # a fresh, empty profile directory on every run (as the machine notes ask)
        self.context = self._pw.chromium.launch_persistent_context(
            self._profile.name, executable_path=executable, headless=True, args=FLAGS,
            viewport=WINDOW, device_scale_factor=1, color_scheme="light", reduced_motion="reduce")
        self.context.route("**/*", self._route)
        self.page = self.context.pages[0] if self.context.pages else self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.add(self.where, f"uncaught exception: {error}"))
        self.page.on("requestfailed", self._failed)

    def close(self) -> None:
        self.context.close()
        self._pw.stop()
        self._profile.cleanup()

    def _route(self, route) -> None:
        url = route.request.url
        if url.startswith(LOCAL_SCHEMES):
            route.continue_()
        else:
            self.problems.add(self.where, f"request leaves file:// (blocked): {url[:120]}")
            route.abort("blockedbyclient")

    def _console(self, message) -> None:
        # "Failed to load resource" repeats a failed request, reported with its file by _failed
        # (a local file) or _route (a request that would leave file://)
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.problems.add(self.where, f"console error: {message.text[:300]}")

    def _failed(self, request) -> None:
        if request.url.startswith("file:"):
            self.problems.add(self.where, f"could not load {self.label(request.url)}: {request.failure}")

    def open(self, url: str, where: str) -> None:
        """Load ``url``, then wait until MathJax (when the page has it) has typeset every formula."""
        self.where = where
        self.page.goto(url, wait_until="load")
        self.page.evaluate("""async () => {
            if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
            await document.fonts.ready;
        }""")

    def scan(self, *, overflow: bool = False) -> dict:
        """What the page shows: see pages_scan.js (``overflow``: measure the tables' widths too)."""
        return self.page.evaluate(SCAN_JS, {"overflow": overflow})

    def shoot(self, path: Path) -> None:
        self.page.screenshot(path=str(path), full_page=False)


def judge_scan(scan: dict, where: str, problems: Problems) -> None:
    """Turn the findings of pages_scan.js into problems."""
    for src in scan["brokenImages"]:
        problems.add(where, f"image does not load (naturalWidth 0): {src[:120]}")
    for table in scan["emptyTables"]:
        problems.add(where, f"empty table: {table}")
    for table in scan["wideTables"]:
        problems.add(where, f"table wider than the page column (readers scroll sideways): {table}")
    for math in scan["untypeset"]:
        problems.add(where, f"formula not rendered by MathJax: {math[:120]}")
    for error in scan["mathErrors"]:
        problems.add(where, f"formula with a TeX error: {error[:160]}")
    for text in scan["rawLatex"]:
        problems.add(where, f"LaTeX shown as text: {text[:120]}")


# ------------------------------------------------------------------------------ the site
def check_site(browser: Browser, site: Path, out: Path, problems: Problems) -> tuple[int, list[Path]]:
    """Every page of the site: open, scan, follow every internal link and anchor; screenshots."""
    pages = site_pages(site)
    links: dict[str, list[str]] = {}
    ids: dict[str, set[str]] = {}
    shots = []
    formulas = images = 0
    for path in pages:
        url = path.as_uri()
        rel = path.relative_to(site).as_posix()
        browser.open(url, f"site/{rel}")
        scan = browser.scan(overflow=True)
        judge_scan(scan, f"site/{rel}", problems)
        formulas, images = formulas + scan["formulas"], images + scan["images"]
        links[f"site/{rel}"] = scan["links"]
        ids[url] = set(scan["ids"])
        if rel in SITE_SHOTS:
            shots.append(out / SITE_SHOTS[rel])
            browser.shoot(shots[-1])
    for rel in SITE_SHOTS:
        if not (site / rel).exists():
            problems.add("site", f"no page {rel} to take a screenshot of")
    checked = check_links(links, ids, problems, browser.label)
    print(f"site: {len(pages)} pages, {formulas} formulas, {images} images, "
          f"{checked} internal links and anchors followed")
    return len(pages), shots


# ------------------------------------------------------------------------------ the report
RESULTS_JS = """() => Object.fromEntries(Object.entries(results).map(([path, entry]) => [path, {
    mime: getResultMimeType(path), labels: entry.labels || null,
    data: getResultMimeType(path).startsWith("image/") ? null : entry.data_uri}]))"""
ROW_JS = """([path, values]) => {
    const rows = [...document.querySelectorAll("nav tbody tr")];
    return rows.findIndex((row) => {
        const cells = [...row.querySelectorAll("td")].slice(0, -1).map((td) => td.textContent.trim());
        return cells.length === values.length && cells.every((cell, i) => cell === values[i]);
    });
}"""
SHOWN_JS = """(path) => [...document.querySelectorAll("img")].some((img) => !img.closest("nav")
    && img.getAttribute("src") === results[path].data_uri && img.complete && img.naturalWidth > 0)"""


def _menu_item(browser: Browser, label: str) -> None:
    """Click the report's navigation entry named ``label`` (a category, a subcategory, a view)."""
    browser.page.locator("nav li a", has=browser.page.locator(f"span:text-is({label!r})")).first.click()


def _row_values(results: dict, path: str, siblings: list[str]) -> list[str]:
    """The cells the report shows for ``path`` in its subcategory's table (its labels, or its path)."""
    if not all(results[p]["labels"] for p in siblings):
        return [path]
    order: dict[str, int] = {}
    for p in siblings:
        for i, key in enumerate(results[p]["labels"]):
            order.setdefault(key, i)
    return [results[path]["labels"].get(key, "") for key in sorted(order, key=order.get)]


def open_figure(browser: Browser, results: dict, where: tuple[str, str, list[str]], path: str) -> bool:
    """Open the figure ``path`` as a reader does: its category, subcategory, then the row's eye."""
    category, subcategory, siblings = where
    page = browser.page
    page.evaluate("() => app.setView({navbarMode: 'menu'})")
    single = page.evaluate("() => isSingleCategory()")      # then the menu says "Results"
    _menu_item(browser, "Results" if single else category)
    if page.locator("nav tbody tr").count() == 0:
        _menu_item(browser, subcategory)
    row = page.evaluate(ROW_JS, [path, _row_values(results, path, siblings)])
    if row < 0:
        return False
    actions = page.locator("nav tbody tr").nth(row).locator("td").last.locator("a")
    actions.first.click()
    try:
        page.wait_for_function(SHOWN_JS, arg=path, timeout=15_000)
    except Exception:           # playwright's TimeoutError: the view never showed a loaded image
        return False
    actions.nth(1).click()      # the caption (result info) beside the figure
    page.wait_for_selector("nav li", timeout=5_000)
    return True


def check_tables(results: dict, problems: Problems) -> None:
    """The report's CSV results (its tables, shown as downloads): a header and at least one row."""
    for path, entry in results.items():
        if entry["mime"] != "text/csv":
            continue
        payload = entry["data"].split(",", 1)[1] if entry["data"] else ""
        lines = [ln for ln in base64.b64decode(payload).decode(errors="replace").splitlines() if ln.strip()]
        if len(lines) < 2:
            problems.add(f"report/{path}", "empty table (no data row)")


def check_report(browser: Browser, report: Path, expected: list[str], out: Path, problems: Problems):
    """The report: its start page, every figure view, its other views; screenshots per figure folder."""
    browser.open(report.as_uri(), "report")
    browser.page.wait_for_selector("nav li", timeout=30_000)
    judge_scan(browser.scan(), "report (start page)", problems)
    shots = [out / "report-start.png"]
    browser.shoot(shots[0])
    results = browser.page.evaluate(RESULTS_JS)
    categories = browser.page.evaluate("() => categories")
    for path in sorted(set(expected) - set(results)):
        problems.add("report", f"figure {path} (registered with report(...)) is not in the report")
    check_tables(results, problems)
    views = 1
    for category, subcategories in sorted(categories.items()):
        for subcategory, paths in sorted(subcategories.items()):
            for path in sorted(p for p in paths if results[p]["mime"].startswith("image/")):
                browser.where = f"report/{path}"
                views += 1
                if not open_figure(browser, results, (category, subcategory, paths), path):
                    problems.add(browser.where, "its view (category, row, eye button) did not show the image")
                    continue
                judge_scan(browser.scan(), browser.where, problems)
                folder = Path(path).parent.name
                if path.startswith("results/figures/") and not (out / f"report-{folder}.png").exists():
                    shots.append(out / f"report-{folder}.png")
                    browser.shoot(shots[-1])
    for view in ("Statistics", "About"):
        browser.where = f"report ({view})"
        browser.page.evaluate("() => app.setView({navbarMode: 'menu'})")
        _menu_item(browser, view)
        browser.page.wait_for_timeout(500)
        judge_scan(browser.scan(), browser.where, problems)
        views += 1
    figures = sum(1 for p in results if results[p]["mime"].startswith("image/"))
    print(f"report: {figures} figures ({len(expected)} registered by the rules), {views} views opened")
    return views, shots


# ------------------------------------------------------------------------------ main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--browser", default="/usr/bin/chromium")
    parser.add_argument("--report", type=Path, default=Path("results/report.html"))
    parser.add_argument("--site", type=Path, default=Path("docs/_build/html"))
    parser.add_argument("--rules", type=Path, default=Path("workflow/rules"))
    parser.add_argument("--root", type=Path, default=Path("."), help="the project (its results/ has the figures)")
    parser.add_argument("--out", type=Path, default=Path("artifacts/pages"))
    args = parser.parse_args(argv)
    root = args.root.resolve()
    for what, path in (("report", args.report), ("site", args.site / "index.html"), ("browser", Path(args.browser))):
        if not path.exists():
            print(f"error: no {what} at {path}")
            return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*.png"):
        old.unlink()

    def label(url: str) -> str:
        path = Path(urllib.parse.unquote(urllib.parse.urlsplit(url).path)) if url.startswith("file:") else None
        if path is None:
            return url
        fragment = urllib.parse.urlsplit(url).fragment
        try:
            text = path.resolve().relative_to(root).as_posix()
        except ValueError:
            text = str(path)
        return text + (f"#{fragment}" if fragment else "")

    problems = Problems()
    expected = expected_figures(root, registered_patterns(args.rules), problems)
    browser = Browser(args.browser, problems, label)
    try:
        views, report_shots = check_report(browser, args.report.resolve(), expected, args.out, problems)
        pages, site_shots = check_site(browser, args.site.resolve(), args.out, problems)
    finally:
        browser.close()
    shots = report_shots + site_shots
    print(f"screenshots ({WINDOW['width']}x{WINDOW['height']}): {args.out.resolve()}/")
    for shot in shots:
        print(f"  {shot.name}")
    for line in problems.items:
        print(f"problem: {line}")
    print(f"pages checked: {views + pages}, problems: {len(problems.items)}")
    return 1 if problems.items else 0


if __name__ == "__main__":
    sys.exit(main())

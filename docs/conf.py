"""Sphinx configuration of the documentation site (``make docs``).

The API reference is generated here, at every build, from the package's own ``__all__``
lists: one page per subpackage (found with :mod:`pkgutil`, so a new subpackage appears by
itself), one section per module, each name documented once, in the module that defines it,
and listed with a link wherever else an ``__all__`` hands it on. After the build,
:func:`check_api_coverage` fails the build (a warning, and the build runs with ``-W``) if a
name of any ``__all__`` has no entry in the reference.

Offline: no intersphinx (it would fetch inventories); references to numpy, pandas,
matplotlib and the standard library cannot be resolved and are ignored by ``nitpick_ignore_regex``
below. References to the project's own names must resolve. Mathematics is rendered by MathJax 3
from the ``sphinx-mathjax-offline`` package, copied into the built site: a page fetches nothing
from the network when it is opened (``make test-pages`` checks it in a browser).

Math is written as LaTeX: ``$...$`` and ``$$...$$`` in the Markdown pages (MyST's dollarmath and
amsmath), ``:math:`...``` and ``.. math::`` in docstrings, whose sections may be numpydoc-style
(``Parameters`` over a line of dashes) or Google-style (``Args:``); see :func:`process_docstring`.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "src"))     # this checkout's sources before any installed copy

import pufferfish  # noqa: E402

project = "pufferfish-calibration"
author = "the pufferfish-calibration contributors"
copyright = "the pufferfish-calibration contributors (MIT licence)"
release = version = pufferfish.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",     # MathJax 3.2.2 from PyPI, copied to _static/mathjax at the end of the build
    "sphinx.ext.viewcode",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "api/generated/.gitignore"]
templates_path: list[str] = []

# ---------------------------------------------------------------------------------- strictness
nitpicky = True
# Third-party and standard-library types in signatures: no inventory offline (no intersphinx).
_EXTERNAL = r"(numpy|np|pandas|pd|matplotlib|mpl|scipy|sklearn|ot|dp_accounting|yaml|jsonschema|snakemake|" \
            r"collections|typing|typing_extensions|pathlib|os|io|logging|subprocess|argparse|contextlib|" \
            r"dataclasses|numbers|enum|types|concurrent|json|datetime|decimal|fractions|re|abc|urllib|http|zipfile|hashlib)"
nitpick_ignore_regex = [
    (r"py:(class|obj|data|exc|func|meth|attr|mod)", _EXTERNAL + r"(\..*)?"),
    # array-like, path-like: descriptive words in docstrings' type fields, not objects
    (r"py:class", r"(array-like|array_like|path-like|file-like|callable|optional|sequence|mapping|iterable)"),
]

# ---------------------------------------------------------------------------------- MyST
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "attrs_inline", "attrs_block"]
myst_heading_anchors = 3

# ---------------------------------------------------------------------------------- math
# The local copy of MathJax (sphinx-mathjax-offline), never a CDN: the path is relative to _static.
mathjax_path = "mathjax/tex-chtml.js"
# A formula that does not parse, or uses a macro TeX does not know, renders as an error box
# (<mjx-merror>) that the browser check finds: without these two packages MathJax would show
# the source in red or quietly as text.
mathjax3_config = {"tex": {"packages": {"[-]": ["noerrors", "noundefined"]}}}

# ---------------------------------------------------------------------------------- autodoc
# The docstrings are numpydoc-style (``Parameters`` / ``Returns`` / ``Raises`` over dashes, math
# as :math:`...` and ``.. math::``) or, not yet converted, Google-style (``Args:``, ``Returns:``)
# around free prose in which math is plain text (|x - x'|, D_i, p^{*c}): see process_docstring.
autodoc_default_options = {
    "undoc-members": True,
    "member-order": "bysource",
    "show-inheritance": True,
}
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autodoc_class_signature = "mixed"
autosummary_generate = False
python_use_unqualified_type_names = True

# ---------------------------------------------------------------------------------- doctest
doctest_global_setup = """
import numpy as np
np.set_printoptions(precision=6, suppress=True)
"""
doctest_default_flags = (__import__("doctest").ELLIPSIS | __import__("doctest").NORMALIZE_WHITESPACE)

# ---------------------------------------------------------------------------------- HTML
html_theme = "furo"
html_title = "Pufferfish noise calibration"
html_static_path = ["_static"]
html_css_files = ["pufferfish.css"]      # wide tables wrap long literals instead of overflowing
html_show_sourcelink = False


# ================================================================================== API pages
API_DIR = DOCS / "api" / "generated"


def _modules() -> list[str]:
    """Every module of the package (private ones, ``_x``, excepted), in walk order."""
    names = ["pufferfish"]
    for info in pkgutil.walk_packages(pufferfish.__path__, "pufferfish."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def _assigned_at_top(module) -> set[str]:
    """Names a module's source binds at top level (assignments, defs, classes): where data lives."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return set()
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.add(target.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def _public_names() -> dict[str, dict[str, str]]:
    """module -> {name in its ``__all__`` -> the module that defines it (its home)}."""
    modules = {name: importlib.import_module(name) for name in _modules()}
    defined = {name: _assigned_at_top(mod) for name, mod in modules.items()}
    table: dict[str, dict[str, str]] = {}
    for modname, mod in modules.items():
        names = getattr(mod, "__all__", None)
        if names is None:
            continue
        homes = {}
        for name in names:
            obj = getattr(mod, name)
            home = getattr(obj, "__module__", None) if (inspect.isclass(obj) or inspect.isroutine(obj)) else None
            if home not in modules or name not in defined.get(home, ()):
                # data (or an object whose __module__ is not a public module): where the source binds it
                candidates = [m for m in modules if name in defined[m] and getattr(modules[m], name, None) is obj]
                home = modname if modname in candidates else (candidates[0] if candidates else modname)
            homes[name] = home
        table[modname] = homes
    return table


def _title(text: str, char: str) -> str:
    return f"{text}\n{char * len(text)}\n"


def _directive(modname: str, name: str) -> str:
    obj = getattr(importlib.import_module(modname), name)
    if inspect.isclass(obj):
        kind = "exception" if issubclass(obj, BaseException) else "class"
        return f".. auto{kind}:: {modname}.{name}\n   :members:\n"
    if inspect.isroutine(obj):
        return f".. autofunction:: {modname}.{name}\n"
    if re.search(r"<\w[^>]*>", repr(obj)):   # <class ...>, <function ...>: a repr that says nothing
        return f".. autodata:: {modname}.{name}\n   :no-value:\n"
    return f".. autodata:: {modname}.{name}\n"


def _module_section(modname: str, homes: dict[str, str], char: str, *, heading: str | None = None) -> str:
    """One module: its docstring, the names it defines (autodoc), links to the names it hands on."""
    own = [n for n, h in homes.items() if h == modname]
    handed = [n for n, h in homes.items() if h != modname]
    lines = [_title(heading or f"``{modname}``", char)]
    lines += [f".. automodule:: {modname}", ""]
    lines += [_directive(modname, name) for name in own]
    if handed:
        lines.append("Also importable from here (documented where they are defined):\n")
        for name in handed:
            lines.append(f"* :py:obj:`{modname}.{name} <{homes[name]}.{name}>`")
        lines.append("")
    return "\n".join(lines) + "\n"


def write_api_pages() -> dict[str, dict[str, str]]:
    """Write ``api/generated/<package>.rst``, one per subpackage and one for the top-level modules."""
    table = _public_names()
    modules = _modules()
    packages = [m for m in modules if m != "pufferfish" and hasattr(importlib.import_module(m), "__path__")]
    top = [m for m in modules if m.count(".") == 1 and m not in packages]
    pages: dict[str, str] = {}

    body = [_title("``pufferfish`` and its top-level modules", "=")]
    body.append(_module_section("pufferfish", table.get("pufferfish", {}), "-", heading="``pufferfish``"))
    for mod in top:
        body.append(_module_section(mod, table.get(mod, {}), "-"))
    pages["pufferfish"] = "\n".join(body)

    for pkg in packages:
        body = [_title(f"``{pkg}``", "=")]
        inner = [m for m in modules if m.startswith(pkg + ".") and m.count(".") == pkg.count(".") + 1]
        body.append(_module_section(pkg, table.get(pkg, {}), "-", heading="Overview") if pkg in table
                    else f".. automodule:: {pkg}\n\n")
        for mod in inner:
            if mod in table and mod not in packages:    # a subpackage inside has a page of its own
                body.append(_module_section(mod, table[mod], "-"))
        pages[pkg] = "\n".join(body)

    API_DIR.mkdir(parents=True, exist_ok=True)
    (API_DIR / ".gitignore").write_text("*\n")
    wanted = {f"{name}.rst" for name in pages}
    for old in API_DIR.glob("*.rst"):
        if old.name not in wanted:
            old.unlink()
    for name, text in pages.items():
        path = API_DIR / f"{name}.rst"
        if not path.exists() or path.read_text() != text:      # unchanged pages keep their mtime: no re-read
            path.write_text(text)
    return table


API_TABLE: dict[str, dict[str, str]] = {}      # written by setup(), when Sphinx loads this file


def check_api_coverage(app, exception) -> None:
    """Every name of every ``__all__`` has an entry in the reference (else a warning, an error under -W)."""
    if exception is not None or app.builder.name != "html":
        return
    from sphinx.util import logging

    logger = logging.getLogger("pufferfish.api")
    documented = set(app.env.get_domain("py").objects)
    missing = sorted({f"{home}.{name}" for homes in API_TABLE.values() for name, home in homes.items()
                      if f"{home}.{name}" not in documented})
    for target in missing:
        logger.warning("API reference: %s is in an __all__ but has no entry in the reference", target)


# ================================================================================== docstrings
# The package's docstrings are reST (``literals``, :func:`roles`, numpydoc or Google sections).
# Converted ones write math as :math:`...` and ``.. math::`` (rendered by MathJax); the others
# still write it as plain text: |x - x'|, D_i, p^{*c}. In reST those are substitutions,
# references and emphasis; they are escaped here, outside literals, roles (:math: included),
# directive and literal blocks and tables, so that the text renders as written. Then napoleon
# turns the sections into fields (not for data and attributes, whose one-line comments
# "what: detail" napoleon would read as "type: text").
_SPANS = re.compile(r"(``.+?``|:[\w:.-]+:`[^`]+`|`[^`]+`_{0,2})")
_EMPHASIS = re.compile(r"(?<![\w*\\])(\*\*?)(?=[A-Za-z0-9(])[^*\n]*?[^\s*\\]\1(?![\w*])")
_TABLE_BORDER = re.compile(r"^\s*=+(\s+=+)+\s*$")


def _escape_text(text: str) -> str:
    text = text.replace("|", r"\|")
    text = re.sub(r"(?<=\w)_(?![\w`])", r"\\_", text)            # D_-i, W_ : not references
    kept: list[str] = []
    text = _EMPHASIS.sub(lambda m: kept.append(m.group(0)) or f"\0{len(kept) - 1}\0", text)
    text = text.replace("*", r"\*")
    return re.sub(r"\0(\d+)\0", lambda m: kept[int(m.group(1))], text)


def _escape_line(line: str) -> str:
    bullet = re.match(r"^\s*[*-] ", line)
    head, body = (line[:bullet.end()], line[bullet.end():]) if bullet else ("", line)
    parts = _SPANS.split(body)
    out = []
    for k, part in enumerate(parts):
        if k % 2:                                   # a literal or a role: as it is
            out.append(part)
            nxt = parts[k + 1] if k + 1 < len(parts) else ""
            if part.startswith("``") and nxt[:1] and not re.match(r"[\s\-.,:;!?)\]}'\"/]", nxt[:1]):
                out.append("\\ ")                   # ``sigma``^2: end the literal before ^
        else:
            out.append(_escape_text(part))
    return head + "".join(out)


def escape_plain_math(lines: list[str]) -> None:
    """Escape reST markup characters of plain-text math in docstring ``lines``, in place."""
    literal_indent = None          # inside a literal block / directive: its introducing indent
    in_table = False
    previous_border = False
    last_column = 0
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue
            literal_indent = None
        if _TABLE_BORDER.match(line):
            in_table, previous_border = True, True
            last_column = line.rstrip().rfind(" ") + 1      # the last column may run past the border
            continue
        if in_table:
            if not stripped and previous_border:
                in_table = False
            previous_border = False
            if len(line) > last_column and line[:last_column].strip():
                lines[i] = line[:last_column] + _escape_line(line[last_column:])
            elif len(line) > last_column:
                lines[i] = line[:last_column] + _escape_line(line[last_column:])
            continue
        if stripped.startswith((">>>", "+-", "+=")) or (stripped.startswith("|") and stripped.endswith("|")):
            continue
        if stripped.startswith(".. "):
            literal_indent = indent
            continue
        lines[i] = _escape_line(line)
        if stripped.endswith("::"):
            literal_indent = indent
            if stripped == "::":
                continue


def process_docstring(app, what, name, obj, options, lines) -> None:
    """Escape plain-text math, then turn numpydoc and Google sections into fields (napoleon).

    A docstring in the project's convention (``Parameters`` / ``Returns`` / ``Raises`` over a
    line of dashes, math as ``:math:`...``` or in a ``.. math::`` block) passes the escaping
    unchanged, since roles and directive blocks are left as written; plain-text math elsewhere
    (|x|, D_i, a*b) is escaped so that it renders as written until its docstring is converted.
    Then numpydoc sections are read, then Google ones, in the order sphinx.ext.napoleon uses;
    data and attributes keep their text (napoleon would read "what: detail" as "type: text").
    """
    from sphinx.ext.napoleon import Config, GoogleDocstring, NumpyDocstring

    escape_plain_math(lines)
    if what in ("data", "attribute", "property"):
        return
    config = Config(napoleon_google_docstring=True, napoleon_numpy_docstring=True, napoleon_use_ivar=True,
                    napoleon_use_rtype=False, napoleon_attr_annotations=True)
    lines[:] = NumpyDocstring(lines, config, app, what, name, obj, options).lines()
    lines[:] = GoogleDocstring(lines, config, app, what, name, obj, options).lines()


def _find(dotted: str):
    """The object at a dotted path (``pufferfish`` modules imported as needed, others only if loaded)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        modname = ".".join(parts[:cut])
        module = sys.modules.get(modname)
        if module is None and modname.split(".")[0] == "pufferfish":
            try:
                module = importlib.import_module(modname)
            except ImportError:
                continue
        if module is None:
            continue
        obj = module
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


_MISSING = object()


def resolve_project_names(app, env, node, contnode):
    """Resolve what nitpicky would call missing but is not broken, and nothing else.

    * a project name written without its module (``:class:`Target```): the one documented
      object whose full name ends with it;
    * a name handed on by a subpackage (``pufferfish.lattice.SecretPair``): the entry of the
      object where it is defined;
    * a private helper or an unexported constant of the module in context (``:func:`_merge_rank```,
      ``:data:`CLOSE_SLACK```): it exists in the code but has no entry, so it is rendered as text.

    A name that exists nowhere stays unresolved: a warning, an error under ``-W``.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip(".~")
    if not target:
        return None
    objects = env.get_domain("py").objects
    from sphinx.util.nodes import make_refnode

    def link(full):
        entry = objects[full]
        return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, full)

    hits = [full for full in objects if full.startswith("pufferfish.") and full.endswith("." + target)]
    if len(hits) == 1:
        return link(hits[0])
    module, cls = node.get("py:module"), node.get("py:class")
    candidates = ([f"{module}.{cls}.{target}"] if module and cls else []) + ([f"{module}.{target}"] if module else [])
    for path in candidates + [target]:
        obj = _find(path)
        if obj is None:
            continue
        home = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
        if home in objects:
            return link(home)
        return contnode
    return None


def setup(app):
    API_TABLE.update(write_api_pages())
    app.connect("autodoc-process-docstring", process_docstring)
    app.connect("missing-reference", resolve_project_names)
    app.connect("build-finished", check_api_coverage)

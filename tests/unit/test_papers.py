"""The papers' declarations (pufferfish.papers) and what is derived from them: their order, the
schema, the typed settings, the registry, the report's front page and the command.

Nothing shared names a paper: the tests below build papers of their own (``toy``, ``late``...)
where a declaration's behaviour is tested, and read the installed ones through
:func:`pufferfish.papers.declared` otherwise.
"""
from __future__ import annotations

import copy
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from pufferfish import papers, registry
from pufferfish.errors import ConfigError
from pufferfish.papers import Command, DeclarationError, Paper, declared
from pufferfish.pipeline import front_page
from pufferfish.pipeline.config import SCHEMA_PATH, Settings, load_schema
from tests.helpers import REPO

#: the papers of this package, in their order (pyproject.toml declares them; `order` sorts them)
SHIPPED = ["multiuser", "gaussian", "wasserstein", "comparison", "iteration", "sensitivity", "distp"]
#: what the shared places of the workflow and the package are; none may name a paper
SHARED = ["Snakefile", "workflow/rules/common.smk", "workflow/rules/download.smk", "workflow/rules/report.smk",
          "src/pufferfish/cli.py", "src/pufferfish/papers.py", "src/pufferfish/command_line.py",
          "src/pufferfish/registry.py", "src/pufferfish/pipeline/config.schema.yaml",
          *sorted(str(p.relative_to(REPO)) for p in (REPO / "src" / "pufferfish" / "pipeline").glob("*.py")
                  if p.name != "fetch.py")]


def paper(name: str, **fields) -> Paper:
    """A declaration of a paper of the tests' own (nothing runs it)."""
    key = fields.pop("key", name)
    return Paper(**{"key": key, "title": key.title(), "settings": lambda section, config: dict(section),
                    "schema": Path("unused.yaml"), "check_references": lambda config: None,
                    "rules": f"{key}.smk", "report": f"{key}.rst", **fields})


# ------------------------------------------------------------------------------ the declared papers
def test_the_installed_papers_and_their_order():
    assert [p.key for p in declared()] == papers.keys()
    assert [key for key in papers.keys() if key in SHIPPED] == SHIPPED  # another paper may come between them
    assert all(isinstance(p, Paper) and p.schema.is_file() for p in declared())
    assert papers.get("distp").title == "Distribution privacy (paper 003)"
    with pytest.raises(KeyError, match="no installed paper 'nope'"):
        papers.get("nope")


def test_one_line_of_pyproject_toml_per_paper():
    import tomllib

    with open(REPO / "pyproject.toml", "rb") as handle:
        group = tomllib.load(handle)["project"]["entry-points"][papers.GROUP]
    assert {key: group[key] for key in SHIPPED} == {key: f"pufferfish.{key}.paper:PAPER" for key in SHIPPED}
    assert all(value == f"pufferfish.{key}.paper:PAPER" for key, value in group.items())


def test_the_shared_places_name_no_paper():
    """The Snakefile, the shared rules, the pipeline, the command's skeleton and the shared schema
    hold no paper's key (each is derived from the declared papers)."""
    word = re.compile(r"\b(" + "|".join(papers.keys()) + r")\b")
    found = [f"{name}:{k}: {line.strip()}" for name in SHARED
             for k, line in enumerate((REPO / name).read_text(encoding="utf-8").splitlines(), 1) if word.search(line)]
    assert not found, found


def test_order_by_order_then_key_each_after_the_papers_it_needs():
    a, b, c = paper("a", order=5, needs=("c",)), paper("b", order=5), paper("c", order=9)
    assert [p.key for p in papers._ordered([a, b, c])] == ["b", "c", "a"]
    assert [p.key for p in papers._ordered([paper("z", order=1), paper("y", order=2)])] == ["z", "y"]
    with pytest.raises(DeclarationError, match="^paper a: needs paper 'c', which is not installed$"):
        papers._ordered([a, b])
    with pytest.raises(DeclarationError, match="^papers x, y: they need each other$"):
        papers._ordered([paper("x", needs=("y",)), paper("y", needs=("x",))])


def _entry(name, load, value="toy.paper:PAPER"):
    return SimpleNamespace(name=name, value=value, load=load)


def test_a_broken_entry_point_is_one_line_naming_it(monkeypatch):
    def broken():
        raise ImportError("No module named 'toy'")

    for entries, message in (
            ([_entry("toy", broken)], "paper toy (toy.paper:PAPER): does not load: ImportError: No module named 'toy'"),
            ([_entry("toy", lambda: "PAPER")], "paper toy (toy.paper:PAPER): not a pufferfish.papers.Paper"),
            ([_entry("toy", lambda: paper("other"))], "paper toy (toy.paper:PAPER): declares key 'other'; the entry "
                                                      "point's name must be the key"),
            ([_entry("toy", lambda: paper("toy")), _entry("toy", lambda: paper("toy"))],
             "paper toy: declared twice (two installed distributions)"),
            ([], "no paper is installed (entry-point group pufferfish.papers): reinstall the package (make setup, "
                 "or pip install -e .)")):
        monkeypatch.setattr(papers, "entry_points", lambda group, entries=entries: entries)
        with pytest.raises(DeclarationError) as info:
            papers.declared.__wrapped__()
        assert str(info.value) == message


@pytest.mark.parametrize("fields, message", [
    ({"key": "Toy"}, "Paper.key = 'Toy': must be lower-case letters, digits and _"),
    ({"key": "2x"}, "Paper.key = '2x': must be lower-case letters, digits and _"),
    ({"settings": None}, "Paper toy: settings must be callable"),
    ({"check_references": "module:function"}, "Paper toy: check_references must be callable"),
    ({"data_requests": "module:function"}, "Paper toy: data_requests must be callable or None"),
    ({"commands": ("toy",)}, "Paper toy: commands must be Command records"),
    ({"order": 1.5}, "Paper toy: order = 1.5: must be an integer"),
])
def test_a_bad_declaration_is_refused(fields, message):
    with pytest.raises(DeclarationError) as info:
        paper("toy", **fields)
    assert str(info.value) == message


def test_a_papers_workflow_files_are_relative_to_the_workflow_or_absolute(tmp_path):
    toy = paper("toy", rules=tmp_path / "rules.smk", paper_values=None)
    assert toy.path("rules", "/base") == tmp_path / "rules.smk"
    assert toy.path("report", "/base") == Path("/base/toy.rst") and toy.path("paper_values", "/base") is None
    for p in declared():
        assert p.path("rules", REPO).is_file() and p.path("report", REPO).is_file()
        assert p.paper_values is None or p.path("paper_values", REPO).is_file()


# ------------------------------------------------------------------------------ which papers a run runs
@pytest.fixture(scope="module")
def shipped():
    with open(REPO / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_selected_is_the_list_or_every_section(shipped):
    assert [p.key for p in papers.selected(shipped)] == SHIPPED  # the sections of config.yaml
    assert [p.key for p in papers.selected({**shipped, "papers": ["distp", "multiuser"]})] == ["multiuser", "distp"]
    assert papers.present({"seed": 1}) == ()
    with pytest.raises(ConfigError, match=r"^config: papers: comparison reads the outputs of wasserstein: list it "
                                          r"too$"):
        papers.selected({**shipped, "papers": ["comparison", "multiuser"]})
    only = {k: shipped[k] for k in ("datasets", "comparison", "multiuser")}
    assert [p.key for p in papers.selected({**only, "papers": ["comparison", "multiuser"]})] == ["multiuser",
                                                                                              "comparison"]


def test_settings_hold_the_papers_that_run(shipped):
    settings = Settings.load({**shipped, "papers": ["iteration"]})
    assert list(settings.papers) == ["iteration"] and settings.iteration is settings.papers["iteration"]
    assert settings.multiuser is None  # installed, not run
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        settings.nope  # noqa: B018
    assert copy.deepcopy(settings) == settings


# ------------------------------------------------------------------------------ the schema
def test_the_shared_schema_requires_only_what_every_run_needs():
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        shared = yaml.safe_load(handle)
    assert shared["required"] == ["datasets"] and set(shared["properties"]) == {"papers", "seed", "datasets", "audit"}
    schema = load_schema()
    assert list(schema["properties"])[4:] == papers.keys()
    assert schema["properties"]["papers"]["items"]["enum"] == papers.keys()
    for p in declared():  # each section is its paper's file, its $defs joined to the shared ones
        with open(p.schema, encoding="utf-8") as handle:
            own = yaml.safe_load(handle)
        assert all(schema["$defs"][name] == spec for name, spec in (own.pop("$defs", None) or {}).items())
        assert schema["properties"][p.key] == own


def test_a_papers_schema_may_not_define_a_shared_name_again(tmp_path, monkeypatch):
    (tmp_path / "toy.yaml").write_text("type: object\n$defs:\n  epsilon_grid: {type: number}\n")
    monkeypatch.setattr(papers, "declared", lambda: (paper("toy", schema=tmp_path / "toy.yaml"),))
    from pufferfish.pipeline import config

    monkeypatch.setattr(config, "declared", papers.declared)
    with pytest.raises(DeclarationError, match=r"^paper toy: its schema \(.*toy.yaml\) defines 'epsilon_grid' again$"):
        config.load_schema()


# ------------------------------------------------------------------------------ the registry
def test_the_registry_lists_the_papers_methods_in_the_papers_order():
    listed = [m.name for p in declared() for m in p.methods]
    assert registry.names(automatic=False)[:len(listed)] == listed
    assert {m.name for p in declared() for m in p.methods} <= set(registry.names())


# ------------------------------------------------------------------------------ the report's front page
FRAME = "Title\n=====\n\n{# papers: titles #}\n\nSteps:\n\n#. data\n{# papers: sections #}\n#. summary\n\n" \
        "{# papers: categories #}\n* **Audit**\n"


def test_the_front_page_holds_each_papers_title_section_and_category():
    page = front_page.front_page(FRAME, [("A (paper 1)", "#. **A** step\n"), ("B", "#. **B** one\n#. **B** two\n")])
    assert page == ("Title\n=====\n\n* A (paper 1)\n* B\n\nSteps:\n\n#. data\n#. **A** step\n#. **B** one\n"
                    "#. **B** two\n#. summary\n\n* **A (paper 1)** and **B**: the figures, each with a caption that "
                    "states what is drawn, from which configuration and data, and what the exact audit found.\n"
                    "* **Audit**\n")
    assert front_page.front_page(FRAME, []) == "Title\n=====\n\n\nSteps:\n\n#. data\n#. summary\n\n* **Audit**\n"
    with pytest.raises(ValueError, match="needs the line '{# papers: sections #}' once"):
        front_page.front_page(FRAME.replace("{# papers: sections #}", ""), [])


def test_the_shipped_frame_and_sections_make_the_front_page(tmp_path):
    sections = [(p.title, p.path("report", REPO)) for p in declared()]
    out = front_page.write_front_page(REPO / "workflow" / "report" / "workflow.rst", sections, tmp_path / "w.rst")
    text = out.read_text(encoding="utf-8")
    assert out == (tmp_path / "w.rst").absolute() and "{# papers" not in text
    assert all(f"* {p.title}\n" in text for p in declared())
    before = out.stat().st_mtime_ns
    assert front_page.write_front_page(REPO / "workflow" / "report" / "workflow.rst", sections, out) == out
    assert out.stat().st_mtime_ns == before  # the same text: not written again


# ------------------------------------------------------------------------------ the command
def test_the_command_has_each_papers_subcommands_in_the_papers_order():
    from pufferfish import cli

    commands = [c.name for p in declared() for c in p.commands]
    assert [c for c in commands if c in ("calibrate", "audit", "iteration", "distp")] == ["calibrate", "audit",
                                                                                          "iteration", "distp"]
    help_text = cli.build_parser().format_help()
    assert re.findall(r"^    (\w+)", help_text, re.M) == commands
    first = next(c for p in declared() for c in p.commands)
    assert help_text.endswith(first.example)


def test_two_papers_declaring_one_command_is_an_error(monkeypatch):
    from pufferfish import cli

    command = Command("twice", lambda sub, fmt: sub.add_parser("twice"), lambda args: "")
    monkeypatch.setattr(papers, "declared", lambda: (paper("a", commands=(command,)), paper("b", commands=(command,))))
    assert cli.main(["twice"]) == 1


def test_a_broken_paper_ends_the_command_in_one_line(tmp_path):
    """A paper whose declaration does not load: ``pufferfish`` says so in one line, exit status 1."""
    site = tmp_path / "site"
    (site / "broken_toy-0.1.dist-info").mkdir(parents=True)
    (site / "broken_toy-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-toy\n"
                                                               "Version: 0.1\n")
    (site / "broken_toy-0.1.dist-info" / "entry_points.txt").write_text("[pufferfish.papers]\n"
                                                                       "toy = broken_toy.paper:PAPER\n")
    proc = subprocess.run([sys.executable, "-m", "pufferfish", "--help"], capture_output=True, text=True,
                          env={"PYTHONPATH": f"{site}:{REPO / 'src'}", "PATH": "/usr/bin:/bin"}, timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ("error: paper toy (broken_toy.paper:PAPER): does not load: ModuleNotFoundError: "
                           "No module named 'broken_toy'\n")

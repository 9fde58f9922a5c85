"""pufferfish.mechanisms is a layer below the audits and the papers: it imports none of them,
and importing it costs numpy only (scipy is imported by the functions that need it)."""
import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "pufferfish" / "mechanisms"
#: what the mechanisms may import from the package: the base layer, the lattice, themselves
ALLOWED = ("pufferfish._lazy", "pufferfish.errors", "pufferfish.certified", "pufferfish.checks", "pufferfish.grids", "pufferfish.lattice",
           "pufferfish.mechanisms")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_mechanisms_import_no_upper_layer():
    found = {name: path.name for path in PACKAGE.glob("*.py") for name in _imports(path)
             if name.startswith("pufferfish")}
    upward = sorted(f"{path}: {name}" for name, path in found.items() if not name.startswith(ALLOWED))
    assert not upward, upward
    assert len(list(PACKAGE.glob("*.py"))) >= 7


def test_importing_the_mechanisms_loads_no_scipy():
    code = ("from pufferfish.mechanisms import balle_wang_delta, analytic_gaussian_sigma, laplace_scale, "
            "cauchy_renyi2_scale, RandomizedResponse, ClampedGeometric, channel_epsilons\n"
            "RandomizedResponse(3, 1.0).output_law([0.2, 0.3, 0.5]); ClampedGeometric((0, 2), 1.0).matrix()\n"
            "import sys; print(sorted(m for m in ('scipy', 'pandas', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(SRC), "PATH": ""})
    assert out.stdout.strip() == "[]"

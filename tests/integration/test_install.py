"""A non-editable install (``pip install .``) into a fresh virtual environment validates configs.

The config schema is package data (src/pufferfish/pipeline/config.schema.yaml; the
workflow's workflow/schemas/config.schema.yaml is a symlink to it): a wheel must carry it, and
``validate_config`` must find it where the wheel installed it, not in this checkout.

The fresh environment has no pip of its own and installs no dependency: the package is built
from a copy of the project's files with this interpreter's pip and setuptools (no network,
nothing written into the checkout) and installed into the new environment's site-packages;
the dependencies are reached through a ``.pth`` line naming this interpreter's
site-packages, which Python appends after the new environment's own directory (and whose
own ``.pth`` files, this checkout's editable install among them, it does not process).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from tests.helpers import REPO

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_a_non_editable_install_carries_the_schema_and_validates_the_config(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    build = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                            "--no-index", "--target", str(site), str(source)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    installed = site / "pufferfish" / "pipeline" / "config.schema.yaml"
    assert installed.is_file() and not installed.is_symlink()
    assert installed.read_bytes() == (REPO / "src" / "pufferfish" / "pipeline" / "config.schema.yaml").read_bytes()
    (site / "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    check = textwrap.dedent(f"""
        import yaml
        import pufferfish.pipeline.config as config
        assert config.__file__.startswith({str(site)!r}), config.__file__
        assert str(config.SCHEMA_PATH) == {str(installed)!r}, config.SCHEMA_PATH
        with open({str(REPO / "config.yaml")!r}, encoding="utf-8") as handle:
            cfg = yaml.safe_load(handle)
        config.validate_config(cfg, config.load_schema())
        cfg["multiuser"]["experiments"]["fig4"]["epsilons"] = [-0.1]
        try:
            config.validate_config(cfg, config.load_schema())
        except config.ConfigError as err:
            print(err)
    """)
    proc = subprocess.run([str(python), "-c", check], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "config: multiuser.experiments.fig4.epsilons[0] = -0.1: must be > 0"

    # the console script ([project.scripts] pufferfish = "pufferfish.cli:main"), run by the new
    # environment's interpreter: it imports the installed package, not this checkout
    script = site / "bin" / "pufferfish"
    assert script.is_file()
    (tmp_path / "d.csv").write_text("x,s\n0,a\n1,a\n0,b\n0,b\n0,b\n1,b\n")
    proc = subprocess.run([str(python), str(script), "calibrate", "d.csv", "--released", "x", "--secret", "s",
                           "--epsilon", "0.5", "--noise", "laplace", "--format", "csv"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = proc.stdout.splitlines()
    assert rows[0] == "secret_i,secret_j,noise,method,guarantee,epsilon,delta,alpha,scale,achieved,meets_target"
    # gwm_laplace: W_inf / epsilon = 1 / 0.5 between Bernoulli(1/2) and Bernoulli(1/4) (paper 002, Cor. 3.1)
    assert any(r.startswith("a,b,laplace,gwm_laplace,epsilon,0.5,") and ",2.0," in r for r in rows)
    proc = subprocess.run([str(python), str(script), "calibrate", "missing.csv", "--released", "x", "--secret", "s",
                           "--epsilon", "1"], capture_output=True, text=True, cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (1, "error: missing.csv: no such file\n")

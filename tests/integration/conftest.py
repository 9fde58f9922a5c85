"""The one complete run of the tiny project (tests/helpers.py) that the end-to-end tests share."""
import pytest

from tests.helpers import build_tiny_project, snakemake


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """``(workdir, mirror)`` of one complete Snakemake run of the tiny project, made once per session.

    Tests read it in place; a test that changes files works on a copy (``tests.helpers.copy_project``).
    """
    workdir, mirror = build_tiny_project(tmp_path_factory.mktemp("tiny"))
    snakemake(workdir, mirror, "--cores", "2")
    return workdir, mirror

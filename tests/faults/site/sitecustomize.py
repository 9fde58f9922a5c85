"""Installs the fault of the fault-injection check in a child Python process (tests/faults/plugin.py).

The plugin puts this directory first on PYTHONPATH and names the fault in PUFFERFISH_FAULT;
a CLI run as a command or a Snakemake job then computes with the same fault as the tests.
"""
import os
import sys

if os.environ.get("PUFFERFISH_FAULT"):
    _root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    if _root not in sys.path:
        sys.path.append(_root)
    from tests.faults.inject import install_from_environment

    install_from_environment()

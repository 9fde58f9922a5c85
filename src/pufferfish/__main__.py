"""``python -m pufferfish``: the ``pufferfish`` command (:mod:`pufferfish.cli`)."""

import sys

from pufferfish.cli import main

if __name__ == "__main__":
    sys.exit(main())

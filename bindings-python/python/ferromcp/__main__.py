"""``python -m ferromcp``: the ``ferromcp`` command (see :mod:`ferromcp.cli`)."""

import sys

from .cli import main

sys.exit(main())

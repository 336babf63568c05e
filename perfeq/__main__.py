"""``python -m perfeq``: the same as the ``perfeq`` console script."""

import sys

from perfeq.cli import main

sys.exit(main())

"""`python3 -m tools.spsa`: the driver (spsa.py), run from the repository root."""

import sys

from tools.spsa.spsa import main

sys.exit(main())

"""`python3 -m tools.clock`: the clock games (clock_games.py), run from the repository root."""

import sys

from tools.clock.clock_games import main

sys.exit(main())

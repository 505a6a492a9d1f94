"""The SPSA driver's loop, state file and resume against a scripted fake engine
(tools/usi/tests/scripted_engine.py).

Skipped when cshogi is not installed (`make test` installs it in .venv/tools).
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

from tools.spsa import spsa

try:
    import cshogi
except ImportError:
    cshogi = None

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FAKE_ENGINE = os.path.join(REPO, "tools", "usi", "tests", "scripted_engine.py")


@unittest.skipIf(cshogi is None, "cshogi is not installed")
class Driver(unittest.TestCase):
    """spsa.py's loop, state file and resume, with a fake engine that resigns at once (so the
    side to move first loses every game and each pair scores 0)."""

    def test_run_and_resume(self):
        d = tempfile.mkdtemp()
        engine = os.path.join(d, "engine.sh")
        with open(engine, "w") as f:
            f.write(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_ENGINE}"\n')
        os.chmod(engine, 0o755)
        state = os.path.join(d, "state.json")
        common = ["--engine", engine, "--state", state, "--openings", os.path.join(REPO, "tests", "data", "openings.txt")]

        def run(*args):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = spsa.main(common + list(args))
            return code, out.getvalue(), err.getvalue()

        code, out, err = run("--params", "Knob", "--iterations", "3", "--nodes", "10", "--seed", "5")
        self.assertEqual(code, 0, err)
        self.assertIn("Knob 10\n", out)
        self.assertIn("[3/3]", err)
        with open(state) as f:
            saved = json.load(f)
        self.assertEqual((saved["k"], saved["stats"]["pairs"], saved["stats"]["reasons"]), (3, 3, {"resign": 6}))
        self.assertEqual(saved["theta"]["Knob"], 10.0)  # every pair scored 0
        self.assertEqual(saved["settings"]["seed"], 5)
        # A new run refuses to overwrite the state; a resume with other settings is refused.
        self.assertEqual(run("--params", "Knob")[0], 2)
        self.assertEqual(run("--resume", "--nodes", "20")[0], 2)
        code, out, err = run("--resume")
        self.assertEqual(code, 0, err)
        self.assertIn("complete", err)
        code, out, _ = run("--show")
        self.assertIn("# changes to the defaults", out)


if __name__ == "__main__":
    unittest.main()

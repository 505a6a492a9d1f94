"""What the tests of the repository tools (tools.ledger, tools.records) share: the tool run as
`python3 -m tools.NAME --repo REPO ...` from this checkout, a repository made for a test in a
temporary folder, and a table of that repository read back."""

import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_tool(name, repo, *args, unset=(), env=None):
    """`python3 -m tools.NAME --repo REPO ARGS...`, run from this checkout without PYTHONPATH or
    the variables `unset`, with those of `env` added; its completed process (status and output)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", *unset)} | (env or {})
    return subprocess.run([sys.executable, "-m", f"tools.{name}", "--repo", repo, *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


def temp_repo(test, *folders):
    """Makes `test.tmp`, a temporary folder removed after the test, and `test.repo`, the folder
    `repo` in it, with the folders `folders` below it."""
    test.tmp = tempfile.mkdtemp()
    test.addCleanup(shutil.rmtree, test.tmp)
    test.repo = os.path.join(test.tmp, "repo")
    os.makedirs(os.path.join(test.repo, *folders))


def read_rows(test, path, parse):
    """The rows of the table `path` of `test.repo` by `parse` (which returns rows and problems),
    failing the test on any problem."""
    with open(os.path.join(test.repo, path)) as f:
        rows, problems = parse(f.read())
    test.assertEqual(problems, [])
    return rows

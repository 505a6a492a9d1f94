"""tools.records in a git repository made for the test: a record landed (in the history, out of
the tree, its manifest row naming the commit that holds it), restored with its sha256 checked,
and a manifest that lies (a wrong sha256, a commit the clone lacks, a record left in the tree)
failing `check` and `restore`."""

import hashlib
import os
import random
import shutil
import subprocess
import unittest

from tools.records import COLUMNS, parse_manifest
from tools.tests.support import read_rows, run_tool, temp_repo

MANIFEST = "data/selfplay/manifest.tsv"


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout.strip()


def records(repo, *args):
    return run_tool("records", repo, *args)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Records(unittest.TestCase):
    def setUp(self):
        temp_repo(self, "data", "selfplay")
        git(self.repo, "init", "-q")
        for k, v in (("user.name", "Test"), ("user.email", "test@example.com"), ("commit.gpgsign", "false")):
            git(self.repo, "config", k, v)
        with open(os.path.join(self.repo, MANIFEST), "w") as f:
            f.write("\t".join(COLUMNS) + "\n")
        git(self.repo, "add", MANIFEST)
        git(self.repo, "commit", "-q", "-m", "start")
        # A record (any bytes: the tool reads only their hash and size) and an engine that
        # counts it as `hayate gensfen merge` prints.
        self.record = os.path.join(self.tmp, "run", "shard-0-of-1.hgr")
        os.makedirs(os.path.dirname(self.record))
        with open(self.record, "wb") as f:
            f.write(random.Random(1).randbytes(5000))
        self.engine = os.path.join(self.tmp, "engine.sh")
        with open(self.engine, "w") as f:
            f.write("#!/bin/sh\necho 'gensfen merge: 12 games in, 12 out (0 duplicates); "
                    "600 positions in, 590 out; x.hgr and x.bin'\n")
        os.chmod(self.engine, 0o755)

    def land(self, *extra, name="gen9-seed1.hgr", path=None):
        return records(self.repo, "land", path or self.record, "--name", name, "--command", "hayate gensfen --seed 1",
                       "--binary", "abc1234", "--net", "gen8", "--machine", "a test", "--date", "2026-12-07",
                       "--notes", "made for the test", *extra)

    def rows(self):
        return read_rows(self, MANIFEST, parse_manifest)

    def write_rows(self, rows):
        with open(os.path.join(self.repo, MANIFEST), "w") as f:
            f.write("\t".join(COLUMNS) + "\n" + "".join("\t".join(r[c] for c in COLUMNS) + "\n" for r in rows))

    def test_a_landed_record_is_in_the_history_only_and_restores_with_its_sha256(self):
        head = git(self.repo, "rev-parse", "HEAD")
        r = self.land("--engine", self.engine)
        self.assertEqual(r.returncode, 0, r.stderr)
        # Two commits: the first holds the record, the second takes it out and writes the row.
        self.assertEqual(git(self.repo, "rev-parse", "HEAD~2"), head)
        first = git(self.repo, "rev-parse", "HEAD~1")
        self.assertEqual(git(self.repo, "ls-tree", "--name-only", first, "data/selfplay/"),
                         "data/selfplay/gen9-seed1.hgr\ndata/selfplay/manifest.tsv")
        self.assertEqual(git(self.repo, "ls-files", "data/selfplay"), MANIFEST)
        self.assertFalse(os.path.exists(os.path.join(self.repo, "data/selfplay/gen9-seed1.hgr")))
        self.assertEqual(git(self.repo, "status", "--porcelain", "--untracked-files=no"), "")
        [row] = self.rows()
        self.assertEqual((row["file"], row["games"], row["positions"], row["distinct"], row["commit"]),
                         ("gen9-seed1.hgr", "12", "600", "590", first))
        self.assertEqual((row["sha256"], row["bytes"], row["net"]), (sha(self.record), "5000", "gen8"))
        self.assertEqual(records(self.repo, "check").returncode, 0)

        # The copy land left, then restored from the history into another folder.
        self.assertEqual(sha(os.path.join(self.repo, "data/selfplay/records/gen9-seed1.hgr")), sha(self.record))
        dest = os.path.join(self.tmp, "restored")
        r = records(self.repo, "restore", "--dest", dest)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 restored, 0 already there", r.stdout)
        self.assertEqual(sha(os.path.join(dest, "gen9-seed1.hgr")), sha(self.record))
        r = records(self.repo, "restore", "gen9-*", "--dest", dest)
        self.assertIn("0 restored, 1 already there", r.stdout)
        # A damaged copy is replaced.
        with open(os.path.join(dest, "gen9-seed1.hgr"), "ab") as f:
            f.write(b"x")
        r = records(self.repo, "restore", "--dest", dest)
        self.assertIn("1 restored", r.stdout)
        self.assertEqual(sha(os.path.join(dest, "gen9-seed1.hgr")), sha(self.record))
        r = records(self.repo, "restore", "gen5-*", "--dest", dest)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no record matches 'gen5-*'", r.stderr)

        # A second record counted from the arguments, then the totals.
        other = os.path.join(self.tmp, "other.hgr")
        with open(other, "wb") as f:
            f.write(b"another record")
        r = self.land("--games", "3", "--positions", "100", "--distinct", "99", name="gen10-seed2.hgr", path=other)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = records(self.repo, "totals")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[:3], [
            "gen9: 1 files, 12 games, 600 positions, 590 distinct, 5,000 bytes",
            "gen10: 1 files, 3 games, 100 positions, 99 distinct, 14 bytes",
            "all: 2 files, 15 games, 700 positions, 689 distinct, 5,014 bytes",
        ])
        # The same name or the same bytes twice are refused.
        r = self.land("--engine", self.engine, name="gen10-seed2.hgr")
        self.assertEqual(r.returncode, 2)
        self.assertIn("has a manifest row already", r.stderr)
        r = self.land("--engine", self.engine, name="gen10-seed3.hgr")
        self.assertEqual(r.returncode, 2)
        self.assertIn("is gen9-seed1.hgr (the same sha256): landed already", r.stderr)

    def test_a_wrong_sha256_or_a_missing_commit_fails_check_and_restore(self):
        self.assertEqual(self.land("--engine", self.engine).returncode, 0)
        git(self.repo, "commit", "-q", "--allow-empty", "-m", "later")
        [row] = self.rows()
        dest = os.path.join(self.tmp, "restored")

        self.write_rows([{**row, "sha256": "0" * 64}])
        r = records(self.repo, "check")
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"gen9-seed1.hgr: the blob in {row['commit'][:12]} has sha256 {row['sha256']}", r.stderr)
        r = records(self.repo, "restore", "--dest", dest)
        self.assertEqual(r.returncode, 1)
        self.assertIn("1 FAILED (gen9-seed1.hgr)", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(dest, "gen9-seed1.hgr")))

        self.write_rows([{**row, "commit": "1" * 40}])
        r = records(self.repo, "restore", "--dest", dest)
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"commit {'1' * 12} is not in this clone", r.stderr)
        self.assertEqual(records(self.repo, "check").returncode, 1)

        # The later commit does not hold the file.
        self.write_rows([{**row, "commit": git(self.repo, "rev-parse", "HEAD")}])
        r = records(self.repo, "check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("holds no data/selfplay/gen9-seed1.hgr", r.stderr)

        self.write_rows([row])
        self.assertEqual(records(self.repo, "check").returncode, 0)

    def test_check_refuses_a_record_in_the_tree_and_a_malformed_manifest(self):
        shutil.copy(self.record, os.path.join(self.repo, "data/selfplay/stray.hgr"))
        git(self.repo, "add", "data/selfplay/stray.hgr")
        r = records(self.repo, "check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("data/selfplay/stray.hgr is tracked", r.stderr)
        git(self.repo, "rm", "-q", "--cached", "data/selfplay/stray.hgr")

        with open(os.path.join(self.repo, MANIFEST), "a") as f:
            f.write("gen9-seed1.hgr\tnot-a-hash\t12\n" + "\t".join(["x.hgr", "a" * 64, "1", "1", "5", "6"]
                                                                   + ["y"] * 7) + "\n")
        r = records(self.repo, "check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("line 2: 3 fields, not 13", r.stderr)
        self.assertIn("line 3: date 'y' is not of the form", r.stderr)
        self.assertIn("line 3: x.hgr: more distinct positions than positions", r.stderr)
        # land refuses to write beside uncommitted manifest changes.
        r = self.land("--engine", self.engine)
        self.assertEqual(r.returncode, 2)

    def test_dry_run_changes_nothing(self):
        head = git(self.repo, "rev-parse", "HEAD")
        r = self.land("--engine", self.engine, "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("would: git commit", r.stdout)
        self.assertEqual(git(self.repo, "rev-parse", "HEAD"), head)
        self.assertEqual(git(self.repo, "status", "--porcelain"), "")

    def test_a_shallow_clone_is_told_what_it_lacks(self):
        self.assertEqual(self.land("--engine", self.engine).returncode, 0)
        clone = os.path.join(self.tmp, "clone")
        subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{self.repo}", clone], check=True,
                       capture_output=True)
        r = records(clone, "check")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("a shallow clone", r.stdout)
        self.assertNotIn("every sha256", r.stdout)
        r = records(clone, "restore")
        self.assertEqual(r.returncode, 1)
        self.assertIn("this clone is shallow: `git fetch --unshallow` first", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        # A full clone restores it.
        full = os.path.join(self.tmp, "full")
        subprocess.run(["git", "clone", "-q", self.repo, full], check=True, capture_output=True)
        r = records(full, "restore")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sha(os.path.join(full, "data/selfplay/records/gen9-seed1.hgr")), sha(self.record))


if __name__ == "__main__":
    unittest.main()

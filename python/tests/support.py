"""Shared by the Python API's tests: the binary under test, unique markers for the
processes a test starts, and bounded waits (never a bare sleep as synchronisation)."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

TESTS = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(TESTS)
REPO = os.path.dirname(PYTHON_DIR)
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

# The binary under test: RUNLIMIT_BINARY (tests/python.bats passes make check's), else the
# one built in the tree.
os.environ.setdefault("RUNLIMIT_BINARY", os.path.join(REPO, "runlimit"))
RUNLIMIT = os.environ["RUNLIMIT_BINARY"]
TREE = os.path.join(TESTS, "tree.py")
# Does the build under test reach a descendant that called setsid?  tests/python.bats says
# (its probe, as the other bats files'): the portable build reaches the group only.
REACHES_SESSIONS = os.environ.get("RUNLIMIT_REACHES_SESSIONS", "yes") != "no"
# Does it list the command's tree, so that the report counts what is left (left_running)?
# Not without a process table (the portable build): the counts are then None.
COUNTS = os.environ.get("RUNLIMIT_COUNTS", "yes") != "no"


def wait_until(predicate, limit=10.0, what="a condition"):
    """Poll predicate every 10 ms for at most limit seconds; fail the test if it never holds."""
    end = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out after %ss waiting for %s" % (limit, what))
        time.sleep(0.01)


def alive_with(marker):
    """The pids of live (not zombie) processes whose command line holds marker."""
    out = subprocess.run(["ps", "-A", "-o", "pid=", "-o", "stat=", "-o", "args="],
                         stdout=subprocess.PIPE, check=True).stdout.decode("utf-8", "replace")
    pids = []
    for line in out.splitlines():
        fields = line.split(None, 2)
        if len(fields) == 3 and marker in fields[2] and not fields[1].startswith("Z"):
            pids.append(int(fields[0]))
    return pids


class ProcessTest(unittest.TestCase):
    """A test whose processes carry a unique marker: a private copy of sleep under a unique
    name, in a private directory.  Whatever still carries it at the end is reported and
    ended (by pid: they are this test's own)."""

    def setUp(self):
        if not os.access(RUNLIMIT, os.X_OK):
            self.fail("no runlimit binary at %s (build it, or set RUNLIMIT_BINARY)" % RUNLIMIT)
        self.tmp = tempfile.mkdtemp(prefix="runlimit-py-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.marker = "rlsleep-" + uuid.uuid4().hex[:12]
        self.sleep = os.path.join(self.tmp, self.marker)
        shutil.copy2(shutil.which("sleep"), self.sleep)
        self.addCleanup(self._end_leftovers)

    def _end_leftovers(self):
        for pid in alive_with(self.marker):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass

    def tree(self, seconds=300):
        """A command whose tree is hard to end: it starts a child that called setsid and
        ignores SIGTERM (in the group, where the build reaches nothing that left it), and a
        plain child, writes their pids to a file, then becomes a sleep.  Returns (args,
        pidfile)."""
        pidfile = os.path.join(self.tmp, "pids")
        args = [sys.executable, TREE, self.sleep, str(seconds), pidfile]
        return args + ([] if REACHES_SESSIONS else ["group"]), pidfile

    def needs_session_reach(self):
        if not REACHES_SESSIONS:
            self.skipTest("this build does not reach a descendant that called setsid "
                          "(the process group only)")

    def wait_started(self, pidfile, limit=20.0):
        wait_until(lambda: os.path.exists(pidfile), limit, "the tree to start")
        with open(pidfile) as f:
            return [int(p) for p in f.read().split()]

    def assertNothingLeft(self, limit=10.0):
        """Nothing carrying the marker is alive (a bounded wait for the kernel's tear-down)."""
        wait_until(lambda: not alive_with(self.marker), limit,
                   "the processes of %s to be gone" % self.marker)

    def assertTimedOut(self, result, status, by):
        """A time-out by the limit `by`, with `status`, that left nothing running."""
        self.assertEqual((result.returncode, result.timed_out, result.timed_out_by),
                         (status, True, by))
        self.assertNothingLeft()

    def env(self, **extra):
        env = dict(os.environ)
        env.update(extra)
        return env

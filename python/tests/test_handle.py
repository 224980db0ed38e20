"""start()'s handle, cancel(name) from another process and list_runs()."""

import os
import signal
import subprocess
import sys
import threading
import uuid

from support import PYTHON_DIR, ProcessTest

import runlimit


class HandleTest(ProcessTest):
    def test_wait_returns_the_result(self):
        h = runlimit.start(["sh", "-c", "echo hello"], 30)
        r = h.wait(30)
        self.assertEqual((r.returncode, r.stdout, r.cancelled), (0, b"hello\n", False))
        self.assertFalse(h.cancel())  # already ended: nothing is signalled
        self.assertIs(h.poll(), r)
        self.assertEqual(runlimit.start(["cat"], 30, input=b"in\n").wait(30).stdout, b"in\n")

    def test_cancel_from_another_thread_leaves_nothing_running(self):
        args, pidfile = self.tree()
        h = runlimit.start(args, 60, kill_after=0.5)
        self.wait_started(pidfile)
        with self.assertRaises(subprocess.TimeoutExpired):
            h.wait(0)
        t = threading.Thread(target=h.cancel)
        t.start()
        t.join()
        r = h.wait(30)
        self.assertTrue(r.cancelled)
        self.assertFalse(r.timed_out)
        self.assertEqual(r.returncode, 143)  # runlimit dies of the TERM it passed on: $? 143
        self.assertEqual(r.signal, signal.SIGTERM)
        self.assertEqual(r.report["outcome"], "interrupted")
        self.assertNothingLeft(0.5)

    def test_cancel_where_waitid_is_not_used(self):
        # macOS's path: the handle polls for the exit under the lock that cancel() takes.
        saved = runlimit._handle._WAITID_NOWAIT
        runlimit._handle._WAITID_NOWAIT = False
        self.addCleanup(setattr, runlimit._handle, "_WAITID_NOWAIT", saved)
        args, pidfile = self.tree()
        h = runlimit.start(args, 60, kill_after=0.5)
        self.wait_started(pidfile)
        self.assertTrue(h.cancel())
        self.assertTrue(h.wait(30).cancelled)
        self.assertFalse(h.cancel())
        self.assertNothingLeft(0.5)

    def test_leaving_the_with_block_ends_the_run(self):
        args, pidfile = self.tree()
        with runlimit.start(args, 60, kill_after=0.5) as h:
            self.wait_started(pidfile)
        self.assertTrue(h.wait(0).cancelled)
        self.assertNothingLeft(0.5)

    def test_a_run_still_going_at_interpreter_exit_is_ended(self):
        args, pidfile = self.tree()
        code = ("import os, time, runlimit\n"
                "h = runlimit.start(%r, 600, kill_after=0.5)\n"
                "end = time.monotonic() + 20\n"
                "while not os.path.exists(%r) and time.monotonic() < end:\n"
                "    time.sleep(0.01)\n" % (args, pidfile))
        subprocess.run([sys.executable, "-c", code], env=self.env(PYTHONPATH=PYTHON_DIR),
                       timeout=60, check=True)
        self.wait_started(pidfile, 0)
        self.assertNothingLeft(0.5)

    def test_an_interpreter_killed_leaves_nothing_running(self):
        # Neither a KILL nor Python's default TERM runs the package's exit handlers: the run
        # ends because every run asks runlimit to end with its caller (--die-with-parent).
        for sig in (signal.SIGKILL, signal.SIGTERM):
            with self.subTest(signal=sig):
                args, pidfile = self.tree()
                code = ("import time, runlimit\n"
                        "h = runlimit.start(%r, 600, kill_after=0.5)\n"
                        "time.sleep(600)\n" % (args,))
                p = subprocess.Popen([sys.executable, "-c", code],
                                     env=self.env(PYTHONPATH=PYTHON_DIR))
                self.addCleanup(p.kill)
                self.wait_started(pidfile)
                os.kill(p.pid, sig)
                self.assertEqual(p.wait(30), -sig)
                self.assertNothingLeft(10)
                os.unlink(pidfile)

    def test_a_run_started_by_a_thread_that_ended_goes_on(self):
        # Linux's parent-death signal fires when the thread that forked ends: the package's
        # runs must not end with a worker thread, only with the interpreter.
        args, pidfile = self.tree()
        handles = []
        t = threading.Thread(target=lambda: handles.append(
            runlimit.start(args, 600, kill_after=0.5)))
        t.start()
        t.join()
        self.wait_started(pidfile)
        h = handles[0]
        with self.assertRaises(subprocess.TimeoutExpired):
            h.wait(1)  # the thread has ended, and the run goes on
        self.assertTrue(h.cancel())
        self.assertFalse(h.wait(30).report["parent_gone"])
        self.assertNothingLeft(0.5)

    def test_cancel_by_name_from_another_process_leaves_nothing_running(self):
        name = "py-" + uuid.uuid4().hex[:8]
        env = self.env(RUNLIMIT_DIR=os.path.join(self.tmp, "named"))
        args, pidfile = self.tree()
        h = runlimit.start(args, 60, kill_after=0.5, name=name, env=env)
        self.wait_started(pidfile)
        runs = runlimit.list_runs(env=env)
        self.assertEqual([(x["name"], x["pid"] is not None) for x in runs], [(name, True)])
        self.assertEqual(runs[0]["argv"], args)
        canceller = dict(env, PYTHONPATH=PYTHON_DIR)
        p = subprocess.run([sys.executable, "-c",
                            "import runlimit; print(runlimit.cancel(%r))" % name],
                           env=canceller, stdout=subprocess.PIPE, timeout=60, check=True)
        self.assertEqual(p.stdout, b"CancelOutcome.ENDED\n")
        r = h.wait(30)
        self.assertTrue(r.cancelled)
        self.assertTrue(r.report["cancelled"])
        self.assertNothingLeft(0.5)
        self.assertEqual(runlimit.list_runs(env=env), [])
        self.assertFalse(runlimit.cancel(name, marker_ttl=0, env=env))  # no such run now

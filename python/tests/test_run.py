"""run(): real processes under the binary under test."""

import os
import signal
import stat
import sys
import tempfile
import time

from support import COUNTS, ProcessTest

import runlimit


class RunTest(ProcessTest):
    def test_leftover_holding_the_pipes_does_not_hold_the_caller(self):
        # Without the relay a caller that captures would wait for the leftover's pipes.
        t0 = time.monotonic()
        r = runlimit.run(["sh", "-c", "echo before; %s 30 & echo after" % self.sleep], 60,
                         output_grace=1.0)
        elapsed = time.monotonic() - t0
        self.assertLess(elapsed, 1.0 + 0.5)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stdout, b"before\nafter\n")
        self.assertFalse(r.timed_out)
        self.assertEqual(r.left_running, 1 if COUNTS else None)

    def test_term_ignoring_setsid_child_is_ended_at_the_limit(self):
        self.needs_session_reach()
        args, pidfile = self.tree()
        r = runlimit.run(args, 3)
        self.assertEqual(len(self.wait_started(pidfile, 0)), 3)
        self.assertTrue(r.report["kill_needed"])
        self.assertEqual(r.left_running, 0 if COUNTS else None)
        self.assertTimedOut(r, 124, "deadline")  # the default grace's KILL still gives 124

    def test_an_explicit_grace_makes_a_kill_137(self):
        r = runlimit.run(["sh", "-c", "trap '' TERM; exec %s 60" % self.sleep], 1,
                         kill_after=0.5)
        self.assertTimedOut(r, 137, "deadline")

    def test_silence_times_out_as_no_output(self):
        r = runlimit.run(["sh", "-c", "echo one; exec %s 60" % self.sleep], 60,
                         no_output_timeout=1)
        self.assertEqual(r.stdout, b"one\n")
        self.assertTimedOut(r, 124, "no-output")

    def test_a_1_mib_stderr_tail_arrives_whole(self):
        data = bytes(range(256)) * 4096  # 1 MiB, not UTF-8: the tail's exact bytes
        code = "import sys; sys.stderr.buffer.write(bytes(range(256)) * 4096)"
        r = runlimit.run([sys.executable, "-c", code], 60, stderr_tail=1 << 20)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(len(r.stderr_tail), len(data))
        self.assertEqual(r.stderr_tail, data)
        self.assertEqual(r.stderr, data)

    def test_input_unread_and_held_by_a_leftover_does_not_hold_the_caller(self):
        # 1 MiB, more than a pipe holds, that nothing reads, and a leftover holding stdin
        # (through fd 3: sh gives a background job /dev/null as its stdin).
        t0 = time.monotonic()
        r = runlimit.run(["sh", "-c", "exec 3<&0; %s 30 <&3 3<&- & echo started" % self.sleep],
                         60, input=b"x" * (1 << 20))
        self.assertLess(time.monotonic() - t0, 1.0 + 0.5)
        self.assertEqual((r.returncode, r.stdout), (0, b"started\n"))

    def test_the_report_is_private_and_removed(self):
        private = os.path.join(self.tmp, "tempdir")
        os.mkdir(private)
        saved = tempfile.tempdir
        tempfile.tempdir = private
        self.addCleanup(setattr, tempfile, "tempdir", saved)
        # The report's file has no name (nobody else can open it), and is the user's alone.
        launch = runlimit._command.Launch(["true"], 5)
        st = os.fstat(launch.pass_fds[0])
        self.assertEqual((st.st_nlink, stat.S_IMODE(st.st_mode) & 0o077), (0, 0))
        launch.cleanup()
        r = runlimit.run(["true"], 5)
        self.assertEqual(r.report["outcome"], "exited")
        self.assertEqual(os.listdir(private), [])

    def test_input_and_uncaptured_output(self):
        r = runlimit.run(["cat"], 30, input=b"through stdin\n")
        self.assertEqual(r.stdout, b"through stdin\n")
        r = runlimit.run(["true"], 30, capture_output=False)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, None, None))
        self.assertIsNone(r.report["output"])  # no relay when nothing is captured

    def test_check_raises_on_time_out_and_on_failure(self):
        with self.assertRaises(runlimit.TimedOut) as cm:
            runlimit.run([self.sleep, "30"], 0.5, check=True)
        self.assertEqual(cm.exception.result.timed_out_by, "deadline")
        with self.assertRaises(runlimit.RunFailed) as cm:
            runlimit.run(["sh", "-c", "exit 3"], 30, check=True)
        self.assertEqual(cm.exception.result.returncode, 3)
        self.assertEqual(runlimit.run(["true"], 30, check=True).returncode, 0)

    def test_runlimit_own_error_is_an_exception_with_its_message(self):
        # Whatever check says, and with runlimit's own words, not only "bad usage".
        for check in (False, True):
            with self.assertRaises(runlimit.RunlimitError) as cm:
                runlimit.run(["true"], 30, name="not/valid", check=check)
            self.assertIn("status 125", str(cm.exception))
            self.assertIn("invalid run name", str(cm.exception))
        with self.assertRaises(runlimit.RunlimitError) as cm:
            runlimit.run(["true"], 30, name="not/valid", capture_output=False)
        self.assertIn("went where stderr goes", str(cm.exception))

    def test_an_interrupted_run_ends_the_tree_before_propagating(self):
        def interrupt(*_):
            raise KeyboardInterrupt

        args, pidfile = self.tree()
        old = signal.signal(signal.SIGALRM, interrupt)
        self.addCleanup(signal.signal, signal.SIGALRM, old)
        signal.setitimer(signal.ITIMER_REAL, 1.5)
        with self.assertRaises(KeyboardInterrupt):
            runlimit.run(args, 60, kill_after=0.5)
        self.wait_started(pidfile, 0)
        self.assertNothingLeft(0.5)  # run() returned once runlimit had ended the tree

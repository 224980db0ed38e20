"""subprocess's language (issue 62): its exceptions and their attributes, a command that
cannot start, one status convention, durations, the handle's promises, types."""

import asyncio
import datetime
import inspect
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

from support import COUNTS, PYTHON_DIR, ProcessTest, alive_with

import runlimit


class ExceptionsTest(ProcessTest):
    def test_a_time_out_is_a_timeout_expired(self):
        with self.assertRaises(subprocess.TimeoutExpired) as cm:
            runlimit.run(["sh", "-c", "echo out; echo err >&2; exec %s 30" % self.sleep], 0.5,
                         check=True)
        e = cm.exception
        self.assertIsInstance(e, runlimit.TimedOut)
        self.assertNotIsInstance(e, subprocess.CalledProcessError)  # as subprocess's
        self.assertEqual(e.cmd, ["sh", "-c", "echo out; echo err >&2; exec %s 30" % self.sleep])
        self.assertEqual(e.timeout, 0.5)
        self.assertEqual((e.stdout, e.output, e.stderr), (b"out\n", b"out\n", b"err\n"))
        self.assertEqual((e.returncode, e.result.returncode, e.result.timed_out), (124, 124, True))
        self.assertIn("timed out after 0.5 seconds", str(e))
        self.assertEqual(pickle.loads(pickle.dumps(e)).result.returncode, 124)

    def test_silence_gives_its_own_seconds(self):
        with self.assertRaises(subprocess.TimeoutExpired) as cm:
            runlimit.run([self.sleep, "30"], 60, no_output_timeout=0.5, check=True)
        self.assertEqual((cm.exception.timeout, cm.exception.result.timed_out_by),
                         (0.5, "no-output"))

    def test_a_failure_is_a_called_process_error(self):
        with self.assertRaises(subprocess.CalledProcessError) as cm:
            runlimit.run(["sh", "-c", "echo out; echo err >&2; exit 3"], 30, check=True)
        e = cm.exception
        self.assertIsInstance(e, runlimit.RunFailed)
        self.assertNotIsInstance(e, subprocess.TimeoutExpired)
        self.assertEqual((e.returncode, e.cmd), (3, ["sh", "-c", "echo out; echo err >&2; exit 3"]))
        self.assertEqual((e.stdout, e.output, e.stderr), (b"out\n", b"out\n", b"err\n"))
        self.assertIs(e.result.stdout, e.stdout)
        self.assertIn("exit status 3", str(e))
        self.assertEqual(pickle.loads(pickle.dumps(e)).returncode, 3)

    def test_a_death_by_signal_is_said(self):
        with self.assertRaises(runlimit.RunFailed) as cm:
            runlimit.run(["sh", "-c", "kill -SEGV $$"], 30, check=True)
        self.assertEqual((cm.exception.returncode, cm.exception.result.signal),
                         (139, signal.SIGSEGV))
        self.assertIn("signal SIGSEGV", str(cm.exception))

    def test_a_command_that_cannot_start_raises_as_subprocess_does(self):
        missing = os.path.join(self.tmp, "no-such-command")
        plain = os.path.join(self.tmp, "not-executable")
        with open(plain, "w") as f:
            f.write("#!/bin/sh\n")
        for check in (False, True):
            with self.subTest(check=check):
                with self.assertRaises(FileNotFoundError) as cm:
                    runlimit.run([missing], 30, check=check)
                self.assertEqual(cm.exception.filename, missing)
                with self.assertRaises(PermissionError) as cm:
                    runlimit.run([plain], 30, check=check)
                self.assertEqual(cm.exception.filename, plain)
        with self.assertRaises(FileNotFoundError):
            runlimit.start([missing], 30).wait(30)
        with self.assertRaises(FileNotFoundError):
            import asyncio
            asyncio.run(runlimit.arun([missing], 30))
        # A command's own 127 is a status, as subprocess gives it.
        self.assertEqual(runlimit.run(["sh", "-c", "exit 127"], 30).returncode, 127)


class StatusTest(ProcessTest):
    def test_a_cancel_is_128_plus_its_signal_whether_or_not_the_kill_was_needed(self):
        ready = os.path.join(self.tmp, "ready")
        for trap in ("", "trap '' TERM; "):  # the TERM ends it; the KILL is needed
            with self.subTest(trap=trap):
                h = runlimit.start(["sh", "-c", "%stouch %s; %s 60" % (trap, ready, self.sleep)],
                                   60, kill_after=0.3)
                self.wait_started(ready)
                os.unlink(ready)
                self.assertTrue(h.cancel())
                r = h.wait(30)
                self.assertEqual((r.returncode, r.cancelled, r.timed_out), (143, True, False))
                self.assertEqual(r.report["kill_needed"], bool(trap))
                self.assertEqual(h.returncode, 143)

    def test_a_command_killed_by_a_signal_of_its_own(self):
        r = runlimit.run(["sh", "-c", "kill -SEGV $$"], 30)
        self.assertEqual((r.returncode, r.signal, r.timed_out), (139, signal.SIGSEGV, False))
        r = runlimit.run(["sh", "-c", "exit 3"], 30)
        self.assertEqual((r.returncode, r.signal), (3, None))

    def test_a_time_out_names_the_signal_that_ended_the_command(self):
        r = runlimit.run([self.sleep, "60"], 0.3)
        self.assertEqual((r.returncode, r.signal), (124, signal.SIGTERM))
        r = runlimit.run(["sh", "-c", "trap '' TERM; exec %s 60" % self.sleep], 0.3,
                         kill_after=0.3)
        self.assertEqual((r.returncode, r.signal), (137, signal.SIGKILL))

    def test_runlimit_killed_is_137(self):
        h = runlimit.start([self.sleep, "60"], 60)
        os.kill(h.pid, signal.SIGKILL)
        r = h.wait(30)
        self.assertEqual((r.returncode, r.signal, r.report), (137, signal.SIGKILL, None))

    def test_left_running_counts_what_outlived_the_kill(self):
        # A process in an uninterruptible wait outlives a KILL: the report lists it apart.
        report = {"outcome": "killed", "left_running": 0, "alive_after_kill": [41, 42],
                  "timed_out": True, "timed_out_by": "deadline", "command_signal": "KILL"}
        self.assertEqual(runlimit.Result(["x"], 124, None, None, report).left_running, 2)
        report["left_running"] = None  # unknown where the tree cannot be listed
        self.assertIsNone(runlimit.Result(["x"], 124, None, None, report).left_running)


class DurationsTest(ProcessTest):
    def test_none_is_no_limit(self):
        r = runlimit.run(["sh", "-c", "echo done"], None)
        self.assertEqual((r.returncode, r.stdout, r.timed_out), (0, b"done\n", False))
        self.assertEqual(r.report["duration_seconds"], 0)
        self.assertEqual(runlimit.run(["true"]).report["duration_seconds"], 0)

    def test_zero_or_less_has_expired_already(self):
        for timeout in (0, 0.0, -1, datetime.timedelta(seconds=-5)):
            with self.subTest(timeout=timeout):
                t0 = time.monotonic()
                r = runlimit.run([self.sleep, "60"], timeout)
                self.assertLess(time.monotonic() - t0, 10)
                self.assertTimedOut(r, 124, "deadline")
        with self.assertRaises(subprocess.TimeoutExpired):
            runlimit.run([self.sleep, "60"], 0, check=True)

    def test_a_timedelta_wherever_a_duration_is_taken(self):
        r = runlimit.run(["sh", "-c", "trap '' TERM; exec %s 60" % self.sleep],
                         datetime.timedelta(milliseconds=300),
                         kill_after=datetime.timedelta(milliseconds=300),
                         output_grace=datetime.timedelta(seconds=1))
        self.assertEqual(r.report["duration_seconds"], 0.3)
        self.assertEqual(r.report["kill_after_seconds"], 0.3)
        self.assertTimedOut(r, 137, "deadline")
        r = runlimit.run([self.sleep, "60"], 60,
                         no_output_timeout=datetime.timedelta(milliseconds=300))
        self.assertTimedOut(r, 124, "no-output")
        with self.assertRaises(ValueError):
            runlimit.run(["true"], 5, kill_after=datetime.timedelta(seconds=-1))
        with self.assertRaises(TypeError):
            runlimit.run(["true"], [5])


class HandleTest(ProcessTest):
    def script(self, body, timeout=60):
        """Run body in a Python of its own (PYTHONPATH: the package); its CompletedProcess."""
        return subprocess.run([sys.executable, "-c", textwrap.dedent(body)],
                              env=self.env(PYTHONPATH=PYTHON_DIR), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout, check=False)

    def test_poll_never_raises_check(self):
        h = runlimit.start(["sh", "-c", "exit 3"], 30, check=True)
        self.assertRaises(runlimit.RunFailed, h.wait, 30)
        self.assertEqual(h.poll().returncode, 3)

    def test_leaving_a_checked_with_block_keeps_the_block_exception(self):
        with self.assertRaises(ValueError):
            with runlimit.start([self.sleep, "60"], 60, check=True):
                raise ValueError("the block's")
        with runlimit.start([self.sleep, "60"], 60, check=True) as h:
            pass  # the cancel is the block's own: no RunFailed for its status
        self.assertTrue(h.poll().cancelled)

    def test_every_run_is_ended_at_exit_when_one_wait_raises(self):
        # Both checked: whichever the exit handler meets first raises from wait(); the other
        # is ended and waited for all the same, before the interpreter is gone.
        first, first_pids = self.tree()
        second_pids = os.path.join(self.tmp, "pids2")
        second = [second_pids if a == first_pids else a for a in first]
        p = self.script("""
            import os, time, runlimit
            a = runlimit.start(%r, 600, kill_after=5, check=True)
            b = runlimit.start(%r, 600, kill_after=5, check=True)
            end = time.monotonic() + 20
            while not (os.path.exists(%r) and os.path.exists(%r)) and time.monotonic() < end:
                time.sleep(0.01)
            """ % (first, second, first_pids, second_pids))
        self.assertEqual(p.returncode, 0, p.stdout)
        self.wait_started(first_pids, 0)
        self.wait_started(second_pids, 0)
        # Ended before the interpreter exited: not the 5 s grace later, by the caller's death.
        self.assertNothingLeft(2)

    def test_a_forked_child_leaves_its_parent_runs_alone(self):
        marker = os.path.join(self.tmp, "child-exited")
        p = self.script("""
            import os, subprocess, sys, time, runlimit
            h = runlimit.start([%r, "60"], 600)
            pid = os.fork()
            if pid == 0:
                open(%r, "w").close()
                sys.exit(0)  # the child's exit handlers run: none of them is the parent's
            end = time.monotonic() + 20
            while os.waitpid(pid, os.WNOHANG) == (0, 0):
                if time.monotonic() > end:
                    os.kill(pid, 9)
                    sys.exit("the child hung at its exit")
                time.sleep(0.01)
            try:
                h.wait(1)
                sys.exit("the parent's run ended with the child")
            except subprocess.TimeoutExpired:
                pass
            assert h.cancel()
            assert h.wait(30).cancelled
            """ % (self.sleep, marker))
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertTrue(os.path.exists(marker))
        self.assertNothingLeft(2)


class NamedTest(ProcessTest):
    def test_cancel_says_which_of_its_answers(self):
        import uuid
        env = self.env(RUNLIMIT_DIR=os.path.join(self.tmp, "named"))
        name = "py-" + uuid.uuid4().hex[:8]
        self.assertIs(runlimit.cancel(name, marker_ttl=0, env=env),
                      runlimit.CancelOutcome.NOT_FOUND)
        outcome = runlimit.cancel(name, marker_ttl=5, env=env)
        self.assertIs(outcome, runlimit.CancelOutcome.MARKER_LEFT)
        self.assertFalse(outcome)
        r = runlimit.run([self.sleep, "60"], 60, name=name, env=env)
        self.assertTrue(r.cancelled)  # the marker ended it before its command started
        name = "py-" + uuid.uuid4().hex[:8]
        h = runlimit.start([self.sleep, "60"], 60, name=name, env=env)
        deadline = time.monotonic() + 20
        while not any(x["name"] == name for x in runlimit.list_runs(env=env)):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        outcome = runlimit.cancel(name, env=env)
        self.assertIs(outcome, runlimit.CancelOutcome.ENDED)
        self.assertTrue(outcome)
        self.assertEqual(h.wait(30).returncode, 143)
        # Too late: the run has ended; nothing is left for the name's next run.
        outcome = runlimit.cancel(name, env=env)
        self.assertIs(outcome, runlimit.CancelOutcome.ALREADY_ENDED)
        self.assertFalse(outcome)
        r = runlimit.run(["sh", "-c", "echo ran"], 60, name=name, env=env)
        self.assertEqual((r.returncode, r.stdout, r.cancelled), (0, b"ran\n", False))


class TypesTest(ProcessTest):
    def test_the_package_says_it_is_typed(self):
        self.assertTrue(os.path.isfile(os.path.join(PYTHON_DIR, "runlimit", "py.typed")))

    def test_every_public_callable_is_annotated_and_described(self):
        for name in runlimit.__all__:
            obj = getattr(runlimit, name)
            functions = []
            if inspect.isfunction(obj):
                functions.append(obj)
            elif inspect.isclass(obj) and obj.__module__.startswith("runlimit"):
                functions += [f for n, f in vars(obj).items()
                              if inspect.isfunction(f) and (not n.startswith("_")
                                                            or n in ("__init__", "__exit__"))]
            for f in functions:
                with self.subTest(function=f.__qualname__):
                    sig = inspect.signature(f)
                    for p in sig.parameters.values():
                        if p.name != "self":
                            self.assertIsNot(p.annotation, p.empty, p.name)
                    self.assertIsNot(sig.return_annotation, sig.empty)

    def test_help_describes_every_parameter(self):
        for f in (runlimit.run, runlimit.arun, runlimit.start, runlimit.cancel):
            for p in inspect.signature(f).parameters:
                with self.subTest(function=f.__name__, parameter=p):
                    self.assertRegex(f.__doc__, r"(?m)^\s+(\w+, )*%s\b" % p)

    def test_the_four_take_one_list_of_parameters(self):
        # Written once (Plan), seen by each as if written out: help(), inspect, a keyword's
        # default; args and timeout positional, the options keyword-only.
        plan = inspect.signature(runlimit._plan.Plan)
        for f in (runlimit.run, runlimit.arun, runlimit.start, runlimit.astart):
            with self.subTest(function=f.__name__):
                sig = inspect.signature(f)
                self.assertEqual(list(sig.parameters.values()),
                                 list(plan.parameters.values()))
                self.assertEqual([n for n, p in sig.parameters.items()
                                  if p.kind is p.POSITIONAL_OR_KEYWORD], ["args", "timeout"])
                self.assertEqual({n for n, p in sig.parameters.items()
                                  if p.kind is p.KEYWORD_ONLY},
                                 set(sig.parameters) - {"args", "timeout"})
                self.assertEqual((sig.parameters["output_grace"].default,
                                  sig.parameters["capture_output"].default), (1.0, True))
                self.assertEqual(inspect.iscoroutinefunction(f), f.__name__.startswith("a"))
        self.assertEqual(inspect.signature(runlimit.start).return_annotation, "Run")

    def test_a_call_that_does_not_fit_names_the_function_and_starts_nothing(self):
        for f in (runlimit.run, runlimit.start):
            with self.subTest(function=f.__name__):
                with self.assertRaisesRegex(TypeError, r"^%s\(\) got an unexpected keyword "
                                            r"argument 'kill_afer'$" % f.__name__):
                    f([self.sleep, "30"], 5, kill_afer=1)
                with self.assertRaisesRegex(TypeError, r"^%s\(\) .*positional" % f.__name__):
                    f([self.sleep, "30"], 5, 1)
        for f in (runlimit.arun, runlimit.astart):
            with self.subTest(function=f.__name__):
                with self.assertRaisesRegex(TypeError, r"^%s\(\) got an unexpected keyword "
                                            r"argument 'timout'$" % f.__name__):
                    asyncio.run(f([self.sleep, "30"], timout=5))
        self.assertEqual(alive_with(self.marker), [])

"""The command line the API gives runlimit, and the result read back from its report."""

import base64
import json
import math
import os
import shutil
import tempfile

from . import _locate
from ._errors import RunFailed, RunlimitError, TimedOut


def duration(value, what):
    """A duration in runlimit's syntax: seconds as a number, or a string such as "10m"."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a number of seconds or a string, not %r" % (what, value))
    if not math.isfinite(value) or value < 0:
        raise ValueError("%s must be finite and not negative, not %r" % (what, value))
    return repr(float(value))


def size(value, what):
    """A size (bytes as an int, or a string such as "1.5G")."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError("%s must be a number of bytes or a string, not %r" % (what, value))
    return str(value)


def signal_name(value):
    """-s's argument: a signal number (signal.SIGINT too) or a name ("INT", "SIGINT")."""
    if isinstance(value, str):
        return value
    return str(int(value))


def command_args(args):
    if isinstance(args, (str, bytes)):
        raise TypeError("args must be a sequence of arguments; for a shell line, pass "
                        "['sh', '-c', line]")
    args = [os.fspath(a) for a in args]
    if not args:
        raise ValueError("args must not be empty")
    return args


class Launch:
    """One run's command line and private report file; cleanup() removes the file."""

    def __init__(self, args, timeout, *, kill_after=None, signal=None, output_grace=1.0,
                 no_output_timeout=None, memory=None, max_procs=None, cpu_time=None,
                 stderr_tail=None, kill_leftovers=False, capture_output=True, name=None):
        self.args = command_args(args)
        options = []
        if kill_after is not None:  # -k only when chosen: the default grace's KILL gives 124
            options.append(("-k", duration(kill_after, "kill_after")))
        if signal is not None:
            options.append(("-s", signal_name(signal)))
        relayed = capture_output or no_output_timeout is not None or stderr_tail is not None
        if relayed:  # a leftover holding a captured pipe must not hold the caller
            options.append(("--output-grace", duration(output_grace, "output_grace")))
        if no_output_timeout is not None:
            options.append(("--no-output-timeout",
                            duration(no_output_timeout, "no_output_timeout")))
        if memory is not None:
            options.append(("--memory", size(memory, "memory")))
        if max_procs is not None:
            if isinstance(max_procs, bool) or not isinstance(max_procs, int):
                raise TypeError("max_procs must be an int, not %r" % (max_procs,))
            options.append(("--max-procs", str(max_procs)))
        if cpu_time is not None:
            options.append(("--cpu-time", duration(cpu_time, "cpu_time")))
        if stderr_tail is not None:
            options.append(("--report-tail", size(stderr_tail, "stderr_tail")))
        if kill_leftovers:
            options.append(("--kill-leftovers", None))
        if name is not None:
            options.append(("--name", name))
        # Always: the run ends with this interpreter, however it ends (a kill, the OOM
        # killer, a crash), and never with a thread of it (docs/python.md).
        options.append(("--die-with-parent", None))
        limit = duration(timeout if timeout is not None else 0, "timeout")
        self.binary = _locate.find_runlimit()
        _locate.require(self.binary, ["--report"] + [o for o, _ in options])
        # The report goes to a file in a directory only this user can enter (mkdtemp: 0700),
        # read once runlimit has exited: a pipe read after the exit would cut it at 64 KiB.
        self.tmpdir = tempfile.mkdtemp(prefix="runlimit-report-")
        self.report_path = os.path.join(self.tmpdir, "report.json")
        argv = [self.binary, "--report=" + self.report_path]
        for option, value in options:
            if value is None:
                argv.append(option)
            elif option.startswith("--"):
                argv.append(option + "=" + value)
            else:
                argv += [option, value]
        self.argv = argv + ["--", limit] + self.args

    def cleanup(self):
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def read_report(self):
        try:
            with open(self.report_path, "rb") as f:
                text = f.read()
        except FileNotFoundError:  # runlimit was KILLed, or died of a fault of its own
            return None
        try:
            return json.loads(text.decode("utf-8"))
        except ValueError:
            return None

    def result(self, returncode, stdout, stderr, cancelled=False, check=False):
        """The Result of the finished run (the report read, then removed)."""
        try:
            report = self.read_report()
        finally:
            self.cleanup()
        result = Result(self.args, returncode, stdout, stderr, report, cancelled)
        if report is not None and report.get("outcome") == "error":
            raise RunlimitError("runlimit failed (status %s): %s"
                                % (returncode, report.get("error")))
        if check:
            result.check_returncode()
        return result


def _tail(report):
    output = report.get("output") if report else None
    tail = output.get("stderr_tail") if output else None
    if tail is None:
        return None
    if tail.get("base64") is not None:  # the exact bytes, where the text is not them
        return base64.b64decode(tail["base64"])
    return tail["text"].encode("utf-8")


class Result:
    """What happened to a run.

    returncode: runlimit's status (the command's, 124 after a time-out, 125-127 for
    runlimit's own errors), negative when runlimit died of a signal it passed on.
    timed_out, timed_out_by: from the report ("deadline", "no-output", "memory", "procs",
    "cpu-time", "alarm"), never guessed from the status.  stdout, stderr: bytes, or None
    when not captured.  stderr_tail: bytes with stderr_tail=, else None.  left_running:
    how many processes of the tree were still alive at the end (None where unknown).
    cancelled: a cancel() of the handle or a cancel(name) ended it.  report: the parsed
    run report (None only if runlimit was KILLed).
    """

    def __init__(self, args, returncode, stdout, stderr, report, cancelled=False):
        self.args = args
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.report = report
        self.timed_out = bool(report and report.get("timed_out"))
        self.timed_out_by = report.get("timed_out_by") if report else None
        self.left_running = report.get("left_running") if report else None
        self.stderr_tail = _tail(report)
        self.cancelled = bool(cancelled or (report and report.get("cancelled")))

    def __repr__(self):
        return ("Result(args=%r, returncode=%r, timed_out=%r, timed_out_by=%r, "
                "cancelled=%r, left_running=%r)"
                % (self.args, self.returncode, self.timed_out, self.timed_out_by,
                   self.cancelled, self.left_running))

    def check_returncode(self):
        """Raise TimedOut after a time-out, RunFailed after any other non-zero status."""
        if self.timed_out:
            raise TimedOut("%r timed out (%s)" % (self.args, self.timed_out_by), self)
        if self.returncode != 0:
            raise RunFailed("%r ended with status %s" % (self.args, self.returncode), self)

"""What a run gives back: the Result, read from runlimit's status and its report, with one
convention for the status (what $? of the same runlimit command line would be)."""

from __future__ import annotations

import base64
import errno
import os
import signal as _signal
from typing import Any, Dict, List, Optional

from ._errors import RunFailed, RunlimitError, TimedOut
from ._output import Capture, Text

Report = Dict[str, Any]

# A limit that ran out, as the report names it: the report field of its time in seconds,
# for TimedOut.timeout (a budget that is not a time gives how long the run lasted).
_LIMIT_SECONDS = {
    "deadline": "duration_seconds",
    "alarm": "duration_seconds",
    "no-output": "no_output_timeout_seconds",
}

# The reasons of the report's signals that are a request to end received by runlimit.
_REQUESTS = ("forwarded", "cancel", "parent")


def signal_number(name: Optional[str]) -> Optional[int]:
    """The number of a signal as the report names it ("TERM", "RTMIN+3"), a signal.Signals
    where Python has the name; None for None or a name this system does not have."""
    if not name:
        return None
    base, sign, offset = name.partition("+")
    if not sign:
        base, sign, offset = name.partition("-")
    number = getattr(_signal, "SIG" + base, None)
    if number is None:
        return None
    if sign:
        number = number + int(offset) if sign == "+" else number - int(offset)
    return as_signal(int(number))


def as_signal(number: int) -> int:
    """number as a signal.Signals where Python names it, else the number itself."""
    try:
        return _signal.Signals(number)
    except ValueError:
        return number


def _request_signal(report: Report) -> Optional[int]:
    """The signal of the request to end that runlimit passed on (a cancel, a forwarded
    TERM): the first signal the report lists for one, sent to the whole tree (a signal
    only passed on, USR1, goes to the group)."""
    for sent in report.get("signals") or ():
        if (sent.get("reason") in _REQUESTS and sent.get("target") == "tree"
                and sent.get("signal") != "CONT"):
            return signal_number(sent.get("signal"))
    return None


def returncode_of(status: int, report: Optional[Report]) -> int:
    """runlimit's status as a shell's $? gives it: 128+N when runlimit died of signal N
    (Popen's -N), and 128+N for a request to end by signal N (a cancel) whether or not the
    grace's KILL was needed (runlimit then exits 137)."""
    code = status if status >= 0 else 128 - status
    if report is not None and report.get("outcome") == "interrupted":
        n = _request_signal(report)
        if n is not None:
            code = 128 + int(n)
    return code


def _tail(report: Optional[Report]) -> Optional[bytes]:
    output = report.get("output") if report else None
    tail = output.get("stderr_tail") if output else None
    if tail is None:
        return None
    if tail.get("base64") is not None:  # the exact bytes, where the text is not them
        return base64.b64decode(tail["base64"])
    return str(tail["text"]).encode("utf-8")


def _left_running(report: Optional[Report]) -> Optional[int]:
    """What is left of the tree: those never sent a KILL (left_running) and those that
    outlived one (alive_after_kill: a process in an uninterruptible wait)."""
    if report is None or report.get("left_running") is None:
        return None
    return int(report["left_running"]) + len(report.get("alive_after_kill") or ())


class Result:
    """What happened to a run.

    returncode: what $? of the same runlimit command line would be: the command's own
    status, 124 after a time-out (137 after an explicit kill_after's KILL), 128+N when the
    command died of signal N, 128+N after a cancel by signal N (whether or not the KILL was
    needed).  signal: the signal that ended the command (a signal.Signals), or None when
    it exited.  timed_out, timed_out_by: from the report ("deadline", "no-output", "memory",
    "procs", "cpu-time", "alarm"), never guessed from the status.  cancelled: a cancel of
    the handle, of the name, or a signal asking runlimit to end, ended it.  stdout,
    stderr: what was captured, bytes (str with text=), or None when not captured; with
    max_output, its first and last halves, stdout_dropped and stderr_dropped counting the
    bytes dropped between them (0 when none).  stderr_tail: bytes with stderr_tail=, else
    None.  left_running: how many processes of the tree were still alive at the end (None
    where the system cannot tell).  report: the parsed run report (None only if runlimit
    was KILLed).
    """

    args: List[str]
    returncode: int
    stdout: Any  # bytes, str (text=) or None: subprocess's CompletedProcess has Any too
    stderr: Any
    stdout_dropped: int
    stderr_dropped: int
    report: Optional[Report]
    timed_out: bool
    timed_out_by: Optional[str]
    cancelled: bool
    signal: Optional[int]
    left_running: Optional[int]
    stderr_tail: Optional[bytes]

    def __init__(self, args: List[str], status: int, stdout: Any, stderr: Any,
                 report: Optional[Report], cancelled: bool = False, stdout_dropped: int = 0,
                 stderr_dropped: int = 0) -> None:
        self.args = args
        self.returncode = returncode_of(status, report)
        self.stdout = stdout
        self.stderr = stderr
        self.stdout_dropped = stdout_dropped
        self.stderr_dropped = stderr_dropped
        self.report = report
        self.timed_out = bool(report and report.get("timed_out"))
        self.timed_out_by = report.get("timed_out_by") if report else None
        self.cancelled = bool(cancelled or (report and report.get("cancelled")))
        if report is not None:
            self.signal = signal_number(report.get("command_signal"))
        else:  # runlimit KILLed: what killed it is all that is known
            self.signal = as_signal(-status) if status < 0 else None
        self.left_running = _left_running(report)
        self.stderr_tail = _tail(report)

    def __repr__(self) -> str:
        return ("Result(args=%r, returncode=%r, signal=%r, timed_out=%r, timed_out_by=%r, "
                "cancelled=%r, left_running=%r)"
                % (self.args, self.returncode, self.signal, self.timed_out, self.timed_out_by,
                   self.cancelled, self.left_running))

    def check_returncode(self) -> None:
        """Raise TimedOut after a time-out, RunFailed after any other status but 0."""
        if self.timed_out:
            field = _LIMIT_SECONDS.get(self.timed_out_by or "", "wall_seconds")
            seconds = self.report.get(field) if self.report else None
            raise TimedOut(self, float(seconds or 0))
        if self.returncode != 0:
            raise RunFailed(self)


def _runlimit_message(stderr: Optional[bytes]) -> Optional[str]:
    """runlimit's own message on a stderr it wrote alone (the command never started): its
    first line, without the "runlimit: " before it."""
    if not stderr:
        return None
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("runlimit: "):
            return line[len("runlimit: "):]
    return None


# The errors a command that could not be started may give, known by their text as the
# report has it (strerror's words, the same on glibc, musl and macOS for these).
_START_ERRORS = (errno.ENOENT, errno.EACCES, errno.EPERM, errno.ENOEXEC, errno.EISDIR,
                 errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG, errno.ETXTBSY, errno.E2BIG,
                 errno.ENOMEM)


def start_error(report: Report, command: str) -> OSError:
    """The OSError subprocess would raise for a command runlimit could not start
    (FileNotFoundError for not-found, PermissionError for Permission denied, ...)."""
    text = report.get("error") or ""
    number = next((e for e in _START_ERRORS if os.strerror(e) == text), None)
    if number is None:
        number = errno.ENOENT if report.get("outcome") == "not-found" else errno.EACCES
    return OSError(number, text or os.strerror(number), command)


def outcome(args: List[str], status: int, stdout: Optional[Capture],
            stderr: Optional[Capture], report: Optional[Report], *, text: Optional[Text] = None,
            cancelled: bool = False, killed: bool = False, check: bool = False,
            said: Optional[Capture] = None) -> Result:
    """The Result of a finished run, or the exception it calls for: runlimit's own failure
    (RunlimitError, with its message), a command that could not start (an OSError, as
    subprocess raises), and with check, a failure or a time-out.  said: the capture of
    runlimit's own stderr (its stdout's with stderr=STDOUT), None where the package did not
    see it."""
    if report is not None:
        what = report.get("outcome")
        if what in ("not-found", "not-runnable"):
            raise start_error(report, args[0])
        if what == "error":
            message = _runlimit_message(said.value()) if said is not None else None
            if message is None:
                message = "%s%s" % (report.get("error"), "" if said is not None else
                                    " (runlimit's own message went where stderr goes)")
            raise RunlimitError("runlimit failed (status %d): %s" % (status, message))
    text = text or Text(None, None, None)
    out, err = text.result(stdout), text.result(stderr)
    result = Result(args, status, out, err, report, cancelled,
                    stdout.dropped if stdout else 0, stderr.dropped if stderr else 0)
    if killed and (report is None or (report.get("outcome") == "interrupted"
                                      and report.get("command_exit") is None)):
        # The handle's kill(): a cancel by KILL (also when runlimit was ended by it before
        # it could take signals, and so before it started the command).
        result.returncode = 128 + _signal.SIGKILL
    if check:
        result.check_returncode()
    return result

"""The exceptions of the runlimit package.

Two families, kept apart on purpose.  RunlimitError and its kinds: runlimit itself could
not do what was asked (not found, too old, bad usage, a name already running).  RunFailed
and TimedOut: the command ran and check=True found it failed; they are subprocess's own
CalledProcessError and TimeoutExpired, so that code written for subprocess catches them,
and both carry the whole Result as .result.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING, Any, Tuple

if TYPE_CHECKING:  # only for the annotations: _result imports this module
    from ._result import Result


class RunlimitError(Exception):
    """runlimit itself could not do what was asked: the base of RunlimitNotFound and
    RunlimitTooOld, and raised for a usage error or a run that runlimit refused (a name
    already running), with runlimit's own message."""


class RunlimitNotFound(RunlimitError):
    """No runlimit binary was found (the message says where the API looked)."""


class RunlimitTooOld(RunlimitError):
    """The runlimit found is older than an option asked needs."""


def _said(result: Result) -> str:
    """How the run ended, for a message: "exit status 3", "signal SIGSEGV"."""
    if result.signal is not None and result.returncode == 128 + int(result.signal):
        try:
            import signal as _signal

            return "signal %s (status %d)" % (_signal.Signals(result.signal).name,
                                              result.returncode)
        except ValueError:
            return "signal %d (status %d)" % (int(result.signal), result.returncode)
    return "exit status %d" % result.returncode


class RunFailed(subprocess.CalledProcessError):
    """check=True: the command ended with a status other than 0, without a time-out.

    A subprocess.CalledProcessError: .returncode, .cmd (the args given), .stdout (also
    .output) and .stderr as there; .result is the whole Result.  returncode is what $? of
    the same runlimit command line would be (128+N for a death or a cancel by signal N)."""

    result: Result

    def __init__(self, result: Result) -> None:
        super().__init__(result.returncode, result.args, result.stdout, result.stderr)
        self.result = result

    def __str__(self) -> str:
        why = " (cancelled)" if self.result.cancelled else ""
        return "Command %r ended with %s%s" % (self.cmd, _said(self.result), why)

    def __reduce__(self) -> Tuple[Any, ...]:  # pickled whole, as the Result it carries
        return (type(self), (self.result,))


class TimedOut(subprocess.TimeoutExpired):
    """check=True: a limit ran out (.result.timed_out_by says which).

    A subprocess.TimeoutExpired: .cmd, .timeout, .stdout (also .output) and .stderr as
    there; besides, .returncode (124, or 137 after kill_after's KILL) and .result.
    .timeout is the seconds of the limit that ran out (the time limit's, or the silence's
    for no-output); for a budget that is not a time (memory, procs, cpu-time), how long
    the run had lasted."""

    result: Result
    returncode: int

    def __init__(self, result: Result, timeout: float) -> None:
        super().__init__(result.args, timeout, result.stdout, result.stderr)
        self.result = result
        self.returncode = result.returncode

    def __str__(self) -> str:
        by = self.result.timed_out_by
        if by in ("deadline", "alarm", "no-output"):
            return "Command %r timed out after %g seconds (%s)" % (self.cmd, self.timeout, by)
        return "Command %r ran out of its %s limit after %g seconds" % (self.cmd, by,
                                                                          self.timeout)

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.result, self.timeout))

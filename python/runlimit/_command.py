"""The command line the API gives runlimit, and the report it reads back."""

from __future__ import annotations

import datetime
import json
import math
import os
import tempfile
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple, Union, cast

from . import _locate

# A duration wherever one is taken: seconds (int or float), a datetime.timedelta, or a
# string in runlimit's own syntax ("10m", "1.5h"; there, as on the command line, "0" is
# no limit).  A size: bytes as an int, or a string ("64K", "1.5G").  A signal: a number
# (signal.SIGINT) or a name ("INT", "SIGINT").
Duration = Union[int, float, str, datetime.timedelta]
Size = Union[int, str]
Signal = Union[int, str]
StrPath = Union[str, "os.PathLike[str]"]
Command = Sequence[Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]]

# The limit given for a timeout at or below 0, which has expired already (subprocess's
# meaning): runlimit starts the command and ends it at once, 124.  Its "0" is no limit.
EXPIRED = "1e-09"


def _seconds(value: Duration, what: str) -> float:
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a number of seconds, a timedelta or a string, not %r"
                        % (what, value))
    return float(value)


def duration(value: Duration, what: str) -> str:
    """A duration option's argument (kill_after, output_grace, ...): never negative."""
    if isinstance(value, str):
        return value
    seconds = _seconds(value, what)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError("%s must be finite and not negative, not %r" % (what, value))
    return repr(seconds)


def limit(timeout: Optional[Duration]) -> str:
    """The time limit's argument: None (or infinity) is no limit; at or below 0 it has
    expired already, as in subprocess; a string is runlimit's syntax as it stands."""
    if timeout is None:
        return "0"
    if isinstance(timeout, str):
        return timeout
    seconds = _seconds(timeout, "timeout")
    if math.isnan(seconds):
        raise ValueError("timeout must be a number of seconds, not %r" % (timeout,))
    if seconds == math.inf:
        return "0"
    if seconds <= 0:
        return EXPIRED
    return repr(max(seconds, 1e-9))


def size(value: Size, what: str) -> str:
    """A size (bytes as an int, or a string such as "1.5G")."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError("%s must be a number of bytes or a string, not %r" % (what, value))
    return str(value)


def signal_name(value: Signal) -> str:
    """-s's argument: a signal number (signal.SIGINT too) or a name ("INT", "SIGINT")."""
    if isinstance(value, str):
        return value
    return str(int(value))


def command_args(args: Command) -> List[str]:
    if isinstance(args, (str, bytes)):
        raise TypeError("args must be a sequence of arguments; for a shell line, pass "
                        "['sh', '-c', line]")
    out = [os.fsdecode(a) for a in args]
    if not out:
        raise ValueError("args must not be empty")
    return out


class Launch:
    """One run's command line, and the anonymous file runlimit writes its report into.

    The report goes to a file that has no name (tempfile.TemporaryFile: O_TMPFILE on
    Linux), given to runlimit as an inherited descriptor, --report=/dev/fd/N, which runlimit
    writes through at its end: no directory to make or remove, and nobody else can open it.
    It is read once runlimit has exited (a pipe read only then would cut it at 64 KiB)."""

    args: List[str]
    argv: List[str]
    binary: str
    pass_fds: Tuple[int, ...]

    def __init__(self, args: Command, timeout: Optional[Duration], *,
                 kill_after: Optional[Duration] = None, signal: Optional[Signal] = None,
                 output_grace: Duration = 1.0, no_output_timeout: Optional[Duration] = None,
                 memory: Optional[Size] = None, max_procs: Optional[int] = None,
                 cpu_time: Optional[Duration] = None, stderr_tail: Optional[Size] = None,
                 kill_leftovers: bool = False, relayed: bool = True,
                 name: Optional[str] = None) -> None:
        self.args = command_args(args)
        options: List[Tuple[str, Optional[str]]] = []
        if kill_after is not None:  # -k only when chosen: the default grace's KILL gives 124
            options.append(("-k", duration(kill_after, "kill_after")))
        if signal is not None:
            options.append(("-s", signal_name(signal)))
        relayed = relayed or no_output_timeout is not None or stderr_tail is not None
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
        time_limit = limit(timeout)
        self.binary = _locate.checked([o for o, _ in options])
        self._report: Optional[IO[bytes]] = tempfile.TemporaryFile()
        fd = self._report.fileno()
        self.pass_fds = (fd,)
        # argv[0] "runlimit" (the binary is given as the executable): runlimit's messages
        # then begin "runlimit: ", which is how an error's message is found on stderr.
        argv = ["runlimit", "--report=/dev/fd/%d" % fd]
        for option, value in options:
            if value is None:
                argv.append(option)
            elif option.startswith("--"):
                argv.append(option + "=" + value)
            else:
                argv += [option, value]
        self.argv = argv + ["--", time_limit] + self.args

    def cleanup(self) -> None:
        if self._report is not None:
            self._report.close()
            self._report = None

    def read_report(self) -> Optional[Dict[str, Any]]:
        """The report runlimit wrote, parsed; None if it wrote none (it was KILLed, or died
        of a fault of its own) or what is there is not one."""
        f = self._report
        if f is None:
            return None
        f.seek(0)
        text = f.read()
        # The command inherits the descriptor too: should it write there, the report is
        # still the last line.
        lines = [line for line in text.split(b"\n") if line.strip()]
        if not lines:
            return None
        try:
            report = json.loads(lines[-1].decode("utf-8"))
        except ValueError:
            return None
        return cast(Dict[str, Any], report) if isinstance(report, dict) else None

    def report(self) -> Optional[Dict[str, Any]]:
        """The report, read once runlimit has exited; the file is closed after."""
        try:
            return self.read_report()
        finally:
            self.cleanup()

"""Run commands under runlimit from Python, the safe way, in subprocess's language.

run() and arun() run a command under a time limit and return what happened; start() and
astart() give a handle, Popen-like, whose output streams while the command runs; cancel(name) and list_runs() reach named runs from
any process.  The options that keep a caller safe are chosen here: the output relay
whenever output is captured (a leftover holding the pipes cannot hold the caller), the
report written to a private file and read after the exit, -k only when a grace is asked
(so the default KILL still gives 124), every run ended with this interpreter
(--die-with-parent), and every cancel a SIGTERM to runlimit's own pid, after which
runlimit ends the whole tree (TERM, grace, KILL) and is waited for.

TimedOut is a subprocess.TimeoutExpired and RunFailed a subprocess.CalledProcessError; a
command that cannot start raises FileNotFoundError or PermissionError; timeout=None is no
limit and a number at or below 0 has expired already; returncode is what $? of the same
runlimit command line would be.  Standard library only, Python 3.9 and later, typed.
See docs/python.md.

    >>> import runlimit
    >>> r = runlimit.run(["sh", "-c", "echo hi; sleep 60 & wait"], 1)
    >>> (r.returncode, r.timed_out, r.stdout)
    (124, True, b'hi\\n')
"""

from ._ahandle import ARun, astart
from ._command import Command, Duration, Signal, Size
from ._errors import RunFailed, RunlimitError, RunlimitNotFound, RunlimitTooOld, TimedOut
from ._handle import Run, start
from ._output import DEVNULL, PIPE, STDOUT, Destination
from ._locate import find_runlimit
from ._named import CancelOutcome, cancel, list_runs
from ._result import Result
from ._run import arun, run

__version__ = "0.2.0"

__all__ = [
    "run", "arun", "start", "Run", "astart", "ARun", "cancel", "CancelOutcome", "list_runs",
    "find_runlimit", "Result", "RunlimitError", "RunlimitNotFound", "RunlimitTooOld",
    "RunFailed", "TimedOut", "PIPE", "DEVNULL", "STDOUT",
    "Command", "Destination", "Duration", "Signal", "Size",
]

"""run() and arun(): a command under runlimit, to its end, in this thread or this task."""

from __future__ import annotations

import asyncio
import os
import signal as _signal
import subprocess
import tempfile
from typing import IO, Any, Awaitable, Mapping, Optional, Tuple, TypeVar

from . import _locate
from ._command import Command, Duration, Launch, Signal, Size, StrPath
from ._errors import RunlimitNotFound
from ._result import Result, outcome

T = TypeVar("T")

# The text of every parameter run(), arun() and start() share, for their docstrings
# (help(runlimit.run) describes each one).
PARAMETERS = """
    args: the command and its arguments, a sequence (["sh", "-c", line] for a shell line).
    timeout: the time limit: seconds (int or float), a datetime.timedelta, or a string in
        runlimit's syntax ("10m", "1.5h"); None (the default) is no limit, and a number at
        or below 0 has expired already, as in subprocess (the command is ended at once:
        124).  At the limit runlimit sends the whole tree `signal`, waits the grace, KILLs
        what is left.
    kill_after: the grace between that signal and the KILL (-k); without it runlimit's
        5 s, whose KILL still gives 124 (with it, a KILL gives 137).
    signal: the signal sent at the limit (-s): a number or a name ("INT"); TERM by default.
    output_grace: how long after the command exits runlimit relays what a leftover still
        writes before closing the pipes (--output-grace; 1 s), whenever output is captured.
    no_output_timeout: a limit on silence: the run times out when stdout and stderr have
        both been quiet that long (--no-output-timeout).
    memory, max_procs, cpu_time: budgets for the whole tree (--memory: bytes or "4G";
        --max-procs: a count; --cpu-time: a duration), where the system can keep them.
    stderr_tail: keep the last so many bytes of stderr (an int or "64K") in
        Result.stderr_tail (--report-tail), whether stderr is captured or not.
    kill_leftovers: end what the command left running when it exits (--kill-leftovers).
    name: register the run so that cancel(name) from any process of the user ends it.
    input: bytes for the command's stdin (through a temporary file, never a pipe a
        leftover could hold); without it, stdin is the caller's.
    capture_output: True (the default) returns stdout and stderr as bytes, relayed so that
        a leftover holding the pipes cannot hold the caller; False leaves them the caller's.
    cwd, env: the working directory and environment, as for subprocess.
    check: raise TimedOut (a subprocess.TimeoutExpired) after a time-out and RunFailed (a
        subprocess.CalledProcessError) after any other status but 0.
    Whatever check says, a command that cannot be started raises FileNotFoundError or
    PermissionError as subprocess does, and runlimit's own failure (bad usage, a name
    already running) raises RunlimitError with runlimit's message.
"""


def _stdin(input: Optional[bytes]) -> Optional[IO[bytes]]:
    """input as the command's stdin: a temporary file, never a pipe.  runlimit does not
    relay stdin, so a pipe would be held by whatever the command leaves running, and a
    writer of more than the pipe holds would wait for that leftover to read or exit."""
    if input is None:
        return None
    f = tempfile.TemporaryFile()
    try:
        f.write(input)
        f.seek(0)
    except BaseException:
        f.close()
        raise
    return f


def close(*files: Optional[IO[Any]]) -> None:
    for f in files:
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


def not_runnable(launch: Launch, error: OSError) -> BaseException:
    """What an OSError of starting runlimit means: runlimit itself could not be run (it
    has gone since it was found: looked for again next time), or the caller's cwd."""
    if error.filename == launch.binary:
        _locate.forget()
        return RunlimitNotFound("%s could not be run: %s" % (launch.binary, error.strerror))
    return error


def popen(launch: Launch, input: Optional[bytes], capture_output: bool,
          cwd: Optional[StrPath], env: Optional[Mapping[str, str]]) -> "subprocess.Popen[bytes]":
    # No start_new_session: runlimit makes the command's group itself, and stays in the
    # caller's so that a Ctrl-C or the caller's own signals reach it.
    pipe = subprocess.PIPE if capture_output else None
    try:
        stdin = _stdin(input)
        try:
            return subprocess.Popen(launch.argv, stdin=stdin, stdout=pipe, stderr=pipe,
                                    cwd=cwd, env=env, executable=launch.binary,
                                    pass_fds=launch.pass_fds)
        except OSError as e:
            raise not_runnable(launch, e) from None
        finally:
            close(stdin)  # the child has its own descriptor
    except BaseException:
        launch.cleanup()
        raise


def end(proc: "subprocess.Popen[bytes]") -> None:
    """Ask runlimit to end (SIGTERM to its pid, never a group) and wait until it has.

    The wait is bounded by runlimit itself (the grace, the settle, the output grace), so a
    second Ctrl-C meanwhile does not cut it short: nothing is left behind.
    """
    if proc.poll() is None:  # still our unreaped child: the pid is runlimit's
        os.kill(proc.pid, _signal.SIGTERM)
    close(proc.stdout, proc.stderr)
    while True:
        try:
            proc.wait()
            return
        except KeyboardInterrupt:
            continue


def run(args: Command, timeout: Optional[Duration] = None, *,
        kill_after: Optional[Duration] = None, signal: Optional[Signal] = None,
        output_grace: Duration = 1.0, no_output_timeout: Optional[Duration] = None,
        memory: Optional[Size] = None, max_procs: Optional[int] = None,
        cpu_time: Optional[Duration] = None, stderr_tail: Optional[Size] = None,
        kill_leftovers: bool = False, name: Optional[str] = None,
        input: Optional[bytes] = None, capture_output: bool = True,
        cwd: Optional[StrPath] = None, env: Optional[Mapping[str, str]] = None, check: bool = False) -> Result:
    launch = Launch(args, timeout, kill_after=kill_after, signal=signal,
                    output_grace=output_grace, no_output_timeout=no_output_timeout,
                    memory=memory, max_procs=max_procs, cpu_time=cpu_time,
                    stderr_tail=stderr_tail, kill_leftovers=kill_leftovers,
                    capture_output=capture_output, name=name)
    proc = popen(launch, input, capture_output, cwd, env)
    try:
        stdout, stderr = proc.communicate()
    except BaseException:
        end(proc)
        launch.cleanup()
        raise
    return outcome(launch.args, proc.returncode, stdout, stderr, launch.report(),
                   check=check, stderr_seen=capture_output)


run.__doc__ = """Run args under runlimit and return a Result once it has ended.

    An exception while waiting (KeyboardInterrupt) ends runlimit and its whole tree first,
    then propagates.
""" + PARAMETERS


async def _drain(stream: Optional[asyncio.StreamReader]) -> None:
    if stream is not None:
        while await stream.read(65536):
            pass


async def uncancellable(awaitable: Awaitable[T]) -> Tuple["asyncio.Future[T]", bool]:
    """Await awaitable to its end: a cancel meanwhile is held back, not lost (the caller
    re-raises it), since what is awaited (runlimit's start, its end) is bounded."""
    future = asyncio.ensure_future(awaitable)
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True
        except Exception:
            break
    return future, cancelled


async def aend(proc: asyncio.subprocess.Process) -> None:
    """arun's end: TERM to runlimit, then await its exit whatever else is cancelled."""
    if proc.returncode is None:
        try:
            proc.send_signal(_signal.SIGTERM)
        except ProcessLookupError:
            pass
    # Keep reading what runlimit still relays, so that it is never held by a full pipe.
    ending, _ = await uncancellable(
        asyncio.gather(_drain(proc.stdout), _drain(proc.stderr), proc.wait()))
    if not ending.cancelled():
        ending.exception()  # a failed drain is no news: runlimit has exited


async def arun(args: Command, timeout: Optional[Duration] = None, *,
               kill_after: Optional[Duration] = None, signal: Optional[Signal] = None,
               output_grace: Duration = 1.0, no_output_timeout: Optional[Duration] = None,
               memory: Optional[Size] = None, max_procs: Optional[int] = None,
               cpu_time: Optional[Duration] = None, stderr_tail: Optional[Size] = None,
               kill_leftovers: bool = False, name: Optional[str] = None,
               input: Optional[bytes] = None, capture_output: bool = True,
               cwd: Optional[StrPath] = None, env: Optional[Mapping[str, str]] = None,
               check: bool = False) -> Result:
    launch = Launch(args, timeout, kill_after=kill_after, signal=signal,
                    output_grace=output_grace, no_output_timeout=no_output_timeout,
                    memory=memory, max_procs=max_procs, cpu_time=cpu_time,
                    stderr_tail=stderr_tail, kill_leftovers=kill_leftovers,
                    capture_output=capture_output, name=name)
    pipe = subprocess.PIPE if capture_output else None
    try:
        stdin = _stdin(input)
    except BaseException:
        launch.cleanup()
        raise
    # A cancel while runlimit starts must not let asyncio KILL it half-connected (a KILLed
    # runlimit cannot end what left its group): let the start finish, then end it.
    starting, cancelled = await uncancellable(asyncio.create_subprocess_exec(
        *launch.argv, stdin=stdin, stdout=pipe, stderr=pipe, cwd=cwd, env=env,
        executable=launch.binary, pass_fds=launch.pass_fds))
    close(stdin)
    try:
        proc = starting.result()
    except OSError as e:
        launch.cleanup()
        raise not_runnable(launch, e) from None
    except BaseException:
        launch.cleanup()
        raise
    if cancelled:
        await aend(proc)
        launch.cleanup()
        raise asyncio.CancelledError
    try:
        stdout, stderr = await proc.communicate()
    except BaseException:
        await aend(proc)
        launch.cleanup()
        raise
    assert proc.returncode is not None
    return outcome(launch.args, proc.returncode, stdout, stderr, launch.report(),
                   check=check, stderr_seen=capture_output)


arun.__doc__ = """run() for asyncio: the same arguments, the same Result.

    Cancelling the task (task.cancel(), asyncio.wait_for's time-out) ends runlimit and the
    whole tree and waits for runlimit's exit before the CancelledError propagates.
""" + PARAMETERS

"""run() and arun(): a command under runlimit, to its end, in this thread or this task."""

from __future__ import annotations

import asyncio
import signal as _signal
from typing import Any, Awaitable, Optional, Tuple, TypeVar

from ._output import Capture
from ._plan import Plan, close, collect, end, not_runnable, popen, takes_parameters_of
from ._result import Result, outcome

T = TypeVar("T")


@takes_parameters_of(Plan)
def run(*args: Any, **kwargs: Any) -> Result:
    """Run args under runlimit and return a Result once it has ended.

    An exception while waiting (KeyboardInterrupt) ends runlimit and its whole tree first,
    then propagates.
    """
    plan = Plan.of(run, args, kwargs)
    proc = popen(plan)
    out, err = plan.captures()
    try:
        collect(proc, out, err)
    except BaseException:
        end(proc)
        plan.launch.cleanup()
        raise
    return outcome(plan.launch.args, proc.returncode, out, err, plan.launch.report(),
                   text=plan.text, check=plan.check, said=plan.said(out, err))


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
    # Keep reading what runlimit still relays, so that it is never held by a full pipe; a
    # drain that fails (a reader another task waits on) does not end the wait for the exit.
    await uncancellable(asyncio.gather(_drain(proc.stdout), _drain(proc.stderr), proc.wait(),
                                       return_exceptions=True))


async def aspawn(plan: Plan) -> asyncio.subprocess.Process:
    """Start runlimit for asyncio.  A cancel while it starts must not let asyncio KILL it
    half-connected (a KILLed runlimit cannot end what left its group): the start is let
    finish, then runlimit is ended and the cancel goes on."""
    launch = plan.launch
    try:
        stdin = plan.stdin()
    except BaseException:
        launch.cleanup()
        raise
    s = plan.streams
    starting, cancelled = await uncancellable(asyncio.create_subprocess_exec(
        *launch.argv, stdin=stdin, stdout=s.stdout, stderr=s.stderr, cwd=plan.cwd,
        env=plan.env, executable=launch.binary, pass_fds=launch.pass_fds))
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
    return proc


async def acollect(stream: Optional[asyncio.StreamReader], capture: Optional[Capture]) -> None:
    """Read a captured stream to its end into capture (bounded by it)."""
    if stream is None or capture is None:
        return
    while True:
        data = await stream.read(1 << 16)
        if not data:
            return
        capture.add(data)


@takes_parameters_of(Plan)
async def arun(*args: Any, **kwargs: Any) -> Result:
    """run() for asyncio: the same arguments, the same Result.

    Cancelling the task (task.cancel(), asyncio.wait_for's time-out) ends runlimit and the
    whole tree and waits for runlimit's exit before the CancelledError propagates.
    """
    plan = Plan.of(arun, args, kwargs)
    proc = await aspawn(plan)
    out, err = plan.captures()
    try:
        await asyncio.gather(acollect(proc.stdout, out), acollect(proc.stderr, err))
        await proc.wait()
    except BaseException:
        await aend(proc)
        plan.launch.cleanup()
        raise
    assert proc.returncode is not None
    return outcome(plan.launch.args, proc.returncode, out, err, plan.launch.report(),
                   text=plan.text, check=plan.check, said=plan.said(out, err))

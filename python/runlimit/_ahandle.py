"""astart() and its ARun handle: start()'s twin for asyncio."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any, Callable, List, Optional, Tuple, Type

from ._plan import Plan, Streaming, takes_parameters_of
from ._result import Result, outcome
from ._run import _drain, acollect, aspawn, uncancellable
from ._signals import TreeSignals

class ARun(TreeSignals):
    """A run started by astart(): Run's twin for asyncio.

    stdout and stderr: asyncio.StreamReader for the streams asked for with PIPE (bytes:
    `async for line in h.stdout`), else None.  `await h.wait()` returns the Result; a
    cancel of the task awaiting it leaves the run going (the handle's to end).  Leaving
    `async with` ends the run and awaits its end."""

    args: List[str]
    pid: int
    stdout: Optional[asyncio.StreamReader]
    stderr: Optional[asyncio.StreamReader]

    def __init__(self, plan: Plan, proc: asyncio.subprocess.Process) -> None:
        self.args = plan.launch.args
        self.pid = proc.pid
        self._plan, self._proc = plan, proc
        streams = plan.streams
        self.stdout = proc.stdout if streams.stream_stdout else None
        self.stderr = proc.stderr if streams.stream_stderr else None
        self._result: Optional[Result] = None
        self._ending: "asyncio.Future[Result]" = asyncio.ensure_future(self._finish())

    async def _finish(self) -> Result:
        plan, proc = self._plan, self._proc
        out, err = plan.captures()
        try:
            try:
                await asyncio.gather(acollect(proc.stdout if out else None, out),
                                     acollect(proc.stderr if err else None, err))
                status = await proc.wait()
            except asyncio.CancelledError:
                # The loop ends (asyncio.run's teardown cancels what is left): the run ends
                # with it, the whole tree, and runlimit is waited for, not left unreaped.
                self.cancel()
                await uncancellable(asyncio.gather(
                    _drain(proc.stdout), _drain(proc.stderr), proc.wait(),
                    return_exceptions=True))
                raise
            self._result = outcome(self.args, status, out, err, plan.launch.report(),
                                   text=plan.text, cancelled=self._cancelled,
                                   killed=self._killed, said=plan.said(out, err))
            return self._result
        finally:
            plan.launch.cleanup()

    @property
    def returncode(self) -> Optional[int]:
        """The Result's returncode once the run has ended, else None."""
        return self._result.returncode if self._result is not None else None

    def _deliver(self, signals: Tuple[int, ...], mark: Callable[[], None]) -> bool:
        # asyncio's Process signals only a child it has not reaped: never another's pid.
        # (One event loop: nothing reaps between this look and the signals.)
        if self._proc.returncode is not None:
            return False
        mark()
        try:
            for sig in signals:
                self._proc.send_signal(sig)
        except ProcessLookupError:
            return False
        return True

    def poll(self) -> Optional[Result]:
        """The Result if the run has ended, else None (never check's exceptions)."""
        if not self._ending.done():
            return None
        return self._ending.result()

    async def wait(self) -> Result:
        """Await the end and return the Result (check=True: TimedOut or RunFailed)."""
        result = await asyncio.shield(self._ending)
        if self._plan.check:
            result.check_returncode()
        return result

    async def __aenter__(self) -> "ARun":
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]],
                        value: Optional[BaseException],
                        tb: Optional[TracebackType]) -> None:
        """Leaving the block cancels the run and awaits its end (a cancel meanwhile held
        back), raising nothing of the run's own."""
        self.cancel()
        # The caller's streams are read to their end meanwhile (runlimit is never held by
        # a full pipe); the captured ones are the handle's own to read.
        # (A stream another task reads is left to it: its drain fails, the wait goes on.)
        streamed = [_drain(s) for s in (self.stdout, self.stderr) if s is not None]
        _, cancelled = await uncancellable(asyncio.gather(*streamed, self._ending,
                                                          return_exceptions=True))
        if cancelled:
            raise asyncio.CancelledError


@takes_parameters_of(Plan)
async def astart(*args: Any, **kwargs: Any) -> ARun:
    """start() for asyncio: start args under runlimit, return an ARun at once.

    Its stdout and stderr (with stdout=PIPE, stderr=PIPE) are asyncio readers, bytes
    whatever text says (text applies to what the package captures into the Result).
    """
    plan = Streaming.of(astart, args, kwargs)
    return ARun(plan, await aspawn(plan))

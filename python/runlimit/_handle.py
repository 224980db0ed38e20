"""start() and its Run handle: a run going on while the caller does other things."""

from __future__ import annotations

import atexit
import io
import os
import subprocess
import sys
import threading
import time
import weakref
from types import TracebackType
from typing import IO, Any, Callable, List, Optional, Tuple, Type

from ._output import Capture, Text
from ._plan import Plan, Streaming, close, popen, takes_parameters_of
from ._result import Result, outcome
from ._signals import TreeSignals

# waitid(WNOWAIT) where it is known to work; elsewhere (macOS) the handle polls.
_WAITID_NOWAIT = hasattr(os, "waitid") and sys.platform.startswith(("linux", "freebsd"))

# Handles still running, ended at interpreter exit: only this process's own (a child made
# by os.fork() forgets its parent's, whose runlimit is not its child).
_live: "weakref.WeakSet[Run]" = weakref.WeakSet()


def _forget_live_runs() -> None:
    _live.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_live_runs)


@atexit.register
def _end_live_runs() -> None:
    """Cancel every run of this process still going, then wait for each: one whose wait
    fails (or was checked) never keeps the others running after the interpreter."""
    handles = [h for h in list(_live) if h._owner == os.getpid()]
    for h in handles:
        try:
            h.cancel()
        except Exception:
            pass
    for h in handles:
        h._done.wait()


def wrap(pipe: Optional[IO[bytes]], text: Text) -> Optional[IO[Any]]:
    """A pipe the caller reads, as Popen gives it: bytes, or text (universal newlines)."""
    if pipe is None or not text.on:
        return pipe
    return io.TextIOWrapper(pipe, encoding=text.encoding, errors=text.errors)


class Run(TreeSignals):
    """A run started by start(), as Popen is a process: cancel(), terminate(), kill() or
    send_signal() from any thread, wait() for its Result.

    pid is runlimit's; args the command's; returncode None until it has ended, then the
    Result's.  stdout and stderr: the streams asked for with stdout=PIPE or stderr=PIPE,
    read by the caller while the command runs (bytes, or str in text mode), else None;
    what the package captures instead arrives in the Result."""

    args: List[str]
    pid: int
    stdout: Optional[IO[Any]]
    stderr: Optional[IO[Any]]

    def __init__(self, plan: Plan, proc: "subprocess.Popen[bytes]") -> None:
        self.args = plan.launch.args
        self.pid = proc.pid  # runlimit's
        self._plan, self._proc = plan, proc
        self._owner = os.getpid()
        self._lock = threading.Lock()  # held by signals sent and by the reaping: none after
        self._reaped = False
        self._done = threading.Event()
        self._result: Optional[Result] = None
        self._error: Optional[BaseException] = None
        streams = plan.streams
        self.stdout = wrap(proc.stdout, plan.text) if streams.stream_stdout else None
        self.stderr = wrap(proc.stderr, plan.text) if streams.stream_stderr else None
        self._out, self._err = plan.captures()
        workers: List[threading.Thread] = []
        for pipe, capture in ((proc.stdout, self._out), (proc.stderr, self._err)):
            if pipe is not None and capture is not None:
                workers.append(threading.Thread(target=self._read, args=(pipe, capture),
                                                daemon=True))
        for w in workers:
            w.start()
        _live.add(self)
        threading.Thread(target=self._finish, args=(workers,), daemon=True).start()

    @staticmethod
    def _read(pipe: IO[bytes], capture: Capture) -> None:
        fd = pipe.fileno()
        while True:
            data = os.read(fd, 1 << 16)
            if not data:
                break
            capture.add(data)
        close(pipe)

    def _reap(self) -> None:
        proc = self._proc
        if _WAITID_NOWAIT:
            # Wait for the exit without reaping, then reap under the lock: no signal is
            # ever sent to the pid once another process may have it.
            try:
                os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
            except ChildProcessError:
                pass
            with self._lock:
                proc.wait()
                self._reaped = True
            return
        while True:  # no usable waitid: poll under the lock
            with self._lock:
                if proc.poll() is not None:
                    self._reaped = True
                    return
            time.sleep(0.05)

    def _finish(self, workers: List[threading.Thread]) -> None:
        plan = self._plan
        try:
            self._reap()
            for w in workers:
                w.join()
            self._result = outcome(self.args, self._proc.returncode, self._out, self._err,
                                   plan.launch.report(), text=plan.text,
                                   cancelled=self._cancelled, killed=self._killed,
                                   said=plan.said(self._out, self._err))
        except BaseException as e:  # kept for wait() to raise
            self._error = e
        finally:
            plan.launch.cleanup()
            _live.discard(self)
            self._done.set()

    @property
    def returncode(self) -> Optional[int]:
        """The Result's returncode once the run has ended, else None (as Popen's)."""
        result = self._result
        return result.returncode if result is not None else None

    def _deliver(self, signals: Tuple[int, ...], mark: Callable[[], None]) -> bool:
        with self._lock:  # the reaping takes it too: no signal once runlimit is reaped
            if self._reaped:
                return False
            mark()
            for sig in signals:
                os.kill(self.pid, sig)
            return True

    def poll(self) -> Optional[Result]:
        """The Result if the run has ended, else None.  Never raises check's exceptions
        (wait() does); a command that could not start, or runlimit's own failure, raises
        as in wait()."""
        if not self._done.is_set():
            return None
        return self._outcome(check=False)

    def wait(self, timeout: Optional[float] = None) -> Result:
        """Wait for the end and return the Result (subprocess.TimeoutExpired if timeout
        seconds pass first; with check=True, TimedOut or RunFailed as run() raises)."""
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return self._outcome(check=self._plan.check)

    def _outcome(self, check: bool) -> Result:
        if self._error is not None:
            raise self._error
        assert self._result is not None
        if check:
            self._result.check_returncode()
        return self._result

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        """Leaving the block cancels the run and waits for its end.  It raises nothing of
        the run's own (the cancel was the block's): an exception of the block goes on."""
        self.cancel()
        self._done.wait()
        close(self.stdout, self.stderr)


@takes_parameters_of(Plan)
def start(*args: Any, **kwargs: Any) -> Run:
    """Start args under runlimit and return a Run handle at once.

    What the package captures is read by threads of the handle's, so nothing waits on a
    full pipe; stdout=PIPE or stderr=PIPE gives the handle a stream the caller reads while
    the command runs, as Popen's.  A handle still running when the interpreter exits is
    cancelled and waited for; a command that cannot be started raises from wait()
    (runlimit tells only once it has tried).
    """
    plan = Streaming.of(start, args, kwargs)
    return Run(plan, popen(plan))

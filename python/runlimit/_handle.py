"""start() and its Run handle: a run going on while the caller does other things."""

from __future__ import annotations

import atexit
import os
import signal as _signal
import subprocess
import sys
import threading
import time
import weakref
from types import TracebackType
from typing import Dict, List, Mapping, Optional, Type

from ._command import Command, Duration, Launch, Signal, Size, StrPath
from ._result import Result, outcome
from ._run import PARAMETERS, close, popen

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


class Run:
    """A run started by start(): cancel() it from any thread, wait() for its Result.

    pid is runlimit's; args the command's; returncode None until it has ended, then the
    Result's."""

    args: List[str]
    pid: int

    def __init__(self, launch: Launch, proc: "subprocess.Popen[bytes]", check: bool,
                 capture_output: bool) -> None:
        self.args = launch.args
        self.pid = proc.pid  # runlimit's
        self._launch, self._proc, self._check = launch, proc, check
        self._stderr_seen = capture_output
        self._owner = os.getpid()
        self._lock = threading.Lock()  # held by cancel() and by the reaping: no kill after it
        self._reaped = False
        self._cancelled = False
        self._done = threading.Event()
        self._result: Optional[Result] = None
        self._error: Optional[BaseException] = None
        self._output: Dict[str, bytes] = {}
        workers: List[threading.Thread] = []
        for key in ("stdout", "stderr"):
            if getattr(proc, key) is not None:
                workers.append(threading.Thread(target=self._read, args=(key,), daemon=True))
        for w in workers:
            w.start()
        _live.add(self)
        threading.Thread(target=self._finish, args=(workers,), daemon=True).start()

    def _read(self, key: str) -> None:
        stream = getattr(self._proc, key)
        self._output[key] = stream.read()
        close(stream)

    def _reap(self) -> None:
        proc = self._proc
        if _WAITID_NOWAIT:
            # Wait for the exit without reaping, then reap under the lock: cancel() can
            # never signal the pid once another process may have it.
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
        try:
            self._reap()
            for w in workers:
                w.join()
            self._result = outcome(self.args, self._proc.returncode,
                                   self._output.get("stdout"), self._output.get("stderr"),
                                   self._launch.report(), cancelled=self._cancelled,
                                   stderr_seen=self._stderr_seen)
        except BaseException as e:  # kept for wait() to raise
            self._error = e
        finally:
            self._launch.cleanup()
            _live.discard(self)
            self._done.set()

    @property
    def returncode(self) -> Optional[int]:
        """The Result's returncode once the run has ended, else None (as Popen's)."""
        result = self._result
        return result.returncode if result is not None else None

    def cancel(self) -> bool:
        """End the run: SIGTERM to runlimit's own pid; runlimit then sends TERM to the whole
        tree, waits the grace, KILLs what is left.  Returns False if it had already ended.
        The Result then says cancelled, and its returncode is 143 (128+TERM)."""
        with self._lock:
            if self._reaped:
                return False
            self._cancelled = True
            os.kill(self.pid, _signal.SIGTERM)
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
        return self._outcome(check=self._check)

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


def start(args: Command, timeout: Optional[Duration] = None, *,
          kill_after: Optional[Duration] = None, signal: Optional[Signal] = None,
          output_grace: Duration = 1.0, no_output_timeout: Optional[Duration] = None,
          memory: Optional[Size] = None, max_procs: Optional[int] = None,
          cpu_time: Optional[Duration] = None, stderr_tail: Optional[Size] = None,
          kill_leftovers: bool = False, name: Optional[str] = None,
          input: Optional[bytes] = None, capture_output: bool = True,
          cwd: Optional[StrPath] = None, env: Optional[Mapping[str, str]] = None,
          check: bool = False) -> Run:
    launch = Launch(args, timeout, kill_after=kill_after, signal=signal,
                    output_grace=output_grace, no_output_timeout=no_output_timeout,
                    memory=memory, max_procs=max_procs, cpu_time=cpu_time,
                    stderr_tail=stderr_tail, kill_leftovers=kill_leftovers,
                    capture_output=capture_output, name=name)
    proc = popen(launch, input, capture_output, cwd, env)
    return Run(launch, proc, check, capture_output)


start.__doc__ = """Start args under runlimit and return a Run handle at once.

    Output is read by threads of the handle's, so nothing waits on a full pipe.  A handle
    still running when the interpreter exits is cancelled and waited for; a command that
    cannot be started raises from wait() (runlimit tells only once it has tried).
""" + PARAMETERS

"""Run commands under runlimit from Python, the safe way.

run() and arun() run a command under a time limit and return what happened; start() gives
a handle to cancel from another thread; cancel(name) and list_runs() reach named runs from
any process.  The options that keep a caller safe are chosen here: the output relay
whenever output is captured (a leftover holding the pipes cannot hold the caller), the
report written to a private file and read after the exit, -k only when a grace is asked
(so the default KILL still gives 124), and every cancel a SIGTERM to runlimit's own pid,
after which runlimit ends the whole tree (TERM, grace, KILL) and is waited for.
Standard library only, Python 3.9 and later.  See docs/python.md.
"""

import asyncio
import atexit
import json
import os
import signal as _signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref

from ._command import Launch, Result, duration, signal_name
from ._errors import RunFailed, RunlimitError, RunlimitNotFound, RunlimitTooOld, TimedOut
from ._locate import find_runlimit, require

__version__ = "0.2.0"

__all__ = [
    "run", "arun", "start", "Run", "cancel", "list_runs", "find_runlimit", "Result",
    "RunlimitError", "RunlimitNotFound", "RunlimitTooOld", "RunFailed", "TimedOut",
]


# The arguments of run(), arun() and start() that choose runlimit's options (Launch's).
_LAUNCH_OPTIONS = ("kill_after", "signal", "output_grace", "no_output_timeout", "memory",
                   "max_procs", "cpu_time", "stderr_tail", "kill_leftovers",
                   "capture_output", "name")


def _launch_options(arguments):
    return {key: arguments[key] for key in _LAUNCH_OPTIONS}


def _stdin(input):
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


def _popen(launch, input, capture_output, cwd, env):
    # No start_new_session: runlimit makes the command's group itself, and stays in the
    # caller's so that a Ctrl-C or the caller's own signals reach it.
    pipe = subprocess.PIPE if capture_output else None
    try:
        stdin = _stdin(input)
        try:
            return subprocess.Popen(launch.argv, stdin=stdin, stdout=pipe, stderr=pipe,
                                    cwd=cwd, env=env)
        finally:
            _close(stdin)  # the child has its own descriptor
    except BaseException:
        launch.cleanup()
        raise


def _close(*files):
    for f in files:
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


def _end(proc):
    """Ask runlimit to end (SIGTERM to its pid, never a group) and wait until it has.

    The wait is bounded by runlimit itself (the grace, the settle, the output grace), so a
    second Ctrl-C meanwhile does not cut it short: nothing is left behind.
    """
    if proc.poll() is None:  # still our unreaped child: the pid is runlimit's
        os.kill(proc.pid, _signal.SIGTERM)
    _close(proc.stdout, proc.stderr)
    while True:
        try:
            proc.wait()
            return
        except KeyboardInterrupt:
            continue


def run(args, timeout, *, kill_after=None, signal=None, output_grace=1.0,
        no_output_timeout=None, memory=None, max_procs=None, cpu_time=None,
        stderr_tail=None, kill_leftovers=False, name=None, input=None,
        capture_output=True, cwd=None, env=None, check=False):
    """Run args under runlimit with a limit of timeout seconds; return a Result.

    With check=True, raise TimedOut after a time-out and RunFailed after another non-zero
    status.  An exception while waiting (KeyboardInterrupt) ends runlimit and its tree
    first, then propagates.
    """
    launch = Launch(args, timeout, **_launch_options(locals()))
    proc = _popen(launch, input, capture_output, cwd, env)
    try:
        stdout, stderr = proc.communicate()
    except BaseException:
        _end(proc)
        launch.cleanup()
        raise
    return launch.result(proc.returncode, stdout, stderr, check=check)


async def _drain(stream):
    if stream is not None:
        while await stream.read(65536):
            pass


async def _uncancellable(awaitable):
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


async def _aend(proc):
    """arun's _end: TERM to runlimit, then await its exit whatever else is cancelled."""
    if proc.returncode is None:
        try:
            proc.send_signal(_signal.SIGTERM)
        except ProcessLookupError:
            pass
    # Keep reading what runlimit still relays, so that it is never held by a full pipe.
    ending, _ = await _uncancellable(
        asyncio.gather(_drain(proc.stdout), _drain(proc.stderr), proc.wait()))
    if not ending.cancelled():
        ending.exception()  # a failed drain is no news: runlimit has exited


async def arun(args, timeout, *, kill_after=None, signal=None, output_grace=1.0,
               no_output_timeout=None, memory=None, max_procs=None, cpu_time=None,
               stderr_tail=None, kill_leftovers=False, name=None, input=None,
               capture_output=True, cwd=None, env=None, check=False):
    """run() for asyncio.  Cancelling the task ends runlimit and the whole tree and waits
    for runlimit's exit before the CancelledError propagates."""
    launch = Launch(args, timeout, **_launch_options(locals()))
    pipe = subprocess.PIPE if capture_output else None
    try:
        stdin = _stdin(input)
    except BaseException:
        launch.cleanup()
        raise
    # A cancel while runlimit starts must not let asyncio KILL it half-connected (a KILLed
    # runlimit cannot end what left its group): let the start finish, then end it.
    starting, cancelled = await _uncancellable(asyncio.create_subprocess_exec(
        *launch.argv, stdin=stdin, stdout=pipe, stderr=pipe, cwd=cwd, env=env))
    _close(stdin)
    try:
        proc = starting.result()
    except BaseException:
        launch.cleanup()
        raise
    if cancelled:
        await _aend(proc)
        launch.cleanup()
        raise asyncio.CancelledError
    try:
        stdout, stderr = await proc.communicate()
    except BaseException:
        await _aend(proc)
        launch.cleanup()
        raise
    return launch.result(proc.returncode, stdout, stderr, check=check)


# waitid(WNOWAIT) where it is known to work; elsewhere (macOS) the handle polls.
_WAITID_NOWAIT = hasattr(os, "waitid") and sys.platform.startswith(("linux", "freebsd"))

_live = weakref.WeakSet()  # handles still running, ended at interpreter exit


@atexit.register
def _end_live_runs():
    for handle in list(_live):
        handle.cancel()
        handle.wait()


class Run:
    """A run started by start(): cancel() it from any thread, wait() for its Result."""

    def __init__(self, launch, proc, check):
        self.args = launch.args
        self.pid = proc.pid  # runlimit's
        self._launch, self._proc, self._check = launch, proc, check
        self._lock = threading.Lock()  # held by cancel() and by the reaping: no kill after it
        self._reaped = False
        self._cancelled = False
        self._done = threading.Event()
        self._result = self._error = None
        self._output = {}
        workers = []
        for key in ("stdout", "stderr"):
            if getattr(proc, key) is not None:
                workers.append(threading.Thread(target=self._read, args=(key,), daemon=True))
        for w in workers:
            w.start()
        _live.add(self)
        threading.Thread(target=self._finish, args=(workers,), daemon=True).start()

    def _read(self, key):
        stream = getattr(self._proc, key)
        self._output[key] = stream.read()
        _close(stream)

    def _reap(self):
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

    def _finish(self, workers):
        try:
            self._reap()
            for w in workers:
                w.join()
            self._result = self._launch.result(
                self._proc.returncode, self._output.get("stdout"), self._output.get("stderr"),
                cancelled=self._cancelled)
        except BaseException as e:  # kept for wait() to raise
            self._error = e
        finally:
            self._launch.cleanup()
            _live.discard(self)
            self._done.set()

    def cancel(self):
        """End the run: SIGTERM to runlimit's own pid; runlimit then sends TERM to the whole
        tree, waits the grace, KILLs what is left.  Returns False if it had already ended."""
        with self._lock:
            if self._reaped:
                return False
            self._cancelled = True
            os.kill(self.pid, _signal.SIGTERM)
            return True

    def poll(self):
        """The Result if the run has ended, else None."""
        return self.wait(0) if self._done.is_set() else None

    def wait(self, timeout=None):
        """Wait for the end and return the Result (subprocess.TimeoutExpired if timeout
        seconds pass first; check=True raises as run() does)."""
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        if self._error is not None:
            raise self._error
        if self._check:
            self._result.check_returncode()
        return self._result

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.cancel()
        self.wait()
        return False


def start(args, timeout, *, kill_after=None, signal=None, output_grace=1.0,
          no_output_timeout=None, memory=None, max_procs=None, cpu_time=None,
          stderr_tail=None, kill_leftovers=False, name=None, input=None,
          capture_output=True, cwd=None, env=None, check=False):
    """Start args under runlimit and return a Run handle at once (run()'s arguments).

    Output is read by threads of the handle's, so nothing waits on a full pipe.  A handle
    still running when the interpreter exits is cancelled and waited for."""
    launch = Launch(args, timeout, **_launch_options(locals()))
    proc = _popen(launch, input, capture_output, cwd, env)
    return Run(launch, proc, check)


def _tool(options, env):
    """Run runlimit itself (--cancel, --list) and return (status, stdout, stderr)."""
    binary = find_runlimit()
    require(binary, [o.split("=", 1)[0] for o in options if o.startswith("-")])
    p = subprocess.run([binary] + options, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, check=False)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace").strip()


def cancel(name, *, signal=None, kill_after=None, marker_ttl=None, env=None):
    """End the run started with name= (from this or any other process of the user) and
    wait until it has ended: runlimit --cancel=NAME.  True if a run was ended; False if
    none was running (a marker then stops a run of that name starting within marker_ttl,
    60 s by default).  RunlimitError if the run did not answer or the cancel was refused.
    RUNLIMIT_DIR in env (or os.environ) must be the run's."""
    options = ["--cancel=" + name]
    if signal is not None:
        options += ["-s", signal_name(signal)]
    if kill_after is not None:
        options += ["-k", duration(kill_after, "kill_after")]
    if marker_ttl is not None:
        options.append("--marker-ttl=" + duration(marker_ttl, "marker_ttl"))
    status, _, err = _tool(options, env)
    if status == 0:
        return True
    if status in (1, 2):
        return False
    raise RunlimitError("runlimit --cancel=%s: status %d: %s" % (name, status, err))


def list_runs(*, env=None):
    """The live named runs of this user, as runlimit --list --json gives them: dicts with
    name, uid, pid, started_at, elapsed, deadline, argv, argc, state and error."""
    status, out, err = _tool(["--list", "--json"], env)
    if status != 0:
        raise RunlimitError("runlimit --list: status %d: %s" % (status, err))
    return [json.loads(line) for line in out.decode("utf-8").splitlines() if line.strip()]

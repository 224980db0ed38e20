"""One call's arguments worked out (runlimit's command line, where the output goes, text
mode, the input), and the start of runlimit with them: what run(), arun(), start() and
astart() share."""

from __future__ import annotations

import os
import selectors
import signal as _signal
import subprocess
import tempfile
from typing import IO, Any, Dict, Mapping, Optional, Tuple, Union

from . import _locate
from ._command import Command, Duration, Launch, Signal, Size, StrPath
from ._errors import RunlimitNotFound
from ._output import STDOUT, Capture, Destination, Streams, Text, size_of

# The text of every parameter the four share, for their docstrings (help(runlimit.run)
# describes each one).
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
        writes before closing the pipes (--output-grace; 1 s), whenever output goes to a
        pipe or a file.
    no_output_timeout: a limit on silence: the run times out when stdout and stderr have
        both been quiet that long (--no-output-timeout).
    memory, max_procs, cpu_time: budgets for the whole tree (--memory: bytes or "4G";
        --max-procs: a count; --cpu-time: a duration), where the system can keep them.
    stderr_tail: keep the last so many bytes of stderr (an int or "64K") in
        Result.stderr_tail (--report-tail), wherever stderr goes.
    kill_leftovers: end what the command left running when it exits (--kill-leftovers).
    name: register the run so that cancel(name) from any process of the user ends it.
    input: the command's stdin, bytes (str in text mode), through a temporary file, never
        a pipe a leftover could hold; without it, stdin is the caller's.
    stdout, stderr: where each goes, as in subprocess: PIPE (captured into the Result;
        for start() and astart(), a stream of the handle's that the caller reads),
        DEVNULL, a file object or a descriptor, and for stderr STDOUT (where stdout goes);
        None: captured, unless capture_output is False (then the caller's own).  A pipe
        (the package's or the caller's) is written through runlimit's relay, closed
        output_grace after the command exits: what the command left running never holds
        the caller; a file is written by the command itself (nothing waits on a file).
    capture_output: True (the default) captures each stream given no destination (both,
        when neither stdout nor stderr is given); False leaves them the caller's own.
    max_output: bytes (an int, or a size such as "1M") kept of each captured stream: its
        first half and its last half, Result.stdout_dropped and stderr_dropped counting the
        bytes dropped between them; the caller's memory stays bounded whatever the command
        prints.  None (the default): all of it.
    text, encoding, errors: as in subprocess: any of them makes captured output and the
        handle's streams str (the locale's encoding by default, universal newlines).
    cwd, env: the working directory and environment, as for subprocess.
    check: raise TimedOut (a subprocess.TimeoutExpired) after a time-out and RunFailed (a
        subprocess.CalledProcessError) after any other status but 0.
    Whatever check says, a command that cannot be started raises FileNotFoundError or
    PermissionError as subprocess does, and runlimit's own failure (bad usage, a name
    already running) raises RunlimitError with runlimit's message.
"""


class Plan:
    """One call's arguments, checked and worked out before anything starts."""

    launch: Launch
    streams: Streams
    text: Text
    input: Optional[bytes]
    limit: Optional[int]
    cwd: Optional[StrPath]
    env: Optional[Mapping[str, str]]
    check: bool

    def __init__(self, args: Command, timeout: Optional[Duration], *, streaming: bool,
                 kill_after: Optional[Duration], signal: Optional[Signal],
                 output_grace: Duration, no_output_timeout: Optional[Duration],
                 memory: Optional[Size], max_procs: Optional[int],
                 cpu_time: Optional[Duration], stderr_tail: Optional[Size],
                 kill_leftovers: bool, name: Optional[str],
                 input: Union[bytes, str, None], stdout: Destination, stderr: Destination,
                 capture_output: bool, max_output: Optional[Size],
                 text: Optional[bool], encoding: Optional[str], errors: Optional[str],
                 cwd: Optional[StrPath], env: Optional[Mapping[str, str]],
                 check: bool) -> None:
        self.text = Text(text, encoding, errors)
        self.streams = Streams(stdout, stderr, capture_output, streaming)
        self.input = self.text.encode(input)
        self.limit = size_of(max_output, "max_output") if max_output is not None else None
        self.cwd, self.env, self.check = cwd, env, check
        self.launch = Launch(args, timeout, kill_after=kill_after, signal=signal,
                             output_grace=output_grace, no_output_timeout=no_output_timeout,
                             memory=memory, max_procs=max_procs, cpu_time=cpu_time,
                             stderr_tail=stderr_tail, kill_leftovers=kill_leftovers,
                             relayed=self.streams.relayed, name=name)

    def captures(self) -> Tuple[Optional[Capture], Optional[Capture]]:
        s = self.streams
        return (Capture(self.limit) if s.capture_stdout else None,
                Capture(self.limit) if s.capture_stderr else None)

    def said(self, out: Optional[Capture], err: Optional[Capture]) -> Optional[Capture]:
        """Where runlimit's own message is to be found: its stderr, or its stdout when
        stderr went there; None when the package does not see it."""
        if err is not None:
            return err
        if self.streams.stderr == STDOUT and out is not None:
            return out
        return None

    def stdin(self) -> Optional[IO[bytes]]:
        """input as the command's stdin: a temporary file, never a pipe.  runlimit does not
        relay stdin, so a pipe would be held by whatever the command leaves running, and a
        writer of more than the pipe holds would wait for that leftover to read or exit."""
        if self.input is None:
            return None
        f = tempfile.TemporaryFile()
        try:
            f.write(self.input)
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


def popen(plan: Plan) -> "subprocess.Popen[bytes]":
    # No start_new_session: runlimit makes the command's group itself, and stays in the
    # caller's so that a Ctrl-C or the caller's own signals reach it.
    launch = plan.launch
    try:
        stdin = plan.stdin()
        try:
            return subprocess.Popen(launch.argv, stdin=stdin, stdout=plan.streams.stdout,
                                    stderr=plan.streams.stderr, cwd=plan.cwd, env=plan.env,
                                    executable=launch.binary, pass_fds=launch.pass_fds)
        except OSError as e:
            raise not_runnable(launch, e) from None
        finally:
            close(stdin)  # the child has its own descriptor
    except BaseException:
        launch.cleanup()
        raise


_Selector = getattr(selectors, "PollSelector", selectors.SelectSelector)


def collect(proc: "subprocess.Popen[bytes]", out: Optional[Capture],
            err: Optional[Capture]) -> None:
    """Read the captured pipes to their end into out and err (a selector, in this
    thread: what it keeps is bounded by the captures), then reap runlimit."""
    sinks: Dict[int, Capture] = {}
    # poll(2) where there is one (as subprocess's communicate): no descriptor to make and
    # close for each run, as an epoll or a kqueue would be.
    with _Selector() as sel:
        for pipe, capture in ((proc.stdout, out), (proc.stderr, err)):
            if pipe is not None and capture is not None:
                sinks[pipe.fileno()] = capture
                sel.register(pipe.fileno(), selectors.EVENT_READ)
        while sel.get_map():
            for key, _ in sel.select():
                data = os.read(key.fd, 1 << 16)
                if data:
                    sinks[key.fd].add(data)
                else:
                    sel.unregister(key.fd)
    close(proc.stdout, proc.stderr)
    proc.wait()


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

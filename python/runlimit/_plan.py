"""One call's arguments worked out (runlimit's command line, where the output goes, text
mode, the input), and the start of runlimit with them: what run(), arun(), start() and
astart() share, their parameters among it, written once (Plan)."""

from __future__ import annotations

import inspect
import os
import selectors
import signal as _signal
import subprocess
import tempfile
from typing import (TYPE_CHECKING, IO, Any, Callable, ClassVar, Dict, Mapping, Optional,
                    Tuple, TypeVar, Union)

from . import _locate
from ._command import Command, Duration, Launch, Signal, Size, StrPath
from ._errors import RunlimitNotFound
from ._output import STDOUT, Capture, Destination, Streams, Text, size_of

if TYPE_CHECKING:  # type checkers have typing_extensions; Python 3.9's typing lacks it
    from typing_extensions import ParamSpec

    P = ParamSpec("P")
R = TypeVar("R")

# The text of every parameter the four share (Plan's), at the end of their docstrings
# (takes_parameters_of): help(runlimit.run) describes each one.
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
    """One call's arguments, checked and worked out before anything starts.

    Its parameters are the public functions' own, written here once: run(), arun(),
    start() and astart() take them (takes_parameters_of), so that a type checker sees
    each keyword with its type and its default, and help() and inspect.signature() the
    same.  A Streaming plan is start()'s and astart()'s."""

    # stdout=PIPE: a stream of the handle's, the caller's to read (start() and astart()),
    # or captured into the Result (run() and arun())
    streaming: ClassVar[bool] = False
    launch: Launch
    streams: Streams
    text: Text
    input: Optional[bytes]
    limit: Optional[int]
    cwd: Optional[StrPath]
    env: Optional[Mapping[str, str]]
    check: bool

    def __init__(self, args: Command, timeout: Optional[Duration] = None, *,
                 kill_after: Optional[Duration] = None, signal: Optional[Signal] = None,
                 output_grace: Duration = 1.0, no_output_timeout: Optional[Duration] = None,
                 memory: Optional[Size] = None, max_procs: Optional[int] = None,
                 cpu_time: Optional[Duration] = None, stderr_tail: Optional[Size] = None,
                 kill_leftovers: bool = False, name: Optional[str] = None,
                 input: Union[bytes, str, None] = None, stdout: Destination = None,
                 stderr: Destination = None, capture_output: bool = True,
                 max_output: Optional[Size] = None, text: Optional[bool] = None,
                 encoding: Optional[str] = None, errors: Optional[str] = None,
                 cwd: Optional[StrPath] = None, env: Optional[Mapping[str, str]] = None,
                 check: bool = False) -> None:
        self.text = Text(text, encoding, errors)
        self.streams = Streams(stdout, stderr, capture_output, self.streaming)
        self.input = self.text.encode(input)
        self.limit = size_of(max_output, "max_output") if max_output is not None else None
        self.cwd, self.env, self.check = cwd, env, check
        self.launch = Launch(args, timeout, kill_after=kill_after, signal=signal,
                             output_grace=output_grace, no_output_timeout=no_output_timeout,
                             memory=memory, max_procs=max_procs, cpu_time=cpu_time,
                             stderr_tail=stderr_tail, kill_leftovers=kill_leftovers,
                             relayed=self.streams.relayed, name=name)

    @classmethod
    def of(cls, function: Callable[..., Any], args: Tuple[Any, ...],
           kwargs: Dict[str, Any]) -> Plan:
        """The plan of a call of function (run, ...) with args and kwargs.  A call that
        does not fit the parameters raises the TypeError Python would raise of function's
        own def, naming function, not Plan."""
        try:
            return cls(*args, **kwargs)
        except TypeError:
            try:
                inspect.signature(function).bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError("%s() %s" % (function.__name__, e)) from None
            raise

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


class Streaming(Plan):
    """start()'s and astart()'s plan: stdout=PIPE is a stream of the handle's."""

    streaming = True


def takes_parameters_of(template: "Callable[P, object]"
                        ) -> "Callable[[Callable[..., R]], Callable[P, R]]":
    """@takes_parameters_of(Plan): the decorated function takes Plan's parameters, the
    public ones (run(), arun(), start() and astart() do).  To a type checker, each keyword
    with its type and its default, as if written out in the function's def (a ParamSpec);
    at run time, as its __signature__ (help(), inspect.signature()) with its own return
    annotation, and described by PARAMETERS at the end of its docstring.  The function
    itself is returned: no wrapper, nothing more per call."""
    parameters = list(inspect.signature(template).parameters.values())

    def give(function: Callable[..., R]) -> "Callable[P, R]":
        signature = inspect.signature(function).replace(parameters=parameters)
        setattr(function, "__signature__", signature)
        annotations = {p.name: p.annotation for p in parameters}
        annotations["return"] = signature.return_annotation
        function.__annotations__ = annotations
        # indented as PARAMETERS is, whether or not the compiler dedented it (3.13 does)
        lines = inspect.cleandoc(function.__doc__ or "").split("\n")
        function.__doc__ = "\n".join(lines[:1] + [line and "    " + line for line in lines[1:]]
                                     ) + "\n" + PARAMETERS
        return function

    return give


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

"""A user's script that uses every public name of the package, as docs/python.md shows them:
scripts/typecheck.sh checks it with mypy --strict and pyright (strict), so that a caller's
own type checker accepts the package.  It is checked, never run (no test_ prefix)."""

from __future__ import annotations

import asyncio
import datetime
import signal
import subprocess
from typing import Any, Dict, List, Optional

import runlimit


def every_option() -> runlimit.Result:
    return runlimit.run(["sh", "-c", "echo hi"], 5, kill_after=1, signal=signal.SIGINT,
                        output_grace=0.5, no_output_timeout=datetime.timedelta(seconds=3),
                        memory="1G", max_procs=10, cpu_time="1m", stderr_tail=1024,
                        kill_leftovers=True, name="typed", input=b"in", capture_output=True,
                        max_output="1M", text=False, encoding=None, errors=None,
                        cwd=".", env={"LC_ALL": "C"}, check=False)


def destinations() -> None:
    with open("log", "wb") as f:
        r = runlimit.run(["echo"], 5, stdout=f, stderr=runlimit.STDOUT)
    r = runlimit.run(["echo"], 5, stdout=runlimit.DEVNULL, stderr=subprocess.PIPE,
                     text=True, encoding="utf-8", errors="replace", input="text")
    dropped: int = r.stdout_dropped + r.stderr_dropped
    where: runlimit.Destination = 1
    print(dropped, where, r.stdout)


def the_result(r: runlimit.Result) -> None:
    args: List[str] = r.args
    code: int = r.returncode
    sig: Optional[int] = r.signal
    if r.signal is not None:
        name: str = signal.Signals(r.signal).name
        print(name)
    timed_out: bool = r.timed_out
    by: Optional[str] = r.timed_out_by
    cancelled: bool = r.cancelled
    left: Optional[int] = r.left_running
    out: Optional[bytes] = r.stdout
    err: Optional[bytes] = r.stderr
    tail: Optional[bytes] = r.stderr_tail
    report: Optional[Dict[str, Any]] = r.report
    r.check_returncode()
    print(args, code, sig, timed_out, by, cancelled, left, out, err, tail, report)


def the_handle() -> None:
    h: runlimit.Run = runlimit.start(["sleep", "10"], None)
    pid: int = h.pid
    ok: bool = h.cancel()
    polled: Optional[runlimit.Result] = h.poll()
    code: Optional[int] = h.returncode
    left: Optional[int] = h.wait(1.0).left_running
    with runlimit.start(["sleep", "10"], datetime.timedelta(minutes=1), check=True) as h2:
        print(h2.args)
    h3 = runlimit.start(["yes"], 5, stdout=runlimit.PIPE, text=True)
    if h3.stdout is not None:
        first: str = h3.stdout.readline()
        print(first)
    h3.send_signal(signal.SIGUSR1)
    h3.terminate()
    h3.kill()
    print(pid, ok, polled, code, left)


def the_errors() -> None:
    try:
        the_result(runlimit.run(["false"], 0.5, check=True))
    except runlimit.TimedOut as e:
        seconds: float = e.timeout
        status: int = e.returncode
        result: runlimit.Result = e.result
        output: Optional[bytes] = e.stdout
        print(seconds, status, result, output, e.cmd)
    except runlimit.RunFailed as e:
        failed: int = e.returncode
        print(failed, e.result.signal, e.stderr)
    except subprocess.SubprocessError:
        pass
    except FileNotFoundError:
        pass
    except runlimit.RunlimitNotFound:
        pass
    except runlimit.RunlimitTooOld:
        pass
    except runlimit.RunlimitError as e:
        print(e)


def named() -> None:
    outcome: runlimit.CancelOutcome = runlimit.cancel("typed", signal="INT", kill_after=1,
                                                      marker_ttl=0, env={"RUNLIMIT_DIR": "/x"})
    if outcome is runlimit.CancelOutcome.ALREADY_ENDED or not outcome:
        print(outcome.value)
    runs: List[Dict[str, Any]] = runlimit.list_runs(env=None)
    path: str = runlimit.find_runlimit()
    version: str = runlimit.__version__
    print(runs, path, version)


async def asynchronous() -> runlimit.Result:
    h: runlimit.ARun = await runlimit.astart(["yes"], 5, stdout=runlimit.PIPE)
    if h.stdout is not None:
        async for line in h.stdout:
            print(line.decode())
    h.send_signal(signal.SIGUSR1)
    h.terminate()
    h.kill()
    cancelled: bool = h.cancel()
    code: Optional[int] = h.returncode
    polled: Optional[runlimit.Result] = h.poll()
    print(cancelled, code, polled, (await h.wait()).stdout_dropped)
    async with await runlimit.astart(["sleep", "10"]) as h2:
        print(h2.pid)
    r = await runlimit.arun(["echo", "hi"], 10, max_output=10, text=True)
    return await runlimit.arun(["echo", r.returncode and "x" or "y"], timeout=None,
                               check=True)


def mistakes() -> None:
    """What a type checker must refuse (each ignore is reported unused if it does not: mypy
    --strict's warn_unused_ignores, pyright's reportUnnecessaryTypeIgnoreComment): a
    keyword misspelled or of the wrong type, in each of the four that take the options."""
    runlimit.run(["true"], 5, kill_afer=1)  # type: ignore[call-arg]
    runlimit.run(["true"], 5, memory=1.5)  # type: ignore[arg-type]
    runlimit.start(["true"], timout=5)  # type: ignore[call-arg]
    runlimit.start(["true"], 5, check="yes")  # type: ignore[arg-type]
    runlimit.run(["true"], 5, None)  # type: ignore[call-arg]


async def async_mistakes() -> None:
    await runlimit.arun(["true"], 5, max_proc=10)  # type: ignore[call-arg]
    await runlimit.astart(["true"], 5, stdout="PIPE")  # type: ignore[arg-type]


def durations() -> List[runlimit.Duration]:
    return [1, 1.5, "10m", datetime.timedelta(seconds=2)]


def main() -> None:
    the_result(every_option())
    the_handle()
    the_errors()
    named()
    the_result(asyncio.run(asynchronous()))
    print(durations())
    sizes: List[runlimit.Size] = [1024, "1G"]
    signals: List[runlimit.Signal] = [signal.SIGTERM, "INT"]
    command: runlimit.Command = ["echo", b"bytes"]
    print(sizes, signals, command)

"""Named runs from any process of the user: cancel(name) and list_runs()."""

from __future__ import annotations

import enum
import json
import subprocess
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import _locate
from ._command import Duration, Signal, duration, signal_name
from ._errors import RunlimitError


class CancelOutcome(enum.Enum):
    """What cancel(name) found.  True only for ENDED, so `if cancel(name):` reads as
    "a run was ended"."""

    ENDED = "ended"
    """A run of that name was running and has ended (its tree gone, or the final KILL
    sent); or one starting meanwhile found the marker and never ran its command."""
    ALREADY_ENDED = "already ended"
    """The run of that name had ended before the cancel came: nothing was done, and no
    marker was left, so a later run of the name is not touched."""
    MARKER_LEFT = "marker left"
    """No run of that name has started yet: a marker was left, and a run of the name that
    starts within marker_ttl (60 s by default) ends at once without running its command."""
    NOT_FOUND = "not found"
    """No run of that name, and no marker left (marker_ttl=0, a UID:NAME of root's, or the
    marker expired before any run took it)."""

    def __bool__(self) -> bool:
        return self is CancelOutcome.ENDED


# runlimit --cancel's status for each (the manual's EXIT STATUS).
_BY_STATUS = {
    0: CancelOutcome.ENDED,
    1: CancelOutcome.MARKER_LEFT,
    2: CancelOutcome.NOT_FOUND,
    4: CancelOutcome.ALREADY_ENDED,
}


def _tool(options: List[str], env: Optional[Mapping[str, str]]) -> Tuple[int, bytes, str]:
    """Run runlimit itself (--cancel, --list) and return (status, stdout, stderr)."""
    binary = _locate.find_runlimit()
    _locate.require(binary, [o.split("=", 1)[0] for o in options if o.startswith("-")])
    p = subprocess.run(["runlimit"] + options, executable=binary, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=False)
    said = p.stderr.decode("utf-8", "replace").strip()
    return p.returncode, p.stdout, said[len("runlimit: "):] if said.startswith("runlimit: ") else said


def cancel(name: str, *, signal: Optional[Signal] = None,
           kill_after: Optional[Duration] = None, marker_ttl: Optional[Duration] = None,
           env: Optional[Mapping[str, str]] = None) -> CancelOutcome:
    """End the run started with name= (from this or any other process of the user) and
    wait until it has ended: runlimit --cancel=NAME.

    Returns a CancelOutcome: ENDED (a run was ended), ALREADY_ENDED (it had ended before:
    nothing done, no marker), MARKER_LEFT (none has started yet: a marker was left) or
    NOT_FOUND (none, and no marker).  Only ENDED is true.  RunlimitError, with runlimit's
    message, if the run did not answer or the cancel was refused.

    name: the run's name, or UID:NAME for root's cancel of another user's run.
    signal: the cancel's signal (a number or a name), instead of the run's own.
    kill_after: the cancel's grace before the KILL, instead of the run's own (else 5 s).
    marker_ttl: how long a marker left for a run not started yet stands (60 s by default;
        0: none is left).
    env: the environment runlimit --cancel runs in: RUNLIMIT_DIR there (or in os.environ)
        must be the run's."""
    options = ["--cancel=" + name]
    if signal is not None:
        options += ["-s", signal_name(signal)]
    if kill_after is not None:
        options += ["-k", duration(kill_after, "kill_after")]
    if marker_ttl is not None:
        options.append("--marker-ttl=" + duration(marker_ttl, "marker_ttl"))
    status, _, said = _tool(options, env)
    known = _BY_STATUS.get(status)
    if known is not None:
        return known
    raise RunlimitError("runlimit --cancel=%s: status %d: %s" % (name, status, said))


def list_runs(*, env: Optional[Mapping[str, str]] = None) -> List[Dict[str, Any]]:
    """The live named runs of this user, as runlimit --list --json gives them: dicts with
    name, uid, pid, started_at, elapsed, deadline, argv, argc, state and error."""
    status, out, said = _tool(["--list", "--json"], env)
    if status != 0:
        raise RunlimitError("runlimit --list: status %d: %s" % (status, said))
    return [json.loads(line) for line in out.decode("utf-8").splitlines() if line.strip()]

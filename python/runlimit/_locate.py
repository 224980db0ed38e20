"""Finding the runlimit binary, and checking that it is new enough for what is asked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from typing import Dict, Iterable, List, Optional, Tuple

from ._errors import RunlimitNotFound, RunlimitTooOld

NAME = "runlimit"

# The environment variable that names the binary to use, over every place looked at: a
# name nobody sets by chance (RUNLIMIT alone could be anyone's, a limit of 5 for instance).
OVERRIDE = "RUNLIMIT_BINARY"

# The first version of runlimit that has each option the API may pass.  Every option the
# API uses today exists in 0.2.0; a newer option gets its own row, so that an older binary
# found on PATH is refused with a clear message instead of a usage error (125).
MIN_VERSION = {
    "--report": (0, 2, 0),
    "--output-grace": (0, 2, 0),
    "--no-output-timeout": (0, 2, 0),
    "--report-tail": (0, 2, 0),
    "--memory": (0, 2, 0),
    "--max-procs": (0, 2, 0),
    "--cpu-time": (0, 2, 0),
    "--kill-leftovers": (0, 2, 0),
    "--die-with-parent": (0, 2, 0),
    "--name": (0, 2, 0),
    "--cancel": (0, 2, 0),
    "--list": (0, 2, 0),
    "--json": (0, 2, 0),
    "--marker-ttl": (0, 2, 0),
    "-k": (0, 2, 0),
    "-s": (0, 2, 0),
}

# path -> (mtime, size, version tuple): --version is asked once per binary
_versions: Dict[str, Tuple[int, int, Tuple[int, ...]]] = {}


def _user_scheme() -> str:
    preferred = getattr(sysconfig, "get_preferred_scheme", None)  # Python 3.10+
    if preferred is not None:
        return str(preferred("user"))
    if sys.platform == "darwin" and sysconfig.get_config_var("PYTHONFRAMEWORK"):
        return "osx_framework_user"
    return "posix_user"


def _scripts(**kwargs: object) -> Optional[str]:
    try:
        return sysconfig.get_path("scripts", **kwargs)  # type: ignore[arg-type]
    except KeyError:  # a scheme this interpreter does not have
        return None


def _prefix_of(package_dir: str) -> Optional[str]:
    """The prefix of a `pip install --prefix P` layout (P/lib/pythonX.Y/site-packages/runlimit)."""
    site = os.path.dirname(package_dir)
    if os.path.basename(site) not in ("site-packages", "dist-packages"):
        return None
    pyver = os.path.dirname(site)
    lib = os.path.dirname(pyver)
    if not os.path.basename(pyver).startswith("python") or not os.path.basename(lib).startswith("lib"):
        return None
    return os.path.dirname(lib)


def candidates(package_dir: Optional[str] = None) -> List[Tuple[str, str]]:
    """Where the binary is looked for, in order, as (what, path) pairs (PATH excluded)."""
    if package_dir is None:
        package_dir = os.path.dirname(os.path.abspath(__file__))
    places: List[Tuple[str, Optional[str]]] = [
        ("the interpreter's scripts", _scripts()),
        ("the user scheme's scripts", _scripts(scheme=_user_scheme())),
        ("the --target layout", os.path.join(os.path.dirname(package_dir), "bin")),
    ]
    prefix = _prefix_of(package_dir)
    if prefix is not None:
        places.append(("the --prefix layout", os.path.join(prefix, "bin")))
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    places.append(("the base interpreter's scripts", _scripts(vars=base)))
    seen: set[str] = set()
    out: List[Tuple[str, str]] = []
    for what, directory in places:
        if directory is None:
            continue
        path = os.path.join(os.path.abspath(directory), NAME)
        if path not in seen:
            seen.add(path)
            out.append((what, path))
    return out


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


_candidates: Optional[List[Tuple[str, str]]] = None  # this package's, worked out once
# What the last search found, and what it depended on: (RUNLIMIT_BINARY, PATH, path).
_found: Optional[Tuple[Optional[str], Optional[str], str]] = None


def find_runlimit() -> str:
    """The absolute path of the runlimit binary to use.

    RUNLIMIT_BINARY (a path) in the environment wins; then the scripts directories of every
    scheme pip and uv install into; then PATH (a runlimit from Homebrew or apt).  Raises
    RunlimitNotFound, naming every place looked at, when none is found.  What is found is
    kept for the next call, while RUNLIMIT_BINARY and PATH are the same and it is still
    there.
    """
    global _found
    forced = os.environ.get(OVERRIDE) or None
    search = os.environ.get("PATH")
    known = _found
    if known is not None and known[:2] == (forced, search) and _runnable(known[2]):
        return known[2]
    path = _search(forced)
    _found = (forced, search, path)
    return path


def forget() -> None:
    """Search again next time (the binary found has gone: it could not be run)."""
    global _found
    _found = None


def _search(forced: Optional[str]) -> str:
    global _candidates
    if forced:
        if _runnable(forced):
            return os.path.abspath(forced)
        raise RunlimitNotFound("%s=%s is not an executable file" % (OVERRIDE, forced))
    if _candidates is None:
        _candidates = candidates()
    looked: List[str] = []
    for what, path in _candidates:
        if _runnable(path):
            return path
        looked.append("%s (%s)" % (path, what))
    on_path = shutil.which(NAME)
    if on_path is not None:
        return os.path.abspath(on_path)
    looked.append("PATH=%s" % os.environ.get("PATH", ""))
    raise RunlimitNotFound(
        "runlimit not found; looked at:\n  " + "\n  ".join(looked)
        + "\ninstall it (pip install runlimit, a package, or a release binary) or set "
        + OVERRIDE
    )


def version_of(path: str) -> Tuple[int, ...]:
    """The binary's version as a tuple of ints, from `runlimit --version` (asked once)."""
    st = os.stat(path)
    known = _versions.get(path)
    if known is not None and known[:2] == (st.st_mtime_ns, st.st_size):
        return known[2]
    try:
        out = subprocess.run([path, "--version"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=30, check=False).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RunlimitNotFound("%s --version failed: %s" % (path, e)) from None
    first = out.decode("utf-8", "replace").split("\n", 1)[0]
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", first)
    if m is None:
        raise RunlimitNotFound("%s --version said %r, not a runlimit version" % (path, first))
    version = tuple(int(g) for g in m.groups())
    _versions[path] = (st.st_mtime_ns, st.st_size, version)
    return version


def require(path: str, options: Iterable[str]) -> None:
    """Raise RunlimitTooOld unless the binary at path has every option in options."""
    have = version_of(path)
    for option in options:
        need = MIN_VERSION.get(option, (0, 0, 0))
        if have < need:
            raise RunlimitTooOld(
                "%s is runlimit %s; %s needs %s or later"
                % (path, ".".join(map(str, have)), option, ".".join(map(str, need)))
            )


def checked(options: Iterable[str]) -> str:
    """The binary to use, found and checked to have every option in options (--report,
    which every run passes, among them)."""
    path = find_runlimit()
    require(path, ["--report"] + list(options))
    return path

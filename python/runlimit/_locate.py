"""Finding the runlimit binary, and checking that it is new enough for what is asked."""

import os
import re
import shutil
import subprocess
import sys
import sysconfig

from ._errors import RunlimitNotFound, RunlimitTooOld

NAME = "runlimit"

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

_versions = {}  # path -> (mtime, size, version tuple): --version is asked once per binary


def _user_scheme():
    preferred = getattr(sysconfig, "get_preferred_scheme", None)  # Python 3.10+
    if preferred is not None:
        return preferred("user")
    if sys.platform == "darwin" and sysconfig.get_config_var("PYTHONFRAMEWORK"):
        return "osx_framework_user"
    return "posix_user"


def _scripts(**kwargs):
    try:
        return sysconfig.get_path("scripts", **kwargs)
    except KeyError:  # a scheme this interpreter does not have
        return None


def _prefix_of(package_dir):
    """The prefix of a `pip install --prefix P` layout (P/lib/pythonX.Y/site-packages/runlimit)."""
    site = os.path.dirname(package_dir)
    if os.path.basename(site) not in ("site-packages", "dist-packages"):
        return None
    pyver = os.path.dirname(site)
    lib = os.path.dirname(pyver)
    if not os.path.basename(pyver).startswith("python") or not os.path.basename(lib).startswith("lib"):
        return None
    return os.path.dirname(lib)


def candidates(package_dir=None):
    """Where the binary is looked for, in order, as (what, path) pairs (PATH excluded)."""
    if package_dir is None:
        package_dir = os.path.dirname(os.path.abspath(__file__))
    places = [
        ("the interpreter's scripts", _scripts()),
        ("the user scheme's scripts", _scripts(scheme=_user_scheme())),
        ("the --target layout", os.path.join(os.path.dirname(package_dir), "bin")),
    ]
    prefix = _prefix_of(package_dir)
    if prefix is not None:
        places.append(("the --prefix layout", os.path.join(prefix, "bin")))
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    places.append(("the base interpreter's scripts", _scripts(vars=base)))
    seen, out = set(), []
    for what, directory in places:
        if directory is None:
            continue
        path = os.path.join(os.path.abspath(directory), NAME)
        if path not in seen:
            seen.add(path)
            out.append((what, path))
    return out


def _runnable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_runlimit():
    """The absolute path of the runlimit binary to use.

    RUNLIMIT (a path) in the environment wins; then the scripts directories of every
    scheme pip and uv install into; then PATH (a runlimit from Homebrew or apt).  Raises
    RunlimitNotFound, naming every place looked at, when none is found.
    """
    forced = os.environ.get("RUNLIMIT")
    if forced:
        if _runnable(forced):
            return os.path.abspath(forced)
        raise RunlimitNotFound("RUNLIMIT=%s is not an executable file" % forced)
    looked = []
    for what, path in candidates():
        if _runnable(path):
            return path
        looked.append("%s (%s)" % (path, what))
    on_path = shutil.which(NAME)
    if on_path is not None:
        return os.path.abspath(on_path)
    looked.append("PATH=%s" % os.environ.get("PATH", ""))
    raise RunlimitNotFound(
        "runlimit not found; looked at:\n  " + "\n  ".join(looked)
        + "\ninstall it (pip install runlimit, a package, or a release binary) or set RUNLIMIT"
    )


def version_of(path):
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


def require(path, options):
    """Raise RunlimitTooOld unless the binary at path has every option in options."""
    have = version_of(path)
    for option in options:
        need = MIN_VERSION.get(option, (0, 0, 0))
        if have < need:
            raise RunlimitTooOld(
                "%s is runlimit %s; %s needs %s or later"
                % (path, ".".join(map(str, have)), option, ".".join(map(str, need)))
            )

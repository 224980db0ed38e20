#!/usr/bin/env python3
"""reaper.py COMMAND [ARG]...: run COMMAND as a child subreaper's child, so that every process
orphaned below it is re-parented here and reaped at once, then exit with COMMAND's status.

The tests look for processes that a run left behind, and a zombie still counts as a member of
its process group: a system whose init reaps orphans late (some sandboxes' PID 1 does) would
make a process group look alive after its last process died.  Where there is no subreaper
(not Linux), COMMAND is simply exec'd: init there reaps at once."""
import ctypes
import os
import sys

PR_SET_CHILD_SUBREAPER = 36


def subreaper():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def main():
    argv = sys.argv[1:]
    if not argv:
        sys.exit("usage: reaper.py COMMAND [ARG]...")
    if not sys.platform.startswith("linux") or not subreaper():
        os.execvp(argv[0], argv)
    child = os.fork()
    if child == 0:
        os.execvp(argv[0], argv)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            if os.WIFSIGNALED(status):
                sys.exit(128 + os.WTERMSIG(status))
            sys.exit(os.WEXITSTATUS(status))


main()

"""tree.py SLEEP SECONDS PIDFILE [group]: a tree that a plain kill of the child would not end.

A child that called setsid and ignores SIGTERM, and a plain child, both running the private
copy of sleep; their pids go to PIDFILE (written whole, by a rename) before this process
becomes the same sleep.  With "group" the first child stays in the group (it still ignores
SIGTERM): for a build that reaches no process that left it (the portable one)."""

import os
import signal
import sys

sleep, seconds, pidfile = sys.argv[1:4]
in_group = sys.argv[4:] == ["group"]
pids = []
for escape in (True, False):
    pid = os.fork()
    if pid == 0:
        if escape:
            if not in_group:
                os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # kept across exec
        os.execv(sleep, [sleep, seconds])
    pids.append(pid)
with open(pidfile + ".tmp", "w") as f:
    f.write(" ".join(map(str, pids + [os.getpid()])))
os.rename(pidfile + ".tmp", pidfile)
os.execv(sleep, [sleep, seconds])

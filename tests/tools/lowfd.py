# lowfd.py N PROG ARG...: exec PROG with only fds 0-2 open and RLIMIT_NOFILE at N (soft and
# hard, as `ulimit -n N`), INT, QUIT and PIPE at their defaults.  bats leaves fds 3, 4, 10,
# 251... open, which would eat into a small limit.
import os, resource, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE):
    signal.signal(s, signal.SIG_DFL)
n = int(sys.argv[1])
os.closerange(3, 65536)
resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
os.execv(sys.argv[2], sys.argv[2:])

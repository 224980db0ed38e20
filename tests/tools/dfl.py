# dfl.py PROG ARG...: exec PROG with INT, QUIT, PIPE and XFSZ at their defaults (a background
# job of a non-interactive shell starts with INT and QUIT ignored, which runlimit would rightly
# honour, and python ignores PIPE and XFSZ, so whatever runs under a python reaper inherits
# those ignores).
import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE, signal.SIGXFSZ):
    signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])

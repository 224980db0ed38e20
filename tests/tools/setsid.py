# setsid PROGRAM [ARG]...: a stand-in for util-linux's, installed by tests/helpers.bash's
# make_setsid_standin
# (python ignores PIPE and XFSZ itself: back to their defaults before the exec).
import os, signal, sys
for s in (signal.SIGPIPE, signal.SIGXFSZ):
    signal.signal(s, signal.SIG_DFL)
try:
    os.setsid()
except OSError:
    if os.fork():
        os._exit(0)
    os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])

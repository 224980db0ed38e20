# sockread.py DELAY CMD [ARG]...: run CMD with its stdout and stderr one end of a stream
# socket pair, and copy what comes out of the other end to stdout, to its end; reading
# starts DELAY seconds after CMD (a slow caller: what CMD writes meanwhile waits in the
# socket, and behind it).  Exits with CMD's status.  For a caller that is a socket (a
# service's journal, a socketpair from a test harness): tests/relay-bound.bats.
import os, socket, subprocess, sys, time

delay = float(sys.argv[1])
ours, theirs = socket.socketpair()
child = subprocess.Popen(sys.argv[2:], stdout=theirs, stderr=theirs)
theirs.close()
time.sleep(delay)
while True:
    data = ours.recv(1 << 16)
    if not data:
        break
    os.write(1, data)
sys.exit(child.wait())

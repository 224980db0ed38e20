# cancel_by_hand.py SOCKET SIG GRACE-NS [LINES]: a cancel written by hand into a named run's
# control socket (src/named_wire.h): its greeting checked, "cancel SIG GRACE-NS" sent, and
# its next LINES answer lines (1 unless said) printed, so that a test reads what --cancel
# does not show, such as the end the run announces ("ok BOUND-NS").
import socket, sys

path, sig, grace = sys.argv[1:4]
lines = int(sys.argv[4]) if len(sys.argv) > 4 else 1
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(path)
f = s.makefile("rwb", buffering=0)
assert f.readline() == b"runlimit\n"
f.write(("cancel %s %s\n" % (sig, grace)).encode())
for _ in range(lines):
    print(f.readline().decode().strip())

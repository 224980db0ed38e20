# lines.py N LEN LETTER [both]: write N lines of LEN bytes (LETTER repeated, then a newline),
# each in one write(2), to stdout; with "both", to stdout and stderr in turn (N each).  The
# writes of at most PIPE_BUF bytes are atomic: whoever else writes to the same pipe, each
# line reaches its reader whole (tools/torn.py counts those that did not).
import os, sys

n, size, letter = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
fds = (1, 2) if sys.argv[4:] == ["both"] else (1,)
line = (letter * (size - 1) + "\n").encode()
for _ in range(n):
    for fd in fds:
        if os.write(fd, line) != len(line):
            sys.exit("short write")

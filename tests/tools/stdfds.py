# stdfds.py: tell descriptor 3 which of 0, 1 and 2 are open ("0 closed", "1 open", ...), after
# trying to write a byte to 1 and to 2 (what a command that ignores the error would do).
import os
for fd in (1, 2):
    try:
        os.write(fd, b"x")
    except OSError:
        pass
for fd in (0, 1, 2):
    try:
        os.fstat(fd)
        state = "open"
    except OSError:
        state = "closed"
    os.write(3, b"%d %s\n" % (fd, state.encode()))

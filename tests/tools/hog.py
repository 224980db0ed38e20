# hog.py DIR COUNT MB SECONDS: COUNT processes (this one and COUNT-1 children it forks), each
# holding MB MiB of its own memory, every page touched so that it is resident; each writes
# DIR/ready.PID once it holds it all, then sleeps SECONDS (the first then waits for the others)
# and exits 0.  For the memory budget (tests/budget.bats).
import os, sys, time

d, count, mb, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
children = []
for _ in range(count - 1):
    pid = os.fork()
    if pid == 0:
        children = None
        break
    children.append(pid)
block = bytearray(mb * 1024 * 1024)
for k in range(0, len(block), 4096):
    block[k] = 1
ready = "%s/ready.%d" % (d, os.getpid())
open(ready + ".tmp", "w").close()
os.rename(ready + ".tmp", ready)
time.sleep(secs)
for pid in children or ():
    os.waitpid(pid, 0)

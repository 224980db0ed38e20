# noread.py [--merge | --err FILE] [--ready FILE] LIMIT PROG ARG...: run PROG with stdout
# and stderr on pipes of this process's that it never reads while PROG runs (with --merge,
# one pipe for both, as 2>&1; with --err, stderr to FILE), as a caller that stopped reading
# does.  With --ready, FILE is written once PROG runs.  Prints "STATUS SECONDS OUT ERR": PROG's exit status (-N: it died of signal
# N), the seconds it took, and how many bytes each pipe held when it ended (what reached
# the caller).  PROG still running after LIMIT seconds is KILLed: "hung SECONDS".
import os, subprocess, sys, time

args = sys.argv[1:]
merge = args[0] == "--merge"
if merge:
    args = args[1:]
err = subprocess.STDOUT if merge else subprocess.PIPE
if args[0] == "--err":
    err, args = open(args[1], "wb"), args[2:]
ready = None
if args[0] == "--ready":
    ready, args = args[1], args[2:]
limit, argv = float(args[0]), args[1:]

t0 = time.time()
p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err)
if ready:
    with open(ready, "w") as f:
        f.write("%d\n" % p.pid)
try:
    status = p.wait(timeout=limit)
except subprocess.TimeoutExpired:
    secs = time.time() - t0
    p.kill()
    p.wait()
    print("hung %.3f" % secs)
    sys.exit(0)
secs = time.time() - t0


def held(pipe):
    """What the pipe holds: read without waiting (a leftover may hold its write end)."""
    if pipe is None:
        return 0
    os.set_blocking(pipe.fileno(), False)
    n = 0
    while True:
        try:
            got = os.read(pipe.fileno(), 65536)
        except BlockingIOError:
            return n
        if not got:
            return n
        n += len(got)


print("%d %.3f %d %d" % (status, secs, held(p.stdout), held(p.stderr)))

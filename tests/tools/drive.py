# drive.py READY SIG CMD...: run CMD with INT, QUIT and PIPE at their defaults (whatever
# this shell has ignored); if SIG is not "-", wait for the file READY, then send SIG to
# CMD's pid.  Prints one line: "exit N SECONDS" or "signal N[+core] SECONDS", SECONDS
# counted from the signal (or from the start), or "noready"/"hung" on a bounded failure.
import os, signal, subprocess, sys, time
ready, sig, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
def defaults():
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen(cmd, preexec_fn=defaults)
t0 = time.monotonic()
status = None
if sig != "-":
    limit = t0 + 15
    while not (os.path.exists(ready) and os.path.getsize(ready) > 0):
        pid, st = os.waitpid(p.pid, os.WNOHANG)
        if pid or time.monotonic() > limit:
            if not pid:
                os.kill(p.pid, signal.SIGKILL)
                os.waitpid(p.pid, 0)
            print("noready")
            sys.exit(0)
        time.sleep(0.01)
    os.kill(p.pid, getattr(signal, "SIG" + sig))
    t0 = time.monotonic()
limit = time.monotonic() + 30
while True:
    pid, st = os.waitpid(p.pid, os.WNOHANG)
    if pid:
        break
    if time.monotonic() > limit:
        os.kill(p.pid, signal.SIGKILL)
        os.waitpid(p.pid, 0)
        print("hung")
        sys.exit(0)
    time.sleep(0.01)
t = time.monotonic() - t0
if os.WIFSIGNALED(st):
    print("signal %d%s %.3f" % (os.WTERMSIG(st), "+core" if os.WCOREDUMP(st) else "", t))
else:
    print("exit %d %.3f" % (os.WEXITSTATUS(st), t))

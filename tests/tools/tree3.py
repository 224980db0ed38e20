# tree3.py DIR SLEEP: a tree for the snapshot at a limit (tests/atlimit.bats), run as the
# command.  This process (level 1) starts level 2, a python with odd arguments (a space, a
# newline, bytes that are not UTF-8), which starts level 3 (SLEEP 60); a daemon of its own
# session (setsid, SLEEP 61); a stopped SLEEP 62; a zombie (a child that exited, never
# waited for).  Then DIR/pids says who is who, as JSON, and it sleeps.
import json, os, signal, subprocess, sys, time

d, sleep = sys.argv[1], sys.argv[2]
for s in (signal.SIGPIPE, signal.SIGXFSZ):
    signal.signal(s, signal.SIG_DFL)

level2 = """
import os, sys, time
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], [sys.argv[2], "60"])
open(sys.argv[1] + "/l3.tmp", "w").write(str(pid))
os.rename(sys.argv[1] + "/l3.tmp", sys.argv[1] + "/l3")
time.sleep(60)
"""
l2 = os.fork()
if l2 == 0:
    os.execv(sys.executable, [sys.executable, "-c", level2, d, sleep, "a b", "x\ny", b"\xff\xfe-"])
daemon = os.fork()
if daemon == 0:
    os.setsid()
    os.execv(sleep, [sleep, "61"])
r, w = os.pipe()  # close-on-exec: end-of-file once the child has exec'd
stopped = os.fork()
if stopped == 0:
    os.execv(sleep, [sleep, "62"])
os.close(w)
os.read(r, 1)
os.kill(stopped, signal.SIGSTOP)
os.waitpid(stopped, os.WUNTRACED)
zombie = os.fork()
if zombie == 0:
    os._exit(0)
os.waitid(os.P_PID, zombie, os.WEXITED | os.WNOWAIT)
for _ in range(1000):
    if os.path.exists(d + "/l3"):
        break
    time.sleep(0.01)
l3 = int(open(d + "/l3").read())
# Level 3 asleep (ps: S) before the tree is said complete: on a loaded machine a process
# that has just exec'd is still running when the limit comes.
for _ in range(1000):
    st = subprocess.run(["ps", "-o", "stat=", "-p", str(l3)], stdout=subprocess.PIPE,
                        universal_newlines=True).stdout.strip()
    if st.startswith("S"):
        break
    time.sleep(0.01)
pids = {"l1": os.getpid(), "l2": l2, "l3": l3, "daemon": daemon,
        "stopped": stopped, "zombie": zombie}
open(d + "/pids.tmp", "w").write(json.dumps(pids))
os.rename(d + "/pids.tmp", d + "/pids")
time.sleep(60)

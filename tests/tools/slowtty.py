# slowtty.py DONE DELAY OUT CMD...: run CMD with its stdout and stderr on a pseudo-terminal in
# raw mode (bytes pass unchanged) that nothing reads until the file DONE exists and DELAY
# more seconds have passed (a slow terminal); then read it to its end into OUT.  Prints CMD's
# exit status.
import os, pty, select, subprocess, sys, time, tty
done, delay, out, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
m, s = pty.openpty()
tty.setraw(s)
p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=s, stderr=s)
os.close(s)
limit = time.monotonic() + 30
while not os.path.exists(done) and time.monotonic() < limit:
    time.sleep(0.01)
time.sleep(delay)
data = b""
while True:
    ready, _, _ = select.select([m], [], [], 10)
    if not ready:
        break
    try:
        chunk = os.read(m, 65536)
    except OSError:  # EIO: every writer has closed the terminal
        break
    if not chunk:
        break
    data += chunk
with open(out, "wb") as f:
    f.write(data)
print(p.wait(timeout=30))

# torn.py LEN [DELAY]: read stdin to its end, starting DELAY seconds late (default 0: a slow
# caller, whose pipe fills meanwhile); print "TORN LINES": how many lines it held, and how
# many of them are not a line of tools/lines.py (LEN bytes: one letter repeated, a newline),
# torn by a writer that cut into another's write.
import sys, time

size = int(sys.argv[1])
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0)
data = sys.stdin.buffer.read()
lines = data.split(b"\n")
if lines[-1] == b"":
    lines.pop()
torn = sum(1 for l in lines if len(l) != size - 1 or l != l[:1] * (size - 1))
print(torn, len(lines))

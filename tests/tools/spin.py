# spin.py COUNT SECONDS: COUNT children that each spin on the CPU for at most SECONDS of wall
# time (so that a test that fails cannot heat the machine for long), waited for by this
# process, which itself sleeps in wait.  For the CPU-time budget (tests/budget.bats).
import os, sys, time

count, secs = int(sys.argv[1]), float(sys.argv[2])
for _ in range(count):
    if os.fork() == 0:
        end = time.monotonic() + secs
        while time.monotonic() < end:
            pass
        os._exit(0)
for _ in range(count):
    os.wait()

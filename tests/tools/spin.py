# spin.py COUNT SECONDS: COUNT children that each spin until they have used SECONDS of CPU
# time, or 30 s of wall time have passed (so that a test that fails cannot heat the machine
# for long), waited for by this process, which itself sleeps in wait.  CPU time, not wall
# time: on a loaded machine a child gets less of a CPU than it asks for.  For the CPU-time
# budget (tests/budget.bats).
import os, sys, time

count, secs = int(sys.argv[1]), float(sys.argv[2])
for _ in range(count):
    if os.fork() == 0:
        end = time.monotonic() + 30
        while time.process_time() < secs and time.monotonic() < end:
            pass
        os._exit(0)
for _ in range(count):
    os.wait()

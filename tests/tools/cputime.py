# cputime.py FILE PROG ARG...: run PROG (its streams are ours), write the CPU seconds it used
# (user and system, with the children it waited for) to FILE, and exit with its status.
import os, resource, subprocess, sys
status = subprocess.call(sys.argv[2:])
used = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("%.3f\n" % (used.ru_utime + used.ru_stime))
sys.exit(status if status >= 0 else 128 - status)

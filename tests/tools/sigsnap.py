# sigsnap [FILE [SECONDS]]: the signals ignored and blocked in this process, so of whoever
# exec'd it, as Linux's /proc/PID/status shows them, to FILE (default: stdout); then a sleep.
# Installed by helpers.bash's make_sigsnap with the python interpreter as its "#!" line.
import signal, sys, time
ign = blk = 0
for n in range(1, signal.NSIG):
    if n in (signal.SIGPIPE, signal.SIGXFSZ):
        continue
    try:
        if signal.getsignal(n) == signal.SIG_IGN:
            ign |= 1 << (n - 1)
    except (ValueError, OSError):
        pass
for s in signal.pthread_sigmask(signal.SIG_BLOCK, []):
    blk |= 1 << (int(s) - 1)
text = "SigIgn:\t%016x\nSigBlk:\t%016x\n" % (ign, blk)
if len(sys.argv) > 1:
    open(sys.argv[1], "w").write(text)
else:
    sys.stdout.write(text)
if len(sys.argv) > 2:
    time.sleep(float(sys.argv[2]))

#!/usr/bin/env python3
"""The Python face's cost: runlimit.run(["true"], 10) against the binary itself run through
subprocess.run with the output captured, interleaved (one of each in turn), medians.

  bench/python.py [--runs N] [--binary PATH]

A benchmark, not a test: it prints the two medians and their ratio (issue 62's target:
at most 1.3).  PYTHONPATH is this tree's python/ unless the package is importable already.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--binary", default=os.path.join(REPO, "runlimit"))
    opts = ap.parse_args()
    os.environ["RUNLIMIT_BINARY"] = os.path.abspath(opts.binary)
    sys.path.insert(0, os.path.join(REPO, "python"))
    import runlimit

    binary = runlimit.find_runlimit()

    def plain():
        subprocess.run([binary, "10", "true"], stdin=subprocess.DEVNULL, capture_output=True)

    def api():
        runlimit.run(["true"], 10)

    for f in (plain, api):  # warm: the version asked once, the caches filled
        f()
    times = {plain: [], api: []}
    for _ in range(opts.runs):
        for f in (plain, api):
            t = time.perf_counter()
            f()
            times[f].append(time.perf_counter() - t)
    a, b = statistics.median(times[plain]), statistics.median(times[api])
    print("binary through subprocess.run: %.0f us" % (a * 1e6))
    print("runlimit.run(['true'], 10):    %.0f us" % (b * 1e6))
    print("ratio: %.2f (target: at most 1.30)" % (b / a))


if __name__ == "__main__":
    main()

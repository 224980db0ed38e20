#!/usr/bin/env python3
"""The house drawn from the code: every quoted #include in src/, as a graph of modules (a.c
and a.h are one module, a).  It fails if the platform (src/os/) includes a core header (an
upward include; test_hooks.h, a leaf of libc alone, is the one it may, and it fails if that
includes anything of src/), if the modules' graph has a cycle, if a file outside src/os/
(the rest of src/, tests/unit/, tests/fuzz/) includes a header of src/os/ other than os.h,
the platform's one interface (the platform's own unit tests, tests/unit/os/, alone may), or
if a file outside src/os/ (the unit tests too, the platform's among them) tests a system by
name (__linux__, __APPLE__, __FreeBSD__); it names the file and what it found.
Usage: scripts/check-includes.py [SRC_DIR]"""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
src = os.path.normpath(src)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The test hooks (test_hooks.h): named by the core and the platform alike, so a leaf.
LEAF = "test_hooks"


def module(path):
    rel = os.path.relpath(path, src)
    return os.path.splitext(rel)[0]


edges = {}
bad = []
for d, _, files in os.walk(src):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(d, f)
        me = module(path)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        for name in inc.findall(text):
            target = os.path.normpath(os.path.join(d, name))
            if not os.path.exists(target):
                target = os.path.normpath(os.path.join(src, name))
            if not os.path.exists(target):
                bad.append("%s: includes %s, which is not in %s" % (path, name, src))
                continue
            them = module(target)
            in_os = os.path.relpath(path, src).startswith("os" + os.sep)
            if (in_os and not os.path.relpath(target, src).startswith("os" + os.sep)
                    and them != LEAF):
                bad.append("%s: the platform includes a core header, %s" % (path, name))
            if me == LEAF:
                bad.append("%s: includes %s (the test hooks' header is a leaf: libc alone)"
                           % (path, name))
            if them != me:
                edges.setdefault(me, set()).add(them)

# Outside src/os/ only os.h is the platform's: a private header of src/os/ (cpufiles.h,
# pidmap.h, ...) included from the core, the unit tests or the fuzzers, by any path (as
# "os/x.h" under -Isrc, by a relative path, or bare under an -I of src/os/).  The platform's
# own unit tests (tests/unit/os/) are the exception: those headers are what they test.
osdir = os.path.join(src, "os")
seam = os.path.join(osdir, "os.h")
tests = os.path.normpath(os.path.join(src, "..", "tests"))
outside = [src, os.path.join(tests, "unit"), os.path.join(tests, "fuzz")]
os_tests = os.path.join(tests, "unit", "os")


def in_os(path):
    return os.path.relpath(path, src).split(os.sep)[0] == "os"


for top in outside:
    for d, _, files in os.walk(top):
        if in_os(d) or os.path.normpath(d) == os_tests:
            continue
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            for name in inc.findall(text):
                found = [os.path.normpath(os.path.join(b, name)) for b in (d, src, osdir)]
                found = [t for t in found if os.path.exists(t)]
                if found and in_os(found[0]) and not os.path.samefile(found[0], seam):
                    bad.append("%s: includes %s, a private header of src/os/ (outside src/os/ "
                               "only os.h may be included)" % (path, name))

# A system tested by name outside the seam, the unit tests included: the platform's own
# (tests/unit/os/) run on every system.
system = re.compile(r"__(linux|APPLE|FreeBSD)__")
for top in outside[:2]:
    for d, _, files in os.walk(top):
        if in_os(d):
            continue
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            with open(path, encoding="utf-8") as fh:
                if system.search(fh.read()):
                    where = "in a unit test" if top != src else "outside src/os/"
                    bad.append("%s: tests a system by name %s" % (path, where))

# Cycles, by a depth-first search that reports each back edge's loop once.
state, stack, cycles = {}, [], set()


def visit(m):
    state[m] = 1
    stack.append(m)
    for n in sorted(edges.get(m, ())):
        if state.get(n) == 1:
            loop = stack[stack.index(n):] + [n]
            cycles.add(" -> ".join(loop))
        elif n not in state:
            visit(n)
    stack.pop()
    state[m] = 2


for m in sorted(edges):
    if m not in state:
        visit(m)
bad += ["include cycle: " + c for c in sorted(cycles)]
for b in bad:
    print("check-includes: " + b, file=sys.stderr)
if not bad:
    print("check-includes: %d modules, no upward include, no cycle, no private header of src/os/ "
          "included from outside it" % len(set(edges) |
          {n for s in edges.values() for n in s}))
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
"""The house drawn from the code: every quoted #include in src/, as a graph of modules (a.c
and a.h are one module, a).  It fails if the platform (src/os/) includes a core header (an
upward include), if the modules' graph has a cycle, or if a file outside src/os/ (the unit
tests too) tests a system by name (__linux__, __APPLE__, __FreeBSD__), and names what it
found.
Usage: scripts/check-includes.py [SRC_DIR]"""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
src = os.path.normpath(src)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


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
            if in_os and not os.path.relpath(target, src).startswith("os" + os.sep):
                bad.append("%s: the platform includes a core header, %s" % (path, name))
            if them != me:
                edges.setdefault(me, set()).add(them)

# A system tested by name outside the seam.
system = re.compile(r"__(linux|APPLE|FreeBSD)__")
unit = os.path.join(src, "..", "tests", "unit")
for top in (src, unit):
    for d, _, files in os.walk(top):
        if os.path.relpath(d, src).split(os.sep)[0] == "os":
            continue
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                path = os.path.join(d, f)
                with open(path, encoding="utf-8") as fh:
                    if system.search(fh.read()):
                        bad.append("%s: tests a system by name outside src/os/" % path)

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
    print("check-includes: %d modules, no upward include, no cycle" % len(set(edges) |
          {n for s in edges.values() for n in s}))
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
"""Tree-kill benchmark: a time-out of a 200-process tree (150 in the command's process group,
50 setsid escapees, all ignoring TERM), measured from the moment the tool announces KILL
(--verbose) to the death of the last process of the tree.  Usage: bench_tree.py TOOL [RUNS]"""
import os, shutil, subprocess, sys, tempfile, time

def tree_pids(name):
    found = []
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open(f'/proc/{d}/stat') as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index('(') + 1:s.rindex(')')]
        state = s[s.rindex(')') + 2]
        if comm == name and state not in 'ZX':
            found.append(int(d))
    return found

def one_run(tool, tmp, run):
    name = f'bt{os.getpid() % 10000}r{run}'
    slp = os.path.join(tmp, name)
    shutil.copy(shutil.which('sleep'), slp)
    ready = os.path.join(tmp, f'ready{run}')
    script = f'''trap '' TERM
i=0; while [ $i -lt 150 ]; do "{slp}" 60 & i=$((i+1)); done
i=0; while [ $i -lt 50 ]; do setsid "{slp}" 60 & i=$((i+1)); done
echo ok > "{ready}"; wait'''
    p = subprocess.Popen([tool, '-v', '-k', '1', '3', 'sh', '-c', script],
                         stderr=subprocess.PIPE, text=True)
    t_kill = None
    for line in p.stderr:
        if 'KILL' in line:
            t_kill = time.monotonic()
            break
    while tree_pids(name):
        if time.monotonic() - t_kill > 10:
            break
    t_dead = time.monotonic()
    p.wait()
    left = tree_pids(name)
    for pid in left:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    return (t_dead - t_kill) * 1000, len(left)

def main():
    tool = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    tmp = tempfile.mkdtemp()
    try:
        res = [one_run(tool, tmp, r) for r in range(runs)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    times = sorted(r[0] for r in res)
    survivors = max(r[1] for r in res)
    print(f'tree-kill {os.path.basename(tool)}: median {times[len(times)//2]:.1f} ms '
          f'(min {times[0]:.1f}, max {times[-1]:.1f}) from KILL to last death, '
          f'{survivors} survivors at worst')

main()

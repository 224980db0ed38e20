#!/usr/bin/env python3
"""bound.py: the property test of the bound (docs/design.md, "The bound").

Whatever the options and whatever the command does, runlimit returns no later than DURATION
+ the --on-timeout hook's limit (when there is one) + the kill grace + the output grace (+ a
margin for a loaded machine) after it started; and
when it returns after a limit ran out or a request to end, no process of the command's tree
is left running (a command that exited on its own may leave what it started, unless
--kill-leftovers).

Each case is drawn from the seed and its index alone, so one case can be replayed without
the others: the options (none or every relay option, --report, --report-tail, --name with
sometimes a concurrent --cancel, -k, -s, -p, -v, --kill-leftovers, --die-with-parent,
--foreground,
--on-timeout with a hook that ends, fails, hangs or leaves a process, a budget of
processes, CPU time or memory), a command
(a POSIX sh script: it exits, ignores TERM, forks, setsid's, writes fast or slowly or
nothing, leaves children holding the pipes, stops itself, or it or a child of its cannot
die: frozen in a cgroup v1 freezer, where --freezer gives one) and a caller (it reads
everything, reads 1 KiB every 50 ms, never reads, or closes its end early).  Cases run
several at a time.  Every process of a case's tree carries the case's token in its
arguments (the shells have it as $0, every other program is run by a path under the case's
directory), so the survivors are found with `ps -A -o args` on any system, and ended
(bounded) once the case is checked, on failure too.

    bound.py [--seed S] [--cases N] [--case I]... [--jobs J] [--caps LIST] [--runlimit PATH]
             [--margin SECONDS] [--run-id ID] [--freezer DIR] [--describe] [--verbose] [--keep]
    bound.py --cleanup --run-id ID

Environment (the options win): RUNLIMIT (the binary, default ./runlimit),
RUNLIMIT_BOUND_SEED (default: a random one, printed), RUNLIMIT_BOUND_CASES (default 200),
RUNLIMIT_BOUND_JOBS (default 8), RUNLIMIT_BOUND_MARGIN (seconds, default 3; 10 when
RUNLIMIT_EMULATED is set), RUNLIMIT_BOUND_CAPS (what the build reaches: "sessions" a
setsid'd descendant, "orphans" one that was also orphaned; default: RUNLIMIT_EXPECT's words
when that is set, else both), RUNLIMIT_BOUND_RUN_ID (marks the processes and the directory
of the run, so that --cleanup can end what a killed run left), RUNLIMIT_BOUND_FREEZER (a
cgroup of a cgroup v1 freezer hierarchy that this may make cgroups in: a case that draws a
process that cannot die freezes it there, the stand-in for an uninterruptible wait on a
hung mount, which keeps SIGKILL pending; without one, those cases run it unfrozen).
Exits 0 when every case holds, 1 when one does not (each
failure printed with the seed, the case and the command line that replays it alone), 2 on
a usage error.
"""

import json
import os
import random
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report_schema  # noqa: E402 (tests/tools/report_schema.py: the report's schema)

# python before 3.11 has no Popen(process_group=): this puts the program in a group of its own
# (python ignores SIGPIPE and SIGXFSZ itself: back to their defaults before the exec).
SETPGID = ("import os, signal, sys\n"
           "for s in (signal.SIGPIPE, signal.SIGXFSZ): signal.signal(s, signal.SIG_DFL)\n"
           "os.setpgid(0, 0)\nos.execv(sys.argv[1], sys.argv[1:])")

# ---- the draw ---------------------------------------------------------------------------

# Children the command may start, and what each needs to be ended:
#   bg          a sleep in the background, holding stdout and stderr
#   quiet       a sleep in the background with its output on /dev/null
#   ignterm     a sleep that ignores TERM
#   setsid      a sleep in a session of its own (the walk reaches it, not the group)
#   setsid_ign  the same, ignoring TERM
#   orphan      a double fork: a sleep whose parent is gone, still in the group
#   daemon      a double fork into a session of its own (setsid'd and orphaned)
#   writer      a loop writing a line every 0.1 s, holding the pipes
#   burst       head writing 256 KiB in the background
#   forks       a subshell with two sleeps of its own
#   stopped     a shell that stops itself (SIGSTOP), then sleeps
CHILDREN = ["bg", "quiet", "ignterm", "setsid", "setsid_ign", "orphan", "daemon", "writer",
            "burst", "forks", "stopped"]
IGNORES_TERM = {"ignterm", "setsid_ign"}

# What the command itself does, after starting its children:
#   exit          exits 3 at once, or after 0.05 s
#   sleep         sleeps 30 s
#   burst_exit    writes N bytes (to stdout, stderr or both), then exits 3
#   burst_sleep   writes N bytes, then sleeps 30 s
#   trickle       writes a line every 0.05 s, for ever
#   stop          stops itself with SIGSTOP, then exits 6 once continued
#   tstp          stops itself with SIGTSTP (a stop runlimit passes on to itself)
#   closeout      closes its stdout and stderr, then sleeps
MAINS = ["exit", "exit", "sleep", "burst_exit", "burst_sleep", "trickle", "stop", "tstp",
         "closeout"]

# The caller's end of stdout (and of stderr, when that is a pipe of its own):
#   read    reads everything as it comes
#   slow    reads 1 KiB every 50 ms
#   never   keeps its end open and never reads (a writer then fills the pipe)
#   close   closes its end after the first bytes (or after 0, 0.05 or 0.2 s of nothing)
CALLERS = ["read", "slow", "never", "close"]


def fmt(x):
    return ("%.3f" % x).rstrip("0").rstrip(".")


def exited_on_its_own(c, rc, ended=None, first=None):
    """The command ended on its own, before any limit ran out or any request to end came.
    ended: when the harness saw the command gone; first: when the first request was sent or
    the deadline came, whichever was earlier.  A command seen gone before that ended on its
    own however runlimit then ends (a request during the output grace may make runlimit die
    of its signal).  Otherwise runlimit's status rc says: without -p every other end is 124,
    137 or a death by a signal.
    With -p those are the command's own statuses too, so only what the command does when
    left alone counts: 3 (its exit), 6 (resumed after a SIGTSTP that stopped runlimit too)
    and 141 (a death by SIGPIPE, which a caller closing early causes).  When in doubt the
    oracle takes it for an own exit: a process then allowed to stay can hide a defect, never
    invent one."""
    if ended is not None and first is not None and ended < first:
        return True
    if rc is None or rc < 0 or rc in (124, 125, 126, 127, 137):
        return False
    return rc in (3, 6, 141) if c["preserve"] else True


def draw(seed, index):
    """The case INDEX of SEED: a dict of everything about it (nothing depends on the system)."""
    rng = random.Random("%s:%d" % (seed, index))
    c = {"index": index}
    c["dur"] = rng.choice([0.2, 0.3, 0.4, 0.5, 0.7, 1.0])
    c["trap"] = rng.random() < 0.25  # the command (and all it starts) ignores TERM
    c["children"] = [rng.choice(CHILDREN) for _ in range(rng.choice([0, 0, 1, 1, 2, 3]))]
    c["main"] = rng.choice(MAINS)
    c["exit_delay"] = rng.choice([0, 0.05])
    c["burst"] = rng.choice([65536, 262144, 2000000])
    c["burst_to"] = rng.choice(["out", "out", "err", "both"])
    if c["main"] in ("exit", "burst_exit") and c["dur"] < 0.3:
        c["dur"] = 0.3  # a command meant to exit on its own does so well before the deadline

    c["stdout"] = rng.choice(CALLERS)
    c["stderr"] = rng.choice(["file", "file", "same", "same", "pipe"])
    c["stderr_caller"] = rng.choice(CALLERS)
    c["close_after"] = rng.choice([0, 0.05, 0.2])
    # A job-control shell starts runlimit as the leader of a process group of its own; other
    # callers (a CI runner, subprocess) leave it in theirs.
    c["own_group"] = rng.random() < 0.5

    # The relay: none, or any of its three options, alone or together.
    relay = rng.choice(["none", "none", "grace", "silence", "tail", "grace+silence",
                        "grace+tail", "silence+tail", "grace+silence+tail"])
    c["output_grace"] = rng.choice([0, 0.1, 0.3, 0.5]) if "grace" in relay else None
    c["silence"] = rng.choice([0.1, 0.2, 0.5, 1, 2]) if "silence" in relay else None
    c["tail"] = rng.choice(["64", "1K", "4K", "64K", "1M"]) if "tail" in relay else None
    c["report"] = c["tail"] is not None or rng.random() < 0.3

    c["name"] = rng.random() < 0.35
    c["cancel_at"] = None
    if c["name"] and rng.random() < 0.5:
        c["cancel_at"] = round(rng.uniform(0.05, 0.9 * c["dur"]), 3)
        c["cancel_sig"] = rng.choice([None, None, None, "INT", "HUP", "KILL", "USR1"])
        r = rng.random()
        c["cancel_k"] = None if r < 0.5 else 0 if r < 0.65 else round(rng.uniform(0.1, 0.5), 2)
    # Otherwise, sometimes a request to end as a signal: the caller kills runlimit.
    c["request_at"] = None
    if c["cancel_at"] is None and rng.random() < 0.12:
        c["request_at"] = round(rng.uniform(0.05, 0.9 * c["dur"]), 3)
        c["request_sig"] = rng.choice(["TERM", "TERM", "INT", "HUP"])

    c["sig"] = rng.choice([None] * 8 + ["TERM", "TERM", "INT", "INT", "HUP", "KILL", "KILL",
                                        "USR1", "0", "0"])
    r = rng.random()
    c["k"] = None if r < 0.15 else 0 if r < 0.27 else round(rng.uniform(0.1, 0.5), 2)
    c["preserve"] = rng.random() < 0.1
    c["verbose"] = rng.random() < 0.35
    c["foreground"] = rng.random() < 0.15
    c["kill_leftovers"] = rng.random() < 0.2
    # --on-timeout: a hook that ends at once, fails, hangs past its limit, or leaves a
    # process behind in its group.
    c["hook"] = rng.choice(["quick", "fail", "hang", "leave"]) if rng.random() < 0.25 else None
    c["hook_limit"] = rng.choice([0.1, 0.3, 0.5]) if c["hook"] else 0.0
    # A budget, measured every 50 ms: a few processes or a little CPU time, which may run
    # out before the deadline (and end the run as it does), or memory, which never does.
    c["budget"] = rng.choice(["procs", "cpu", "memory"]) if rng.random() < 0.2 else None
    c["budget_procs"] = rng.randint(2, 6)
    c["budget_cpu"] = round(rng.uniform(0.05, 0.3), 2)
    # A process that cannot die of SIGKILL until thawed (an uninterruptible wait): the
    # command itself, frozen before its main part, or a child of its.
    c["unkillable"] = rng.choice(["command", "leftover"]) if rng.random() < 0.12 else None

    # The contract leaves two draws unbounded; they are drawn again as something it bounds.
    # -s 0 sends nothing and arms no default grace: it takes an explicit positive -k.
    if c["sig"] == "0" and not c["k"]:
        c["k"] = round(rng.uniform(0.1, 0.5), 2)
    # -k 0 sends no KILL: only a tree that the signal ends (a TERM too, with
    # --kill-leftovers) may have it.  Background children of a shell ignore INT, and with
    # -f a stopped command is never continued.
    if c["k"] == 0 and not obeys(c):
        c["k"] = round(rng.uniform(0.1, 0.5), 2)
    if c["k"] == 0 and c["request_at"] is not None:
        c["request_sig"] = "TERM"  # background children of a shell ignore INT
    # --die-with-parent, its caller (this harness) living: it must change nothing of the
    # bound (drawn last, so that a seed's other draws stay what they were).
    c["die_with_parent"] = rng.random() < 0.3
    return c


def obeys(c):
    """Every process of the tree ends on the -s signal (and on TERM) without a KILL."""
    if c["trap"] or IGNORES_TERM.intersection(c["children"]) or c["unkillable"]:
        return False
    if c["sig"] not in (None, "TERM", "HUP", "USR1", "KILL"):
        return False
    return not (c["foreground"] and c["main"] in ("stop", "tstp"))


def relayed(c):
    return (c["output_grace"] is not None or bool(c["silence"]) or c["tail"] is not None)


def kill_grace(c):
    """The grace before the final KILL of a time-out."""
    if c["k"] is not None:
        return c["k"]
    return 5.0


def cancel_grace(c):
    """A cancel's grace: its -k, else the run's -k when not 0, else 5 s."""
    if c["cancel_k"] is not None:
        return c["cancel_k"]
    return c["k"] if c["k"] else 5.0


def output_grace(c):
    if c["output_grace"] is not None:
        return c["output_grace"]
    return 1.0 if relayed(c) else 0.0


# How long runlimit waits, after a KILL, for what it KILLed to die.
SETTLE = 1.0


def bound(c):
    """Seconds after the start by which runlimit returns, margin not included: DURATION +
    the kill grace + the settle (with a process that cannot die) + the output grace.  With a
    --cancel the grace is the larger of the run's and the cancel's: a run stopped with its
    command (SIGTSTP) takes the cancel only when its timer resumes it at the deadline.  A
    request to end as a signal has the run's grace."""
    grace = kill_grace(c)
    if c["cancel_at"] is not None:
        grace = max(grace, cancel_grace(c))
    settle = SETTLE if c["unkillable"] else 0.0
    return c["dur"] + c["hook_limit"] + grace + settle + output_grace(c)


# ---- the command ------------------------------------------------------------------------

CHILD_SCRIPT = {
    "bg": '"$S" 30 &',
    "quiet": '"$S" 30 >/dev/null 2>&1 &',
    "ignterm": "(trap '' TERM; exec \"$S\" 30) &",
    "setsid": 'setsid "$SS" 30 &',
    "setsid_ign": "(trap '' TERM; exec setsid \"$SS\" 30) &",
    "orphan": '("$S" 30 &) &',
    "daemon": '(setsid "$SO" 30 &) &',
    "writer": '(while :; do echo bg || exit 1; "$S" 0.1; done) &',
    "burst": '"$H" -c 262144 /dev/zero &',
    "forks": '("$S" 30 & "$S" 30 & wait) &',
    "stopped": '"$SH" -c \'kill -STOP $$; exec "$1" 30\' "$0" "$S" &',
}


# Freezes the shell that runs it in the case's freezer cgroup $FZ (none: nothing): it goes
# on only once thawed, and dies then of a SIGKILL sent meanwhile.
FREEZE = '[ -z "$FZ" ] || { echo $$ >"$FZ/tasks"; echo FROZEN >"$FZ/freezer.state"; }'


def script(c):
    parts = ['echo $$ >"$D/pid"']
    if c["trap"]:
        parts.append("trap '' TERM")
    parts += [CHILD_SCRIPT[k] for k in c["children"]]
    if c["unkillable"] == "leftover":
        parts.append('"$SH" -c %s "$0" &' % shlex.quote(FREEZE + '; exec "$S" 30'))
    elif c["unkillable"] == "command":
        parts.append(FREEZE)
    burst = '"$H" -c %d /dev/zero' % c["burst"]
    burst = {"out": burst, "err": burst + " >&2",
             "both": burst + "; " + burst + " >&2"}[c["burst_to"]]
    wait = '"$S" %s; ' % fmt(c["exit_delay"]) if c["exit_delay"] else ""
    parts.append({
        "exit": wait + "exit 3",
        "sleep": '"$S" 30; exit 5',
        "burst_exit": burst + "; exit 3",
        "burst_sleep": burst + '; "$S" 30; exit 5',
        "trickle": 'while :; do echo tick; "$S" 0.05; done; exit 5',
        "stop": "kill -STOP $$; exit 6",
        "tstp": "kill -TSTP $$; exit 6",
        "closeout": 'exec >&- 2>&-; "$S" 30; exit 5',
    }[c["main"]])
    # One line (ps shows arguments line by line): "&" ends a command as ";" does.
    return "".join(x + (" " if x.endswith("&") else "; ") for x in parts[:-1]) + parts[-1]


HOOKS = {"quick": "echo hook", "fail": "exit 3", "hang": '"$S" 30',
         "leave": '"$S" 30 & echo hook'}


def options(c, name, budgets=True):
    """The options of case c; budgets: where the build measures the tree for them (the
    portable build refuses them)."""
    o = []
    if c["budget"] and budgets:
        o += [{"procs": "--max-procs=%d" % c["budget_procs"],
               "cpu": "--cpu-time=" + fmt(c["budget_cpu"]),
               "memory": "--memory=1G"}[c["budget"]], "--budget-interval=0.05"]
    if c["hook"]:
        o += ["--on-timeout=" + HOOKS[c["hook"]], "--on-timeout-limit=" + fmt(c["hook_limit"])]
    if c["sig"] is not None:
        o += ["-s", c["sig"]]
    if c["k"] is not None:
        o += ["-k", fmt(c["k"])]
    for flag, opt in (("preserve", "-p"), ("verbose", "-v"), ("foreground", "-f"),
                      ("kill_leftovers", "--kill-leftovers"),
                      ("die_with_parent", "--die-with-parent")):
        if c[flag]:
            o.append(opt)
    if c["output_grace"] is not None:
        o.append("--output-grace=" + fmt(c["output_grace"]))
    if c["silence"] is not None:
        o.append("--no-output-timeout=" + fmt(c["silence"]))
    if c["report"]:
        o.append("--report=report.json")  # Case.argv puts it in the case's directory
    if c["tail"] is not None:
        o.append("--report-tail=" + c["tail"])
    if c["name"]:
        o.append("--name=" + name)
    return o


def cancel_argv(c, runlimit, name):
    a = [runlimit, "--cancel=" + name]
    if c["cancel_sig"]:
        a += ["-s", c["cancel_sig"]]
    if c["cancel_k"] is not None:
        a += ["-k", fmt(c["cancel_k"])]
    return a


def describe(c):
    bits = ["dur=%s" % fmt(c["dur"]), "main=%s" % c["main"]]
    if c["children"]:
        bits.append("children=" + ",".join(c["children"]))
    if c["trap"]:
        bits.append("cmd-ignores-TERM")
    if c["unkillable"]:
        bits.append("unkillable=%s" % c["unkillable"])
    if c["hook"]:
        bits.append("hook=%s" % c["hook"])
    if c.get("die_with_parent"):
        bits.append("die-with-parent")
    if c["budget"]:
        bits.append("budget=%s" % c["budget"])
    bits.append("stdout=%s" % c["stdout"])
    bits.append("stderr=%s" % (c["stderr"] if c["stderr"] != "pipe"
                               else "pipe:" + c["stderr_caller"]))
    if c["cancel_at"] is not None:
        bits.append("cancel@%s" % fmt(c["cancel_at"]))
    if c["request_at"] is not None:
        bits.append("kill -%s@%s" % (c["request_sig"], fmt(c["request_at"])))
    bits.append("caller-group=%s" % ("own" if c["own_group"] else "caller's"))
    return " ".join(bits)


# ---- processes --------------------------------------------------------------------------

def ps_table():
    """[(pid, stat, args)] of every process, from ps (BSD and GNU alike).  A ps that fails
    raises: an empty table would pass every survivor check."""
    q = subprocess.run(["ps", "-A", "-ww", "-o", "pid=", "-o", "stat=", "-o", "args="],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if q.returncode != 0:
        raise RuntimeError("ps failed: %s" % q.stderr.decode("utf-8", "replace").strip())
    out = q.stdout.decode("utf-8", "replace")
    rows = []
    for line in out.splitlines():
        f = line.split(None, 2)
        if len(f) >= 2 and f[0].isdigit():
            rows.append((int(f[0]), f[1], f[2] if len(f) > 2 else ""))
    return rows


def live_with(token, table=None):
    """The live (not zombie) processes whose arguments hold token."""
    me = os.getpid()
    return [(pid, stat, args) for pid, stat, args in (table if table is not None else ps_table())
            if token in args and not stat.startswith("Z") and pid != me]


def kill_all_with(token, limit=10.0, thaw=None):
    """KILL every process holding token, again until none is left (bounded); True if none.
    thaw (if any) is called before each round: a process frozen meanwhile would not die."""
    end = time.monotonic() + limit
    while True:
        if thaw:
            thaw()
        try:
            procs = live_with(token)
        except (RuntimeError, OSError, subprocess.SubprocessError):
            procs = None  # ps failed: try again until the limit
        if procs == []:
            return True
        if time.monotonic() > end:
            return False
        for pid, _, _ in procs or []:
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        time.sleep(0.05)


class Death(threading.Thread):
    """When the command ended: it writes its pid to a file first thing; then its end is
    waited for through a pidfd (Linux), kqueue (macOS, FreeBSD), or else by polling.  ended
    is the monotonic time it was seen gone (None: not seen), a little after the fact, never
    before."""

    def __init__(self, pidfile, stop):
        super().__init__(daemon=True)
        self.pidfile, self.stop, self.ended = pidfile, stop, None

    def read_pid(self):
        while not self.stop.is_set():
            try:
                with open(self.pidfile) as f:
                    text = f.read()
                if text.endswith("\n"):
                    return int(text)
            except (OSError, ValueError):
                pass
            self.stop.wait(0.005)
        return 0

    def run(self):
        pid = self.read_pid()
        if not pid:
            return
        try:
            if hasattr(os, "pidfd_open"):
                fd = os.pidfd_open(pid)
                try:
                    while not select.select([fd], [], [], 0.2)[0]:
                        if self.stop.is_set():
                            return
                finally:
                    os.close(fd)
            elif hasattr(select, "kqueue"):
                kq = select.kqueue()
                try:
                    ev = select.kevent(pid, filter=select.KQ_FILTER_PROC,
                                       flags=select.KQ_EV_ADD | select.KQ_EV_ONESHOT,
                                       fflags=select.KQ_NOTE_EXIT)
                    kq.control([ev], 0, 0)
                    while not kq.control(None, 1, 0.2):
                        if self.stop.is_set():
                            return
                finally:
                    kq.close()
            else:
                while os.kill(pid, 0) is None and not self.stop.wait(0.01):
                    pass
                if self.stop.is_set():
                    return
        except (OSError, ValueError):
            pass  # gone already (ESRCH): ended by now
        self.ended = time.monotonic()


# ---- one case ---------------------------------------------------------------------------

class Caller(threading.Thread):
    """The caller's end of one pipe: reads everything, slowly, never, or closes it early."""

    def __init__(self, fd, kind, close_after, stop):
        super().__init__(daemon=True)
        self.fd, self.kind, self.close_after, self.stop = fd, kind, close_after, stop
        self.got = 0

    def wait_readable(self, timeout):
        try:
            r, _, _ = select.select([self.fd], [], [], timeout)
        except (OSError, ValueError):
            return False
        return bool(r)

    def read(self, n):
        try:
            b = os.read(self.fd, n)
        except OSError:
            return b""
        self.got += len(b)
        return b

    def run(self):
        try:
            if self.kind == "read":
                while not self.stop.is_set():
                    if self.wait_readable(0.1) and not self.read(65536):
                        return
            elif self.kind == "slow":
                while not self.stop.is_set():
                    if self.wait_readable(0.1):
                        if not self.read(1024):
                            return
                        self.stop.wait(0.05)
            elif self.kind == "close":
                end = time.monotonic() + self.close_after
                while not self.stop.is_set() and time.monotonic() < end:
                    if self.wait_readable(0.01):
                        self.read(1024)
                        break
                self.close()
                return
            self.stop.wait()
        finally:
            self.close()

    def close(self):
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)


class Case:
    def __init__(self, h, c):
        self.h, self.c = h, c
        i = c["index"]
        self.token = "rlb%sc%dx" % (h.run_id, i)
        self.dir = os.path.join(h.work, self.token)
        self.name = "rlb%sc%dn" % (h.run_id, i)  # a --cancel of it holds the run's prefix
        self.fail = []
        self.notes = []
        # The case's freezer cgroup, where it draws a process that cannot die and the
        # harness has a freezer; the pids frozen there when runlimit returned.
        self.fz = os.path.join(h.freezer, self.token) if h.freezer and c["unkillable"] else None
        self.frozen = []

    def argv(self):
        c = self.c
        o = [("--report=" + os.path.join(self.dir, "report.json"))
             if x == "--report=report.json" else x
             for x in options(c, self.name, self.h.budgets)]
        return [self.h.runlimit] + o + [fmt(c["dur"]), self.h.sh, "-c", script(c), self.token]

    def short_argv(self):
        """The command line as a reader wants it: paths and token left out."""
        return ["runlimit"] + options(self.c, "NAME", self.h.budgets) + [
            fmt(self.c["dur"]), "sh", "-c", script(self.c), "TOKEN"]

    def env(self):
        e = dict(self.h.env)
        e.update({"D": self.dir, "S": os.path.join(self.dir, "g", "sleep"),
                  "SS": os.path.join(self.dir, "s", "sleep"),
                  "SO": os.path.join(self.dir, "o", "sleep"),
                  "H": os.path.join(self.dir, "g", "head"), "SH": self.h.sh})
        if self.fz:
            e["FZ"] = self.fz
        return e

    def prepare(self):
        for sub in ("g", "s", "o"):
            os.makedirs(os.path.join(self.dir, sub))
            os.symlink(self.h.sleep, os.path.join(self.dir, sub, "sleep"))
        os.symlink(self.h.head, os.path.join(self.dir, "g", "head"))
        if self.fz:
            os.mkdir(self.fz)

    def fz_file(self, name, text=None):
        """Read (or write text to) a file of the case's freezer cgroup; "" if it cannot."""
        try:
            if text is not None:
                with open(os.path.join(self.fz, name), "w") as f:
                    f.write(text)
                return ""
            with open(os.path.join(self.fz, name)) as f:
                return f.read()
        except OSError:
            return ""

    def note_frozen(self):
        """runlimit has returned (or was KILLed here): what it left frozen."""
        if self.fz and self.fz_file("freezer.state").strip() == "FROZEN":
            self.frozen = [int(p) for p in self.fz_file("tasks").split()]

    def thaw(self):
        """Thaw the case's freezer cgroup, so that what was sent SIGKILL dies now, and the
        rest can be checked and ended as any survivor (a leftover may freeze itself after
        runlimit returned: each round of the clean-up thaws again)."""
        if self.fz:
            self.fz_file("freezer.state", "THAWED")

    def unfreeze_done(self):
        """The freezer cgroup goes once empty (what is left in it is KILLed; bounded)."""
        if not self.fz:
            return
        self.thaw()
        end = time.monotonic() + 10
        while self.fz_file("tasks").split() and time.monotonic() < end:
            for p in self.fz_file("tasks").split():
                try:
                    os.kill(int(p), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
            time.sleep(0.05)
        try:
            os.rmdir(self.fz)
        except OSError:
            self.fail.append("cleanup: could not remove the freezer cgroup %s" % self.fz)

    def replay(self):
        h = self.h
        return ("RUNLIMIT=%s %s %s --seed %s --case %d --caps %s%s" %
                (shlex.quote(h.runlimit), shlex.quote(sys.executable),
                 shlex.quote(os.path.abspath(__file__)), h.seed, self.c["index"],
                 ",".join(sorted(h.caps)) or "none",
                 " --freezer " + shlex.quote(h.freezer) if h.freezer else ""))

    def spawn(self, argv, **kw):
        """runlimit started by the caller: in the caller's process group, or (own_group) in a
        group of its own, led by runlimit, as a job-control shell starts a job."""
        if self.c["own_group"]:
            if sys.version_info >= (3, 11):
                kw["process_group"] = 0
            else:  # no preexec_fn: unsafe with threads; a small exec in between instead
                argv = [sys.executable, "-c", SETPGID] + argv
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, close_fds=True, **kw)

    def run(self):
        c, h = self.c, self.h
        self.prepare()
        stop = threading.Event()
        callers = []
        out_r, out_w = os.pipe()
        child_fds = [out_w]
        if c["stderr"] == "same":
            err = out_w
        elif c["stderr"] == "pipe":
            err_r, err = os.pipe()
            child_fds.append(err)
            callers.append(Caller(err_r, c["stderr_caller"], c["close_after"], stop))
        else:
            err = os.open(os.path.join(self.dir, "stderr"), os.O_WRONLY | os.O_CREAT, 0o600)
            child_fds.append(err)
        callers.insert(0, Caller(out_r, c["stdout"], c["close_after"], stop))
        self.limit = limit = bound(c) + h.margin
        self.killed = False
        death = Death(os.path.join(self.dir, "pid"), stop)
        t0 = time.monotonic()
        self.first = t0 + c["dur"]  # the deadline, or the first request if that came earlier
        try:
            p = self.spawn(self.argv(), stdout=out_w, stderr=err, env=self.env())
        finally:
            for fd in child_fds:
                os.close(fd)
        for t in callers + [death]:
            t.start()
        ended = {}

        def waiter():
            p.wait()
            ended["run"] = time.monotonic()
        w = threading.Thread(target=waiter, daemon=True)
        w.start()
        helpers = []
        if c["cancel_at"] is not None:
            helpers.append(threading.Thread(target=self.cancel, args=(t0,), daemon=True))
        if c["request_at"] is not None:
            helpers.append(threading.Thread(target=self.request, args=(t0, p, w), daemon=True))
        for t in helpers:
            t.start()

        w.join(max(0.0, t0 + limit - time.monotonic()))
        if w.is_alive():
            w.join(h.extra)
            if w.is_alive():
                self.fail.append("hung: runlimit had not returned %.1f s after its start "
                                 "(bound %.2f s); KILLed" % (time.monotonic() - t0, limit))
                self.killed = True
                p.kill()
                w.join(10)
            else:
                self.fail.append("late: runlimit returned after %.2f s (bound %.2f s)" %
                                 (ended["run"] - t0, limit))
        self.rc = rc = p.returncode
        self.took = ended.get("run", time.monotonic()) - t0
        self.note_frozen()
        self.thaw()
        for t in helpers:
            t.join(max(0.0, t0 + limit + 2 * h.extra + 10 - time.monotonic()))
        death.join(1.0)  # runlimit has returned: the command is gone, and seen so at once
        self.ended = death.ended
        try:
            if not self.killed:
                self.check_status(rc)
                self.check_survivors(rc)
                self.check_report()
        finally:
            if not kill_all_with(self.token, thaw=self.thaw):
                self.fail.append("cleanup: could not end the processes of %s" % self.token)
            self.unfreeze_done()
            stop.set()
            for t in callers + [death]:
                t.join(5)
        self.notes.insert(0, "rc=%s in %.2f s (bound %.2f)" % (rc, self.took, limit))
        return not self.fail

    def request(self, t0, p, w):
        """A request to end: the caller signals runlimit (unless it has already returned)."""
        c = self.c
        # Not before the command has started (it writes its pid first): runlimit's handlers
        # are set by then.  Sent earlier, on a loaded machine, the signal can find runlimit
        # still starting, with the default action (death), which says nothing of the bound.
        pidfile = os.path.join(self.dir, "pid")
        while w.is_alive() and not os.path.exists(pidfile):
            w.join(0.01)
        w.join(max(0.0, t0 + c["request_at"] - time.monotonic()))
        if not w.is_alive():
            return
        try:
            self.first = min(self.first, time.monotonic())
            p.send_signal(getattr(signal, "SIG" + c["request_sig"]))
            self.notes.append("kill -%s at %.2f s" % (c["request_sig"], time.monotonic() - t0))
        except OSError:
            pass

    def cancel(self, t0):
        """--cancel=NAME from another process, partway through; it returns within the bound."""
        c, h, limit = self.c, self.h, self.limit
        delay = t0 + c["cancel_at"] - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        sent = time.monotonic() - t0
        self.first = min(self.first, t0 + sent)
        with open(os.path.join(self.dir, "cancel.err"), "wb") as err:
            q = subprocess.Popen(cancel_argv(c, h.runlimit, self.name), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=err, env=h.env,
                                 close_fds=True)
        try:
            q.wait(max(0.0, t0 + limit - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                q.wait(h.extra)
                self.fail.append("cancel late: --cancel returned %.2f s after the run's start "
                                 "(bound %.2f s)" % (time.monotonic() - t0, limit))
            except subprocess.TimeoutExpired:
                self.fail.append("cancel hung: --cancel had not returned %.1f s after the "
                                 "run's start (bound %.2f s); KILLed" %
                                 (time.monotonic() - t0, limit))
                q.kill()
                q.wait()
        # 0: cancelled and ended; 4: it had ended (its tombstone), or ended before the cancel
        # reached it; 1: no run of that name yet (a cancel before the run had registered).
        # Anything else is a failure, unless the run hung and was KILLed here.
        if q.returncode not in (0, 1, 4, -signal.SIGKILL) and not self.killed:
            self.fail.append("cancel: --cancel exited %s: %s" %
                             (q.returncode, self.text("cancel.err")))
        self.notes.append("cancel sent at %.2f s: rc=%s at %.2f s" % (
            sent, q.returncode, time.monotonic() - t0))

    def text(self, f, limit=600, words=(b"runlimit",)):
        """The lines of the case's file f that hold one of words (runlimit's own, by
        default: the command's output is mostly zeros), joined, cut at limit."""
        try:
            with open(os.path.join(self.dir, f), "rb") as fh:
                data = fh.read()
        except OSError:
            return ""
        lines = [ln for ln in data.split(b"\n") if any(w in ln for w in words)]
        return b" | ".join(lines).decode("utf-8", "replace")[:limit]

    def check_status(self, rc):
        """No usage error or failure of runlimit's own, no crash, no sanitizer's report.
        runlimit dies of a signal only when the command died of one that came from outside:
        the caller's request, or a cancel's signal (TERM unless -s)."""
        c = self.c
        if rc in (125, 126, 127):
            self.fail.append("status %d: %s" % (rc, self.text("stderr")))
        sent = set()
        if c["request_at"] is not None:
            sent.add(getattr(signal, "SIG" + c["request_sig"]))
        if c["cancel_at"] is not None:
            sent.add(getattr(signal, "SIG" + (c["cancel_sig"] or "TERM")))
        if rc is not None and rc < 0 and -rc not in sent:
            self.fail.append("runlimit died of signal %d, which no one sent it" % -rc)
        for f in ("stderr", "cancel.err"):
            said = self.text(f, words=(b"Sanitizer", b"runtime error:"))
            if said:
                self.fail.append("%s: %s" % (f, said))

    def command_pid(self):
        try:
            with open(os.path.join(self.dir, "pid")) as f:
                return int(f.read().strip() or 0)
        except (OSError, ValueError):
            return 0

    def allowed(self, rc):
        """A predicate on (pid, args): may this process outlive the run?"""
        c, caps = self.c, self.h.caps
        own_exit = exited_on_its_own(c, rc, self.ended, self.first)
        helper = self.h.runlimit + " "
        cmd = self.command_pid()
        s_dir, o_dir = os.path.join(self.dir, "s") + "/", os.path.join(self.dir, "o") + "/"

        def ok(pid, args):
            if args.startswith(helper) or args == self.h.runlimit:
                return False  # runlimit's own guard or timer: never
            if c["foreground"]:
                return pid != cmd  # -f: the command alone is runlimit's business
            if own_exit and not c["kill_leftovers"]:
                return True  # exited on its own: what it started may stay, as under GNU
            # What the build under test documents it cannot reach.
            if o_dir in args and "orphans" not in caps:
                return True
            if s_dir in args and ("sessions" not in caps or
                                  ("orphans" not in caps and own_exit)):
                return True
            return False
        return ok

    def check_survivors(self, rc):
        ok = self.allowed(rc)
        # Right after the final KILL a process may not have died yet; with -k 0 runlimit
        # returns as soon as the command has exited, and the rest may still be ending.
        settle = 2.5 if self.c["k"] == 0 else 1.5
        end = time.monotonic() + settle
        while True:
            bad = [(pid, stat, args) for pid, stat, args in live_with(self.token)
                   if not ok(pid, args)]
            if not bad or time.monotonic() > end:
                break
            time.sleep(0.1)
        if bad:
            cmd = self.command_pid()
            self.fail.append("survivors %.1f s after the return (status %s): %s" % (
                settle, rc, "; ".join("%d %s %s" % (
                    pid, stat, "[the command]" if pid == cmd else self.short(args))
                    for pid, stat, args in bad[:6])))

    def short(self, args):
        a = args.replace(self.dir + "/", "").replace(script(self.c), "SCRIPT")
        a = a.replace(self.h.runlimit, "runlimit")
        return a[:120]

    def check_report(self):
        if not self.c["report"] or self.killed:
            return  # (runlimit KILLed by the harness writes none)
        path = os.path.join(self.dir, "report.json")
        try:
            with open(path, "rb") as f:
                d = json.loads(f.read().decode("utf-8", "surrogateescape"))
            self.fail.extend("report: " + e for e in report_schema.problems(d))
            cmd = self.command_pid()
            # The command alive and frozen when runlimit returned: runlimit gave up on it
            # after its KILL, and names it.
            if cmd and cmd in self.frozen and cmd not in d.get("alive_after_kill", []):
                self.fail.append("report: the command (%d) was left frozen, but "
                                 "alive_after_kill is %r" % (cmd, d.get("alive_after_kill")))
        except OSError as e:
            self.fail.append("report: not written (%s)" % e.strerror)
        except ValueError as e:
            self.fail.append("report: not one JSON object (%s)" % e)


# ---- the run ----------------------------------------------------------------------------

class Harness:
    def __init__(self, a):
        self.seed, self.runlimit, self.caps, self.margin = a.seed, a.runlimit, a.caps, a.margin
        self.freezer = a.freezer
        self.extra = 3.0
        self.run_id = a.run_id
        self.work = tempfile.mkdtemp(prefix="rlb%s." % a.run_id, dir=work_base())
        self.keep = a.keep
        self.sh = "/bin/sh"
        self.sleep = shutil.which("sleep")
        # Does this build take the budgets?  (The portable one refuses them with 125.)
        self.budgets = subprocess.run([self.runlimit, "--max-procs=1000", "10", "true"],
                                      stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL).returncode == 0
        self.head = shutil.which("head")
        env = dict(os.environ)
        # The bound is DURATION's: a deadline passed down from a runlimit this runs under
        # would only shorten the cases' limits.
        env.pop("RUNLIMIT_DEADLINE", None)
        names = os.path.join(self.work, "n")
        os.mkdir(names, 0o700)
        env["RUNLIMIT_DIR"] = names
        if not shutil.which("setsid"):
            env["PATH"] = self.setsid_standin() + os.pathsep + env.get("PATH", "")
        self.env = env

    def setsid_standin(self):
        """A setsid(1) where the system has none (macOS, FreeBSD), as tests/helpers.bash's."""
        d = os.path.join(self.work, "bin")
        os.mkdir(d)
        perl = shutil.which("perl")
        tool, interp = ("setsid.pl", perl) if perl else ("setsid.py", sys.executable)
        with open(os.path.join(HERE, tool)) as f:
            body = f.read()
        path = os.path.join(d, "setsid")
        with open(path, "w") as f:
            f.write("#!%s\n%s" % (interp, body))
        os.chmod(path, 0o755)
        return d

    def cleanup(self):
        kill_all_with("rlb" + self.run_id + "c")
        if not self.keep:
            shutil.rmtree(self.work, ignore_errors=True)


def work_base():
    """Where the work directories go: /tmp, short, for the named runs' socket paths."""
    return "/tmp" if os.access("/tmp", os.W_OK) else tempfile.gettempdir()


def cleanup(run_id, freezer=None):
    """--cleanup RUN_ID: end every process of that run's cases (thawed first, where they were
    frozen in freezer's cgroups), remove its work directory and those cgroups."""
    cgroups = []
    if freezer and os.path.isdir(freezer):
        cgroups = [os.path.join(freezer, d) for d in os.listdir(freezer)
                   if d.startswith("rlb%sc" % run_id)]
    def thaw():
        for cg in cgroups:
            try:
                with open(os.path.join(cg, "freezer.state"), "w") as f:
                    f.write("THAWED")
            except OSError:
                pass
    ok = kill_all_with("rlb%sc" % run_id, thaw=thaw)
    for cg in cgroups:
        try:
            os.rmdir(cg)
        except OSError:
            ok = False
    base = work_base()
    for d in os.listdir(base):
        if d.startswith("rlb%s." % run_id):
            shutil.rmtree(os.path.join(base, d), ignore_errors=True)
    return 0 if ok else 1


def env_num(name, default, cast=float):
    v = os.environ.get(name, "")
    try:
        return cast(v) if v else default
    except ValueError:
        sys.exit("bound.py: %s=%r is not a number" % (name, v))


def parse(argv):
    import argparse
    p = argparse.ArgumentParser(description="The property test of runlimit's bound.")
    p.add_argument("--seed", default=os.environ.get("RUNLIMIT_BOUND_SEED") or None)
    p.add_argument("--cases", type=int, default=env_num("RUNLIMIT_BOUND_CASES", 200, int))
    p.add_argument("--case", type=int, action="append", help="only this case (repeatable)")
    p.add_argument("--jobs", type=int, default=env_num("RUNLIMIT_BOUND_JOBS", 8, int))
    p.add_argument("--margin", type=float, default=env_num(
        "RUNLIMIT_BOUND_MARGIN", 10.0 if os.environ.get("RUNLIMIT_EMULATED") else 3.0))
    p.add_argument("--caps", default=None)
    p.add_argument("--runlimit", default=os.environ.get("RUNLIMIT") or "./runlimit")
    p.add_argument("--freezer", default=os.environ.get("RUNLIMIT_BOUND_FREEZER") or None,
                   help="a cgroup v1 freezer cgroup to freeze the unkillable draws in")
    p.add_argument("--describe", action="store_true", help="print the cases, run nothing")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    p.add_argument("--run-id", default=os.environ.get("RUNLIMIT_BOUND_RUN_ID") or
                   "%05d%03x" % (os.getpid() % 100000, random.SystemRandom().getrandbits(12)),
                   help="marks this run's processes and directory (letters and digits)")
    p.add_argument("--cleanup", action="store_true",
                   help="only end what the run --run-id left, and remove its directory")
    a = p.parse_args(argv)
    if a.seed is None:
        a.seed = str(random.SystemRandom().randrange(10 ** 9))
    if a.caps is None:
        a.caps = os.environ.get("RUNLIMIT_BOUND_CAPS")
    if a.caps is None:
        expect = os.environ.get("RUNLIMIT_EXPECT")
        a.caps = "sessions,orphans" if expect is None else expect
    a.caps = set(w for w in a.caps.replace(",", " ").split() if w in ("sessions", "orphans"))
    a.runlimit = os.path.abspath(a.runlimit)
    if not a.run_id.isalnum():
        p.error("--run-id: letters and digits only")
    return a


def main(argv):
    a = parse(argv)
    if a.cleanup:
        return cleanup(a.run_id, a.freezer)
    indices = a.case if a.case else list(range(a.cases))
    cases = [draw(a.seed, i) for i in indices]
    if a.describe:
        h = None
        for c in cases:
            print("case %d: %s\n  runlimit %s %s sh -c %s TOKEN" % (
                c["index"], describe(c), " ".join(options(c, "NAME")), fmt(c["dur"]),
                shlex.quote(script(c))))
            if c["cancel_at"] is not None:
                print("  at %s s: %s" % (fmt(c["cancel_at"]),
                                          " ".join(cancel_argv(c, "runlimit", "NAME"))))
            if c["request_at"] is not None:
                print("  at %s s: kill -%s runlimit" % (fmt(c["request_at"]), c["request_sig"]))
            print("  bound %.2f s + margin" % bound(c))
        return 0
    if not os.access(a.runlimit, os.X_OK):
        print("bound.py: %s is not an executable" % a.runlimit, file=sys.stderr)
        return 2
    h = Harness(a)
    print("# bound: seed %s, %d cases, %d at a time, margin %g s, caps: %s, runlimit %s, "
          "unkillable draws: %s" % (
              a.seed, len(cases), a.jobs, a.margin, ",".join(sorted(a.caps)) or "none",
              a.runlimit, "frozen in " + a.freezer if a.freezer else "not frozen (no freezer)"))
    sys.stdout.flush()

    def stop(signum, frame):
        h.cleanup()
        os._exit(128 + signum)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, stop)

    results = {}
    lock = threading.Lock()
    todo = list(cases)

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                c = todo.pop(0)
            k = Case(h, c)
            try:
                k.run()
            except Exception as e:  # a harness failure is a failure, with its case
                k.fail.append("harness: %r" % e)
                kill_all_with(k.token, thaw=k.thaw)
            with lock:
                results[c["index"]] = k
                if a.verbose or k.fail:
                    report(k)

    def report(k):
        c = k.c
        print("%s case %d: %s" % ("FAIL" if k.fail else "ok", c["index"], "; ".join(k.notes)))
        if k.fail or a.verbose:
            print("  %s" % describe(c))
            print("  argv: %s" % " ".join(shlex.quote(x) for x in k.short_argv()))
            for f in k.fail:
                print("  - " + f)
            if k.fail:
                print("  replay: " + k.replay())
        sys.stdout.flush()

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(max(1, a.jobs))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        h.cleanup()
    failed = sorted(i for i, k in results.items() if k.fail)
    print("# bound: %d cases in %.1f s, %d failed%s; seed %s" % (
        len(results), time.monotonic() - t0, len(failed),
        (": " + " ".join(map(str, failed))) if failed else "", a.seed))
    if failed:
        print("# replay one: RUNLIMIT=%s %s --seed %s --case N --caps %s" % (
            shlex.quote(a.runlimit), shlex.quote(os.path.abspath(__file__)), a.seed,
            ",".join(sorted(a.caps)) or "none"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

# atlimit_check.py REPORT PIDS SLEEP: the report's tree_at_limit describes tree3.py's tree
# (PIDS: the JSON it wrote) with the right parents, groups, states and command lines.
import base64, json, sys

d = json.loads(open(sys.argv[1], "rb").read())
pids = json.load(open(sys.argv[2]))
sleep = sys.argv[3]
t = d["tree_at_limit"]
bad = []
def check(what, ok):
    if not ok:
        bad.append(what)
check("reason alarm", t["reason"] == "alarm")
check("nothing omitted", t["omitted"] == 0)
procs = {p["pid"]: p for p in t["processes"]}
for name, pid in pids.items():
    check("%s (%d) listed" % (name, pid), pid in procs)
if not bad:
    l1, l2, l3 = procs[pids["l1"]], procs[pids["l2"]], procs[pids["l3"]]
    dm, st, zb = procs[pids["daemon"]], procs[pids["stopped"]], procs[pids["zombie"]]
    check("l1 is the command", l1["pid"] == d["pid"])
    check("l2's parent", l2["ppid"] == l1["pid"])
    check("l3's parent", l3["ppid"] == l2["pid"])
    check("the daemon's parent", dm["ppid"] == l1["pid"])
    check("the daemon's own group", dm["pgid"] == dm["pid"] and dm["pgid"] != l1["pgid"])
    check("the group", l2["pgid"] == l1["pgid"] == l3["pgid"] == st["pgid"])
    check("stopped", st["state"] == "stopped")
    check("zombie", zb["state"] == "zombie" and zb["ppid"] == l1["pid"])
    check("sleeping", l3["state"] == "sleeping" and l1["state"] in ("sleeping", "running"))
    check("l3's command", l3["command"] == [sleep, "60"] and l3["command_base64"] is None)
    check("the stopped one's command", st["command"] == [sleep, "62"])
    check("l2's text", l2["command"][5:] == ["a b", "x\ny", "\ufffd\ufffd-"])
    raw = [base64.b64decode(a) for a in l2["command_base64"] or []]
    check("l2's bytes", raw[5:] == [b"a b", b"x\ny", b"\xff\xfe-"])
    check("not cut", not l2["command_cut"] and not l3["command_cut"])
    # (A process stopped as it exec'd may have no page resident yet.)
    for p in (l1, l2, l3, dm, st):
        check("%d: times and memory" % p["pid"], p["elapsed_seconds"] > 0 and
              p["cpu_seconds"] is not None and p["rss_kib"] is not None)
    check("l1's memory", l1["rss_kib"] > 0)
    check("taken before the first signal", t["at"] <= d["signals"][0]["at"])
if bad:
    print(json.dumps(t, indent=1), file=sys.stderr)
    for b in bad:
        print("false: " + b, file=sys.stderr)
    sys.exit(1)

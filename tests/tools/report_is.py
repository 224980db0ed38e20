# report_is.py FILE EXPR...: FILE holds one line of JSON, valid by docs/report.schema.json
# (report_schema.py), and every python EXPR over it (d: the parsed object) is true; what is
# not is printed, with the report.  With no EXPR: the report is one line, and valid.
import base64, calendar, json, os, re, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_schema
text = open(sys.argv[1], "rb").read()
assert text.endswith(b"\n") and text.count(b"\n") == 1, "not one line: %r" % text[:200]
d = json.loads(text)


def at(stamp):
    """An RFC 3339 UTC time of the report ("2026-12-02T07:01:02.345Z"), in seconds."""
    secs, frac = stamp.rstrip("Z").split(".")
    return calendar.timegm(time.strptime(secs, "%Y-%m-%dT%H:%M:%S")) + float("0." + frac)


bad = ["schema: " + e for e in report_schema.problems(d)]
bad += [e for e in sys.argv[2:] if not eval(e)]
if bad:
    print("report: %s" % text.decode("utf-8", "replace").strip(), file=sys.stderr)
    for e in bad:
        print("false: %s" % e, file=sys.stderr)
    sys.exit(1)

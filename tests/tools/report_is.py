# report_is.py FILE EXPR...: FILE holds one line of JSON, and every python EXPR over it (d:
# the parsed object) is true; the ones that are not are printed, with the report.
import base64, json, sys
text = open(sys.argv[1], "rb").read()
assert text.endswith(b"\n") and text.count(b"\n") == 1, "not one line: %r" % text[:200]
d = json.loads(text)
bad = [e for e in sys.argv[2:] if not eval(e)]
if bad:
    print("report: %s" % text.decode("utf-8", "replace").strip(), file=sys.stderr)
    for e in bad:
        print("false: %s" % e, file=sys.stderr)
    sys.exit(1)

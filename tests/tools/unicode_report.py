# unicode_report.py FILE: every string of the report in FILE is valid Unicode, as a consumer
# that stores text as UTF-8 needs it: the file itself is strict UTF-8 with no escape of a
# surrogate (a lone one is no character; a pair is never needed, UTF-8 carries the character
# itself), every string parsed encodes to UTF-8 strictly, and a real such consumer (SQLite,
# through python's sqlite3, which refuses lone surrogates) stores and gives back each one.
import json, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_schema
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")  # strict
bad = re.findall(r'(?<!\\)(?:\\\\)*\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}', text)
assert not bad, "surrogate escapes in the report: %r" % bad[:5]
d = json.loads(text)
bad = report_schema.problems(d)
assert not bad, "not valid by the schema: %s" % "; ".join(bad)
strings = []
def walk(v, path):
    if isinstance(v, str):
        strings.append((path, v))
    elif isinstance(v, dict):
        for k, x in v.items():
            walk(k, path + "." + k + "(key)")
            walk(x, path + "." + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (path, i))
walk(d, "d")
for path, s in strings:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        sys.exit("%s is not valid Unicode: %s" % (path, e))
try:
    import sqlite3
except ImportError:
    sqlite3 = None
if sqlite3 is not None:
    db = sqlite3.connect(":memory:")
    db.execute("create table t (path text, s text)")
    for path, s in strings:
        db.execute("insert into t values (?, ?)", (path, s))
    back = dict(db.execute("select path, s from t"))
    for path, s in strings:
        assert back[path] == s, path
print("%d strings, all valid Unicode%s" % (len(strings), "" if sqlite3 else " (no sqlite3 here)"))

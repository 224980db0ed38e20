# report_schema.py: a run report against docs/report.schema.json, the one place the tests
# validate reports (report_is.py, unicode_report.py and bound.py call it).
#
# It needs python's jsonschema, a test dependency only: if the python running it has none,
# another python that has it is looked for (Debian's python3-jsonschema is in /usr/bin/python3,
# while the python3 on PATH may be pyenv's); with none, nothing is validated, unless
# RUNLIMIT_SCHEMA=required (as .ci/run sets it), when that is a failure.  RUNLIMIT_SCHEMA=off
# validates nothing (.ci/run's gates that run the suite again against other builds of the
# same code: about 0.1 s a report).
#
#   report_schema.py FILE...        validate each file (one report each): status 1 if one is
#                                   not valid, with why on stderr
#   report_schema.py --probe        say which jsonschema validates, or why none does
#   report_schema.py --check-schema the schema file is a valid JSON Schema (status 1 if not)
import json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "docs", "report.schema.json")
OTHER_PYTHONS = ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3",
                 "/usr/local/bin/python3.11", "/usr/bin/python3.11"]


def _local(check=False):
    """A validator with this python's jsonschema, or None.  check: the schema itself is
    checked first (an exception if it is not valid; once, in --check-schema, for time)."""
    try:
        import jsonschema  # noqa: F401
        import jsonschema.validators
    except ImportError:
        return None
    with open(SCHEMA) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    if check:
        cls.check_schema(schema)
    return cls(schema)


_validator = False  # not looked for yet
_other = False


def _other_python():
    global _other
    if _other is False:
        _other = None
        want = os.environ.get("RUNLIMIT_SCHEMA_PYTHON")
        for py in ([want] if want else []) + OTHER_PYTHONS:
            if os.path.realpath(py) == os.path.realpath(sys.executable) or \
                    not os.access(py, os.X_OK):
                continue
            if subprocess.call([py, "-c", "import jsonschema"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) == 0:
                _other = py
                break
    return _other


def errors(report):
    """What is wrong with report (a parsed object) by the schema: a list, empty if nothing;
    None when no jsonschema can be had."""
    global _validator
    if _validator is False:
        _validator = _local()
    if _validator is not None:
        return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(the report)",
                            e.message) for e in _validator.iter_errors(report)]
    py = _other_python()
    if not py:
        return None
    p = subprocess.run([py, os.path.abspath(__file__), "--stdin"], input=json.dumps(report),
                       stdout=subprocess.PIPE, universal_newlines=True)
    if p.returncode not in (0, 1):
        return ["the validation in %s failed (status %d)" % (py, p.returncode)]
    return [line for line in p.stdout.splitlines() if line]


def problems(report):
    """errors(), with no validator at all a problem only if RUNLIMIT_SCHEMA=required."""
    if os.environ.get("RUNLIMIT_SCHEMA") == "off":
        return []
    found = errors(report)
    if found is None:
        if os.environ.get("RUNLIMIT_SCHEMA") == "required":
            return ["no python with jsonschema to validate the report (RUNLIMIT_SCHEMA=required)"]
        return []
    return found


def probe():
    """Which jsonschema validates: a python's path, or None."""
    return sys.executable if _local() is not None else _other_python()


if __name__ == "__main__":
    args = sys.argv[1:]
    if args == ["--stdin"]:
        v = _local()
        if v is None:
            sys.exit(2)
        bad = list(v.iter_errors(json.load(sys.stdin)))
        for e in bad:
            print("%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(the report)",
                              e.message))
        sys.exit(1 if bad else 0)
    if args == ["--check-schema"]:
        if _local(check=True) is None:
            py = _other_python()
            if not py:
                sys.exit("no python with jsonschema")
            sys.exit(subprocess.call([py, os.path.abspath(__file__), "--check-schema"]))
        sys.exit(0)
    if args == ["--probe"]:
        if os.environ.get("RUNLIMIT_SCHEMA") == "off":
            print("reports not validated: RUNLIMIT_SCHEMA=off")
            sys.exit(0)
        found = probe()
        print("reports validated by the jsonschema of %s" % found if found else
              "reports not validated: no python with jsonschema")
        sys.exit(0 if found or os.environ.get("RUNLIMIT_SCHEMA") != "required" else 1)
    bad = 0
    for path in args:
        with open(path, "rb") as f:
            found = problems(json.loads(f.read()))
        for e in found:
            print("%s: %s" % (path, e), file=sys.stderr)
        bad += bool(found)
    sys.exit(1 if bad else 0)

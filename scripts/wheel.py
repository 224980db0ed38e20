#!/usr/bin/env python3
"""Write or check one of runlimit's wheels, with the standard library only (make release).

  wheel.py build BINARY PLATFORMS PACKAGE VERSION OUTDIR [--license FILE] [--home URL]
  wheel.py check WHEEL BINARY [PACKAGE]

build writes OUTDIR/runlimit-VERSION-py3-none-PLATFORMS.whl and prints its path.  PLATFORMS
is a compressed tag set, platform tags joined with dots (one static musl binary is both
manylinux_2_17_x86_64 and musllinux_1_1_x86_64).  The wheel holds:
  runlimit/...                             PACKAGE's files (the Python package; "-": none)
  runlimit-VERSION.data/scripts/runlimit   BINARY, mode 0755: pip and uv install it as
                                           bin/runlimit itself, so no Python process stands
                                           between the caller and runlimit
  runlimit-VERSION.dist-info/              LICENSE, METADATA, WHEEL, and RECORD, last
It is reproducible: every entry dated 1980-01-01 (the earliest a zip can say), mode 0755 for
the binary and 0644 for the rest, in a fixed order (the package and the binary sorted by name,
then the dist-info, which installers read last, with RECORD at its end), deflated at level 9
(the same bytes for the same inputs with the same zlib).

check reads a wheel as an installer would and fails, with one line naming what is wrong,
unless: its name parses and its WHEEL's Tag lines are exactly the name's tags, every entry is
dated 1980-01-01 with the modes above, RECORD lists every other entry once with its sha256 and
size (and itself with neither), its binary is BINARY byte for byte, and (given PACKAGE) its
runlimit/ files are PACKAGE's.
"""
import base64
import hashlib
import os
import re
import sys
import zipfile

NAME = "runlimit"
DATE = (1980, 1, 1, 0, 0, 0)
SUMMARY = "Run a command with a time limit, and end everything it started (GNU timeout's drop-in)"
HOME = "https://github.com/runlimit/runlimit"
# A public version as PEP 440 writes it plainly (PyPI refuses what does not parse).
VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?$")
# Platform tags PyPI takes for a binary: manylinux_X_Y_ARCH, manylinux2014_ARCH,
# musllinux_X_Y_ARCH, macosx_X_Y_ARCH (no linux_* and no BSD: PyPI has no tag for FreeBSD).
PLATFORM_RE = re.compile(r"^(manylinux_[0-9]+_[0-9]+|manylinux2014|musllinux_[0-9]+_[0-9]+|"
                         r"macosx_[0-9]+_[0-9]+)_(x86_64|aarch64|arm64|universal2)$")


class WheelError(Exception):
    pass


def record_hash(data):
    """RECORD's form of a hash: sha256=, urlsafe base64 without the padding."""
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def package_files(package):
    """PACKAGE's files as {path in the wheel: bytes}, without byte code."""
    files = {}
    if package == "-":
        return files
    if not os.path.isfile(os.path.join(package, "__init__.py")):
        raise WheelError("%s: no __init__.py: not a package" % package)
    for root, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for n in names:
            if n.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(root, n)
            if os.path.islink(path) or not os.path.isfile(path):
                raise WheelError("%s: not a regular file" % path)
            rel = os.path.relpath(path, package).replace(os.sep, "/")
            files[NAME + "/" + rel] = read(path)
    return files


# The Python versions the package supports and is tested on (Requires-Python's floor first).
PYTHONS = ("3.9", "3.10", "3.11", "3.12", "3.13", "3.14")

CLASSIFIERS = [
    "Development Status :: 4 - Beta",
    "Environment :: Console",
    "Intended Audience :: Developers",
    "Intended Audience :: System Administrators",
    "License :: OSI Approved :: BSD License",
    "Operating System :: MacOS",
    "Operating System :: POSIX :: Linux",
    "Programming Language :: C",
    "Programming Language :: Python :: 3",
    "Programming Language :: Python :: 3 :: Only",
] + ["Programming Language :: Python :: %s" % v for v in PYTHONS] + [
    "Topic :: Software Development :: Testing",
    "Topic :: System :: Systems Administration",
    "Typing :: Typed",
]

# The long description PyPI shows: what it is, and an example of each face.
DESCRIPTION = """\
runlimit runs a command with a time limit, and when the time is up it ends the command
*and everything the command started*: TERM to the whole tree (children that left the
process group included), a grace, then KILL.  It takes GNU `timeout`'s options and gives
its exit statuses (124 at a time-out), works the same on Linux and macOS, and returns
within its bound even when a leftover still holds its output.

This wheel puts the static `runlimit` binary itself on PATH:

```sh
runlimit 10m make test                 # 124 if make was still running after 10 minutes
runlimit --report=run.json -k 5 1h ./job
```

and, beside it, a `runlimit` Python package (standard library only, typed) that runs a
command the safe way, in `subprocess`'s language:

```python
import subprocess
import runlimit

# The background sleep holds stdout: back after the 1 s output grace, not 60 s.
r = runlimit.run(["sh", "-c", "echo hello; sleep 60 &"], timeout=10)
assert r.stdout == b"hello\\n" and r.returncode == 0

try:
    runlimit.run(["sh", "-c", "sleep 60 & sleep 60 & wait"], timeout=1, check=True)
except subprocess.TimeoutExpired as e:  # a runlimit.TimedOut: the whole tree is gone
    print(e.result.timed_out_by, e.result.left_running)  # deadline 0
```

`arun()` for asyncio, `start()` for a handle to cancel from another thread, `cancel(name)`
for a run of another process.  Documentation: the manual (`man runlimit`) and
docs/python.md in the source.
"""


def metadata(version, home):
    return "".join([
        "Metadata-Version: 2.1\n",
        "Name: %s\n" % NAME,
        "Version: %s\n" % version,
        "Summary: %s\n" % SUMMARY,
        "Author: the runlimit authors\n",
        "License: BSD-2-Clause\n",
        "Keywords: timeout,time limit,process tree,subprocess,kill,ci\n",
        "Requires-Python: >=3.9\n",
        "Project-URL: Homepage, %s\n" % home,
        "Project-URL: Source, %s\n" % home,
        "Project-URL: Documentation, %s/blob/v%s/docs/python.md\n" % (home, version),
        "Project-URL: Issues, %s/issues\n" % home,
        "Project-URL: Changelog, %s/blob/v%s/NEWS.md\n" % (home, version),
    ] + ["Classifier: %s\n" % c for c in CLASSIFIERS] + [
        "Description-Content-Type: text/markdown\n",
        "\n",
        DESCRIPTION,
    ])


def build(binary, platforms, package, version, outdir, license_file=None, home=HOME):
    if not VERSION_RE.match(version):
        raise WheelError("version %r is not a plain PEP 440 version" % version)
    tags = platforms.split(".")
    for t in tags:
        if not PLATFORM_RE.match(t):
            raise WheelError("%r is not a platform tag PyPI takes for this wheel" % t)
    files = package_files(package)
    init = files.get(NAME + "/__init__.py", b"").decode("utf-8")
    m = re.search(r'^__version__ = "([^"]*)"', init, re.M)
    if m and m.group(1) != version:
        raise WheelError("%s/__init__.py says __version__ %s, the release is %s"
                         % (package, m.group(1), version))
    data = "%s-%s.data" % (NAME, version)
    info = "%s-%s.dist-info" % (NAME, version)
    files[data + "/scripts/" + NAME] = read(binary)
    entries = sorted(files.items())
    if license_file:
        entries.append((info + "/LICENSE", read(license_file)))
    entries.append((info + "/METADATA", metadata(version, home).encode()))
    wheel = "Wheel-Version: 1.0\nGenerator: runlimit scripts/wheel.py\nRoot-Is-Purelib: false\n"
    wheel += "".join("Tag: py3-none-%s\n" % t for t in tags)
    entries.append((info + "/WHEEL", wheel.encode()))
    record = "".join("%s,%s,%d\n" % (n, record_hash(b), len(b)) for n, b in entries)
    entries.append((info + "/RECORD", (record + info + "/RECORD,,\n").encode()))

    name = "%s-%s-py3-none-%s.whl" % (NAME, version, platforms)
    out = os.path.join(outdir, name)
    tmp = out + ".part"
    with zipfile.ZipFile(tmp, "w") as z:
        for n, b in entries:
            zi = zipfile.ZipInfo(n, DATE)
            zi.create_system = 3  # Unix: external_attr's high half is st_mode
            mode = 0o755 if n == data + "/scripts/" + NAME else 0o644
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, b, compresslevel=9)
    os.replace(tmp, out)
    return out


def check(wheel, binary, package=None):
    base = os.path.basename(wheel)
    m = re.match(r"^%s-([^-]+)-py3-none-([^-]+)\.whl$" % NAME, base)
    if not m:
        raise WheelError("%s: not named runlimit-VERSION-py3-none-PLATFORMS.whl" % base)
    version, platforms = m.groups()
    data = "%s-%s.data" % (NAME, version)
    info = "%s-%s.dist-info" % (NAME, version)
    with zipfile.ZipFile(wheel) as z:
        infos = z.infolist()
        contents = {i.filename: z.read(i) for i in infos}
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        raise WheelError("%s: an entry is there twice" % base)
    for n in ("METADATA", "WHEEL", "RECORD"):
        if info + "/" + n not in contents:
            raise WheelError("%s: no %s/%s" % (base, info, n))
    if names[-1] != info + "/RECORD":
        raise WheelError("%s: RECORD is not the last entry" % base)
    script = data + "/scripts/" + NAME
    for i in infos:
        mode = 0o755 if i.filename == script else 0o644
        if i.date_time != DATE or i.external_attr >> 16 != 0o100000 | mode:
            raise WheelError("%s: %s is dated %s, mode %o (want 1980-01-01, %o)"
                             % (base, i.filename, i.date_time, i.external_attr >> 16, mode))
        top = i.filename.split("/")[0]
        if top not in (NAME, data, info):
            raise WheelError("%s: %s is outside runlimit/, %s and %s" % (base, i.filename, data, info))
    rows = contents[info + "/RECORD"].decode().splitlines()
    listed = {}
    for row in rows:
        n, h, size = row.rsplit(",", 2)
        if n in listed:
            raise WheelError("%s: RECORD lists %s twice" % (base, n))
        listed[n] = (h, size)
    for n in names:
        want = ("", "") if n == info + "/RECORD" else (record_hash(contents[n]), str(len(contents[n])))
        if listed.pop(n, None) != want:
            raise WheelError("%s: RECORD's line for %s does not match it" % (base, n))
    if listed:
        raise WheelError("%s: RECORD lists what the wheel lacks: %s" % (base, sorted(listed)))
    fields = contents[info + "/WHEEL"].decode().splitlines()
    tags = sorted(f[len("Tag: "):] for f in fields if f.startswith("Tag: "))
    if tags != sorted("py3-none-" + p for p in platforms.split(".")):
        raise WheelError("%s: WHEEL's tags %s are not the name's" % (base, tags))
    if "Root-Is-Purelib: false" not in fields or "Wheel-Version: 1.0" not in fields:
        raise WheelError("%s: WHEEL is not a platform wheel's: %s" % (base, fields))
    meta = contents[info + "/METADATA"].decode()
    if "\nName: %s\nVersion: %s\n" % (NAME, version) not in meta:
        raise WheelError("%s: METADATA does not name runlimit %s" % (base, version))
    if contents.get(script) != read(binary):
        raise WheelError("%s: %s is not %s" % (base, script, binary))
    if package is not None:
        ours = {n: b for n, b in contents.items() if n.startswith(NAME + "/")}
        if ours != package_files(package):
            raise WheelError("%s: its runlimit/ is not %s" % (base, package))
    return "%s: %d files, RECORD matches, the binary is %s" % (base, len(names), binary)


def main(argv):
    args, opts = [], {}
    rest = argv[1:]
    while rest:
        if rest[0] in ("--license", "--home") and len(rest) > 1:
            opts[rest[0][2:]] = rest[1]
            rest = rest[2:]
        else:
            args.append(rest.pop(0))
    try:
        if args[:1] == ["build"] and len(args) == 6:
            print(build(*args[1:], license_file=opts.get("license"), home=opts.get("home", HOME)))
        elif args[:1] == ["check"] and len(args) in (3, 4) and not opts:
            print(check(*args[1:]))
        else:
            sys.exit(__doc__)
    except (WheelError, OSError, KeyError, ValueError, zipfile.BadZipFile) as e:
        sys.exit("wheel.py: %s" % e)


if __name__ == "__main__":
    main(sys.argv)

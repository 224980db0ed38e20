"""The package as a whole: its version, its syntax (Python 3.9), and docs/python.md's
examples, each run as the page shows it."""

import ast
import inspect
import os
import re
import subprocess
import sys
import tempfile
import unittest

from support import COUNTS, PYTHON_DIR, REPO, RUNLIMIT

import runlimit

DOC = os.path.join(REPO, "docs", "python.md")


def sources():
    for top in ("runlimit", "tests"):
        for dirpath, _, files in os.walk(os.path.join(PYTHON_DIR, top)):
            for f in sorted(files):
                if f.endswith(".py"):
                    yield os.path.join(dirpath, f)


def doc_blocks(path=DOC):
    """(language, code) of every fenced block of a Markdown file (docs/python.md)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^```(\w+)\n(.*?)^```$", text, re.M | re.S)


class PackageTest(unittest.TestCase):
    def test_version_is_the_binary_version(self):
        with open(os.path.join(REPO, "src", "cli.h")) as f:
            m = re.search(r'^#define RUNLIMIT_VERSION "([^"]+)"$', f.read(), re.M)
        self.assertIsNotNone(m)
        self.assertEqual(runlimit.__version__, m.group(1))

    def test_sources_parse_as_python_3_9(self):
        files = list(sources())
        self.assertGreater(len(files), 5)
        for path in files:
            with open(path, encoding="utf-8") as f:
                ast.parse(f.read(), path, feature_version=(3, 9))


    def test_the_page_shows_the_signature_of_run_as_it_is(self):
        # The parameters are written once, in the code (Plan); the page's text block of
        # run() must be that list, each keyword with its default, so that it cannot drift.
        blocks = [code for lang, code in doc_blocks() if lang == "text"
                  and code.startswith("run(")]
        self.assertEqual(len(blocks), 1)
        sig = inspect.signature(runlimit.run)
        bare = sig.replace(parameters=[p.replace(annotation=p.empty)
                                       for p in sig.parameters.values()],
                           return_annotation=sig.empty)
        self.assertEqual(" ".join(blocks[0].split()).replace("( ", "("),
                         "run%s -> Result" % bare)


class DocExamplesTest(unittest.TestCase):
    """Every python and sh block of docs/python.md, and the README's python one, runs and
    exits 0 (the others, console for install lines and text for signatures, are not run)."""

    def setUp(self):
        if not COUNTS:
            self.skipTest("the examples show a build that lists the command's tree (its "
                          "left_running); this one cannot (no process table)")

    def run_block(self, language, code):
        with tempfile.TemporaryDirectory(prefix="runlimit-doc-") as tmp:
            bindir = os.path.join(tmp, "bin")
            os.mkdir(bindir)
            os.symlink(sys.executable, os.path.join(bindir, "python3"))  # this interpreter
            env = dict(os.environ, PYTHONPATH=PYTHON_DIR, RUNLIMIT_BINARY=RUNLIMIT,
                       RUNLIMIT_DIR=os.path.join(tmp, "named"),
                       PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
            argv = [sys.executable, "-c", code] if language == "python" else ["sh", "-ec", code]
            p = subprocess.run(argv, cwd=tmp, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=120, check=False)
            self.assertEqual(p.returncode, 0, "this example failed:\n%s\n%s"
                             % (code, p.stdout.decode("utf-8", "replace")))

    def test_examples(self):
        blocks = [(lang, code) for lang, code in doc_blocks() if lang in ("python", "sh")]
        self.assertGreaterEqual(len(blocks), 6)
        for names in ("runlimit.run(", "runlimit.arun(", "runlimit.start(", "runlimit.astart(",
                      "runlimit.cancel(", "max_output=", "stdout=runlimit.PIPE", ".kill()",
                      "runlimit.list_runs(", "runlimit.find_runlimit(", "python3 -m runlimit"):
            self.assertTrue(any(names in code for _, code in blocks), names + " has no example")
        for i, (language, code) in enumerate(blocks):
            with self.subTest(block=i, first_line=code.split("\n", 1)[0]):
                self.run_block(language, code)

    def test_readme_example(self):
        blocks = [c for lang, c in doc_blocks(os.path.join(REPO, "README.md")) if lang == "python"]
        self.assertEqual(len(blocks), 1)
        self.run_block("python", blocks[0])

    def test_the_wheel_description_example(self):
        # PyPI's page for the package (scripts/wheel.py's long description).
        with tempfile.NamedTemporaryFile("w", suffix=".md") as f:
            sys.path.insert(0, os.path.join(REPO, "scripts"))
            try:
                import wheel
            finally:
                sys.path.pop(0)
            f.write(wheel.DESCRIPTION)
            f.flush()
            blocks = [c for lang, c in doc_blocks(f.name) if lang == "python"]
        self.assertEqual(len(blocks), 1)
        self.run_block("python", blocks[0])

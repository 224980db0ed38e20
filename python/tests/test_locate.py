"""The locator, in each install layout pip and uv make; the version check; python -m."""

import os
import shutil
import subprocess
import sys
import sysconfig
import unittest
import venv

from support import PYTHON_DIR, RUNLIMIT, ProcessTest

import runlimit
from runlimit import _locate

PACKAGE = os.path.join(PYTHON_DIR, "runlimit")
FIND = "import runlimit; print(runlimit.find_runlimit())"


class LocateTest(ProcessTest):
    maxDiff = None  # the child's stderr, whole, when it fails

    def setUp(self):
        super().setUp()
        # A venv of its own (no pip: fast), so that no runlimit of this machine's is found
        # in the interpreter's scripts; an empty user base and PATH for the same reason.
        self.venv = os.path.join(self.tmp, "venv")
        venv.EnvBuilder(with_pip=False, symlinks=True).create(self.venv)
        self.python = os.path.join(self.venv, "bin", "python")
        self.empty = os.path.join(self.tmp, "empty")
        os.mkdir(self.empty)

    def locate(self, pythonpath, **extra):
        env = {k: v for k, v in os.environ.items() if k not in ("RUNLIMIT_BINARY", "PYTHONHOME")}
        env.update(PYTHONPATH=pythonpath, PATH=self.empty,
                   PYTHONUSERBASE=os.path.join(self.tmp, "userbase"), HOME=self.empty)
        env.update(extra)
        # In an empty directory: python -c puts its working directory first on sys.path.
        p = subprocess.run([self.python, "-c", FIND], env=env, cwd=self.empty,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                           check=False)
        return p.returncode, p.stdout.decode().strip(), p.stderr.decode()

    def place(self, directory):
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "runlimit")
        os.symlink(RUNLIMIT, path)
        return path

    def base_has_one(self):
        base = sysconfig.get_path("scripts", vars={"base": sys.base_prefix,
                                                    "platbase": sys.base_exec_prefix})
        return os.path.exists(os.path.join(base, "runlimit"))

    def test_venv_scripts(self):
        path = self.place(os.path.join(self.venv, "bin"))
        self.assertEqual(self.locate(PYTHON_DIR), (0, path, ""))

    def test_user_scheme(self):
        path = self.place(os.path.join(self.tmp, "userbase", "bin"))
        self.assertEqual(self.locate(PYTHON_DIR), (0, path, ""))

    def test_target_layout(self):
        target = os.path.join(self.tmp, "target")
        shutil.copytree(PACKAGE, os.path.join(target, "runlimit"))
        path = self.place(os.path.join(target, "bin"))
        self.assertEqual(self.locate(target), (0, path, ""))

    def test_prefix_layout(self):
        prefix = os.path.join(self.tmp, "prefix")
        site = os.path.join(prefix, "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
        shutil.copytree(PACKAGE, os.path.join(site, "runlimit"))
        path = self.place(os.path.join(prefix, "bin"))
        self.assertEqual(self.locate(site), (0, path, ""))

    def test_path_last(self):
        if self.base_has_one():
            self.skipTest("the base interpreter's scripts hold a runlimit, found before PATH")
        path = self.place(os.path.join(self.tmp, "pathdir"))
        self.assertEqual(self.locate(PYTHON_DIR, PATH=os.path.dirname(path)), (0, path, ""))

    def test_none_found_says_where_it_looked(self):
        if self.base_has_one():
            self.skipTest("the base interpreter's scripts hold a runlimit")
        status, _, err = self.locate(PYTHON_DIR)
        self.assertNotEqual(status, 0)
        self.assertIn("RunlimitNotFound", err)
        self.assertIn(os.path.join(self.venv, "bin", "runlimit"), err)
        self.assertIn("the --target layout", err)
        self.assertIn("PATH=" + self.empty, err)

    def test_runlimit_binary_variable_wins_and_must_be_runnable(self):
        self.place(os.path.join(self.venv, "bin"))
        self.assertEqual(self.locate(PYTHON_DIR, RUNLIMIT_BINARY=RUNLIMIT)[:2],
                         (0, os.path.abspath(RUNLIMIT)))
        status, _, err = self.locate(PYTHON_DIR,
                                     RUNLIMIT_BINARY=os.path.join(self.tmp, "nothing"))
        self.assertNotEqual(status, 0)
        self.assertIn("RUNLIMIT_BINARY=%s is not an executable file"
                      % os.path.join(self.tmp, "nothing"), err)

    def test_a_stray_runlimit_variable_is_not_the_binary(self):
        # RUNLIMIT is a name anyone may use (a limit of 5 seconds, say): not the locator's.
        path = self.place(os.path.join(self.venv, "bin"))
        self.assertEqual(self.locate(PYTHON_DIR, RUNLIMIT="5"), (0, path, ""))

    def test_a_binary_gone_since_it_was_found_is_looked_for_again(self):
        moved = os.path.join(self.tmp, "moved", "runlimit")
        os.makedirs(os.path.dirname(moved))
        shutil.copy2(RUNLIMIT, moved)
        saved = os.environ["RUNLIMIT_BINARY"]
        self.addCleanup(os.environ.__setitem__, "RUNLIMIT_BINARY", saved)
        os.environ["RUNLIMIT_BINARY"] = moved
        self.assertEqual(runlimit.run(["true"], 5).returncode, 0)
        self.assertEqual(runlimit.find_runlimit(), moved)
        os.unlink(moved)
        with self.assertRaises(runlimit.RunlimitNotFound):
            runlimit.find_runlimit()
        os.environ["RUNLIMIT_BINARY"] = saved
        self.assertEqual(runlimit.run(["true"], 5).returncode, 0)


class VersionTest(ProcessTest):
    def test_too_old_for_an_option(self):
        old = os.path.join(self.tmp, "old-runlimit")
        with open(old, "w") as f:
            f.write("#!/bin/sh\necho 'runlimit (runlimit) 0.1.0'\n")
        os.chmod(old, 0o755)
        saved = os.environ["RUNLIMIT_BINARY"]
        os.environ["RUNLIMIT_BINARY"] = old
        self.addCleanup(os.environ.__setitem__, "RUNLIMIT_BINARY", saved)
        with self.assertRaises(runlimit.RunlimitTooOld) as cm:
            runlimit.run(["true"], 5)
        self.assertIn("0.1.0", str(cm.exception))
        self.assertIn("needs 0.2.0", str(cm.exception))

    def test_every_option_passed_has_a_minimum(self):
        launch = runlimit._command.Launch(
            ["true"], 5, kill_after=1, signal="INT", no_output_timeout=1, memory="1G",
            max_procs=10, cpu_time=1, stderr_tail=10, kill_leftovers=True, name="x")
        launch.cleanup()
        self.assertEqual(launch.argv[0], "runlimit")  # the binary is Popen's executable
        for arg in launch.argv[1:launch.argv.index("--")]:
            if arg.startswith("-"):
                self.assertIn(arg.split("=", 1)[0], _locate.MIN_VERSION)


class MainTest(ProcessTest):
    def test_python_m_runlimit_execs_the_binary(self):
        # The command's parent is the process Python started: Python exec'd runlimit.
        env = self.env(PYTHONPATH=PYTHON_DIR)
        p = subprocess.Popen([sys.executable, "-m", "runlimit", "10", "sh", "-c",
                              "echo $PPID"], env=env, stdout=subprocess.PIPE)
        out, _ = p.communicate(timeout=60)
        self.assertEqual((p.returncode, out.decode().strip()), (0, str(p.pid)))
        p = subprocess.run([sys.executable, "-m", "runlimit", "0.5", self.sleep, "10"], env=env,
                           timeout=60, check=False)
        self.assertEqual(p.returncode, 124)


if __name__ == "__main__":
    unittest.main()

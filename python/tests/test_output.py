"""The output is the package's (issue 63): destinations, a bound on what it keeps, text,
a handle that streams and signals the whole tree, and its asyncio twin."""

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time

from support import PYTHON_DIR, ProcessTest, wait_until

import runlimit

# A writer that goes on after its command has exited: a line every 20 ms until a write
# fails (the pipe closed under it); its marker is its last argument.
WRITER = ("import sys, time\n"
          "while True:\n"
          "    try:\n"
          "        sys.stdout.write('x\\n'); sys.stdout.flush()\n"
          "    except (BrokenPipeError, OSError):\n"
          "        sys.exit(0)\n"
          "    time.sleep(0.02)\n")


class DestinationsTest(ProcessTest):
    def test_each_destination(self):
        both = ["sh", "-c", "echo out; echo err >&2"]
        r = runlimit.run(both, 30)
        self.assertEqual((r.stdout, r.stderr), (b"out\n", b"err\n"))
        r = runlimit.run(both, 30, stdout=runlimit.DEVNULL)
        self.assertEqual((r.stdout, r.stderr), (None, b"err\n"))
        r = runlimit.run(both, 30, stderr=subprocess.STDOUT)
        self.assertEqual((r.stdout, r.stderr), (b"out\nerr\n", None))
        r = runlimit.run(both, 30, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.assertEqual((r.stdout, r.stderr), (b"out\n", None))
        path = os.path.join(self.tmp, "out")
        with open(path, "wb") as f:
            r = runlimit.run(both, 30, stdout=f, stderr=subprocess.STDOUT)
        self.assertEqual((r.stdout, r.stderr, r.returncode), (None, None, 0))
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"out\nerr\n")
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        try:
            r = runlimit.run(both, 30, stderr=fd)
        finally:
            os.close(fd)
        self.assertEqual(r.stdout, b"out\n")
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"err\n")
        r = runlimit.run(both, 30, capture_output=True, stdout=subprocess.DEVNULL)
        self.assertEqual((r.stdout, r.stderr), (None, b"err\n"))  # True is the default
        r = runlimit.run(both, 30, capture_output=False, stderr=subprocess.PIPE)
        self.assertEqual((r.stdout, r.stderr), (None, b"err\n"))  # stdout: the caller's
        with self.assertRaises(ValueError):
            runlimit.run(both, 30, stdout=subprocess.STDOUT)

    def test_a_leftover_holding_a_destination_holds_nobody(self):
        # A leftover that goes on writing: run() returns a grace after the command, and a
        # pipe of the caller's given as the destination is at its end then (runlimit's
        # relay closed it; the writer's next write fails), not when the leftover exits.
        writer = [sys.executable, "-c", WRITER, self.marker]
        command = ["sh", "-c", '"$@" & echo started', "sh"] + writer
        path = os.path.join(self.tmp, "log")
        t0 = time.monotonic()
        with open(path, "wb") as f:
            r = runlimit.run(command, 60, stdout=f, output_grace=0.5)
        self.assertLess(time.monotonic() - t0, 0.5 + 5)
        self.assertEqual(r.returncode, 0)
        with open(path, "rb") as f:
            self.assertTrue(f.read().startswith(b"started\n"))
        self._end_leftovers()
        read, write = os.pipe()
        try:
            t0 = time.monotonic()
            r = runlimit.run(command, 60, stdout=write, output_grace=0.5)
            os.close(write)
            write = -1
            seen = b""
            while True:  # to the end: held by runlimit alone, so closed with it
                data = os.read(read, 65536)
                if not data:
                    break
                seen += data
            self.assertLess(time.monotonic() - t0, 0.5 + 5)
            self.assertTrue(seen.startswith(b"started\n"))
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
        self.assertNothingLeft(10)  # the writer died of its first write after the grace


class BoundTest(ProcessTest):
    def test_200_mib_under_1_mib_keeps_head_and_tail_in_bounded_memory(self):
        # 512 KiB of "a", 199 MiB of "m", 512 KiB of "z", on stdout and stderr alike; the
        # caller (a Python of its own) reads it all and keeps 1 MiB of each.
        printer = ("import sys\n"
                   "for out in (sys.stdout.buffer, sys.stderr.buffer):\n"
                   "    out.write(b'a' * (512 << 10))\n"
                   "    for _ in range(199):\n"
                   "        out.write(b'm' * (1 << 20))\n"
                   "    out.write(b'z' * (512 << 10))\n"
                   "    out.flush()\n")
        p = subprocess.run([sys.executable, "-c", textwrap.dedent("""
            import resource, sys, runlimit
            r = runlimit.run([sys.executable, "-c", %r], 120, max_output="1M")
            half = b"a" * (512 << 10) + b"z" * (512 << 10)
            assert r.returncode == 0, r
            assert r.stdout == half and r.stderr == half
            assert r.stdout_dropped == r.stderr_dropped == 199 << 20
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(peak // 1024 if sys.platform != "darwin" else peak // (1 << 20))
            """ % printer)], env=self.env(PYTHONPATH=PYTHON_DIR), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=300, check=False)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertLess(int(p.stdout), 64, "the caller's peak, MiB")

    def test_the_bound_in_arun_and_start_and_as_a_size(self):
        code = "import sys; sys.stdout.write('0123456789' * 1000)"
        for result in (runlimit.run([sys.executable, "-c", code], 30, max_output=100),
                       asyncio.run(runlimit.arun([sys.executable, "-c", code], 30,
                                                 max_output=100)),
                       runlimit.start([sys.executable, "-c", code], 30,
                                      max_output="1K").wait(30)):
            with self.subTest():
                kept = len(result.stdout)
                self.assertIn(kept, (100, 1024))
                self.assertEqual(result.stdout[:10], b"0123456789")
                self.assertEqual(result.stdout_dropped, 10000 - kept)
                self.assertEqual(result.stderr_dropped, 0)
        with self.assertRaises(ValueError):
            runlimit.run(["true"], 30, max_output="1X")


class TextTest(ProcessTest):
    def test_text_encoding_errors_as_subprocess(self):
        r = runlimit.run(["sh", "-c", r"printf 'a\r\nb\rc\n'"], 30, text=True)
        self.assertEqual(r.stdout, "a\nb\nc\n")  # universal newlines
        r = runlimit.run(["cat"], 30, input="héllo", text=True)
        self.assertEqual(r.stdout, "héllo")
        r = runlimit.run(["cat"], 30, input="é", encoding="latin-1")
        self.assertEqual(r.stdout, "é")
        r = runlimit.run(["printf", r"\377ok"], 30, errors="replace")
        self.assertEqual(r.stdout, "\ufffdok")
        with self.assertRaises(TypeError):
            runlimit.run(["cat"], 30, input="str without text")

    def test_a_cut_through_a_character_drops_it_whole(self):
        # "é" is 2 bytes in UTF-8: 3 of them cut at byte 3 and 1 from the end.
        code = "import sys; sys.stdout.buffer.write('ééé'.encode() + b'x' * 10 + 'ééé'.encode())"
        for errors in ("strict", "replace", "ignore", "surrogateescape"):
            with self.subTest(errors=errors):  # the cut's own bytes never become a character
                r = runlimit.run([sys.executable, "-c", code], 30, max_output=6,
                                 encoding="utf-8", errors=errors)
                self.assertEqual(r.stdout, "éé")
                self.assertEqual(r.stdout_dropped, 22 - 4)
        # A \r that ends the head and a \n that starts the tail were never one newline.
        code = "import sys; sys.stdout.write('ab\\r' + 'x' * 100 + '\\ncd')"
        r = runlimit.run([sys.executable, "-c", code], 30, max_output=6, text=True)
        self.assertEqual(r.stdout, "ab\n\ncd")


class StreamingTest(ProcessTest):
    def test_lines_arrive_while_the_command_runs_then_124(self):
        gate = os.path.join(self.tmp, "gate")
        h = runlimit.start(["sh", "-c", "echo first; while [ ! -e %s ]; do %s 0.01; done; "
                            "echo second; exec %s 60" % (gate, self.sleep, self.sleep)], 3,
                           stdout=subprocess.PIPE, text=True)
        self.assertEqual(h.stdout.readline(), "first\n")  # the command still runs
        self.assertIsNone(h.poll())
        open(gate, "w").close()
        self.assertEqual(h.stdout.read(), "second\n")  # the rest, until the limit
        r = h.wait(30)
        self.assertEqual((r.returncode, r.timed_out, r.stdout), (124, True, None))
        self.assertNothingLeft()

    def test_send_signal_terminate_kill_act_on_the_whole_tree(self):
        ready = os.path.join(self.tmp, "ready")
        got = os.path.join(self.tmp, "got-usr1")
        h = runlimit.start(["sh", "-c", "trap 'touch %s' USR1; touch %s; "
                            "while :; do %s 0.05; done" % (got, ready, self.sleep)], 60)
        self.wait_started(ready)
        h.send_signal(signal.SIGUSR1)
        self.wait_started(got)
        h.terminate()
        r = h.wait(30)
        self.assertEqual((r.returncode, r.cancelled), (143, True))
        # kill(): the grace (30 s here) is not waited; every process of the tree is KILLed.
        os.unlink(ready)
        args, pidfile = self.tree()
        h = runlimit.start(["sh", "-c", "trap '' HUP INT TERM; touch %s; exec \"$@\"" % ready,
                            "sh"] + args, 60, kill_after=30)
        self.wait_started(pidfile)
        t0 = time.monotonic()
        h.kill()
        r = h.wait(30)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertEqual((r.returncode, r.cancelled, r.signal), (137, True, signal.SIGKILL))
        self.assertNothingLeft()
        h.kill()  # once ended: nothing is sent, nothing raised
        self.assertFalse(h.cancel())

    def test_a_kill_once_the_command_has_exited_is_not_137(self):
        # The command exited 0; its leftover has the output grace: kill() ends the run at
        # once, and the status is the command's (leftovers are runlimit's to leave).
        ready = os.path.join(self.tmp, "ready")
        h = runlimit.start(["sh", "-c", "%s 30 & echo $$ > %s" % (self.sleep, ready)], 60,
                           output_grace=30)
        self.wait_started(ready)
        with open(ready) as f:
            shell = f.read().strip()

        def exited():
            state = subprocess.run(["ps", "-o", "stat=", "-p", shell], stdout=subprocess.PIPE,
                                   check=False).stdout.strip()
            return not state or state.startswith(b"Z")
        wait_until(exited, 20, "the command's exit")
        t0 = time.monotonic()
        h.kill()
        r = h.wait(30)
        self.assertLess(time.monotonic() - t0, 20)  # not the 30 s output grace
        self.assertEqual((r.report["command_exit"], r.returncode, r.cancelled), (0, 0, True))

    def test_an_astart_handle_ends_with_its_event_loop_and_its_readers(self):
        async def leave_it():
            return await runlimit.astart([self.sleep, "60"], 60)
        asyncio.run(leave_it())
        self.assertNothingLeft(10)  # ended by the loop's end, not by the interpreter's

        async def read_while_leaving():
            h = await runlimit.astart(["sh", "-c", "trap '' TERM; echo a; exec %s 60"
                                       % self.sleep], 60, kill_after=0.5, stdout=runlimit.PIPE)
            first = asyncio.Event()

            async def reader():
                async for _ in h.stdout:
                    first.set()  # then waits on the stream again
            task = asyncio.ensure_future(reader())
            await asyncio.wait_for(first.wait(), 20)
            async with h:
                pass
            ended = h.poll()
            await task
            return ended
        r = asyncio.run(read_while_leaving())
        self.assertIsNotNone(r)  # left the block once the run had ended, not before
        self.assertEqual((r.returncode, r.cancelled), (143, True))
        self.assertNothingLeft(2)

    def test_astart_streams_and_ends(self):
        async def main():
            h = await runlimit.astart(["sh", "-c", "echo one; echo two; exec %s 60"
                                       % self.sleep], 2, stdout=runlimit.PIPE)
            lines = [line async for line in h.stdout]
            r = await h.wait()
            async with await runlimit.astart([self.sleep, "60"], 60) as h2:
                pass
            h3 = await runlimit.astart(["sh", "-c", "trap '' HUP INT TERM; echo ready; exec %s 60"
                                        % self.sleep], 60, kill_after=30, stdout=runlimit.PIPE)
            ready = await h3.stdout.readline()
            t0 = time.monotonic()
            h3.kill()
            r3 = await h3.wait()
            # At once, even before runlimit could take signals: still a kill, 137.
            h4 = await runlimit.astart([self.sleep, "60"], 60)
            h4.kill()
            return lines, r, h2.poll(), ready, time.monotonic() - t0, r3, await h4.wait()
        lines, r, r2, ready, took, r3, r4 = asyncio.run(main())
        self.assertEqual(lines, [b"one\n", b"two\n"])
        self.assertEqual((r.returncode, r.timed_out), (124, True))
        self.assertEqual((r2.returncode, r2.cancelled), (143, True))
        self.assertEqual(ready, b"ready\n")
        self.assertLess(took, 10)  # not the 30 s grace
        self.assertEqual((r3.returncode, r3.signal, r4.returncode), (137, signal.SIGKILL, 137))
        self.assertNothingLeft()

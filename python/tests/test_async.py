"""arun(): its result, and a cancelled task that leaves nothing running."""

import asyncio
import os
import time

from support import ProcessTest

import runlimit


class ArunTest(ProcessTest):
    def test_result(self):
        r = asyncio.run(runlimit.arun(["sh", "-c", "echo out; echo err >&2; exit 4"], 30,
                                      stderr_tail=64))
        self.assertEqual((r.returncode, r.stdout, r.stderr), (4, b"out\n", b"err\n"))
        self.assertEqual(r.stderr_tail, b"err\n")
        self.assertFalse(r.timed_out)

    def test_time_out(self):
        r = asyncio.run(runlimit.arun([self.sleep, "30"], 0.5))
        self.assertTimedOut(r, 124, "deadline")

    def cancel_task(self, started):
        """Cancel a task running arun() on a hard tree, once the tree has started (or at
        once, while runlimit starts): the CancelledError comes once nothing is left."""
        args, pidfile = self.tree()

        async def scenario():
            task = asyncio.ensure_future(runlimit.arun(args, 60, kill_after=0.5))
            end = time.monotonic() + 20
            while started and not os.path.exists(pidfile):  # bounded wait for the start
                self.assertLess(time.monotonic(), end, "the tree did not start")
                await asyncio.sleep(0.01)
            await asyncio.sleep(0)  # at least: the task is now within runlimit's start
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            # The cancellation propagated only once runlimit had ended: the tree is gone.
            self.assertNothingLeft(0.5)

        asyncio.run(scenario())

    def test_a_cancelled_task_leaves_nothing_running(self):
        self.cancel_task(started=True)

    def test_a_task_cancelled_while_runlimit_starts(self):
        self.cancel_task(started=False)

    def test_a_cancelled_wait_for_leaves_nothing_running(self):
        args, _ = self.tree()

        async def scenario():
            with self.assertRaises(asyncio.TimeoutError):
                await asyncio.wait_for(runlimit.arun(args, 60, kill_after=0.5), 1.5)
            self.assertNothingLeft(0.5)

        asyncio.run(scenario())

"""What Run and ARun share: cancel(), send_signal(), terminate() and kill(), as Popen's,
on the whole tree through runlimit."""

from __future__ import annotations

import signal as _signal
from typing import Callable, Tuple

# The signals that ask runlimit to end the run (its tree, the grace, the KILL): a handle
# that sends one has cancelled the run.
REQUESTS = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGQUIT)


class TreeSignals:
    """A handle's signals.  _deliver() sends to runlimit's pid only while runlimit is the
    caller's unreaped child (no other process can have that pid), and says whether it did;
    the flags it sets say how the Result is to read the run's end."""

    _cancelled: bool = False
    _killed: bool = False

    def _deliver(self, signals: Tuple[int, ...], mark: Callable[[], None]) -> bool:
        """Send signals to runlimit unless it has been reaped, calling mark() just before
        (where the reaping cannot come between): True if they were sent."""
        raise NotImplementedError

    def _send(self, signals: Tuple[int, ...], cancelled: bool = False,
              killed: bool = False) -> bool:
        def mark() -> None:  # before the signals: the Result is read once runlimit exits
            self._cancelled = self._cancelled or cancelled
            self._killed = self._killed or killed
        return self._deliver(signals, mark)

    def cancel(self) -> bool:
        """End the run: SIGTERM to runlimit's own pid; runlimit then sends TERM to the whole
        tree, waits the grace, KILLs what is left.  Returns False if it had already ended.
        The Result then says cancelled, and its returncode is 143 (128+TERM), or the
        command's own status if it had exited already (its leftovers then ended)."""
        return self._send((_signal.SIGTERM,), cancelled=True)

    def send_signal(self, sig: int) -> None:
        """Send sig to the command through runlimit, as Popen.send_signal does to its
        child; nothing once the run has ended.  TERM, INT, HUP and QUIT ask runlimit to end
        the whole tree (the signal, the grace, the KILL): a cancel.  KILL is kill(); any
        other signal runlimit passes on to the command's group (STOP, which runlimit cannot
        catch, stops runlimit itself)."""
        if sig == _signal.SIGKILL:
            self.kill()
        else:
            self._send((sig,), cancelled=sig in REQUESTS)

    def terminate(self) -> None:
        """cancel(), as Popen.terminate(): TERM to the whole tree, the grace, the KILL."""
        self.cancel()

    def kill(self) -> None:
        """End the whole tree at once: SIGKILL to every process of it, no grace.  runlimit
        is asked to end (SIGHUP), then told its grace is up (SIGALRM, as GNU timeout takes
        it; runlimit takes pending signals in the order of their numbers, so the HUP
        first); it sends the KILL to the tree, leftovers of a command that has exited
        too, writes its report and exits.  The Result says cancelled, returncode 137
        (128+KILL), or the command's own status if it had exited already."""
        self._send((_signal.SIGHUP, _signal.SIGALRM), cancelled=True, killed=True)

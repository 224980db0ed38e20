"""Where a run's output goes (stdout=, stderr=, capture_output=), what the package keeps of
what it captures (max_output=: the head and the tail), and how it becomes text."""

from __future__ import annotations

import codecs
import locale
import math
import re
import subprocess
from collections import deque
from typing import IO, Any, Deque, Optional, Union

# A destination, as subprocess takes it: PIPE, DEVNULL, STDOUT (stderr only), a file
# object with a descriptor, a descriptor, or None (the caller's own).
Destination = Union[int, IO[Any], None]

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
STDOUT = subprocess.STDOUT

_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(?:([KMGTkmgt])(i?[Bb])?)?\s*$")


def size_of(value: Union[int, str], what: str) -> int:
    """A size in bytes: an int, or a string as runlimit reads one ("1M", "512K", "1.5G":
    powers of 1024, an optional B or iB after the letter; a fraction rounds up)."""
    if isinstance(value, bool):
        raise TypeError("%s must be a number of bytes or a string, not %r" % (what, value))
    if isinstance(value, int):
        if value <= 0:
            raise ValueError("%s must be more than 0, not %r" % (what, value))
        return value
    if not isinstance(value, str):
        raise TypeError("%s must be a number of bytes or a string, not %r" % (what, value))
    m = _SIZE.match(value)
    if m is None:
        raise ValueError("%s: invalid size %r" % (what, value))
    number: str = m.group(1)
    unit: Optional[str] = m.group(2)
    power = "KMGT".find(unit.upper()) + 1 if unit else 0
    n = int(math.ceil(float(number) * (1 << (10 * power))))
    if n <= 0:
        raise ValueError("%s must be more than 0, not %r" % (what, value))
    return n


class Capture:
    """What the package keeps of one captured stream: all of it, or with a limit its first
    half and its last half, counting what it dropped between them.  Memory stays within
    the limit and one read, whatever the command prints."""

    def __init__(self, limit: Optional[int]) -> None:
        self.limit = limit
        self.head = bytearray()
        self.tail: Deque[bytes] = deque()
        self.tail_size = 0
        self.dropped = 0
        self._head_room = limit - limit // 2 if limit is not None else None
        self._tail_room = limit // 2 if limit is not None else 0

    def add(self, data: bytes) -> None:
        if self._head_room is None:
            self.head += data
            return
        room = self._head_room - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail.append(data)
        self.tail_size += len(data)
        excess = self.tail_size - self._tail_room
        while excess > 0:
            first = self.tail[0]
            if len(first) <= excess:
                self.tail.popleft()
                cut = len(first)
            else:
                self.tail[0] = first[excess:]
                cut = excess
            self.tail_size -= cut
            self.dropped += cut
            excess -= cut

    def value(self) -> bytes:
        return bytes(self.head) + b"".join(self.tail)


class Text:
    """text=, encoding=, errors= as subprocess reads them: text mode when any is given,
    the locale's encoding by default, universal newlines."""

    def __init__(self, text: Optional[bool], encoding: Optional[str],
                 errors: Optional[str]) -> None:
        self.on = bool(text or encoding is not None or errors is not None)
        # The locale is asked only in text mode (it costs a call on every run otherwise).
        self.encoding = encoding or (locale.getpreferredencoding(False) if self.on else "")
        self.errors = errors or "strict"

    def encode(self, data: Union[bytes, str, None]) -> Optional[bytes]:
        """input as bytes: a str is taken in text mode only, as subprocess does."""
        if data is None or isinstance(data, bytes):
            return data
        if not self.on:
            raise TypeError("input must be bytes unless text, encoding or errors is given")
        return data.encode(self.encoding, self.errors)

    @staticmethod
    def _newlines(text: str) -> str:
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def _cut(self, tail: bytes) -> int:
        """How many bytes at the tail's start are the rest of a character the bound cut:
        a strict look at its first bytes, whatever errors says (with errors="replace" the
        rest of a cut character would otherwise become a character of its own)."""
        for skip in range(4):
            decoder = codecs.getincrementaldecoder(self.encoding)("strict")
            try:
                decoder.decode(tail[skip:skip + 8], final=False)
                return skip
            except UnicodeDecodeError as e:
                if e.start > 0:
                    return skip  # a fault further on is the command's, not the cut's
        return 0

    def result(self, capture: Optional[Capture]) -> Union[bytes, str, None]:
        """What the Result holds of a captured stream: its bytes, or its text."""
        if capture is None:
            return None
        if not self.on:
            return capture.value()
        if not capture.dropped:
            return self._newlines(capture.value().decode(self.encoding, self.errors))
        # Cut in two: each part decoded and its newlines read alone (a \r at the head's end
        # and a \n at the tail's start were never one newline); a character split at a cut
        # is dropped with the bytes between, and counted there.
        decoder = codecs.getincrementaldecoder(self.encoding)(self.errors)
        head = decoder.decode(bytes(capture.head), final=False)
        capture.dropped += len(decoder.getstate()[0])
        tail = b"".join(capture.tail)
        skip = self._cut(tail)
        capture.dropped += skip
        rest = tail[skip:].decode(self.encoding, self.errors)
        return self._newlines(head) + self._newlines(rest)


class Streams:
    """The two destinations of a run, resolved: what Popen is given, which stream the
    package reads (captured), which the caller reads from the handle (streamed)."""

    stdout: Destination
    stderr: Destination
    capture_stdout: bool
    capture_stderr: bool
    stream_stdout: bool
    stream_stderr: bool
    relayed: bool

    def __init__(self, stdout: Destination, stderr: Destination,
                 capture_output: bool, streaming: bool) -> None:
        # capture_output is True by default (the relay is the point): stdout= or stderr=
        # given beside it choose for their stream, where subprocess would refuse the two.
        if stdout == STDOUT:
            raise ValueError("stdout=STDOUT: only stderr may go where stdout goes")
        default = PIPE if capture_output else None
        out = default if stdout is None else stdout
        err = default if stderr is None else stderr
        # Asked for by name, PIPE is the caller's to read on a handle (as Popen's); the
        # default capture is the package's, read into the Result.
        self.stream_stdout = streaming and stdout == PIPE
        self.stream_stderr = streaming and stderr == PIPE
        self.capture_stdout = out == PIPE and not self.stream_stdout
        self.capture_stderr = err == PIPE and not self.stream_stderr
        self.stdout, self.stderr = out, err
        # The relay whenever a stream goes anywhere but the caller's own or /dev/null: a
        # leftover then holds runlimit's pipe, closed a grace after the command's exit,
        # never the caller's pipe or file.
        self.relayed = any(d is not None and d != DEVNULL and d != STDOUT for d in (out, err))

#!/usr/bin/env python3
"""A stand-in for a named run that lies: fakerun.py DIR NAME ANSWER [GREETING].

Makes DIR (0700) if missing, holds NAME.lock as a live run does (a write lock on its byte 0),
listens on NAME.sock, greets every connection as a run does ("runlimit", or GREETING), reads
the request and answers ANSWER (e.g. "ok 9223372036854775807"), then says nothing more and
keeps the connection open.  Used to show that a cancel never believes a peer without limit,
and that --list lists a run whatever it answers.  ANSWER and GREETING may hold the escapes
of a Python bytes literal ("\\t", "\\x00"): a NUL cannot be an argument.

ANSWER "--as-0.1.0" is a run of runlimit 0.1.0 instead, as a newer --list meets it: "info"
is answered "PID 1500000000 sleep 99" (its own pid, 1.5 s) and the connection closed; any
other request (such as "describe", which 0.1.0 does not know) is "refused" and closed.

With FAKERUN_ASKED=FILE in the environment, each connection adds a line to FILE before it is
answered: what the peer sent on it ("\\n" for a newline), so that a test sees which questions
were asked, and on how many connections."""
import codecs
import fcntl
import os
import socket
import sys


def unescaped(text):
    return codecs.escape_decode(text.encode("utf-8", "surrogateescape"))[0]


d, name, answer = sys.argv[1], sys.argv[2], sys.argv[3]
greeting = unescaped(sys.argv[4]) if len(sys.argv) > 4 else b"runlimit"
asked = os.path.abspath(os.environ["FAKERUN_ASKED"]) if os.environ.get("FAKERUN_ASKED") else None
os.makedirs(d, mode=0o700, exist_ok=True)
lock = os.open(os.path.join(d, name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
os.chdir(d)  # a short path for bind, whatever d's length
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(name + ".sock")
srv.listen(8)
held = []
while True:
    c, _ = srv.accept()
    held.append(c)
    c.settimeout(5)
    try:
        c.sendall(greeting + b"\n")
        request = c.recv(256)
        if asked:
            with open(asked, "a") as f:
                f.write(request.decode("utf-8", "replace").replace("\n", "\\n") + "\n")
        if answer != "--as-0.1.0":
            c.sendall(unescaped(answer) + b"\n")
        elif request == b"info\n":
            c.sendall(b"%d 1500000000 sleep 99\n" % os.getpid())
        else:
            c.sendall(b"refused\n")
    except OSError:
        pass
    if answer == "--as-0.1.0":
        held.pop().close()

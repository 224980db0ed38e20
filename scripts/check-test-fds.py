#!/usr/bin/env python3
"""A failing test fails; it never hangs.  bats reads its report of a test file from descriptor
3, and a process that keeps it open keeps the file from ending: a helper a test starts in the
background (a fake peer, a runlimit to signal later) and leaves running when the test fails
hangs the whole file, and CI with it, until it exits, if ever.  So every process a test, a
helper or setup starts in the background closes descriptor 3 itself (bats' own advice):

    "$PY" "$TOOLS/fakerun.py" "$RUNLIMIT_DIR" old 3>&- &
    ( trap "" TERM; exec "$S" 30 ) 3>&- &
    { producer | consumer; } 3>&- &        # or each command of the pipeline its own 3>&-

or, where it cannot (it must keep the descriptor: nothing here does yet), its line says that
the test's teardown ends it, in a comment of the line that holds the "&":

    "$RUNLIMIT" --name=x 60 "$S" 100 &    # ended by teardown: kill_named

The same holds for what puts itself in the background: a tmux server (tmux new-session) and
setsid --fork.

This script reads the shell code of tests/ (the .bats files, tests/vm/, the helpers) as bash
reads it: quotes, $(...), subshells, braces, case items, [[ ]], arithmetic and here-documents.
What is quoted (a sh -c script that runlimit runs, a here-document that becomes a script) is
not the test's own shell code: what the command under test starts is runlimit's to end, and
a script the test writes is checked where the test starts it.  (Not seen, then: a script of
the test's own, run in the foreground, that leaves something running; CONTRIBUTING.md asks
for a 3>&- on it.)  For each "&" of the test's own shell, command substitutions included, it
looks at what is put in the background (a pipeline, an && or || list: each of its commands)
and wants a 3>&- (or 3<&-) on each, at the level of the "&" or after the end of a subshell
or { } group that holds it (not inside a subshell that the "&" puts in the background, where
it would close the descriptor of one command only).  It fails naming file:line.

Usage: scripts/check-test-fds.py [FILE...]   (default: the suite's files)"""
import bisect
import glob
import os
import re
import sys

MARK = "ended by teardown"
CLOSES = re.compile(r"^3[<>]&-$")
# Words after which a new command starts (and what came before is not put in the background
# by a later "&": "for ...; do x & done" backgrounds x).
STARTERS = {"do", "then", "else", "elif", "if", "while", "until", "!", "time", "function"}
META = set(" \t\n;&|()<>")


def words(e):
    return [w for w in e if isinstance(w, str)]


def closes(e):
    return any(CLOSES.match(w) for w in words(e))


class Lexer:
    def __init__(self, path, text):
        self.path, self.s, self.i = path, text, 0
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.heredocs = []  # (delimiter, strip tabs) to read at the next newline
        self.comments = {}  # line -> its comment's text
        self.bad = []

    def line(self, at):
        return bisect.bisect_right(self.starts, at)

    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    # ---- what is not code -------------------------------------------------------------

    def skip_single(self):  # after the opening '
        j = self.s.find("'", self.i)
        self.i = len(self.s) if j < 0 else j + 1

    def skip_to(self, end):  # after $' or `: to the end, over what \\ escapes
        while self.i < len(self.s):
            c = self.s[self.i]
            self.i += 2 if c == "\\" else 1
            if c == end:
                return

    def skip_double(self):  # after the opening ": $(...) in it is code
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return
            if not (c in "\\$`" and self.quoted()):
                self.i += 1

    def quoted(self):
        """Step over what starts here if it is quoted or expanded (\\x, '...', "...", `...`,
        $...); False, and nothing done, if it is neither."""
        c = self.s[self.i]
        if c not in "\\'\"`$":
            return False
        self.i += 1
        if c == "\\":
            self.i += 1
        elif c == "'":
            self.skip_single()
        elif c == '"':
            self.skip_double()
        elif c == "`":
            self.skip_to("`")
        else:
            self.dollar()
        return True

    def skip_nested(self, opening, closing, depth):
        """Arithmetic (( )) and ${ }: to the closing that ends depth of them, over quotes."""
        while self.i < len(self.s) and depth:
            c = self.s[self.i]
            if self.quoted():
                continue
            self.i += 1
            if c == opening:
                depth += 1
            elif c == closing:
                depth -= 1

    def dollar(self):  # after a $
        if self.s.startswith("((", self.i):
            self.i += 2
            self.skip_nested("(", ")", 2)
        elif self.peek() == "(":
            self.i += 1
            self.parse_list({")"})
        elif self.peek() == "{":
            self.i += 1
            self.skip_nested("{", "}", 1)
        elif self.peek() == "'":
            self.i += 1
            self.skip_to("'")

    def read_heredocs(self):  # at the start of the line after their <<
        for delim, strip in self.heredocs:
            while self.i < len(self.s):
                end = self.s.find("\n", self.i)
                end = len(self.s) if end < 0 else end
                body = self.s[self.i:end]
                self.i = end + 1
                if (body.lstrip("\t") if strip else body) == delim:
                    break
        self.heredocs = []

    def skip_to_line_end(self):
        j = self.s.find("\n", self.i)
        self.i = len(self.s) if j < 0 else j

    def skip_test(self):  # after [[: to its ]]
        while self.i < len(self.s):
            if self.quoted():
                continue
            if (self.s.startswith("]]", self.i) and self.s[self.i - 1] in " \t"
                    and (self.i + 2 >= len(self.s) or self.s[self.i + 2] in META)):
                self.i += 2
                return
            self.i += 1

    # ---- words and redirections -------------------------------------------------------

    def word(self):
        start = self.i
        while self.i < len(self.s):
            c = self.s[self.i]
            if self.quoted():
                continue
            if c == "(" and self.s[start:self.i].endswith("="):  # a=(array)
                self.i += 1
                self.skip_nested("(", ")", 1)
            elif c in "<>" and self.s[start:self.i].isdigit():  # 3>&-: a descriptor's
                return self.redirection(start)
            elif c in META:
                break
            else:
                self.i += 1
        return self.s[start:self.i]

    def redirection(self, start):
        s = self.s
        if s.startswith("<<<", self.i):
            self.i += 3
            return s[start:self.i]
        if s.startswith("<<", self.i):
            self.i += 2
            strip = self.peek() == "-"
            if strip:
                self.i += 1
            while self.peek() in (" ", "\t"):
                self.i += 1
            delim = re.sub(r"[\"'\\]", "", self.word())
            self.heredocs.append((delim, strip))
            return s[start:self.i]
        if s[self.i] in "<>" and self.peek(1) == "(":  # <(...) >(...): code
            self.i += 2
            self.parse_list({")"})
            return s[start:self.i]
        self.i += 1
        if self.peek() in (">", "&", "|") or (s[self.i - 1] == "<" and self.peek() == ">"):
            self.i += 1
        if s[self.i - 1] == "&":
            while self.peek() == "-" or self.peek().isdigit():
                self.i += 1
        return s[start:self.i]

    # ---- lists --------------------------------------------------------------------------

    def parse_list(self, closers):
        """Parse commands until a closer (")", "}", ";;", "esac") or the end; report each
        "&" of this level whose commands do not close descriptor 3."""
        # What a "&" here would put in the background: its commands (more than one in a
        # pipeline or an && || list), each a list of its words and of the groups in it, a
        # group as (text, the reports made inside it): a 3>&- after a group's end closes the
        # descriptor for all it starts, and takes those reports back.
        elements = [[]]
        at_start = True  # a command may start here (a reserved word is one)
        joined = False  # the line ended with && || |: the next goes on the same list

        def close(e):
            if closes(e):
                for item in e:
                    if isinstance(item, tuple):
                        self.bad[item[1]:item[2]] = [None] * (item[2] - item[1])
            else:
                self.daemon(e)

        def end(ret=None):
            for e in elements:
                close(e)
            elements[:] = [[]]
            return ret

        def group(text, closer):
            k = len(self.bad)
            self.parse_list({closer})
            elements[-1].append((text, k, len(self.bad)))

        while self.i < len(self.s):
            c = self.s[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\\" and self.peek(1) == "\n":
                self.i += 2
            elif c == "#" and (self.i == 0 or self.s[self.i - 1] in " \t\n;&|()"):
                start = self.i
                self.skip_to_line_end()
                self.comments[self.line(start)] = self.s[start:self.i]
            elif c == "\n":
                self.i += 1
                if self.heredocs:
                    self.read_heredocs()
                if not joined:
                    end()
                at_start = True
            elif c == ";":
                if self.s.startswith(";;", self.i) or self.s.startswith(";&", self.i):
                    self.i += 3 if self.s.startswith(";;&", self.i) else 2
                    if ";;" in closers:
                        return end(";;")
                else:
                    self.i += 1
                end()
                at_start, joined = True, False
            elif c == "&" and self.peek(1) == "&" or c == "|":
                self.i += 2 if self.peek(1) in ("&", "|") else 1
                elements.append([])
                at_start, joined = True, True
            elif c == "&" and self.peek(1) == ">":
                self.i += 2
                if self.peek() == ">":
                    self.i += 1
                elements[-1].append("&>")
                joined = False
            elif c == "&":
                self.background(elements)
                self.i += 1
                end()
                at_start, joined = True, False
            elif c == "(":
                self.i += 1
                if at_start and self.peek() == "(":  # (( arithmetic ))
                    self.i += 1
                    self.skip_nested("(", ")", 2)
                    elements[-1].append("((...))")
                elif not at_start and self.s[self.i:].lstrip(" \t").startswith(")"):
                    self.i = self.s.index(")", self.i) + 1  # f() { ... }
                    at_start = True
                else:
                    group("(...)", ")")
                    at_start = False
                joined = False
            elif c == ")":
                self.i += 1
                if ")" in closers:
                    return end(")")
            elif c in "<>":
                elements[-1].append(self.redirection(self.i))
                joined = False
            else:
                w = self.word()
                if not w:  # not a word after all: step over it
                    self.i += 1
                    continue
                joined = False
                if at_start and w == "}" and "}" in closers:
                    return end("}")
                if at_start and w == "esac" and "esac" in closers:
                    return end("esac")
                if at_start and w == "{":
                    group("{...}", "}")
                    at_start = False
                elif at_start and w == "[[":
                    self.skip_test()
                    elements[-1].append("[[...]]")
                    at_start = False
                elif at_start and w == "case":
                    self.parse_case()
                    elements[-1].append("case...esac")
                    at_start = False
                elif at_start and w in STARTERS:
                    end()
                else:
                    elements[-1].append(w)
                    if not (at_start and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)):
                        at_start = False
        return end()

    def parse_case(self):
        while self.i < len(self.s):  # the word, to "in"
            while self.peek() in (" ", "\t", "\n"):
                self.i += 1
            if self.word() == "in":
                break
            if self.i < len(self.s) and not self.s[self.i].strip():
                continue
            self.i += 1
        while self.i < len(self.s):  # the items
            while self.peek() in (" ", "\t", "\n", "("):
                self.i += 1
            if self.peek() == "#":
                self.skip_to_line_end()
                continue
            if self.s.startswith("esac", self.i) and (
                    self.i + 4 >= len(self.s) or self.s[self.i + 4] in META):
                self.i += 4
                return
            while self.i < len(self.s) and self.s[self.i] != ")":  # the pattern
                if not self.quoted():
                    self.i += 1
            self.i += 1
            if self.parse_list({";;", "esac"}) != ";;":
                return

    # ---- the checks ---------------------------------------------------------------------

    def report(self, at, what):
        line = self.line(at)
        if MARK not in self.comments.get(line, "") and MARK not in self.comment_of(line):
            self.bad.append("%s:%d: %s" % (self.path, line, what))

    def comment_of(self, line):  # the line's comment, not yet lexed (the "&" comes first)
        text = self.s[self.starts[line - 1]:].split("\n", 1)[0]
        m = re.search(r"(^|\s)#[^'\"]*$", text)
        return m.group(0) if m else ""

    def background(self, elements):
        open3 = [e for e in elements if e and not closes(e)]
        if open3 or not any(elements):
            what = " | ".join(" ".join(w if isinstance(w, str) else w[0] for w in e)
                              for e in open3)
            what = re.sub(r"\s+", " ", what)
            what = what if len(what) <= 60 else what[:57] + "..."
            self.report(self.i, "started in the background with bats' descriptor 3 open "
                        "(3>&- on it, or # %s): %s" % (MARK, what))

    def daemon(self, e):
        """A command that puts what it starts in the background itself, at its end."""
        ws = [w.strip("'\"") for w in words(e)]
        if not ws:
            return
        after = ws[ws.index("tmux") + 1:] if "tmux" in ws else []
        if set(after) & {"new-session", "new", "start-server", "start"}:
            self.report(self.i - 1, "tmux starts a server that keeps bats' descriptor 3 "
                        "open: 3>&- on this command (or # %s)" % MARK)
        elif "setsid" in ws and set(ws[ws.index("setsid") + 1:]) & {"-f", "--fork"}:
            self.report(self.i - 1, "setsid --fork puts it in the background with bats' "
                        "descriptor 3 open: 3>&- on this command (or # %s)" % MARK)


def main(argv):
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = argv[1:]
    if not files:
        os.chdir(here)
        files = sorted(glob.glob("tests/*.bats") + glob.glob("tests/vm/*.bats")
                       + glob.glob("tests/*.bash") + glob.glob("tests/vm/*.bash"))
    bad = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            lx = Lexer(path, f.read())
        lx.parse_list(set())
        bad += [b for b in lx.bad if b is not None]
    for b in bad:
        print(b)
    if bad:
        print("check-test-fds: a process started in the background keeps bats' descriptor 3 "
              "open, above (CONTRIBUTING.md, Conventions)", file=sys.stderr)
        return 1
    print("check-test-fds: every background start closes descriptor 3 (files read: %d)"
          % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

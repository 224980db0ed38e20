/* Diagnostics: every message runlimit prints goes through here, as "PROG: text". */
#ifndef RUNLIMIT_MSG_H
#define RUNLIMIT_MSG_H

#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>

/* Who runlimit is, from the base name of argv[0]: "runlimit", "timeout" or "nproc"; set
 * once by main.  It decides behaviour and the --version line. */
extern const char *progname;

/* argv[0] as invoked, as GNU prints it: the prefix of every message, the name in "Try ...
 * --help" and in the Usage lines ("/usr/local/bin/timeout: invalid time interval '1x'"). */
extern const char *program_name;

/* What goes between the program name and "--help" in the Try line: " --nproc" when
 * runlimit or timeout runs the core-count probe.  Empty otherwise. */
extern const char *help_mode;

/* One line on stderr, written with a single write(2).  A closed or full stderr never kills
 * runlimit: see msg_write; a failed write is ignored.  Nor does it hang runlimit: a line
 * waits at most MSG_WAIT_MS for room in stderr (a pipe the caller does not read, a
 * terminal stopped by ^S) and is then dropped, so that no line of runlimit's own can hold
 * back a signal or runlimit's return past the bound (the manual, under -v). */
void msg(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* One write(2) of runlimit's own output (a message, the run report), retried on EINTR:
 * the SIGPIPE or SIGXFSZ it raises in runlimit itself (a closed pipe, a file past
 * RLIMIT_FSIZE) is swallowed, never forwarded to the command.  Returns as write. */
ssize_t msg_write(int fd, const void *buf, size_t len);

/* How long one line of runlimit's own may wait for room in stderr, in milliseconds. */
#define MSG_WAIT_MS 100

/* msg_write, but never waiting more than ms in all: pieces of at most PIPE_BUF bytes, each
 * written once poll(2) finds room, until ms have passed since the call.  Returns the bytes written
 * (fewer than len when the time ran out: errno EAGAIN), or -1 if none were. */
ssize_t msg_write_within(int fd, const void *buf, size_t len, int ms);

/* After a write of runlimit's own that failed with EPIPE while SIGPIPE was blocked (as the
 * supervision keeps it outside its waits): take the SIGPIPE that write raised off the
 * pending set, so that it is never passed on to the command. */
void msg_drop_sigpipe(void);

/* While the command's stderr is relayed: every line goes to take first, which queues it in
 * its place among the command's output and returns true, or returns false (the line is then
 * written at once).  NULL: none.  Only in the process that set it. */
void msg_set_sink(bool (*take)(const char *line, size_t len));

/* The same without the "PROG: " prefix. */
void msg_plain(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* The "Try 'PROG --help' for more information." line. */
void msg_try_help(void);

/* Text for stdout (--help, --version, nproc's answer), flushed at once; on failure a
 * "write error" line and false, so that a full disk is never a silent success. */
bool msg_stdout(const char *text);

#endif

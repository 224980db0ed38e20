/* Diagnostics: every message runlimit prints goes through here, as "PROG: text". */
#ifndef RUNLIMIT_MSG_H
#define RUNLIMIT_MSG_H

#include <stdarg.h>
#include <stdbool.h>

/* Base name of argv[0] as runlimit, timeout or nproc; set once by main. */
extern const char *progname;

/* One line on stderr, written with a single write(2).  A closed or full stderr never kills
 * runlimit: SIGPIPE is held off during the write and a failed write is ignored. */
void msg(const char *fmt, ...)
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

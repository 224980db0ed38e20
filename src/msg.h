/* Diagnostics: every message runlimit prints goes through here, as "PROG: text". */
#ifndef RUNLIMIT_MSG_H
#define RUNLIMIT_MSG_H

#include <stdarg.h>

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

#endif

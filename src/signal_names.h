/* Signal names and numbers, as GNU's operand2sig and sig2str understand them. */
#ifndef RUNLIMIT_SIGNAL_NAMES_H
#define RUNLIMIT_SIGNAL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Parse a -s operand: a name in any case, with or without "SIG" (TERM, sigterm), RTMIN+n,
 * RTMAX-n, EXIT (0), or a decimal number; numbers of 128 and up are masked the way a shell
 * folds a death by signal into $? (137 -> 9).  Returns the signal, or -1 if invalid. */
int sig_parse(const char *s);

/* The name for verbose messages, without "SIG": "TERM", "RTMIN+2", "0", or the decimal number
 * for an unnamed signal.  Writes into buf, returns buf. */
const char *sig_name(int sig, char *buf, size_t size);

/* Is this signal ignored by default, beyond POSIX's CHLD, CONT and URG?  WINCH and INFO
 * where they exist, and IO (POLL) on macOS and the BSDs, where it is ignored by default
 * (Linux ends the process).  Such signals are not runlimit's to catch and pass on. */
bool sig_ignored_by_default(int sig);

/* The largest valid signal number on this system. */
int sig_max(void);

/* Iterate over every signal number that has a name or lies in the real-time range:
 * sig_next(0) is the first, sig_next(last) returns 0. */
int sig_next(int prev);

#endif

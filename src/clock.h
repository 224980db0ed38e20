/* The deadline clock and the one blocking wait of the supervisor.  Both count the time the
 * machine is awake, and they agree with each other, so a wait that ends "at the deadline"
 * ends when clock_now() reaches it.  One implementation per platform:
 * clock_ppoll.c (Linux, FreeBSD), clock_darwin.c (kqueue), clock_poll.c (anything POSIX). */
#ifndef RUNLIMIT_CLOCK_H
#define RUNLIMIT_CLOCK_H

#include <stdint.h>

#define CLOCK_NEVER INT64_MAX

/* Nanoseconds on the monotonic, awake-time clock. */
int64_t clock_now(void);

/* Sleep in the kernel until fd is readable, a signal handler runs, or clock_now() reaches
 * deadline (CLOCK_NEVER: no deadline).  No periodic wake-ups. */
void clock_wait(int fd, int64_t deadline);

/* Ask the kernel to end waits at the deadline itself, not within its usual slack (Linux
 * timer slack: 50 us).  Called after the command is forked, which must not inherit it. */
void clock_sharpen(void);

#endif

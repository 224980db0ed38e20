/* The deadline clock and the one blocking wait of the supervisor.  Both count the time the
 * machine is awake, and they agree with each other, so a wait that ends "at the deadline"
 * ends when clock_now() reaches it.  One implementation per platform:
 * clock_ppoll.c (Linux, FreeBSD), clock_darwin.c (kqueue), clock_posix.c (anything POSIX).
 *
 * Signals: the supervisor keeps the signals it catches blocked, except inside clock_wait,
 * which unblocks them (waitmask) for the wait alone.  Where the wait can do that atomically
 * (ppoll) a signal can never slip in between the supervisor's last look and the sleep, and no
 * descriptor is needed; elsewhere the handlers call clock_wake(), which writes to a self-pipe
 * that the wait watches. */
#ifndef RUNLIMIT_CLOCK_H
#define RUNLIMIT_CLOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CLOCK_NEVER INT64_MAX

/* Nanoseconds on the monotonic, awake-time clock. */
int64_t clock_now(void);

/* Before any handler is installed: set up what clock_wake needs (a self-pipe where the wait
 * is not atomic with the signal mask).  Never fails: without descriptors the wait still
 * works, it may only notice a signal late, at the next event. */
void clock_init(void);

/* From a signal handler: make a clock_wait in progress (or the next one) return. */
void clock_wake(void);

/* Sleep in the kernel with waitmask as the signal mask until a signal handler runs, or
 * clock_now() reaches deadline (CLOCK_NEVER: no deadline).  No periodic wake-ups. */
void clock_wait(int64_t deadline, const sigset_t *waitmask);

/* With every signal blocked (a helper child): sleep until fd is readable (or at EOF), or
 * clock_now() reaches deadline. */
void clock_wait_fd(int fd, int64_t deadline);

/* Make the waits end when process pid exits (once), where the wait can watch processes
 * (macOS's kevent); false where it cannot, or pid is gone already. */
bool clock_watch_exit(pid_t pid);

/* Ask the kernel to end waits at the deadline itself, not within its usual slack (Linux
 * timer slack: 50 us).  Called after the command is forked, which must not inherit it. */
void clock_sharpen(void);

#endif

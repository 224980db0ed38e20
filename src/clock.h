/* The deadline clock and the one blocking wait of the supervisor.  Both count the time the
 * machine is awake, and they agree with each other, so a wait that ends "at the deadline"
 * ends when clock_now() reaches it.  One implementation per platform:
 * clock_ppoll.c (Linux, FreeBSD), clock_darwin.c (kqueue), clock_posix.c (anything POSIX).
 * The wait is the one place the supervisor sleeps: the deadline, signals and descriptors
 * are its events.
 *
 * Signals: the supervisor keeps the signals it catches blocked, except inside clock_wait,
 * which unblocks them (waitmask) for the wait alone.  Where the wait can do that atomically
 * (ppoll) a signal can never slip in between the supervisor's last look and the sleep, and no
 * descriptor is needed; elsewhere the handlers call clock_wake(), which writes to a self-pipe
 * that the wait watches. */
#ifndef RUNLIMIT_CLOCK_H
#define RUNLIMIT_CLOCK_H

#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define CLOCK_NEVER INT64_MAX

/* Nanoseconds on the monotonic, awake-time clock. */
int64_t clock_now(void);

/* For the clock files (clock_left.c): the time left to deadline as a timeout for ppoll or
 * kevent (NULL for CLOCK_NEVER: none), or in whole milliseconds for poll, rounded up so
 * that a wait never ends early (-1: none). */
struct timespec *clock_left(int64_t deadline, struct timespec *ts);
int clock_left_ms(int64_t deadline);

/* t + d for d >= 0, saturating one short of CLOCK_NEVER (a time that is due, however far). */
int64_t clock_after(int64_t t, int64_t d);

/* Before any handler is installed: set up what clock_wake needs (a self-pipe where the wait
 * is not atomic with the signal mask).  Never fails: without descriptors the wait still
 * works, it may only notice a signal late, at the next event. */
void clock_init(void);

/* From a signal handler: make a clock_wait in progress (or the next one) return. */
void clock_wake(void);

/* The most descriptors one wait watches besides its own (the output pipes and the control
 * socket's connections of a run). */
#define CLOCK_MAX_FDS 16

/* Sleep in the kernel with waitmask as the signal mask until a signal handler runs, one of
 * fds[0..n) is ready as poll(2) tells it (events asked, revents set: 0 for those that are
 * not), or clock_now() reaches deadline (CLOCK_NEVER: no deadline).  No periodic wake-ups.
 * n is at most CLOCK_MAX_FDS; fds may be NULL when n is 0. */
void clock_wait(int64_t deadline, const sigset_t *waitmask, struct pollfd *fds, size_t n);

/* With every signal blocked (a helper child): sleep until fd is readable (or at EOF), or
 * clock_now() reaches deadline. */
void clock_wait_fd(int fd, int64_t deadline);

/* Make the waits end when process pid exits (once), where the wait can watch processes
 * (macOS's kevent); false where it cannot, or pid is gone already. */
bool clock_watch_exit(pid_t pid);

#endif

/* Linux and FreeBSD: CLOCK_MONOTONIC excludes suspend and is what ppoll's timeout uses.
 * ppoll swaps the signal mask atomically with the sleep, so no self-pipe is needed: a
 * signal that arrives before the wait stays pending until ppoll unblocks it, and its handler
 * then ends the wait at once.  (runlimit then needs no descriptor at all to supervise.) */
#define _GNU_SOURCE /* ppoll on glibc */
#include "clock.h"

#include <poll.h>
#include <signal.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

int64_t clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock_init(void)
{
}

void clock_wake(void)
{
}

static struct timespec *until(int64_t deadline, struct timespec *ts)
{
	if (deadline == CLOCK_NEVER)
		return NULL;
	int64_t left = deadline - clock_now();
	if (left < 0)
		left = 0;
	ts->tv_sec = (time_t)(left / 1000000000);
	ts->tv_nsec = (long)(left % 1000000000);
	return ts;
}

void clock_wait(int64_t deadline, const sigset_t *waitmask)
{
	struct timespec ts;
	ppoll(NULL, 0, until(deadline, &ts), waitmask);
}

void clock_wait_fd(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	struct timespec ts;
	ppoll(&p, 1, until(deadline, &ts), NULL);
}

bool clock_watch_exit(pid_t pid)
{
	(void)pid;
	return false;
}

void clock_sharpen(void)
{
#ifdef PR_SET_TIMERSLACK
	prctl(PR_SET_TIMERSLACK, 1UL);
#endif
}

/* Linux and FreeBSD: CLOCK_MONOTONIC excludes suspend and is what ppoll's timeout uses.
 * ppoll swaps the signal mask atomically with the sleep, so no self-pipe is needed: a
 * signal that arrives before the wait stays pending until ppoll unblocks it, and its handler
 * then ends the wait at once.  (runlimit then needs no descriptor at all to supervise.) */
#define _GNU_SOURCE /* ppoll on glibc */
#include "os.h"

#include <poll.h>
#include <signal.h>
#include <time.h>

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

void clock_wait(int64_t deadline, const sigset_t *waitmask, struct pollfd *fds, size_t n)
{
	struct timespec ts;
	for (size_t k = 0; k < n; k++)
		fds[k].revents = 0;
	ppoll(fds, (nfds_t)n, clock_left(deadline, &ts), waitmask);
}

void clock_wait_fd(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	struct timespec ts;
	ppoll(&p, 1, clock_left(deadline, &ts), NULL);
}

bool clock_watch_exit(pid_t pid)
{
	(void)pid;
	return false;
}

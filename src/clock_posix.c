/* Portable fallback: poll(2) takes whole milliseconds, so round up, never wake early.  poll
 * cannot swap the signal mask itself, so the handlers wake it through the self-pipe. */
#include "clock.h"
#include "selfpipe.h"

#include <poll.h>
#include <time.h>

int64_t clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock_init(void)
{
	selfpipe_init();
}

void clock_wake(void)
{
	selfpipe_wake();
}

void clock_wait(int64_t deadline, const sigset_t *waitmask, struct pollfd *fds, size_t n)
{
	struct pollfd all[1 + CLOCK_MAX_FDS];
	size_t m = n < CLOCK_MAX_FDS ? n : CLOCK_MAX_FDS;
	all[0] = (struct pollfd){.fd = selfpipe_drain(), .events = POLLIN};
	for (size_t k = 0; k < m; k++)
		all[1 + k] = (struct pollfd){.fd = fds[k].fd, .events = fds[k].events};
	sigset_t saved;
	selfpipe_unblock(waitmask, &saved);
	poll(all, (nfds_t)(1 + m), clock_left_ms(deadline));
	sigprocmask(SIG_SETMASK, &saved, NULL);
	for (size_t k = 0; k < n; k++)
		fds[k].revents = k < m ? all[1 + k].revents : 0;
}

void clock_wait_fd(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	poll(&p, 1, clock_left_ms(deadline));
}

bool clock_watch_exit(pid_t pid)
{
	(void)pid;
	return false;
}

/* Portable fallback: poll(2) takes whole milliseconds, so round up, never wake early.  poll
 * cannot swap the signal mask itself, so the handlers wake it through the self-pipe. */
#include "clock.h"
#include "selfpipe.h"

#include <limits.h>
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

static int ms_until(int64_t deadline)
{
	if (deadline == CLOCK_NEVER)
		return -1;
	int64_t left = deadline - clock_now();
	if (left < 0)
		left = 0;
	int64_t up = (left + 999999) / 1000000;
	return up > INT_MAX ? INT_MAX : (int)up;
}

void clock_wait(int64_t deadline, const sigset_t *waitmask)
{
	struct pollfd p = {.fd = selfpipe_drain(), .events = POLLIN};
	sigset_t saved;
	selfpipe_unblock(waitmask, &saved);
	poll(&p, 1, ms_until(deadline));
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

void clock_wait_fd(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	poll(&p, 1, ms_until(deadline));
}

bool clock_watch_exit(pid_t pid)
{
	(void)pid;
	return false;
}

void clock_sharpen(void)
{
}

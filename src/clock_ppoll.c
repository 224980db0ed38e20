/* Linux and FreeBSD: CLOCK_MONOTONIC excludes suspend and is what ppoll's timeout uses. */
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

void clock_wait(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	struct timespec ts, *tsp = NULL;
	if (deadline != CLOCK_NEVER) {
		int64_t left = deadline - clock_now();
		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)(left / 1000000000);
		ts.tv_nsec = (long)(left % 1000000000);
		tsp = &ts;
	}
	ppoll(&p, 1, tsp, NULL);
}

void clock_sharpen(void)
{
#ifdef PR_SET_TIMERSLACK
	prctl(PR_SET_TIMERSLACK, 1UL);
#endif
}

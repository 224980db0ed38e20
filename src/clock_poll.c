/* Portable fallback: poll(2) takes whole milliseconds, so round up, never wake early. */
#include "clock.h"

#include <limits.h>
#include <poll.h>
#include <time.h>

int64_t clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock_wait(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int ms = -1;
	if (deadline != CLOCK_NEVER) {
		int64_t left = deadline - clock_now();
		if (left < 0)
			left = 0;
		int64_t up = (left + 999999) / 1000000;
		ms = up > INT_MAX ? INT_MAX : (int)up;
	}
	poll(&p, 1, ms);
}

void clock_sharpen(void)
{
}

/* The time left to a deadline, in the forms the waits take it, and deadline arithmetic:
 * for every clock (ppoll.c, darwin.c, posix.c) and the core; and the wall clock's time. */
#include "os.h"

#include <limits.h>

struct timespec *clock_left(int64_t deadline, struct timespec *ts)
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

int clock_left_ms(int64_t deadline)
{
	if (deadline == CLOCK_NEVER)
		return -1;
	int64_t left = deadline - clock_now();
	if (left < 0)
		left = 0;
	int64_t up = (left + 999999) / 1000000; /* never wake early */
	return up > INT_MAX ? INT_MAX : (int)up;
}

int64_t clock_wall(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0; /* cannot be: CLOCK_REALTIME is always there */
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t clock_after(int64_t t, int64_t d)
{
	return d > CLOCK_NEVER - 1 - t ? CLOCK_NEVER - 1 : t + d;
}

/* macOS: CLOCK_MONOTONIC there keeps counting through sleep, but kernel waits do not;
 * CLOCK_UPTIME_RAW (mach_absolute_time) is the clock kevent's timeout runs on.  poll(2)
 * cannot wait on every kind of descriptor on macOS, so the wait is a kevent on the
 * self-pipe (kevent cannot swap the signal mask). */
#define _DARWIN_C_SOURCE
#include "clock.h"
#include "selfpipe.h"

#include <sys/types.h>
#include <sys/event.h>
#include <sys/time.h>
#include <errno.h>
#include <poll.h>
#include <time.h>

int64_t clock_now(void)
{
	return (int64_t)clock_gettime_nsec_np(CLOCK_UPTIME_RAW);
}

void clock_init(void)
{
	selfpipe_init();
}

void clock_wake(void)
{
	selfpipe_wake();
}

static int kq = -1;

static int queue(void)
{
	if (kq < 0)
		kq = kqueue();
	return kq;
}

bool clock_watch_exit(pid_t pid)
{
	/* NOTE_EXIT without NOTE_EXITSTATUS: allowed for any process runlimit can see. */
	struct kevent change;
	EV_SET(&change, (uintptr_t)pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	return queue() >= 0 && kevent(kq, &change, 1, NULL, 0, NULL) == 0;
}

/* Wait for fd (or just the deadline, fd -1), or a watched process's exit, with kevent; or
 * with poll where no kqueue can be had (descriptor limit): the fd is a pipe, which poll
 * handles. */
static void wait_on(int fd, int64_t deadline)
{
	queue();
	struct kevent change, event;
	EV_SET(&change, (uintptr_t)fd, EVFILT_READ, EV_ADD, 0, 0, NULL);
	struct timespec ts, *tsp = NULL;
	if (deadline != CLOCK_NEVER) {
		int64_t left = deadline - clock_now();
		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)(left / 1000000000);
		ts.tv_nsec = (long)(left % 1000000000);
		tsp = &ts;
	}
	if (kq >= 0 && fd >= 0) {
		if (kevent(kq, &change, 1, &event, 1, tsp) >= 0 || errno == EINTR)
			return;
		kq = -1; /* a forked child: kqueues are not inherited */
	}
	/* Without a pipe at all, a signal still interrupts the poll. */
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int64_t ms = tsp ? (ts.tv_sec * 1000 + (ts.tv_nsec + 999999) / 1000000) : -1;
	poll(&p, 1, ms > 0x7fffffff ? 0x7fffffff : (int)ms);
}

void clock_wait(int64_t deadline, const sigset_t *waitmask)
{
	int fd = selfpipe_drain();
	sigset_t saved;
	selfpipe_unblock(waitmask, &saved);
	wait_on(fd, deadline);
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

void clock_wait_fd(int fd, int64_t deadline)
{
	wait_on(fd, deadline);
}

void clock_sharpen(void)
{
}

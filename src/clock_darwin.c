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
#include <stdint.h>
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

/* The filters for fds[k] into changes (flags: EV_ADD | EV_ONESHOT, or EV_DELETE), each
 * with k + 1 as its mark; returns how many. */
static int filters(struct kevent *changes, const struct pollfd *fds, size_t m, int flags)
{
	int nc = 0;
	for (size_t k = 0; k < m; k++) {
		void *mark = (void *)(uintptr_t)(k + 1);
		if (fds[k].fd >= 0 && (fds[k].events & POLLIN))
			EV_SET(&changes[nc++], (uintptr_t)fds[k].fd, EVFILT_READ, flags, 0, 0, mark);
		if (fds[k].fd >= 0 && (fds[k].events & POLLOUT))
			EV_SET(&changes[nc++], (uintptr_t)fds[k].fd, EVFILT_WRITE, flags, 0, 0, mark);
	}
	return nc;
}

/* What kevent said of fds, as poll would have: the events that name one by its mark. */
static void readiness(const struct kevent *events, int got, struct pollfd *fds, size_t m)
{
	for (int i = 0; i < got; i++) {
		uintptr_t k = (uintptr_t)events[i].udata;
		if (k == 0 || k > m)
			continue; /* the self-pipe, or a watched exit */
		short *rev = &fds[k - 1].revents;
		if (events[i].flags & EV_ERROR)
			*rev |= POLLNVAL;
		else
			*rev |= events[i].filter == EVFILT_WRITE ? POLLOUT : POLLIN;
		if (events[i].flags & EV_EOF)
			*rev |= POLLHUP;
	}
}

/* Wait with kevent for the self-pipe (pipe, or -1), fds or a watched process's exit; the
 * descriptors' filters go once the wait is over, so that none outlives its wait. */
static bool wait_kevent(int pipe, struct pollfd *fds, size_t m, struct timespec *tsp)
{
	struct kevent changes[1 + 2 * CLOCK_MAX_FDS], events[1 + 2 * CLOCK_MAX_FDS];
	int nc = 0;
	if (pipe >= 0)
		EV_SET(&changes[nc++], (uintptr_t)pipe, EVFILT_READ, EV_ADD, 0, 0, NULL);
	int nfilters = filters(changes + nc, fds, m, EV_ADD | EV_ONESHOT);
	nc += nfilters;
	int got = kevent(kq, changes, nc, events, nc > 0 ? nc : 1, tsp);
	if (got < 0 && errno != EINTR)
		return false;
	readiness(events, got, fds, m);
	if (nfilters > 0) {
		struct timespec now = {0, 0};
		nc = filters(changes, fds, m, EV_DELETE);
		kevent(kq, changes, nc, events, nc, &now); /* the fired ones are gone: ENOENT */
	}
	return true;
}

/* Wait for the self-pipe (pipe, or -1), fds, or a watched process's exit, with kevent; or
 * with poll where no kqueue can be had (descriptor limit, or a forked child: kqueues are
 * not inherited), which handles the pipe and the sockets runlimit watches. */
static void wait_on(int pipe, struct pollfd *fds, size_t n, int64_t deadline)
{
	size_t m = n < CLOCK_MAX_FDS ? n : CLOCK_MAX_FDS;
	for (size_t k = 0; k < n; k++)
		fds[k].revents = 0;
	struct timespec ts, *tsp = clock_left(deadline, &ts);
	queue();
	if (kq >= 0 && (pipe >= 0 || m > 0)) {
		if (wait_kevent(pipe, fds, m, tsp))
			return;
		kq = -1;
	}
	/* Without a pipe at all, a signal still interrupts the poll. */
	struct pollfd all[1 + CLOCK_MAX_FDS];
	all[0] = (struct pollfd){.fd = pipe, .events = POLLIN};
	for (size_t k = 0; k < m; k++)
		all[1 + k] = (struct pollfd){.fd = fds[k].fd, .events = fds[k].events};
	poll(all, (nfds_t)(1 + m), clock_left_ms(deadline));
	for (size_t k = 0; k < m; k++)
		fds[k].revents = all[1 + k].revents;
}

void clock_wait(int64_t deadline, const sigset_t *waitmask, struct pollfd *fds, size_t n)
{
	int pipe = selfpipe_drain();
	sigset_t saved;
	selfpipe_unblock(waitmask, &saved);
	wait_on(pipe, fds, n, deadline);
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

void clock_wait_fd(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	wait_on(-1, &p, 1, deadline);
}

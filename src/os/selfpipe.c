/* The self-pipe of the waits that cannot swap the signal mask (selfpipe.h), and with it
 * os.h's clock_init, clock_wake, clock_wait and clock_wait_fd for the systems whose wait it
 * serves.  Where the pipe cannot be made (no descriptor), clock_init leaves its read end -1
 * and the wait is a pselect. */
#include "os.h"
#include "selfpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "../test_hooks.h"

static int ends[2] = {-1, -1};

/* Move fd to a number above 2 if it landed on a standard one (which runlimit was started
 * without), keeping that standard descriptor closed for the command.  Returns the fd. */
static int keep_off_stdio(int fd)
{
	if (fd < 0 || fd > STDERR_FILENO)
		return fd;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	if (high >= 0)
		close(fd);
	return high >= 0 ? high : fd;
}

void clock_init(void)
{
	if (ends[0] >= 0 || pipe(ends) < 0)
		return;
	for (int k = 0; k < 2; k++) {
		fcntl(ends[k], F_SETFD, FD_CLOEXEC);
		fcntl(ends[k], F_SETFL, O_NONBLOCK);
		ends[k] = keep_off_stdio(ends[k]);
	}
}

void clock_wake(void)
{
	int saved = errno;
	if (ends[1] >= 0) {
		ssize_t unused = write(ends[1], "", 1);
		(void)unused;
	}
	errno = saved;
}

bool selfpipe_there(void)
{
	return ends[0] >= 0;
}

/* The read end, drained of what was written so far; -1 if there is no pipe. */
static int selfpipe_drain(void)
{
	char drain[64];
	if (ends[0] >= 0)
		while (read(ends[0], drain, sizeof drain) > 0)
			;
	return ends[0];
}

/* Unblock waitmask around a wait that the pipe makes race-free (the caller restores saved). */
static void selfpipe_unblock(const sigset_t *waitmask, sigset_t *saved)
{
	/* A signal blocked until now runs its handler here, before the wait: the byte it
	 * writes makes the wait return at once. */
	sigprocmask(SIG_SETMASK, waitmask, saved);
	/* Test builds only: a wait that starts late, so that a signal comes before it
	 * (TEST_WAIT_LATE). */
	if (test_hook_on(TEST_WAIT_LATE))
		nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
}

/* 30 days, POSIX's least for select's timeout. */
#define SELFPIPE_MAX_WAIT (30 * 24 * 3600)

/* The wait where there is no pipe: pselect unblocks waitmask in the kernel, with the wait
 * itself, so that a signal coming in between is not lost until the timeout (ts; NULL: none).
 * Sets the revents of fds (all n: no array bounds them) as poll would (POLLIN, POLLOUT;
 * select has no POLLHUP).  Returns after at most 30 days.  False, having waited for
 * nothing, where a descriptor is too high for select (FD_SETSIZE) or pselect refuses the
 * wait. */
static bool selfpipe_pselect(const sigset_t *waitmask, struct pollfd *fds, size_t n,
                             const struct timespec *ts)
{
	fd_set in, out;
	FD_ZERO(&in);
	FD_ZERO(&out);
	int top = -1;
	for (size_t k = 0; k < n; k++) {
		fds[k].revents = 0;
		if (fds[k].fd < 0)
			continue;
		if (fds[k].fd >= FD_SETSIZE)
			return false;
		if (fds[k].events & POLLIN)
			FD_SET(fds[k].fd, &in);
		if (fds[k].events & POLLOUT)
			FD_SET(fds[k].fd, &out);
		if (fds[k].fd > top)
			top = fds[k].fd;
	}
	/* At most SELFPIPE_MAX_WAIT at once: xnu refuses (EINVAL) a timeout past 2^31 s, and
	 * the callers wait again when they wake before their time. */
	struct timespec most = {.tv_sec = SELFPIPE_MAX_WAIT};
	if (!ts || ts->tv_sec > most.tv_sec)
		ts = &most;
	int ready = pselect(top + 1, &in, &out, NULL, ts, waitmask);
	if (ready < 0 && errno != EINTR)
		return false; /* refused: the poll does it */
	if (waitmask) {
		/* xnu returns from a wait whose time is up without looking at the signals: a
		 * pending one is let in here (nothing sleeps after it, so nothing is missed). */
		sigset_t saved;
		sigprocmask(SIG_SETMASK, waitmask, &saved);
		sigprocmask(SIG_SETMASK, &saved, NULL);
	}
	if (ready <= 0)
		return true; /* the time is up, or a signal came: no descriptor is ready */
	for (size_t k = 0; k < n; k++) {
		if (fds[k].fd < 0)
			continue;
		if ((fds[k].events & POLLIN) && FD_ISSET(fds[k].fd, &in))
			fds[k].revents |= POLLIN;
		if ((fds[k].events & POLLOUT) && FD_ISSET(fds[k].fd, &out))
			fds[k].revents |= POLLOUT;
	}
	return true;
}

void selfpipe_poll(int pipe, struct pollfd *fds, size_t n, int64_t deadline)
{
	struct pollfd all[1 + CLOCK_MAX_FDS];
	size_t m = n < CLOCK_MAX_FDS ? n : CLOCK_MAX_FDS;
	all[0] = (struct pollfd){.fd = pipe, .events = POLLIN};
	for (size_t k = 0; k < m; k++)
		all[1 + k] = (struct pollfd){.fd = fds[k].fd, .events = fds[k].events};
	poll(all, (nfds_t)(1 + m), clock_left_ms(deadline));
	for (size_t k = 0; k < n; k++)
		fds[k].revents = k < m ? all[1 + k].revents : 0;
}

void clock_wait(int64_t deadline, const sigset_t *waitmask, struct pollfd *fds, size_t n)
{
	int pipe = selfpipe_drain();
	struct timespec ts;
	if (pipe < 0 && selfpipe_pselect(waitmask, fds, n, clock_left(deadline, &ts)))
		return;
	sigset_t saved;
	selfpipe_unblock(waitmask, &saved);
	selfpipe_sleep(pipe, fds, n, deadline);
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

void clock_wait_fd(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	selfpipe_sleep(-1, &p, 1, deadline);
}

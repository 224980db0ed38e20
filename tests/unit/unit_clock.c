/* The event wait (the clock of os/os.h) of the platform built: the deadline, and descriptors
 * ready or not, as the supervisor's loop will watch its output pipes and its control socket. */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "os/os.h"
#include "unit.h"

#define MS INT64_C(1000000)

static sigset_t current_mask(void)
{
	sigset_t m;
	sigprocmask(SIG_SETMASK, NULL, &m);
	return m;
}

void test_clock(void)
{
	clock_init();
	sigset_t mask = current_mask();
	int a[2], b[2];
	if (pipe(a) < 0 || pipe(b) < 0) {
		check(0, "clock_wait: pipes", NULL);
		return;
	}
	struct pollfd fds[2] = {{.fd = a[0], .events = POLLIN}, {.fd = b[0], .events = POLLIN}};

	int64_t t0 = clock_now();
	clock_wait(t0 + 30 * MS, &mask, fds, 2);
	int64_t took = clock_now() - t0;
	check(took >= 30 * MS, "clock_wait: nothing ready, returns at the deadline, not before", NULL);
	check(fds[0].revents == 0 && fds[1].revents == 0, "clock_wait: nothing ready, no revents",
	      NULL);

	check(write(b[1], "x", 1) == 1, "clock_wait: write", NULL);
	t0 = clock_now();
	clock_wait(t0 + 10000 * MS, &mask, fds, 2);
	took = clock_now() - t0;
	check(took < 5000 * MS, "clock_wait: a ready descriptor ends the wait", NULL);
	check(fds[0].revents == 0, "clock_wait: the idle descriptor is not ready", NULL);
	check((fds[1].revents & POLLIN) != 0, "clock_wait: the written one is readable", NULL);

	close(a[1]);
	t0 = clock_now();
	clock_wait(t0 + 10000 * MS, &mask, fds, 1);
	took = clock_now() - t0;
	check(took < 5000 * MS, "clock_wait: end of file ends the wait", NULL);
	check((fds[0].revents & (POLLIN | POLLHUP)) != 0, "clock_wait: end of file is told", NULL);

	t0 = clock_now();
	clock_wait(t0 + 20 * MS, &mask, NULL, 0);
	check(clock_now() - t0 >= 20 * MS, "clock_wait: no descriptors, the deadline alone", NULL);
	close(a[0]);
	close(b[0]);
	close(b[1]);
}

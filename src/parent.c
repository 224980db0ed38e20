/* --die-with-parent (parent.h). */
#include "parent.h"

#include <errno.h>
#include <unistd.h>

#include "os/os.h"
#include "test_hooks.h"

/* How often getppid() is asked where no descriptor tells of the parent's end (the portable
 * build, a Linux without pidfds): the cost of the option there, and only there. */
#define PARENT_POLL ((int64_t)100 * 1000000)

static pid_t parent;        /* the process watched (0: none) */
static int watch = -1;      /* readable once it has ended (os_watch_exit) */
static int64_t next_look = CLOCK_NEVER;
static bool ended;

bool parent_watch(const struct config *cfg)
{
	if (!cfg->die_with_parent)
		return true;
	parent = getppid();
	test_hook_hold(TEST_PARENT_READ);
	watch = os_watch_exit(parent);
	bool gone = watch < 0 && errno == ESRCH;
	/* Read, then watched: a parent that ended in between left runlimit to a reaper, whose
	 * pid getppid() now gives (and the watch may be of another process with the old pid). */
	if (getppid() != parent)
		gone = true;
	if (watch < 0 && !gone)
		next_look = clock_now() + PARENT_POLL;
	ended = gone;
	return !gone;
}

size_t parent_fds(struct pollfd *fds)
{
	if (watch < 0 || ended)
		return 0;
	fds[0] = (struct pollfd){.fd = watch, .events = POLLIN};
	return 1;
}

int64_t parent_next_wake(void)
{
	return ended ? CLOCK_NEVER : next_look;
}

bool parent_gone(const struct pollfd *fds, size_t n, int64_t now)
{
	if (ended || parent == 0)
		return false;
	if (watch >= 0)
		ended = n > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
	else if (now >= next_look) {
		ended = getppid() != parent;
		next_look = now + PARENT_POLL;
	}
	return ended;
}

/* The self-pipe of the waits that cannot swap the signal mask (selfpipe.h). */
#include "selfpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

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

void selfpipe_init(void)
{
	if (ends[0] >= 0 || pipe(ends) < 0)
		return;
	for (int k = 0; k < 2; k++) {
		fcntl(ends[k], F_SETFD, FD_CLOEXEC);
		fcntl(ends[k], F_SETFL, O_NONBLOCK);
		ends[k] = keep_off_stdio(ends[k]);
	}
}

void selfpipe_wake(void)
{
	int saved = errno;
	if (ends[1] >= 0) {
		ssize_t unused = write(ends[1], "", 1);
		(void)unused;
	}
	errno = saved;
}

int selfpipe_drain(void)
{
	char drain[64];
	if (ends[0] >= 0)
		while (read(ends[0], drain, sizeof drain) > 0)
			;
	return ends[0];
}

void selfpipe_unblock(const sigset_t *waitmask, sigset_t *saved)
{
	/* A signal blocked until now runs its handler here, before the wait: the byte it
	 * writes makes the wait return at once. */
	sigprocmask(SIG_SETMASK, waitmask, saved);
}

#include "stdfds.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static bool held[3];

void stdfds_hold(void)
{
	for (int fd = 0; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free number: this one, as those below it are open or held. */
		int got = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (got == fd)
			held[fd] = true;
		else if (got >= 0)
			close(got);
	}
}

bool stdfds_closed(int fd)
{
	return fd >= 0 && fd <= STDERR_FILENO && held[fd];
}

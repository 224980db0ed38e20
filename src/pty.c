#include "pty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int pty_open_like(int fd, int *slave)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0)
		return -1;
	const char *name = NULL;
	if (grantpt(master) == 0 && unlockpt(master) == 0)
		name = ptsname(master);
	int s = name ? open(name, O_RDWR | O_NOCTTY) : -1;
	if (s < 0 || fcntl(master, F_SETFL, O_NONBLOCK) < 0) {
		int err = errno;
		if (s >= 0)
			close(s);
		close(master);
		errno = err;
		return -1;
	}
	struct termios t;
	if (tcgetattr(fd, &t) == 0) {
		t.c_oflag &= ~(tcflag_t)OPOST; /* the real terminal processes the output, once */
		tcsetattr(s, TCSANOW, &t);
	}
	pty_copy_size(fd, s);
	*slave = s;
	return master;
}

bool pty_copy_size(int fd, int slave)
{
	struct winsize want, had;
	if (ioctl(fd, TIOCGWINSZ, &want) != 0)
		return false;
	if (ioctl(slave, TIOCGWINSZ, &had) == 0 && memcmp(&want, &had, sizeof want) == 0)
		return false;
	return ioctl(slave, TIOCSWINSZ, &want) == 0;
}

int pty_reopen(int fd)
{
	const char *name = ttyname(fd);
	return name ? open(name, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) : -1;
}

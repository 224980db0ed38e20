/* MSG_DONTWAIT: not POSIX, though every system runlimit is built for has it; macOS shows it
 * only outside strict POSIX. */
#define _DARWIN_C_SOURCE
#include "nowait.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/os.h"
#include "test_hooks.h"

/* Test builds only: another writer fills fd's pipe or socket after runlimit found room in
 * it and before it writes, the gap this file closes (TEST_FILL_BEFORE_WRITE). */
static void fill(int fd, mode_t mode)
{
	static char junk[4096];
	if (!test_hook_on(TEST_FILL_BEFORE_WRITE))
		return;
	if (S_ISSOCK(mode)) {
		while (send(fd, junk, sizeof junk, MSG_DONTWAIT) > 0)
			;
		return;
	}
	int other = reopen_fd(fd, O_WRONLY);
	if (other < 0)
		return;
	while (write(other, junk, sizeof junk) > 0)
		;
	close(other);
}

ssize_t nowait_write(int fd, const void *buf, size_t len)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return write(fd, buf, len); /* the write says what fstat could not */
	return nowait_write_mode(fd, st.st_mode, buf, len);
}

ssize_t nowait_write_mode(int fd, mode_t mode, const void *buf, size_t len)
{
	if (S_ISREG(mode))
		return write(fd, buf, len); /* a file never waits for a reader */
	fill(fd, mode);
	if (S_ISSOCK(mode))
		return send(fd, buf, len, MSG_DONTWAIT);
	if (S_ISFIFO(mode) || isatty(fd)) {
		int own = reopen_fd(fd, O_WRONLY);
		if (own >= 0) {
			ssize_t n = write(own, buf, len);
			int err = errno;
			close(own);
			errno = err;
			return n;
		}
	}
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	if (poll(&p, 1, 0) == 0) {
		errno = EAGAIN;
		return -1;
	}
	return write(fd, buf, len);
}

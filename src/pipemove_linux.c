/* splice(2) between two pipes moves page references, not bytes, and with SPLICE_F_NONBLOCK
 * waits on neither pipe, even when the caller's description of out is blocking (which
 * runlimit may not change: the caller shares it); tee(2) does the same without taking them
 * out of the first.  Both move whole buffers of the pipe (a buffer is cut only where max
 * ends), and a write of at most PIPE_BUF bytes lies whole in one buffer. */
#define _GNU_SOURCE
#include "pipemove.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

bool pipe_can_move(int in, int out)
{
	struct stat a, b;
	return fstat(in, &a) == 0 && S_ISFIFO(a.st_mode) && fstat(out, &b) == 0 &&
	       S_ISFIFO(b.st_mode);
}

ssize_t pipe_move(int in, int out, size_t max)
{
	return splice(in, NULL, out, NULL, max, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
}

/* tee(2) returns 0 at end-of-file, but also when out filled up between its look and its
 * move (another process writes to out: the kernel's link_pipe, unlike splice's move, does
 * not retry): bytes still in `in` tell the two apart, and a full out is EAGAIN. */
ssize_t pipe_tee(int in, int out, size_t max)
{
	ssize_t got = tee(in, out, max, SPLICE_F_NONBLOCK);
	int unread = 0;
	if (got == 0 && ioctl(in, FIONREAD, &unread) == 0 && unread > 0) {
		errno = EAGAIN;
		return -1;
	}
	return got;
}

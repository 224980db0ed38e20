/* splice(2) between two pipes moves page references, not bytes, and with SPLICE_F_NONBLOCK
 * waits on neither pipe, even when the caller's description of out is blocking (which
 * runlimit may not change: the caller shares it). */
#define _GNU_SOURCE
#include "pipemove.h"

#include <fcntl.h>
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

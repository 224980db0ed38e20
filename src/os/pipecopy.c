/* Where no system call moves bytes between pipes (every system but Linux, and the portable
 * build): pipe_move says so, and the relay copies the bytes through its own buffer. */
#include "os.h"

#include <errno.h>

bool pipe_can_move(int in, int out)
{
	(void)in;
	(void)out;
	return false;
}

ssize_t pipe_move(int in, int out, size_t max)
{
	(void)in;
	(void)out;
	(void)max;
	errno = ENOSYS;
	return -1;
}

ssize_t pipe_tee(int in, int out, size_t max)
{
	return pipe_move(in, out, max);
}

void pipe_widen(int fd)
{
	(void)fd;
}

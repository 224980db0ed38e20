/* macOS: fcntl(F_GETPATH) gives the file's path, which another process could have replaced
 * since: what is opened must be the same file (device and inode) as fd's. */
#define _DARWIN_C_SOURCE /* F_GETPATH and MAXPATHLEN are not POSIX */
#include "reopen.h"

#include <fcntl.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <unistd.h>

int reopen_for_reading(int fd)
{
	char path[MAXPATHLEN];
	struct stat was, is;
	if (fcntl(fd, F_GETPATH, path) < 0 || fstat(fd, &was) < 0)
		return -1;
	int again = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (again >= 0 && (fstat(again, &is) < 0 || is.st_dev != was.st_dev ||
	                   is.st_ino != was.st_ino)) {
		close(again);
		return -1;
	}
	return again;
}

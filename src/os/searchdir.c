/* The working directory, to come back to (os/os.h): where the system has POSIX's O_SEARCH
 * (FreeBSD, macOS), searching the directory is enough; else it must be readable. */
#include <fcntl.h>

#include "os.h"

#ifndef O_SEARCH
#define O_SEARCH O_RDONLY
#endif

int os_open_here(void)
{
	return open(".", O_SEARCH | O_DIRECTORY | O_CLOEXEC);
}

/* What most systems lack (FreeBSD, macOS, the portable build): a guard cheaper than a fork,
 * and a timer slack to shrink.  Core dumps are told by WCOREDUMP where the system has it. */
#define _DARWIN_C_SOURCE /* WCOREDUMP is not POSIX: macOS, glibc and musl hide it */
#define _DEFAULT_SOURCE
#include "os.h"

#include <sys/wait.h>

pid_t os_guard_clone(int sig, pid_t parent)
{
	(void)sig;
	(void)parent;
	return 0; /* a plain fork */
}

void os_sharpen_waits(void)
{
}

bool os_dumped_core(int status)
{
#ifdef WCOREDUMP
	return WCOREDUMP(status) != 0;
#else
	(void)status;
	return false;
#endif
}

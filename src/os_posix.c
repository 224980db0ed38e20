/* Systems without a subreaper, a parent-death signal or a cheaper guard than fork (macOS,
 * and the portable build): containment is the command's process group. */
#define _DARWIN_C_SOURCE /* WCOREDUMP is not POSIX: macOS, glibc and musl hide it */
#define _DEFAULT_SOURCE
#include "os.h"

#include <sys/wait.h>
#include <unistd.h>

void os_init(void)
{
}

bool os_has_death_signal(void)
{
	return false;
}

int os_child_prepare(int sig, pid_t parent_pid)
{
	(void)sig;
	return getppid() == parent_pid ? 0 : -1;
}

pid_t os_guard_clone(int sig, pid_t parent)
{
	(void)sig;
	(void)parent;
	return 0; /* a plain fork */
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

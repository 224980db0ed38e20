/* Systems without a subreaper or a parent-death signal (macOS, the portable build):
 * containment is the command's process group, and a child learns of runlimit's death only
 * by asking (guard.c's pipe). */
#include "os.h"

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

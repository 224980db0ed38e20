/* macOS and other systems: no subreaper and no parent-death signal; containment is the
 * command's process group. */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE /* WCOREDUMP */
#endif
#include "tree.h"

#include <sys/wait.h>

void tree_init(void)
{
}

int tree_child_prepare(int sig, pid_t parent_pid)
{
	(void)sig;
	(void)parent_pid;
	return 0;
}

bool tree_dumped_core(int status)
{
#ifdef WCOREDUMP
	return WCOREDUMP(status) != 0;
#else
	(void)status;
	return false;
#endif
}

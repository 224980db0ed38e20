/* macOS and other systems: no subreaper and no parent-death signal; containment is the
 * command's process group. */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE /* WCOREDUMP */
#endif
#include "tree.h"

#include <errno.h>
#include <signal.h>
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

pid_t tree_guard_start(pid_t pgid, int sig)
{
	(void)pgid;
	(void)sig;
	return 0;
}

void tree_guard_stop(void)
{
}

void tree_signal(pid_t command, bool reaped, int sig, int flags)
{
	(void)command;
	(void)reaped;
	(void)sig;
	(void)flags;
}

bool tree_alive(pid_t command)
{
	return !(kill(-command, 0) < 0 && errno == ESRCH);
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

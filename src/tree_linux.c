#define _GNU_SOURCE
#include "tree.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void tree_init(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

int tree_child_prepare(int sig, pid_t parent_pid)
{
	if (sig > 0)
		prctl(PR_SET_PDEATHSIG, sig);
	/* Compare with runlimit's own pid, not with 1: runlimit may itself be PID 1 of a
	 * container, or live under another subreaper. */
	return getppid() == parent_pid ? 0 : -1;
}

bool tree_dumped_core(int status)
{
	return WCOREDUMP(status) != 0;
}

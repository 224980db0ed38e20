#include "tree.h"

#include <sys/procctl.h>
#include <sys/wait.h>
#include <unistd.h>

void tree_init(void)
{
	procctl(P_PID, getpid(), PROC_REAP_ACQUIRE, NULL);
}

int tree_child_prepare(int sig, pid_t parent_pid)
{
	if (sig > 0)
		procctl(P_PID, 0, PROC_PDEATHSIG_CTL, &sig);
	return getppid() == parent_pid ? 0 : -1;
}

bool tree_dumped_core(int status)
{
	return WCOREDUMP(status) != 0;
}

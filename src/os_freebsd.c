/* FreeBSD: runlimit becomes the reaper of its subtree (procctl(2) PROC_REAP_ACQUIRE), so
 * orphans of the command's tree are re-parented to it; PROC_PDEATHSIG_CTL is the
 * parent-death signal. */
#include "os.h"

#include <signal.h>
#include <sys/procctl.h>
#include <sys/wait.h>
#include <unistd.h>

void os_init(void)
{
	procctl(P_PID, getpid(), PROC_REAP_ACQUIRE, NULL);
}

bool os_has_death_signal(void)
{
	return true;
}

int os_child_prepare(int sig, pid_t parent_pid)
{
	if (sig > 0)
		procctl(P_PID, 0, PROC_PDEATHSIG_CTL, &sig);
	if (getppid() != parent_pid)
		return -1;
	return sig > 0;
}

pid_t os_guard_clone(int sig, pid_t parent)
{
	(void)sig;
	(void)parent;
	return 0; /* a plain fork */
}

bool os_dumped_core(int status)
{
	return WCOREDUMP(status) != 0;
}

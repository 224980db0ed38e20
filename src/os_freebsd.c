/* FreeBSD: runlimit becomes the reaper of its subtree (procctl(2) PROC_REAP_ACQUIRE), so
 * orphans of the command's tree are re-parented to it; PROC_PDEATHSIG_CTL is the
 * parent-death signal.  The rest is os_posix.c's. */
#include "os.h"

#include <signal.h>
#include <sys/procctl.h>
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

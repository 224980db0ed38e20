/* FreeBSD: runlimit acquires the reaper role (procctl(2) PROC_REAP_ACQUIRE), so orphans of
 * the command's tree are re-parented to it, and the kernel itself signals the whole subtree
 * of the command (PROC_REAP_KILL with REAPER_KILL_SUBTREE), looping until no new process
 * appears: no user-space walk and no fork race. */
#include "tree.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

pid_t tree_guard_start(pid_t pgid, int sig)
{
	(void)pgid;
	(void)sig;
	return 0;
}

void tree_guard_stop(void)
{
}

static void reap_kill(pid_t command, int sig)
{
	struct procctl_reaper_kill rk;
	memset(&rk, 0, sizeof rk);
	rk.rk_sig = sig;
	rk.rk_flags = REAPER_KILL_SUBTREE;
	rk.rk_subtree = command; /* the subtree keeps its id after the command is gone */
	procctl(P_PID, getpid(), PROC_REAP_KILL, &rk);
}

void tree_signal(pid_t command, bool reaped, int sig, int flags)
{
	(void)reaped;
	reap_kill(command, sig); /* already safe against forks: TREE_FREEZE is not needed */
	if (flags & TREE_CONTINUE)
		reap_kill(command, SIGCONT);
}

bool tree_alive(pid_t command)
{
	struct procctl_reaper_status rs;
	memset(&rs, 0, sizeof rs);
	if (procctl(P_PID, getpid(), PROC_REAP_STATUS, &rs) < 0 || rs.rs_descendants == 0)
		return !(kill(-command, 0) < 0 && errno == ESRCH);
	struct procctl_reaper_pids rp;
	memset(&rp, 0, sizeof rp);
	rp.rp_count = rs.rs_descendants;
	rp.rp_pids = calloc(rp.rp_count, sizeof *rp.rp_pids);
	if (!rp.rp_pids || procctl(P_PID, getpid(), PROC_REAP_GETPIDS, &rp) < 0) {
		free(rp.rp_pids);
		return true;
	}
	bool alive = false;
	for (unsigned k = 0; k < rp.rp_count && !alive; k++) {
		const struct procctl_reaper_pidinfo *pi = &rp.rp_pids[k];
		alive = (pi->pi_flags & REAPER_PIDINFO_VALID) && pi->pi_subtree == command
#ifdef REAPER_PIDINFO_ZOMBIE
		        && !(pi->pi_flags & REAPER_PIDINFO_ZOMBIE)
#endif
		        ;
	}
	free(rp.rp_pids);
	return alive;
}

bool tree_dumped_core(int status)
{
	return WCOREDUMP(status) != 0;
}

/* FreeBSD: runlimit is the reaper of its subtree (os_freebsd.c), so orphans of the
 * command's tree are re-parented to it, and the kernel itself signals the whole subtree
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

void tree_init(pid_t runlimit)
{
	(void)runlimit;
}

void tree_started(void)
{
	/* the kernel holds the subtree */
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

void tree_prepare(const struct tree_target *t)
{
	(void)t; /* the kernel tells the command's orphans from others' */
}

/* TREE_SOFT is not honoured here: the kernel signals the whole subtree, nested groups too. */
long tree_signal(const struct tree_target *t, int sig, int flags, struct tree_seen *seen)
{
	reap_kill(t->command, sig); /* already safe against forks: TREE_FREEZE is not needed */
	if (flags & TREE_CONTINUE)
		reap_kill(t->command, SIGCONT);
	if (seen)
		seen->unknown = true; /* the kernel signals the subtree without naming it */
	return -1;
}

int tree_alive(const struct tree_target *t)
{
	pid_t command = t->command;
	struct procctl_reaper_status rs;
	memset(&rs, 0, sizeof rs);
	if (procctl(P_PID, getpid(), PROC_REAP_STATUS, &rs) < 0)
		return -1;
	if (rs.rs_descendants == 0)
		return 0;
	struct procctl_reaper_pids rp;
	memset(&rp, 0, sizeof rp);
	rp.rp_count = rs.rs_descendants;
	rp.rp_pids = calloc(rp.rp_count, sizeof *rp.rp_pids);
	if (!rp.rp_pids || procctl(P_PID, getpid(), PROC_REAP_GETPIDS, &rp) < 0) {
		free(rp.rp_pids);
		return -1;
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

bool tree_watch_exits(const struct tree_target *t)
{
	(void)t;
	return true; /* the reaper is told of every exit in its subtree (SIGCHLD) */
}

long tree_list(const struct tree_target *t, struct tree_id **out)
{
	(void)t;
	*out = NULL;
	return -1; /* the kernel walks the tree (PROC_REAP_KILL); nothing lists it here yet */
}

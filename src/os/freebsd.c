/* FreeBSD: runlimit becomes the reaper of its subtree (procctl(2) PROC_REAP_ACQUIRE), so
 * orphans of the command's tree are re-parented to it, and the kernel itself signals the
 * whole subtree of the command (PROC_REAP_KILL with REAPER_KILL_SUBTREE), looping until no
 * new process appears: no user-space walk and no fork race.  PROC_PDEATHSIG_CTL is the
 * parent-death signal; getpeereid names a socket's peer; the cpuset counts the processors;
 * the snapshot at a limit is the reaper's list and kern.proc's sysctls.
 * The clock and the wait are ppoll.c's.  Nothing is asked of the feature macros: FreeBSD's
 * default namespace has everything (Makefile). */
#include "os.h"
#include "snapargs.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/cpuset.h>
#include <sys/proc.h>
#include <sys/procctl.h>
#include <sys/socket.h>
#include <sys/sysctl.h>
#include <sys/time.h>
#include <sys/user.h>
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

/* ru_maxrss counts KiB here. */
long os_maxrss_kib(long ru_maxrss)
{
	return ru_maxrss;
}

/* No way from a descriptor to its file. */
int reopen_fd(int fd, int access)
{
	(void)fd;
	(void)access;
	return -1;
}

int peer_uid(int fd, uid_t *uid)
{
	gid_t gid;
	return getpeereid(fd, uid, &gid) == 0 ? 1 : -1;
}

/* No pid of the peer here. */
pid_t peer_pid(int fd)
{
	(void)fd;
	return 0;
}

/* The tree: the reaper's kill. */
static void reap_kill(pid_t command, int sig)
{
	struct procctl_reaper_kill rk;
	memset(&rk, 0, sizeof rk);
	rk.rk_sig = sig;
	rk.rk_flags = REAPER_KILL_SUBTREE;
	rk.rk_subtree = command; /* the subtree keeps its id after the command is gone */
	procctl(P_PID, getpid(), PROC_REAP_KILL, &rk);
}

/* TREE_SOFT is not honoured here: the kernel signals the whole subtree, nested groups too. */
long tree_signal(const struct target *t, int sig, int flags, struct tree_seen *seen)
{
	reap_kill(t->command, sig); /* already safe against forks: TREE_FREEZE is not needed */
	if (flags & TREE_CONTINUE)
		reap_kill(t->command, SIGCONT);
	if (seen)
		seen->unknown = true; /* the kernel signals the subtree without naming it */
	return -1;
}

/* The reaper's descendants into *rp (rp_pids to be freed; none, and no list asked for,
 * when it has none); false if they cannot be listed. */
static bool reaper_pids(struct procctl_reaper_pids *rp)
{
	struct procctl_reaper_status rs;
	memset(&rs, 0, sizeof rs);
	memset(rp, 0, sizeof *rp);
	if (procctl(P_PID, getpid(), PROC_REAP_STATUS, &rs) < 0)
		return false;
	rp->rp_count = rs.rs_descendants;
	if (rp->rp_count == 0)
		return true;
	rp->rp_pids = calloc(rp->rp_count, sizeof *rp->rp_pids);
	if (!rp->rp_pids || procctl(P_PID, getpid(), PROC_REAP_GETPIDS, rp) < 0) {
		free(rp->rp_pids);
		rp->rp_pids = NULL;
		return false;
	}
	return true;
}

/* A descendant of the command's subtree (never the guard or the hook: runlimit's own
 * children). */
static bool of_subtree(const struct procctl_reaper_pidinfo *pi, pid_t command)
{
	return (pi->pi_flags & REAPER_PIDINFO_VALID) && pi->pi_subtree == command;
}

/* pid's kern.proc record; false if it is gone. */
static bool kinfo(pid_t pid, struct kinfo_proc *kp)
{
	size_t len = sizeof *kp;
	int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid};
	return sysctl(mib, 4, kp, &len, NULL, 0) == 0 && len == sizeof *kp;
}

int tree_alive(const struct target *t)
{
	struct procctl_reaper_pids rp;
	if (!reaper_pids(&rp))
		return -1;
	bool alive = false;
	for (unsigned k = 0; k < rp.rp_count && !alive; k++) {
		const struct procctl_reaper_pidinfo *pi = &rp.rp_pids[k];
		alive = of_subtree(pi, t->command)
#ifdef REAPER_PIDINFO_ZOMBIE
		        && !(pi->pi_flags & REAPER_PIDINFO_ZOMBIE)
#endif
		        ;
	}
	free(rp.rp_pids);
	return alive;
}

bool tree_watch_exits(const struct target *t)
{
	(void)t;
	return true; /* the reaper is told of every exit in its subtree (SIGCHLD) */
}

long tree_list(const struct target *t, struct tree_id **out)
{
	(void)t;
	*out = NULL;
	return -1; /* the kernel walks the tree (PROC_REAP_KILL); nothing lists it here yet */
}

/* The snapshot: the reaper's list of its descendants, those of the command's subtree, each
 * read from kern.proc. */
static char state_of(const struct kinfo_proc *kp)
{
	switch (kp->ki_stat) {
	case SRUN: return 'R';
	case SSLEEP: return (kp->ki_tdflags & TDF_SINTR) ? 'S' : 'D';
	case SSTOP: return 'T';
	case SZOMB: return 'Z';
	case SWAIT: return 'W';
	case SLOCK: return 'L';
	case SIDL: return 'I';
	default: return '?';
	}
}

/* pid into s (its arguments through buf, size bytes); false if it is gone. */
static bool describe(pid_t pid, struct snap_proc *s, char *buf, size_t size)
{
	struct kinfo_proc kp;
	if (!kinfo(pid, &kp))
		return false;
	struct timeval now;
	gettimeofday(&now, NULL);
	int64_t born = (int64_t)kp.ki_start.tv_sec * 1000000000 + (int64_t)kp.ki_start.tv_usec * 1000;
	int64_t elapsed = (int64_t)now.tv_sec * 1000000000 + (int64_t)now.tv_usec * 1000 - born;
	*s = (struct snap_proc){.pid = pid, .ppid = kp.ki_ppid, .pgid = kp.ki_pgid,
	                        .state = state_of(&kp), .elapsed = elapsed < 0 ? -1 : elapsed,
	                        .cpu = (int64_t)kp.ki_runtime * 1000,
	                        .rss_kib = (int64_t)kp.ki_rssize * (getpagesize() / 1024)};
	struct snap_cut c;
	snap_args_begin(s, &c);
	int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_ARGS, (int)pid};
	size_t len = size;
	if (buf && sysctl(mib, 4, buf, &len, NULL, 0) == 0)
		snap_args_add(s, &c, buf, len);
	snap_args_end(s, &c);
	return true;
}

long tree_snapshot(const struct target *t, struct snap_proc *out, size_t max, size_t *omitted)
{
	*omitted = 0;
	struct procctl_reaper_pids rp;
	if (!reaper_pids(&rp))
		return -1;
	long argmax = sysconf(_SC_ARG_MAX);
	size_t size = argmax > 0 ? (size_t)argmax : 262144;
	char *buf = malloc(size); /* without it, the processes are described without arguments */
	size_t got = 0;
	for (unsigned k = 0; k < rp.rp_count; k++) {
		if (!of_subtree(&rp.rp_pids[k], t->command))
			continue;
		if (got == max)
			(*omitted)++;
		else if (describe(rp.rp_pids[k].pi_pid, &out[got], buf, size))
			got++;
	}
	free(buf);
	free(rp.rp_pids);
	return (long)got;
}

/* The budgets' usage: the reaper's list of the command's subtree, each process's resident
 * pages and times (its own, and its collected children's) from kern.proc.  A process that
 * ended between the list and its read is left out. */
int tree_usage(const struct target *t, struct tree_usage *u)
{
	struct procctl_reaper_pids rp;
	if (!reaper_pids(&rp))
		return -1;
	*u = (struct tree_usage){{0}};
	int64_t page = getpagesize();
	for (unsigned k = 0; k < rp.rp_count; k++) {
		struct kinfo_proc kp;
		if (!of_subtree(&rp.rp_pids[k], t->command) || !kinfo(rp.rp_pids[k].pi_pid, &kp) ||
		    kp.ki_stat == SZOMB)
			continue;
		const struct rusage *ch = &kp.ki_rusage_ch;
		u->figure[USAGE_PROCS]++;
		u->figure[USAGE_MEMORY] += (int64_t)kp.ki_rssize * page;
		u->figure[USAGE_CPU] +=
			(int64_t)kp.ki_runtime * 1000 +
			((int64_t)ch->ru_utime.tv_sec + (int64_t)ch->ru_stime.tv_sec) * 1000000000 +
			((int64_t)ch->ru_utime.tv_usec + (int64_t)ch->ru_stime.tv_usec) * 1000;
	}
	free(rp.rp_pids);
	return 0;
}

bool tree_usage_possible(void)
{
	return true;
}

/* Processor counts: the process's cpuset, then hw.ncpu.  No CPU quotas counted here (rctl's
 * pcpu limit is a percentage of one CPU, not a share of the machine). */
static unsigned long hw_ncpu(void)
{
	int n = 0;
	size_t len = sizeof n;
	if (sysctlbyname("hw.ncpu", &n, &len, NULL, 0) != 0 || len != sizeof n || n <= 0)
		return 0;
	return (unsigned long)n;
}

unsigned long ncpu_available(void)
{
	cpuset_t mask;
	CPU_ZERO(&mask);
	if (cpuset_getaffinity(CPU_LEVEL_WHICH, CPU_WHICH_PID, -1, sizeof mask, &mask) == 0) {
		int n = CPU_COUNT(&mask);
		if (n > 0)
			return (unsigned long)n;
	}
	return hw_ncpu();
}

unsigned long ncpu_installed(void)
{
	unsigned long n = hw_ncpu(), available = ncpu_available();
	return n > available ? n : available;
}

int os_relay_signal(pid_t pid, int sig, int value)
{
	return sigqueue(pid, sig, (union sigval){.sival_int = value});
}

/* macOS: no subreaper and no parent-death signal.  The tree is walked with libproc from the
 * command, its process group, and every descendant seen by an earlier walk: a process that
 * left the group is found while its parent chain leads back to the command, or once it has
 * been seen.  A daemon that was orphaned (re-parented to launchd) before any walk saw it,
 * and that left the group, is out of reach; the manual says so. */
#define _DARWIN_C_SOURCE
#include "tree.h"
#include "tree_walk.h"
#include "guard.h"
#include "clock.h"
#include "grow.h"

#include <errno.h>
#include <libproc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/proc.h> /* SZOMB */
#include <sys/proc_info.h>
#include <sys/wait.h>
#include <unistd.h>

/* xnu marks a process stopped (p_stat = SSTOP) when the stop is posted, before its threads
 * park, so one inside fork() may still create a child: two settled scans, a pause apart. */
const int tree_settle_scans = 2;
/* Not known to be otherwise on macOS: freeze first. */
const bool tree_fork_survives_kill = true;
bool tree_scan_short;

static struct tree_proc *seen;
static size_t nseen;

void tree_init(pid_t runlimit)
{
	(void)runlimit;
}

void tree_started(void)
{
	/* libproc needs no descriptor */
}

/* pid's parent and start time (microseconds); false if it is gone or a zombie. */
static bool info(pid_t pid, struct tree_proc *p)
{
	struct proc_bsdinfo bi;
	if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, (int)sizeof bi) != (int)sizeof bi)
		return false;
	if (bi.pbi_status == SZOMB)
		return false;
	p->pid = pid;
	p->ppid = (pid_t)bi.pbi_ppid;
	p->pgid = (pid_t)bi.pbi_pgid;
	p->sid = getsid(pid); /* -1 where another session's is not to be known: not ours */
	p->start = bi.pbi_start_tvsec * 1000000 + bi.pbi_start_tvusec;
	p->in_tree = true;
	p->stopped = bi.pbi_status == SSTOP;
	return true;
}

static bool has(const struct tree_proc *set, size_t n, pid_t pid, uint64_t start)
{
	for (size_t k = 0; k < n; k++)
		if (set[k].pid == pid && set[k].start == start)
			return true;
	return false;
}

/* pids to expand (children listed) during a scan: those in the set, and those that could
 * not be read (another user's, such as sudo's), whose children may still be ours to see. */
struct queue {
	pid_t *pids;
	size_t n, cap;
};

static bool queued(const struct queue *q, pid_t pid)
{
	for (size_t k = 0; k < q->n; k++)
		if (q->pids[k] == pid)
			return true;
	return false;
}

static void enqueue(struct queue *q, pid_t pid)
{
	if (queued(q, pid))
		return;
	if (!grow(&q->pids, q->n, &q->cap, sizeof *q->pids)) {
		tree_scan_short = true;
		return;
	}
	q->pids[q->n++] = pid;
}

/* Take pid into the set if it can be read (and queue it to be expanded either way). */
static bool add(struct tree_proc **set, size_t *n, struct queue *q, pid_t pid)
{
	struct tree_proc p;
	if (pid <= 0 || pid == getpid() || pid == guard_pid())
		return true;
	if (!info(pid, &p)) {
		/* Gone, a zombie, or another user's (PROC_PIDTBSDINFO shows only one's own):
		 * it is not signalled (nothing can say it is still the one listed), but its
		 * children are looked for. */
		enqueue(q, pid);
		return true;
	}
	if (has(*set, *n, p.pid, p.start))
		return true;
	struct tree_proc *grown = realloc(*set, (*n + 1) * sizeof *grown);
	if (!grown) {
		tree_scan_short = true;
		return false;
	}
	*set = grown;
	(*set)[(*n)++] = p;
	enqueue(q, pid);
	return true;
}

/* Fill pids with what list(id, ...) returns; the count, or 0. */
static int list_pids(int (*list)(pid_t, void *, int), pid_t id, pid_t **pids)
{
	int cap = 64, n;
	for (;;) {
		pid_t *buf = realloc(*pids, (size_t)cap * sizeof *buf);
		if (!buf) {
			tree_scan_short = true;
			return 0;
		}
		*pids = buf;
		/* Zeroed: should a libproc version count bytes instead of pids, the extra
		 * entries read as pid 0 and are skipped. */
		memset(buf, 0, (size_t)cap * sizeof *buf);
		n = list(id, buf, cap * (int)sizeof *buf);
		if (n < cap || cap >= 1 << 20)
			break;
		cap *= 4; /* the buffer may have been too small: retry with room to spare */
	}
	return n < 0 ? 0 : n > cap ? cap : n;
}

long tree_scan(const struct tree_target *t, struct tree_proc **out)
{
	struct tree_proc *set = NULL;
	size_t n = 0;
	pid_t *pids = NULL;
	struct queue q = {NULL, 0, 0};
	tree_scan_short = false;
	if (!t->reaped)
		add(&set, &n, &q, t->command);
	int ng = t->group > 0 ? list_pids(proc_listpgrppids, t->group, &pids) : 0;
	for (int k = 0; k < ng; k++)
		add(&set, &n, &q, pids[k]);
	for (size_t k = 0; k < nseen; k++) {
		struct tree_proc p;
		if (info(seen[k].pid, &p) && p.start == seen[k].start)
			add(&set, &n, &q, p.pid);
	}
	/* Breadth first: children of everything queued, which grows as it is walked.  A child
	 * of another user's process (below sudo) is listed but, being that user's, usually
	 * unreadable too: it is queued, not signalled.  What stays out of reach is said in the
	 * manual. */
	for (size_t i = 0; i < q.n; i++) {
		int nc = list_pids(proc_listchildpids, q.pids[i], &pids);
		for (int k = 0; k < nc; k++)
			add(&set, &n, &q, pids[k]);
	}
	free(pids);
	free(q.pids);
	for (size_t i = 0; i < n; i++)
		if (!has(seen, nseen, set[i].pid, set[i].start)) {
			struct tree_proc *grown = realloc(seen, (nseen + 1) * sizeof *grown);
			if (!grown)
				break;
			seen = grown;
			seen[nseen++] = set[i];
		}
	*out = set;
	return (long)n;
}

void tree_send(const struct tree_proc *p, int sig)
{
	struct tree_proc now;
	if (info(p->pid, &now) && now.start == p->start)
		kill(p->pid, sig);
}

long tree_kill_short(const struct tree_target *t)
{
	(void)t;
	return -1; /* the final KILL here is a freeze, which never takes this way */
}

void tree_prepare(const struct tree_target *t)
{
	(void)t; /* no reaper: runlimit adopts no orphan to tell apart */
}

long tree_count_short(const struct tree_target *t)
{
	(void)t;
	return -1; /* no reaper: nothing but a walk can tell */
}

long tree_scan_each(const struct tree_target *t, struct tree_proc **out, tree_pick pick,
                    void *ctx)
{
	return tree_scan_then_send(t, out, pick, ctx);
}

bool tree_watch_exits(const struct tree_target *t)
{
	/* Orphans go to launchd, so no SIGCHLD tells runlimit of their exits: watch each one
	 * left with EVFILT_PROC in the wait's own kqueue. */
	struct tree_proc *procs;
	long n = tree_scan(t, &procs);
	if (n < 0)
		return false;
	bool all = true;
	for (long i = 0; i < n; i++)
		if (procs[i].in_tree && !clock_watch_exit(procs[i].pid))
			all = false; /* gone already, or not to be watched: look again soon */
	free(procs);
	return all;
}


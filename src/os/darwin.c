/* macOS: no subreaper and no parent-death signal: containment is the command's process group,
 * and a child learns of runlimit's death only by asking (the core's guard pipe).  The tree is
 * walked with libproc from the command, its process group, and every descendant seen by an
 * earlier walk: a process that left the group is found while its parent chain leads back to
 * the command, or once it has been seen.  A daemon that was orphaned (re-parented to launchd)
 * before any walk saw it, and that left the group, is out of reach; the manual says so.
 * The wait is a kevent (with the self-pipe, selfpipe.c); the processor counts are sysctl's;
 * a file is reopened by F_GETPATH; getpeereid names a socket's peer. */
#define _DARWIN_C_SOURCE
#include "os.h"
#include "walk.h"
#include "grow.h"
#include "snapargs.h"
#include "selfpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <libproc.h>
#include <mach/mach_time.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/event.h>
#include <sys/param.h>
#include <sys/proc.h> /* SZOMB */
#include <sys/proc_info.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/sysctl.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void os_init(void)
{
	/* no subreaper: orphans go to launchd */
}

bool os_has_death_signal(void)
{
	return false;
}

int os_child_prepare(int sig, pid_t parent_pid)
{
	(void)sig;
	return getppid() == parent_pid ? 0 : -1;
}

/* ru_maxrss on macOS counts bytes. */
long os_maxrss_kib(long ru_maxrss)
{
	return ru_maxrss / 1024;
}

/* getpeereid is a BSD call, hidden by a strict POSIX namespace. */
int peer_uid(int fd, uid_t *uid)
{
	gid_t gid;
	return getpeereid(fd, uid, &gid) == 0 ? 1 : -1;
}

pid_t peer_pid(int fd)
{
	pid_t pid = 0;
	socklen_t len = sizeof pid;
	if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &len) != 0 || len != sizeof pid)
		return 0;
	return pid > 0 ? pid : 0;
}

/* The clock: CLOCK_MONOTONIC on macOS keeps counting through sleep, but kernel waits do not;
 * CLOCK_UPTIME_RAW (mach_absolute_time) is the clock kevent's timeout runs on.  poll(2)
 * cannot wait on every kind of descriptor on macOS, so the wait is a kevent on the
 * self-pipe (kevent cannot swap the signal mask). */
int64_t clock_now(void)
{
	return (int64_t)clock_gettime_nsec_np(CLOCK_UPTIME_RAW);
}

static int kq = -1;

static int kq_open(void)
{
	if (kq < 0)
		kq = kqueue();
	return kq;
}

bool clock_watch_exit(pid_t pid)
{
	/* NOTE_EXIT without NOTE_EXITSTATUS: allowed for any process runlimit can see.  Not
	 * without the self-pipe: that wait is pselect's (clock_wait), which sees no kqueue, and
	 * the leftovers are looked at every so often instead. */
	if (!selfpipe_there())
		return false;
	struct kevent change;
	EV_SET(&change, (uintptr_t)pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	return kq_open() >= 0 && kevent(kq, &change, 1, NULL, 0, NULL) == 0;
}

/* The filters for fds[k] into changes (flags: EV_ADD | EV_ONESHOT, or EV_DELETE), each
 * with k + 1 as its mark; returns how many. */
static int filters(struct kevent *changes, const struct pollfd *fds, size_t m, int flags)
{
	int nc = 0;
	for (size_t k = 0; k < m; k++) {
		void *mark = (void *)(uintptr_t)(k + 1);
		if (fds[k].fd >= 0 && (fds[k].events & POLLIN))
			EV_SET(&changes[nc++], (uintptr_t)fds[k].fd, EVFILT_READ, flags, 0, 0, mark);
		if (fds[k].fd >= 0 && (fds[k].events & POLLOUT))
			EV_SET(&changes[nc++], (uintptr_t)fds[k].fd, EVFILT_WRITE, flags, 0, 0, mark);
	}
	return nc;
}

/* What kevent said of fds, as poll would have: the events that name one by its mark. */
static void readiness(const struct kevent *events, int got, struct pollfd *fds, size_t m)
{
	for (int i = 0; i < got; i++) {
		uintptr_t k = (uintptr_t)events[i].udata;
		if (k == 0 || k > m)
			continue; /* the self-pipe, or a watched exit */
		short *rev = &fds[k - 1].revents;
		if (events[i].flags & EV_ERROR)
			*rev |= POLLNVAL;
		else
			*rev |= events[i].filter == EVFILT_WRITE ? POLLOUT : POLLIN;
		if (events[i].flags & EV_EOF)
			*rev |= POLLHUP;
	}
}

/* Wait with kevent for the self-pipe (pipe, or -1), fds or a watched process's exit; the
 * descriptors' filters go once the wait is over, so that none outlives its wait. */
static bool wait_kevent(int pipe, struct pollfd *fds, size_t m, struct timespec *tsp)
{
	struct kevent changes[1 + 2 * CLOCK_MAX_FDS], events[1 + 2 * CLOCK_MAX_FDS];
	int nc = 0;
	if (pipe >= 0)
		EV_SET(&changes[nc++], (uintptr_t)pipe, EVFILT_READ, EV_ADD, 0, 0, NULL);
	int nfilters = filters(changes + nc, fds, m, EV_ADD | EV_ONESHOT);
	nc += nfilters;
	int got = kevent(kq, changes, nc, events, nc > 0 ? nc : 1, tsp);
	if (got < 0 && errno != EINTR)
		return false;
	readiness(events, got, fds, m);
	if (nfilters > 0) {
		struct timespec now = {0, 0};
		nc = filters(changes, fds, m, EV_DELETE);
		kevent(kq, changes, nc, events, nc, &now); /* the fired ones are gone: ENOENT */
	}
	return true;
}

/* The sleep: a kevent for the self-pipe, fds, or a watched process's exit; or poll where no
 * kqueue can be had (descriptor limit, or a forked child: kqueues are not inherited), which
 * handles the pipe and the sockets runlimit watches. */
void selfpipe_sleep(int pipe, struct pollfd *fds, size_t n, int64_t deadline)
{
	size_t m = n < CLOCK_MAX_FDS ? n : CLOCK_MAX_FDS;
	for (size_t k = 0; k < n; k++)
		fds[k].revents = 0;
	struct timespec ts, *tsp = clock_left(deadline, &ts);
	kq_open();
	if (kq >= 0 && (pipe >= 0 || m > 0)) {
		if (wait_kevent(pipe, fds, m, tsp))
			return;
		kq = -1;
	}
	selfpipe_poll(pipe, fds, n, deadline); /* without a pipe, a signal still interrupts it */
}

/* The tree: the libproc walk (walk.c holds the loop). */

/* xnu marks a process stopped (p_stat = SSTOP) when the stop is posted, before its threads
 * park, so one inside fork() may still create a child: two settled scans, a pause apart. */
const int tree_settle_scans = 2;
/* Not known to be otherwise on macOS: freeze first. */
const bool tree_fork_survives_kill = true;
bool tree_scan_short;

static struct tree_proc *seen;
static size_t nseen;

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

/* Take pid into the set if it can be read (and queue it to be expanded either way); never
 * runlimit or the guard (t->guard). */
static bool add(const struct target *t, struct tree_proc **set, size_t *n, struct queue *q,
                pid_t pid)
{
	struct tree_proc p;
	if (pid <= 0 || pid == getpid() || pid == t->guard || pid == t->hook)
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

long tree_scan(const struct target *t, struct tree_proc **out)
{
	struct tree_proc *set = NULL;
	size_t n = 0;
	pid_t *pids = NULL;
	struct queue q = {NULL, 0, 0};
	tree_scan_short = false;
	if (!t->reaped)
		add(t, &set, &n, &q, t->command);
	int ng = t->group > 0 ? list_pids(proc_listpgrppids, t->group, &pids) : 0;
	for (int k = 0; k < ng; k++)
		add(t, &set, &n, &q, pids[k]);
	for (size_t k = 0; k < nseen; k++) {
		struct tree_proc p;
		if (info(seen[k].pid, &p) && p.start == seen[k].start)
			add(t, &set, &n, &q, p.pid);
	}
	/* Breadth first: children of everything queued, which grows as it is walked.  A child
	 * of another user's process (below sudo) is listed but, being that user's, usually
	 * unreadable too: it is queued, not signalled.  What stays out of reach is said in the
	 * manual. */
	for (size_t i = 0; i < q.n; i++) {
		int nc = list_pids(proc_listchildpids, q.pids[i], &pids);
		for (int k = 0; k < nc; k++)
			add(t, &set, &n, &q, pids[k]);
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

long tree_kill_short(const struct target *t)
{
	(void)t;
	return -1; /* the final KILL here is a freeze, which never takes this way */
}

long tree_count_short(const struct target *t)
{
	(void)t;
	return -1; /* no reaper: nothing but a walk can tell */
}

long tree_scan_each(const struct target *t, struct tree_proc **out, tree_pick pick,
                    void *ctx)
{
	return tree_scan_then_send(t, out, pick, ctx);
}

bool tree_watch_exits(const struct target *t)
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

/* Mach time units to ns (nanoseconds on Intel, not on Apple silicon); -1 if unknown. */
static int64_t mach_ns(uint64_t t)
{
	mach_timebase_info_data_t tb;
	if (mach_timebase_info(&tb) != KERN_SUCCESS || !tb.denom)
		return -1;
	return (int64_t)(t / tb.denom * tb.numer + t % tb.denom * tb.numer / tb.denom);
}

/* The snapshot (walk.c's tree_snapshot finds the processes): libproc for the process, its
 * task's times and memory, KERN_PROCARGS2 for its arguments.  The walk skips zombies. */
static char state_of(uint32_t status)
{
	switch (status) {
	case SRUN: return 'R';
	case SSLEEP: return 'S';
	case SSTOP: return 'T';
	case SZOMB: return 'Z';
	case SIDL: return 'I';
	default: return '?';
	}
}

/* The arguments: KERN_PROCARGS2 gives argc, the executable's path, NULs, then argv. */
static void read_args(pid_t pid, struct snap_proc *s)
{
	static char *buf;
	static size_t size;
	struct snap_cut c;
	snap_args_begin(s, &c);
	if (!buf) {
		int argmax = 0;
		size_t len = sizeof argmax;
		int mib[2] = {CTL_KERN, KERN_ARGMAX};
		if (sysctl(mib, 2, &argmax, &len, NULL, 0) != 0 || argmax <= 0)
			return;
		buf = malloc((size_t)argmax);
		if (!buf)
			return;
		size = (size_t)argmax;
	}
	int mib[3] = {CTL_KERN, KERN_PROCARGS2, (int)pid};
	size_t len = size;
	int argc;
	if (sysctl(mib, 3, buf, &len, NULL, 0) != 0 || len < sizeof argc)
		return;
	memcpy(&argc, buf, sizeof argc);
	size_t at = sizeof argc;
	while (at < len && buf[at] != '\0')
		at++; /* the executable's path */
	while (at < len && buf[at] == '\0')
		at++;
	size_t end = at;
	for (int k = 0; k < argc && end < len; k++) {
		while (end < len && buf[end] != '\0')
			end++;
		if (end < len)
			end++;
	}
	snap_args_add(s, &c, buf + at, end - at);
	snap_args_end(s, &c);
}

int snap_describe(const struct tree_proc *p, struct snap_proc *s)
{
	pid_t pid = p->pid;
	uint64_t start = p->start;
	struct proc_taskallinfo ti;
	struct proc_bsdinfo bi;
	bool task = proc_pidinfo(pid, PROC_PIDTASKALLINFO, 0, &ti, (int)sizeof ti) == (int)sizeof ti;
	if (task)
		bi = ti.pbsd;
	else if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, (int)sizeof bi) != (int)sizeof bi)
		return 0;
	if (bi.pbi_start_tvsec * 1000000 + bi.pbi_start_tvusec != start)
		return 0; /* another process has its pid now */
	struct timeval now;
	gettimeofday(&now, NULL);
	int64_t born = (int64_t)bi.pbi_start_tvsec * 1000000000 + (int64_t)bi.pbi_start_tvusec * 1000;
	int64_t elapsed = (int64_t)now.tv_sec * 1000000000 + (int64_t)now.tv_usec * 1000 - born;
	*s = (struct snap_proc){.pid = pid, .ppid = (pid_t)bi.pbi_ppid, .pgid = (pid_t)bi.pbi_pgid,
	                        .state = state_of(bi.pbi_status), .elapsed = elapsed < 0 ? -1 : elapsed,
	                        .cpu = -1, .rss_kib = -1};
	if (task) {
		s->cpu = mach_ns(ti.ptinfo.pti_total_user + ti.ptinfo.pti_total_system);
		s->rss_kib = (int64_t)(ti.ptinfo.pti_resident_size / 1024);
	}
	read_args(pid, s);
	return 1;
}

/* The budgets' usage: proc_pid_rusage, whose v2 record has the children's times too.  A
 * process given p's pid since the walk would be measured in its place: a moment's error in
 * one measure, never a signal. */
bool tree_proc_usage(const struct tree_proc *p, struct tree_usage *one)
{
	struct rusage_info_v2 ri;
	if (proc_pid_rusage(p->pid, RUSAGE_INFO_V2, (rusage_info_t *)&ri) != 0)
		return false;
	int64_t used = mach_ns(ri.ri_user_time + ri.ri_system_time + ri.ri_child_user_time +
	                       ri.ri_child_system_time);
	if (used < 0)
		return false;
	one->figure[USAGE_MEMORY] = (int64_t)ri.ri_resident_size;
	one->figure[USAGE_PROCS] = 1;
	one->figure[USAGE_CPU] = used;
	return true;
}

int tree_usage(const struct target *t, struct tree_usage *u)
{
	return tree_usage_by_scan(t, u);
}

bool tree_usage_possible(void)
{
	return true;
}

/* Processor counts: the kernel's.  No affinity masks and no CPU quotas here. */
static unsigned long sysctl_count(const char *name)
{
	int n = 0;
	size_t len = sizeof n;
	if (sysctlbyname(name, &n, &len, NULL, 0) != 0 || len != sizeof n || n <= 0)
		return 0;
	return (unsigned long)n;
}

unsigned long ncpu_available(void)
{
	/* hw.activecpu leaves out processors the system has disabled; hw.ncpu does not. */
	unsigned long n = sysctl_count("hw.activecpu");
	if (n == 0)
		n = sysctl_count("hw.logicalcpu");
	if (n == 0)
		n = sysctl_count("hw.ncpu");
	return n;
}

unsigned long ncpu_installed(void)
{
	unsigned long n = sysctl_count("hw.ncpu"), available = ncpu_available();
	return n > available ? n : available;
}

/* Reopening: fcntl(F_GETPATH) gives the file's path, which another process could have
 * replaced since: what is opened must be the same file (device and inode) as fd's. */
int reopen_fd(int fd, int access)
{
	char path[MAXPATHLEN];
	struct stat was, is;
	if (fcntl(fd, F_GETPATH, path) < 0 || fstat(fd, &was) < 0)
		return -1;
	int again = open(path, access | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (again >= 0 && (fstat(again, &is) < 0 || is.st_dev != was.st_dev ||
	                   is.st_ino != was.st_ino)) {
		close(again);
		return -1;
	}
	return again;
}

int os_relay_signal(pid_t pid, int sig, int value)
{
	(void)value; /* no sigqueue(): runlimit knows only that the guard sent it */
	return kill(pid, sig);
}

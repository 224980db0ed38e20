/* Linux: runlimit is a child subreaper, so every orphan of the command's tree is re-parented
 * to it instead of init, and the tree can always be rebuilt from /proc: the command, the
 * children runlimit adopted, and their descendants.  /proc is used only when it is runlimit's
 * own: one mounted for another pid namespace names other processes by the same numbers. */
#define _GNU_SOURCE
#include "tree.h"
#include "tree_walk.h"
#include "guard.h"
#include "pidmap.h"
#include "grow.h"
#include "clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static pid_t self;

/* A process with a signal pending cannot finish fork() (copy_process starts it over), and
 * 'T' in /proc is set once the task has parked: one settled scan is enough. */
const int tree_settle_scans = 1;
/* copy_process fails when a fatal signal is pending: SIGKILL stops a fork in its tracks. */
const bool tree_fork_survives_kill = false;
bool tree_scan_short;
/* runlimit's children from before it started (its exec'ing parent's): never the command's.
 * Their start times too, since once reaped their pids can be reused inside the tree. */
static pid_t *preexisting;
static unsigned long long *preexisting_start;
static size_t npreexisting;

struct stat_fields {
	pid_t ppid, pgrp, session;
	char state;
	long threads;
	unsigned long long start;
};
static bool read_stat(pid_t pid, struct stat_fields *f);
static bool read_children(const char *path, pid_t **list, size_t *n, size_t *cap);

/* The cheap half of the test below: /proc/self names runlimit's pid. */
static bool proc_self_is_self(void)
{
	char link[32], want[32];
	ssize_t n = readlink("/proc/self", link, sizeof link - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	snprintf(want, sizeof want, "%d", (int)self);
	return strcmp(link, want) == 0;
}

/* Is /proc runlimit's own?  /proc/self must name runlimit's pid, and (where the kernel says)
 * runlimit must have one pid in /proc's namespace, not one per nested namespace: a /proc of
 * an ancestor namespace lists the host's processes under numbers that mean other processes
 * here.  Checked once, when first needed. */
static bool proc_is_ours(void)
{
	static int ours = -1;
	if (ours >= 0)
		return ours;
	ours = 0;
	if (!proc_self_is_self())
		return false;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *ns = strstr(buf, "\nNSpid:");
	if (ns) {
		char *end;
		long first = strtol(ns + 8, &end, 10);
		while (*end == ' ' || *end == '\t')
			end++;
		if (first != (long)self || *end != '\n')
			return false; /* more than one pid: /proc is an outer namespace's */
	}
	ours = 1;
	return true;
}

/* Do runlimit's children lists hold the whole tree?  Only where /proc is runlimit's own and
 * runlimit is a subreaper: otherwise an orphan of the tree goes to another reaper and no list
 * of runlimit's shows it (qemu-user, for one, does not pass PR_SET_CHILD_SUBREAPER on), so a
 * walk that finds nothing would not mean nothing is left.  Then the group is all there is,
 * as without /proc.  Asked once, after os_init. */
static bool walk_is_whole(void)
{
	static int whole = -1;
	if (whole < 0) {
		int on = 0;
		whole = proc_is_ours() && prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 && on;
	}
	return whole;
}

static bool is_preexisting(pid_t pid, unsigned long long start)
{
	for (size_t k = 0; k < npreexisting; k++)
		if (preexisting[k] == pid && preexisting_start[k] == start)
			return true;
	return false;
}

/* Read at start, before the command exists.  Usually there are none, and the cheap test of
 * /proc is enough to find that out. */
static void note_preexisting_children(void)
{
	/* No child at all (the usual case) is one system call away, without /proc. */
	siginfo_t si;
	if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT) < 0 &&
	    errno == ECHILD)
		return;
	if (!proc_self_is_self())
		return;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)self);
	pid_t *list = NULL;
	size_t n = 0, cap = 0;
	if (!read_children(path, &list, &n, &cap) || n == 0 || !proc_is_ours() ||
	    !(preexisting_start = calloc(n, sizeof *preexisting_start))) {
		free(list);
		return;
	}
	preexisting = list;
	for (size_t k = 0; k < n; k++) {
		struct stat_fields f;
		if (!read_stat(list[k], &f))
			continue; /* gone already: reaped, and its orphans are handled by the rule
			             in scan_children */
		preexisting[npreexisting] = list[k];
		preexisting_start[npreexisting++] = f.start;
	}
}

void tree_init(pid_t runlimit)
{
	self = runlimit;
	note_preexisting_children();
}

/* Read /proc/PID/stat.  The command name (field 2) may hold spaces and parentheses, so
 * parse from the last ')'. */
static bool read_stat(pid_t pid, struct stat_fields *f)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p)
		return false;
	int parent, group, session;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	 * cutime cstime priority nice threads itrealvalue starttime */
	if (sscanf(p + 1, " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld %*d %llu",
	           &f->state, &parent, &group, &session, &f->threads, &f->start) != 6)
		return false;
	f->ppid = parent;
	f->pgrp = group;
	f->session = session;
	return true;
}

/* A live process into *p, keeping p->in_tree; false if it is gone.  A zombie main thread
 * with other threads still running (it called pthread_exit) is alive. */
static bool read_live(pid_t pid, struct tree_proc *p, long *threads)
{
	struct stat_fields f;
	if (!read_stat(pid, &f) || f.state == 'X' || (f.state == 'Z' && f.threads <= 1))
		return false;
	p->pid = pid;
	p->ppid = f.ppid;
	p->pgid = f.pgrp;
	p->sid = f.session;
	p->start = f.start;
	p->stopped = f.state == 'T' || f.state == 't';
	*threads = f.threads;
	return true;
}

static bool push(struct tree_proc **procs, size_t *n, size_t *cap, const struct tree_proc *p)
{
	if (!grow(procs, *n, cap, sizeof **procs)) {
		tree_scan_short = true;
		return false;
	}
	(*procs)[(*n)++] = *p;
	return true;
}

/* Append the pids listed in a /proc/.../children file ("12 34 ") to *list. */
static bool read_children(const char *path, pid_t **list, size_t *n, size_t *cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char *text = NULL;
	size_t len = 0, size = 0;
	for (;;) {
		if (size - len < 1024) {
			size_t bigger = size ? size * 2 : 4096;
			char *grown = realloc(text, bigger);
			if (!grown) {
				tree_scan_short = true;
				break;
			}
			text = grown;
			size = bigger;
		}
		ssize_t got = read(fd, text + len, size - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (!text)
		return false;
	text[len] = '\0';
	for (char *p = text, *end;; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p || pid <= 0)
			break;
		if (!grow(list, *n, cap, sizeof **list)) {
			tree_scan_short = true;
			break;
		}
		(*list)[(*n)++] = (pid_t)pid;
	}
	free(text);
	return true;
}

/* The children of every thread of pid. */
static void children_of(pid_t pid, long threads, pid_t **list, size_t *n, size_t *cap)
{
	char path[64];
	if (threads == 1) {
		snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
		read_children(path, list, n, cap);
		return;
	}
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char file[320];
		snprintf(file, sizeof file, "/proc/%d/task/%s/children", (int)pid, e->d_name);
		read_children(file, list, n, cap);
	}
	closedir(dir);
}

static bool has_children_files(void)
{
	static int known = -1;
	if (known < 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)self);
		known = access(path, R_OK) == 0;
	}
	return known;
}

/* A process listed in a children file, and the parent it was listed under. */
struct listed {
	pid_t pid, parent;
};

/* Append to queue[*n...] the pids of list[0..m) it does not hold yet (seen: those it
 * holds), each with the parent it was listed under; how many were new.  Newest first: the
 * kernel lists children oldest first, and a process that keeps forking (or hands over to a
 * fresh copy of itself, orphaned to runlimit) is among the newest, which a walk in list
 * order would reach only after every older sibling, however many. */
static size_t add_unseen(struct listed **queue, size_t *n, size_t *cap, struct pidmap *seen,
                         const pid_t *list, size_t m, pid_t parent)
{
	size_t added = 0;
	for (size_t k = m; k-- > 0;) {
		/* Re-parented between two reads, a pid can be listed twice. */
		if (pidmap_get(seen, list[k]) >= 0)
			continue;
		if (!pidmap_put(seen, list[k], 1) || !grow(queue, *n, cap, sizeof **queue)) {
			tree_scan_short = true;
			break;
		}
		(*queue)[(*n)++] = (struct listed){list[k], parent};
		added++;
	}
	return added;
}

/* Is a child of runlimit (other than the command) one of the command's orphans?  As a
 * subreaper runlimit adopts every orphan below it, but if it inherited children from the
 * shell that exec'd it, their orphans are adopted too, and nothing tells the two apart but
 * the process group: then only orphans still in the command's group count. */
static bool adopted_is_commands(const struct tree_target *t, const struct tree_proc *p)
{
	if (is_preexisting(p->pid, p->start))
		return false;
	return npreexisting == 0 || (t->group > 0 && p->pgid == t->group);
}

/* Is pid a child of runlimit's that has died (a zombie, not reaped)?  One system call,
 * against three and a /proc lookup for reading its stat: after a kill, runlimit's list
 * holds every orphan of the tree, dead, until runlimit exits. */
static bool child_is_dead(pid_t pid)
{
	siginfo_t info;
	info.si_pid = 0;
	return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	       info.si_pid == pid;
}

/* While tree_scan_dead asks for them: note pid, listed under parent, if it is a dead
 * process of the tree (a zombie; its stat is still there to say which one). */
static void note_dead(const struct tree_target *t, pid_t pid, pid_t parent)
{
	struct stat_fields f;
	if (!tree_scan_dead || !read_stat(pid, &f) || f.state != 'Z')
		return;
	if (f.ppid != parent && f.ppid != self)
		return; /* another process by now */
	struct tree_proc p = {.pid = pid, .ppid = f.ppid, .pgid = f.pgrp, .start = f.start};
	if (f.ppid == self && !(pid == t->command && !t->reaped) && !adopted_is_commands(t, &p))
		return;
	tree_seen_add(tree_scan_dead, pid, f.start);
}

/* A pidfd for pid, taken before the process is read (see scan_children); HANDLE_GONE if
 * the process is gone, -1 if there is none to be had (no pidfds, or no descriptor left):
 * then the signal goes through tree_send's re-check. */
#define HANDLE_GONE (-2)
static int open_handle(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0 && errno == ESRCH)
		return HANDLE_GONE;
	return fd;
#else
	(void)pid;
	return -1;
#endif
}

static void send_by_handle(int handle, const struct tree_proc *p, int sig)
{
#ifdef SYS_pidfd_open
	/* ESRCH: the handle's process died before it was read, and p may describe a process
	 * that took its pid since; tree_send signals that one if its start time matches. */
	if (handle >= 0 && (syscall(SYS_pidfd_send_signal, handle, sig, NULL, 0) == 0 || errno != ESRCH))
		return;
#endif
	tree_send(p, sig);
}

/* The tree as the kernel links it: runlimit's children (not the guard, not those it was
 * born with) and their descendants, breadth first.  As a subreaper runlimit inherits every
 * orphan, so nothing of the tree hangs anywhere else, and only the tree is read: a handful
 * of files for a small command, however many processes the system runs.  A process whose
 * parent dies during the walk moves to runlimit's own list, which is therefore read again
 * at the end, until it holds nothing new. */
/* How often runlimit's own list is read again for orphans new since the last reading. */
#define SCAN_PASSES 100

struct walk {
	const struct tree_target *t;
	tree_pick pick;
	void *ctx;
	struct listed *queue; /* what is listed, in the order found */
	size_t n, cap;
	pid_t *list;          /* a children file's pids */
	size_t nlist, list_cap;
	struct pidmap seen;   /* what the queue holds */
	struct tree_proc *procs;
	size_t nprocs, procs_cap;
};

/* Is the process read (p, listed as pid under parent) still the one that was listed, not a
 * later one given its pid?  Its parent is the one it was listed under, or runlimit, which
 * adopts orphans, and then only if it is the command's (see adopted_is_commands). */
static bool still_listed(const struct tree_target *t, pid_t pid, pid_t parent,
                         const struct tree_proc *p)
{
	if (p->ppid != parent && p->ppid != self)
		return false;
	return p->ppid != self || (pid == t->command && !t->reaped) || adopted_is_commands(t, p);
}

/* One listed process: read it, signal it if asked, and list its children. */
static void visit(struct walk *w, pid_t pid, pid_t parent)
{
	if (parent == self && child_is_dead(pid)) {
		note_dead(w->t, pid, self);
		return; /* a zombie of runlimit's: no /proc read needed to know it */
	}
	/* With a signal to send, the handle first: what is read next is then the process the
	 * handle holds, and the signal needs no second read. */
	int handle = w->pick ? open_handle(pid) : -1;
	if (handle == HANDLE_GONE)
		return;
	struct tree_proc p = {.in_tree = true};
	long threads;
	bool alive = read_live(pid, &p, &threads);
	if (!alive)
		note_dead(w->t, pid, parent);
	if (alive && still_listed(w->t, pid, parent, &p)) {
		/* Short of memory for the list, the process is still signalled and its children
		 * still walked (tree_scan_short says the list is short). */
		push(&w->procs, &w->nprocs, &w->procs_cap, &p);
		/* The signal first, then the children: a fork cannot complete once SIGKILL is
		 * pending, so the list read after it holds every child the process will ever
		 * have (and if it has died meanwhile, they are in runlimit's own list, which is
		 * read again). */
		int sig = w->pick ? w->pick(&p, w->ctx) : 0;
		if (sig > 0)
			send_by_handle(handle, &p, sig);
		w->nlist = 0;
		children_of(pid, threads, &w->list, &w->nlist, &w->list_cap);
		add_unseen(&w->queue, &w->n, &w->cap, &w->seen, w->list, w->nlist, pid);
	}
	if (handle >= 0)
		close(handle);
}

static long scan_children(const struct tree_target *t, struct tree_proc **out, tree_pick pick,
                          void *ctx)
{
	struct walk w = {.t = t, .pick = pick, .ctx = ctx, .seen = {NULL, 0, 0}};
	char self_children[64];
	snprintf(self_children, sizeof self_children, "/proc/self/task/%d/children", (int)self);
	size_t i = 0;
	pid_t guard = guard_pid();
	tree_scan_short = false;
	for (int pass = 0; pass < SCAN_PASSES; pass++) {
		w.nlist = 0;
		read_children(self_children, &w.list, &w.nlist, &w.list_cap);
		if (add_unseen(&w.queue, &w.n, &w.cap, &w.seen, w.list, w.nlist, self) == 0 &&
		    pass > 0)
			break;
		for (; i < w.n; i++)
			if (w.queue[i].pid != self && w.queue[i].pid != guard)
				visit(&w, w.queue[i].pid, w.queue[i].parent);
	}
	free(w.queue);
	free(w.list);
	pidmap_free(&w.seen);
	*out = w.procs;
	return (long)w.nprocs;
}

long tree_scan(const struct tree_target *t, struct tree_proc **out)
{
	tree_scan_short = false;
	if (!walk_is_whole())
		return -1; /* no /proc, another namespace's, or no subreaper: the group is all */
	if (has_children_files())
		return scan_children(t, out, NULL, NULL);
	/* No children files (a kernel without CONFIG_PROC_CHILDREN): every process is read. */
	DIR *dir = opendir("/proc");
	if (!dir)
		return -1;
	struct tree_proc *procs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	pid_t guard = guard_pid();
	while ((e = readdir(dir))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self || pid == guard)
			continue;
		struct tree_proc p;
		long threads;
		if (!read_live((pid_t)pid, &p, &threads))
			continue;
		p.in_tree = (!t->reaped && p.pid == t->command) ||
		            (t->group > 0 && p.pgid == t->group) ||
		            (p.ppid == self && adopted_is_commands(t, &p));
		if (!push(&procs, &n, &cap, &p))
			break;
	}
	closedir(dir);
	tree_close_over_parents(procs, n);
	*out = procs;
	return (long)n;
}

static bool out_of_descriptors(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/* Signal the process only if it is still the one scanned: through a pidfd where the kernel
 * has them (no window at all), else after re-checking its start time.  Short of a second
 * descriptor, the pidfd is given up for the re-check alone: a signal is not skipped for want
 * of one (the scan itself needed one, so one is there). */
void tree_send(const struct tree_proc *p, int sig)
{
	struct stat_fields f;
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	if (fd >= 0) {
		bool same = read_stat(p->pid, &f);
		int err = errno;
		if (same && f.start == p->start) {
			syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
			close(fd);
			return;
		}
		close(fd);
		if (same || !out_of_descriptors(err))
			return; /* another process now, or gone */
	} else if (errno == ESRCH) {
		return; /* gone */
	}
#endif
	if (read_stat(p->pid, &f) && f.start == p->start)
		kill(p->pid, sig);
}

long tree_scan_each(const struct tree_target *t, struct tree_proc **out, tree_pick pick,
                    void *ctx)
{
	if (walk_is_whole() && has_children_files())
		return scan_children(t, out, pick, ctx);
	return tree_scan_then_send(t, out, pick, ctx); /* the tree is known only at the end */
}

/* Call fn for every pid listed in a /proc/.../children file, reading it through a fixed
 * buffer: no memory is allocated.  False if the file cannot be opened. */
static bool each_child(const char *path, void (*fn)(pid_t, void *), void *ctx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[256];
	long pid = 0;
	for (;;) {
		ssize_t got = read(fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		for (ssize_t k = 0; k < got; k++) {
			if (buf[k] >= '0' && buf[k] <= '9' && pid < 1L << 30) {
				pid = pid * 10 + (buf[k] - '0');
			} else if (pid > 0) {
				fn((pid_t)pid, ctx); /* a number cut by the read's end goes on above */
				pid = 0;
			}
		}
	}
	if (pid > 0)
		fn((pid_t)pid, ctx);
	close(fd);
	return true;
}

struct short_kill {
	const struct tree_target *t;
	pid_t parent;
	long alive;
};

/* A child of a process the fallback killed: KILLed too, through tree_send's checks. */
static void kill_grandchild(pid_t pid, void *ctx)
{
	struct short_kill *k = ctx;
	struct tree_proc p;
	long threads;
	if (read_live(pid, &p, &threads) && p.ppid == k->parent)
		tree_send(&p, SIGKILL);
}

/* A child of runlimit's: if it is alive and the command's, KILLed (an unreaped child's pid
 * cannot have been reused: no check needed), then its own children. */
static void kill_adopted(pid_t pid, void *ctx)
{
	struct short_kill *k = ctx;
	if (pid == self || pid == guard_pid() || child_is_dead(pid))
		return;
	struct tree_proc p = {.in_tree = true};
	long threads;
	if (!read_live(pid, &p, &threads) || p.ppid != self)
		return;
	if (!(pid == k->t->command && !k->t->reaped) && !adopted_is_commands(k->t, &p))
		return;
	k->alive++;
	kill(pid, SIGKILL);
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	struct short_kill below = {k->t, pid, 0};
	each_child(path, kill_grandchild, &below);
}

/* Without memory: as a subreaper runlimit adopts whatever of the tree outlives its parent,
 * so killing its own children (and theirs) and looking again until none is alive reaches
 * every process, a level further each time a killed parent dies.  When none of runlimit's
 * children is alive, nothing of the tree is. */
long tree_kill_short(const struct tree_target *t)
{
	if (!walk_is_whole())
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)self);
	struct short_kill k = {t, self, 0};
	struct timespec pause = {0, 1000000};
	int64_t give_up = clock_now() + TREE_GIVE_UP;
	for (;;) {
		k.alive = 0;
		if (!each_child(path, kill_adopted, &k))
			return -1;
		if (k.alive == 0 || clock_now() >= give_up)
			return k.alive;
		nanosleep(&pause, NULL);
	}
}

bool tree_watch_exits(const struct tree_target *t)
{
	/* As a subreaper runlimit is the parent, or becomes it, of whatever of the tree dies
	 * last: SIGCHLD tells it, with or without /proc.  Not being one, nothing tells it. */
	(void)t;
	int on = 0;
	return prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 && on;
}

/* Linux: runlimit is a child subreaper, so every orphan of the command's tree is re-parented
 * to it instead of init, and while it is one the tree can always be rebuilt from /proc: the
 * command, the children runlimit adopted, and their descendants.  Without the subreaper
 * (qemu-user refuses the prctl) the group is all there is.  /proc is used only when it is
 * runlimit's own: one mounted for another pid namespace names other processes by the same
 * numbers. */
#define _GNU_SOURCE
#include "os.h"
#include "walk.h"
#include "pidmap.h"
#include "grow.h"
#include "linux_stat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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
/* runlimit had children at the start, but they could not be read (no descriptor left). */
static bool preexisting_unread;

/* The start time of a process that could not be read: a pid taken for a child of runlimit's
 * only (which cannot be reused while unreaped), matched by pid alone where that is safe. */
#define START_UNKNOWN UINT64_MAX

/* What a read of /proc found: the process, no such process (or no longer the one listed),
 * or nothing for want of a descriptor or memory, which never means that it is gone. */
enum got { GOT, GONE, BLIND };

static enum got read_stat(pid_t pid, struct stat_fields *f);
static bool read_children(const char *path, pid_t **list, size_t *n, size_t *cap);

/* The scan under way may miss processes: a read failed for want of err. */
static void short_of(int err)
{
	tree_scan_short = true;
	if (!tree_scan_why || err != ENOMEM)
		tree_scan_why = stat_wanting(err) ? err : ENOMEM;
}

static void scan_begins(void)
{
	tree_scan_short = false;
	tree_scan_why = 0;
}

/* runlimit's own children list, held open from the start where descriptors are plenty (a
 * limit of at least OWN_LIST_ROOM), -1 otherwise: through it runlimit can still list (and
 * kill, level by level: see tree_kill_short) the command's tree when no descriptor is left,
 * as when the limit is lowered under a running runlimit (prlimit).  A limit counts
 * descriptor numbers, not descriptors, so a spare closed to make room would not help there;
 * where closing it does make room (its number is below the limit), it is lent for one read
 * and taken back at once. */
static int own_list = -1;
static char own_path[64];
/* /proc/self/status, opened with own_list and read at the first walk (proc_is_ours), then
 * closed: the kernel makes the file's text when it is read, some 10-20 µs that a run ending
 * by itself then never pays, and the read needs no descriptor that may be gone by then. */
static int status_fd = -1;
static int proc_ours = -1; /* proc_is_ours's answer, once known */
#define OWN_LIST_ROOM 64
/* While each_child reads own_list, it is not lent (its callbacks read other files). */
static bool own_list_busy;

/* Open a file of /proc for reading; out of descriptors, with the room that lending
 * own_list makes (*lent: give it back with proc_close). */
static int proc_open(const char *path, bool *lent)
{
	*lent = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != EMFILE || own_list < 0 || own_list_busy)
		return fd;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || (rlim_t)own_list >= rl.rlim_cur) {
		errno = EMFILE;
		return -1; /* no room below the limit would come of closing it */
	}
	close(own_list);
	own_list = -1;
	*lent = true;
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void give_back(bool lent)
{
	int err = errno;
	if (lent && own_list < 0)
		own_list = open(own_path, O_RDONLY | O_CLOEXEC);
	errno = err;
}

static void proc_close(int fd, bool lent)
{
	if (fd >= 0)
		close(fd);
	give_back(lent);
}

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
 * here.  Checked once, when first needed (through status_fd where tree_started opened it): 1
 * yes, 0 no, -1 (errno set) if it cannot be told now for want of a descriptor or memory,
 * which is not remembered. */
static int proc_is_ours(void)
{
	if (proc_ours >= 0)
		return proc_ours;
	if (!proc_self_is_self())
		return proc_ours = 0;
	int fd = status_fd >= 0 ? status_fd : open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	status_fd = -1;
	if (fd < 0)
		return stat_wanting(errno) ? -1 : (proc_ours = 0);
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	int err = errno;
	close(fd);
	if (n < 0 && err == ENOMEM) {
		errno = err;
		return -1;
	}
	if (n <= 0)
		return proc_ours = 0;
	buf[n] = '\0';
	const char *ns = strstr(buf, "\nNSpid:");
	if (ns) {
		char *end;
		long first = strtol(ns + 8, &end, 10);
		while (*end == ' ' || *end == '\t')
			end++;
		if (first != (long)self || *end != '\n')
			return proc_ours = 0; /* more than one pid: /proc is an outer namespace's */
	}
	return proc_ours = 1;
}

/* Do runlimit's children lists hold the whole tree?  Only where /proc is runlimit's own and
 * runlimit is a subreaper: otherwise an orphan of the tree goes to another reaper and no list
 * of runlimit's shows it (qemu-user, for one, does not pass PR_SET_CHILD_SUBREAPER on), so a
 * walk that finds nothing would not mean nothing is left.  Then the group is all there is,
 * as without /proc.  Asked once, after os_init: 1 yes, 0 no, -1 (errno set) if it cannot be
 * told now for want of a descriptor (see proc_is_ours). */
static int walk_state(void)
{
	static int whole = -1;
	if (whole < 0) {
		int ours = proc_is_ours();
		if (ours < 0)
			return -1;
		int on = 0;
		whole = ours && prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 && on;
	}
	return whole;
}

static bool walk_is_whole(void)
{
	return walk_state() == 1;
}

/* One of the children runlimit had at the start (a start time not known matches any). */
static bool is_preexisting(pid_t pid, uint64_t start)
{
	for (size_t k = 0; k < npreexisting; k++)
		if (preexisting[k] == pid && (start == START_UNKNOWN || preexisting_start[k] == start))
			return true;
	return false;
}

/* Must an orphan runlimit adopted be told apart from the command's?  Where runlimit inherited
 * children (their orphans come to it too), and where it is PID 1 of a pid namespace, to
 * which every orphan of the namespace comes: a process entered into it from outside
 * (nsenter, docker exec, kubectl exec) whose parent exits is re-parented to runlimit as
 * the command's orphans are.  Elsewhere every orphan it adopts is of the command's tree. */
static bool orphans_mixed(void)
{
	return npreexisting > 0 || preexisting_unread || self == 1;
}

/* Where orphans are mixed: the processes walks found to be the command's (by pid and start
 * time), so that one found before it was orphaned is still the command's after. */
static struct tree_id *found;
static size_t nfound, found_cap;
static struct pidmap found_index;

static void note_known(const struct tree_proc *p)
{
	if (!orphans_mixed() || p->start == START_UNKNOWN)
		return;
	long k = pidmap_get(&found_index, p->pid);
	if (k >= 0) {
		found[k].start = p->start; /* a reused pid: the later process is the command's too */
		return;
	}
	if (grow(&found, nfound, &found_cap, sizeof *found) &&
	    pidmap_put(&found_index, p->pid, (long)nfound))
		found[nfound++] = (struct tree_id){p->pid, p->start};
}

static bool is_known(const struct tree_proc *p)
{
	long k = pidmap_get(&found_index, p->pid);
	return k >= 0 && p->start != START_UNKNOWN && found[k].start == p->start;
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
	/* Children there are, so when they cannot be read, orphans are told apart as if they
	 * had been (see adopted_is_commands). */
	preexisting_unread = true;
	if (!proc_self_is_self())
		return;
	pid_t *list = NULL;
	size_t n = 0, cap = 0;
	tree_scan_short = false;
	if (!read_children(own_path, &list, &n, &cap) || tree_scan_short || proc_is_ours() != 1 ||
	    !(preexisting_start = calloc(n ? n : 1, sizeof *preexisting_start))) {
		free(list);
		return;
	}
	preexisting = list;
	for (size_t k = 0; k < n; k++) {
		struct stat_fields f;
		enum got got = read_stat(list[k], &f);
		if (got == BLIND) {
			npreexisting = 0;
			return;
		}
		if (got == GONE)
			continue; /* gone already: reaped, and its orphans are handled by the rule
			             in scan_children */
		preexisting[npreexisting] = list[k];
		preexisting_start[npreexisting++] = f.start;
	}
	preexisting_unread = false;
}

/* Keep own_list open if descriptors are plenty: under a small limit (ulimit -n 4) the one
 * slot left is the walk's.  Whether /proc is runlimit's own is found out at the first walk,
 * through status_fd, opened now while a descriptor is there to read it with (the readlink of
 * /proc/self now, and the list not held where that already says no).  After the fork: the
 * command's exec does not wait for it, and the command never holds either. */
void tree_started(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
	    (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < OWN_LIST_ROOM))
		return;
	/* Not where the answer is known already (a budget measured by the walk asked before the
	 * command started), nor where the cheap half of the test says no. */
	if (proc_ours < 0 && proc_self_is_self())
		status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (proc_ours == 1 || status_fd >= 0)
		own_list = open(own_path, O_RDONLY | O_CLOEXEC);
}

void tree_init(pid_t runlimit)
{
	self = runlimit;
	snprintf(own_path, sizeof own_path, "/proc/self/task/%d/children", (int)self);
	note_preexisting_children();
}

/* Read /proc/PID/stat (linux_stat.h).  BLIND (errno saying why) for want of a descriptor or
 * memory. */
static enum got read_stat(pid_t pid, struct stat_fields *f)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	bool lent;
	int fd = proc_open(path, &lent);
	if (fd < 0) {
		give_back(lent);
		return stat_wanting(errno) ? BLIND : GONE;
	}
	ssize_t n = read(fd, buf, sizeof buf - 1);
	int err = errno;
	proc_close(fd, lent);
	if (n < 0 && err == ENOMEM) {
		errno = err;
		return BLIND;
	}
	if (n <= 0)
		return GONE;
	buf[n] = '\0';
	return stat_parse(buf, f) ? GOT : GONE;
}

/* A live process into *p, keeping p->in_tree; GONE if it is gone.  A zombie main thread
 * with other threads still running (it called pthread_exit) is alive. */
static enum got read_live(pid_t pid, struct tree_proc *p, long *threads)
{
	struct stat_fields f;
	enum got got = read_stat(pid, &f);
	if (got != GOT)
		return got;
	if (f.state == 'X' || (f.state == 'Z' && f.threads <= 1))
		return GONE;
	p->pid = pid;
	p->ppid = f.ppid;
	p->pgid = f.pgrp;
	p->sid = f.session;
	p->start = f.start;
	p->stopped = f.state == 'T' || f.state == 't';
	p->state = f.state;
	p->cpu_ticks = f.utime + f.stime;
	p->rss_pages = f.rss;
	p->arg_start = f.arg_start;
	p->arg_end = f.arg_end;
	p->reaped_ticks = f.cutime + f.cstime;
	*threads = f.threads;
	return GOT;
}

/* A live child of runlimit's that could not be read: what can be known of it without a
 * descriptor.  Its pid is safe to signal until runlimit reaps it; its start time is not
 * known. */
static void blind_child(pid_t pid, struct tree_proc *p)
{
	p->pid = pid;
	p->ppid = self;
	p->pgid = getpgid(pid);
	p->sid = getsid(pid);
	p->start = START_UNKNOWN;
	p->stopped = false;
	p->state = 0;
}

static bool push(struct tree_proc **procs, size_t *n, size_t *cap, const struct tree_proc *p)
{
	if (!grow(procs, *n, cap, sizeof **procs)) {
		short_of(ENOMEM);
		return false;
	}
	(*procs)[(*n)++] = *p;
	return true;
}

/* Append the pids listed in a /proc/.../children file ("12 34 ") to *list (runlimit's own
 * through own_list where it is held).  False if it cannot be read: gone, or for want of a
 * descriptor or memory (then the scan is short). */
static bool read_children(const char *path, pid_t **list, size_t *n, size_t *cap)
{
	bool lent = false, held = own_list >= 0 && strcmp(path, own_path) == 0;
	int fd = held ? own_list : proc_open(path, &lent);
	if (fd < 0) {
		if (stat_wanting(errno))
			short_of(errno);
		give_back(lent);
		return false;
	}
	char *text = NULL;
	size_t len = 0, size = 0;
	for (;;) {
		if (size - len < 1024) {
			size_t bigger = size ? size * 2 : 4096;
			char *grown = realloc(text, bigger);
			if (!grown) {
				short_of(ENOMEM);
				break;
			}
			text = grown;
			size = bigger;
		}
		ssize_t got = pread(fd, text + len, size - len - 1, (off_t)len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == ENOMEM)
			short_of(ENOMEM);
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	if (!held)
		proc_close(fd, lent);
	if (!text)
		return false;
	text[len] = '\0';
	for (char *p = text, *end;; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p || pid <= 0)
			break;
		if (!grow(list, *n, cap, sizeof **list)) {
			short_of(ENOMEM);
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
	if (!dir) {
		if (stat_wanting(errno))
			short_of(errno);
		return;
	}
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
	if (known < 0)
		known = access(own_path, R_OK) == 0;
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
			short_of(ENOMEM);
			break;
		}
		(*queue)[(*n)++] = (struct listed){list[k], parent};
		added++;
	}
	return added;
}

/* Is a child of runlimit (other than the command) one of the command's orphans?  As a
 * subreaper runlimit adopts every orphan below it, but if it inherited children from the
 * shell that exec'd it, their orphans are adopted too, and as PID 1 of a pid namespace so
 * are those of processes entered from outside (see orphans_mixed).  Then nothing tells the
 * two apart but the process group and what earlier walks saw: only an orphan still in the
 * command's group, or found as the command's before it was orphaned, counts.  When in
 * doubt, runlimit does not signal. */
static bool adopted_is_commands(const struct target *t, const struct tree_proc *p)
{
	if (is_preexisting(p->pid, p->start))
		return false;
	return !orphans_mixed() || (t->group > 0 && p->pgid == t->group) || is_known(p);
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

/* Is the process read (p, listed as pid under parent) still the one that was listed, not a
 * later one given its pid?  Its parent is the one it was listed under, or runlimit, which
 * adopts orphans, and then only if it is the command's (see adopted_is_commands). */
static bool still_listed(const struct target *t, pid_t pid, pid_t parent,
                         const struct tree_proc *p)
{
	if (p->ppid != parent && p->ppid != self)
		return false;
	return p->ppid != self || (pid == t->command && !t->reaped) || adopted_is_commands(t, p);
}

/* While tree_scan_dead asks for them: note pid, listed under parent, if it is a dead
 * process of the tree (a zombie; its stat is still there to say which one). */
static void note_dead(const struct target *t, pid_t pid, pid_t parent)
{
	struct stat_fields f;
	if (!tree_scan_dead || read_stat(pid, &f) != GOT || f.state != 'Z')
		return;
	struct tree_proc p = {.pid = pid, .ppid = f.ppid, .pgid = f.pgrp, .start = f.start};
	if (still_listed(t, pid, parent, &p)) /* not another process by now */
		tree_seen_add(tree_scan_dead, pid, f.start);
}

/* A pidfd for pid, taken before the process is read (see scan_children); HANDLE_GONE if
 * the process is gone, -1 if there is none to be had (no pidfds, or no descriptor left):
 * then the signal goes through tree_send's re-check.  Never lent own_list's room: the read
 * that follows needs a descriptor more than the handle does. */
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
	const struct target *t;
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

/* One listed process: read it, signal it if asked, and list its children.  A child of
 * runlimit's needs no handle: unreaped, its pid cannot be given to another process. */
static void visit(struct walk *w, pid_t pid, pid_t parent)
{
	bool own = parent == self;
	if (own && child_is_dead(pid)) {
		note_dead(w->t, pid, self);
		return; /* a zombie of runlimit's: no /proc read needed to know it */
	}
	/* With a signal to send, the handle first: what is read next is then the process the
	 * handle holds, and the signal needs no second read. */
	int handle = w->pick && !own ? open_handle(pid) : -1;
	if (handle == HANDLE_GONE)
		return;
	struct tree_proc p = {.in_tree = true};
	long threads = 1;
	enum got got = read_live(pid, &p, &threads);
	if (got == BLIND && handle >= 0) {
		close(handle); /* the handle took the last descriptor: read without it */
		handle = -1;
		got = read_live(pid, &p, &threads);
	}
	if (got == BLIND) {
		/* Never taken for gone.  Another's child cannot be told from a later process
		 * given its pid: it is left for now, and reached once its parent dies and it
		 * comes to runlimit (tree_kill_short, after the final KILL). */
		short_of(errno);
		if (!own)
			return;
		blind_child(pid, &p);
	}
	if (got == GONE)
		note_dead(w->t, pid, parent);
	if (got != GONE && still_listed(w->t, pid, parent, &p)) {
		/* Short of memory for the list, the process is still signalled and its children
		 * still walked (tree_scan_short says the list is short). */
		push(&w->procs, &w->nprocs, &w->procs_cap, &p);
		note_known(&p);
		/* The signal first, then the children: a fork cannot complete once SIGKILL is
		 * pending, so the list read after it holds every child the process will ever
		 * have (and if it has died meanwhile, they are in runlimit's own list, which is
		 * read again). */
		int sig = w->pick ? w->pick(&p, w->ctx) : 0;
		if (sig > 0 && own)
			kill(pid, sig);
		else if (sig > 0)
			send_by_handle(handle, &p, sig);
		if (handle >= 0)
			close(handle); /* before the children are read: one descriptor more */
		handle = -1;
		w->nlist = 0;
		if (got == GOT)
			children_of(pid, threads, &w->list, &w->nlist, &w->list_cap);
		add_unseen(&w->queue, &w->n, &w->cap, &w->seen, w->list, w->nlist, pid);
	}
	if (handle >= 0)
		close(handle);
}

static long scan_children(const struct target *t, struct tree_proc **out, tree_pick pick,
                          void *ctx)
{
	struct walk w = {.t = t, .pick = pick, .ctx = ctx, .seen = {NULL, 0, 0}};
	size_t i = 0;
	pid_t guard = t->guard;
	scan_begins();
	for (int pass = 0; pass < SCAN_PASSES; pass++) {
		w.nlist = 0;
		read_children(own_path, &w.list, &w.nlist, &w.list_cap);
		if (add_unseen(&w.queue, &w.n, &w.cap, &w.seen, w.list, w.nlist, self) == 0 &&
		    pass > 0)
			break;
		for (; i < w.n; i++)
			if (w.queue[i].pid != self && w.queue[i].pid != guard &&
			    w.queue[i].pid != t->hook)
				visit(&w, w.queue[i].pid, w.queue[i].parent);
	}
	free(w.queue);
	free(w.list);
	pidmap_free(&w.seen);
	*out = w.procs;
	return (long)w.nprocs;
}

long tree_scan(const struct target *t, struct tree_proc **out)
{
	scan_begins();
	int whole = walk_state();
	if (whole == 0)
		return -1; /* no /proc, another namespace's, or no subreaper: the group is all */
	if (whole < 0) {
		short_of(errno); /* not even that can be told now */
		*out = NULL;
		return 0;
	}
	if (has_children_files())
		return scan_children(t, out, NULL, NULL);
	/* No children files (a kernel without CONFIG_PROC_CHILDREN): every process is read. */
	DIR *dir = opendir("/proc");
	if (!dir)
		return -1;
	struct tree_proc *procs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	pid_t guard = t->guard;
	while ((e = readdir(dir))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self || pid == guard || pid == t->hook)
			continue;
		struct tree_proc p;
		long threads;
		enum got got = read_live((pid_t)pid, &p, &threads);
		if (got == BLIND)
			short_of(errno);
		if (got != GOT)
			continue;
		p.in_tree = (!t->reaped && p.pid == t->command) ||
		            (t->group > 0 && p.pgid == t->group) ||
		            (p.ppid == self && adopted_is_commands(t, &p));
		if (!push(&procs, &n, &cap, &p))
			break;
	}
	closedir(dir);
	tree_close_over_parents(procs, n);
	for (size_t k = 0; k < n; k++)
		if (procs[k].in_tree)
			note_known(&procs[k]);
	*out = procs;
	return (long)n;
}

/* Signal the process only if it is still the one scanned: a child of runlimit's at once
 * (unreaped, its pid cannot have been reused: the scan and this send are one step of
 * runlimit's, which reaps nothing in between); another through a pidfd where the kernel has
 * them (no window at all), else after re-checking its start time.  Short of a second
 * descriptor, the pidfd is given up for the re-check alone: a signal is not skipped for want
 * of one.  Short of any, it cannot be checked, and is not sent: the scan is then short. */
void tree_send(const struct tree_proc *p, int sig)
{
	if (p->ppid == self) {
		kill(p->pid, sig);
		return;
	}
	struct stat_fields f;
	enum got got;
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	if (fd >= 0) {
		got = read_stat(p->pid, &f);
		if (got == GOT && f.start == p->start) {
			syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
			close(fd);
			return;
		}
		close(fd);
		if (got != BLIND)
			return; /* another process now, or gone */
	} else if (errno == ESRCH) {
		return; /* gone */
	}
#endif
	got = read_stat(p->pid, &f);
	if (got == GOT && f.start == p->start)
		kill(p->pid, sig);
	else if (got == BLIND)
		short_of(errno);
}

void tree_prepare(const struct target *t)
{
	if (!orphans_mixed())
		return;
	struct tree_proc *procs;
	long n = tree_scan(t, &procs); /* notes what it finds (note_known) */
	if (n >= 0)
		free(procs);
}

long tree_scan_each(const struct target *t, struct tree_proc **out, tree_pick pick,
                    void *ctx)
{
	if (walk_is_whole() && has_children_files())
		return scan_children(t, out, pick, ctx);
	return tree_scan_then_send(t, out, pick, ctx); /* the tree is known only at the end */
}

/* Call fn for every pid listed in a /proc/.../children file (runlimit's own through
 * own_list where it is held), reading it through a fixed buffer: no memory is allocated.
 * False if the file cannot be opened. */
static bool each_child(const char *path, void (*fn)(pid_t, void *), void *ctx)
{
	bool lent = false, held = own_list >= 0 && strcmp(path, own_path) == 0;
	int fd = held ? own_list : proc_open(path, &lent);
	if (fd < 0) {
		give_back(lent);
		return false;
	}
	own_list_busy = own_list_busy || held;
	char buf[256];
	long pid = 0;
	off_t at = 0;
	for (;;) {
		ssize_t got = pread(fd, buf, sizeof buf, at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		at += got;
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
	if (held)
		own_list_busy = false;
	else
		proc_close(fd, lent);
	return true;
}

struct short_kill {
	const struct target *t;
	pid_t parent;
	int sig;    /* 0: only count */
	long alive;
};

/* A child of a process the fallback killed: KILLed too, through tree_send's checks.  One
 * that cannot be read is reached once its parent is dead and it has come to runlimit. */
static void kill_grandchild(pid_t pid, void *ctx)
{
	struct short_kill *k = ctx;
	struct tree_proc p;
	long threads;
	if (read_live(pid, &p, &threads) == GOT && p.ppid == k->parent)
		tree_send(&p, k->sig);
}

/* A child of runlimit's: if it is alive and the command's, counted, and KILLed if asked (an
 * unreaped child's pid cannot have been reused: no check needed), then its own children.
 * One that cannot be read for want of a descriptor is still known to be alive and
 * runlimit's, and its group can be asked without one. */
static void own_child(pid_t pid, void *ctx)
{
	struct short_kill *k = ctx;
	if (pid == self || pid == k->t->guard || pid == k->t->hook || child_is_dead(pid))
		return;
	struct tree_proc p = {.in_tree = true};
	long threads = 1;
	enum got got = read_live(pid, &p, &threads);
	if (got == GONE || (got == GOT && p.ppid != self))
		return;
	if (got == BLIND)
		blind_child(pid, &p);
	if (!(pid == k->t->command && !k->t->reaped) && !adopted_is_commands(k->t, &p))
		return;
	k->alive++;
	if (k->sig == 0)
		return;
	kill(pid, k->sig);
	if (got == BLIND)
		return; /* its children come to runlimit when it dies */
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	struct short_kill below = {k->t, pid, k->sig, 0};
	each_child(path, kill_grandchild, &below);
}

/* Without memory or descriptors: as a subreaper runlimit adopts whatever of the tree
 * outlives its parent, so killing its own children (and theirs) and looking again until
 * none is alive reaches every process, a level further each time a killed parent dies.
 * When none of runlimit's children is alive, nothing of the tree is.  Its own list is read
 * through own_list where that is held, so this needs no descriptor at all then. */
long tree_kill_short(const struct target *t)
{
	if (!walk_is_whole())
		return -1;
	struct short_kill k = {t, self, SIGKILL, 0};
	struct timespec pause = {0, 1000000};
	int64_t give_up = clock_now() + TREE_GIVE_UP;
	for (;;) {
		k.alive = 0;
		if (!each_child(own_path, own_child, &k))
			return -1;
		if (k.alive == 0 || clock_now() >= give_up)
			return k.alive;
		nanosleep(&pause, NULL);
	}
}

long tree_count_short(const struct target *t)
{
	if (!walk_is_whole())
		return -1;
	struct short_kill k = {t, self, 0, 0};
	return each_child(own_path, own_child, &k) ? k.alive : -1;
}

/* The figures of one process, from what its stat file says (the scan's own read: no read
 * more per process): resident pages, and clock ticks of CPU (its own and its collected
 * children's).  False where the system's units cannot be had. */
static bool proc_figures(long rss_pages, uint64_t ticks, struct tree_usage *one)
{
	static long page;
	if (!page)
		page = sysconf(_SC_PAGESIZE);
	int64_t cpu = stat_ticks_ns(ticks);
	if (page <= 0 || cpu < 0)
		return false;
	one->figure[USAGE_MEMORY] = (int64_t)(rss_pages > 0 ? rss_pages : 0) * page;
	one->figure[USAGE_PROCS] = 1;
	one->figure[USAGE_CPU] = cpu;
	return true;
}

bool tree_proc_usage(const struct tree_proc *p, struct tree_usage *one)
{
	if (p->state == 0)
		return false; /* a child that could not be read: counted, not measured */
	return proc_figures(p->rss_pages, p->cpu_ticks + p->reaped_ticks, one);
}

bool tree_usage_possible(void)
{
	return walk_state() != 0;
}

/* ---- The budgets' measure (tree_usage): the tree read as the walk reads it (runlimit's
 * children, theirs, and so on), but read-only, and with each process's stat and children
 * files held open from one measure to the next: a pread of a held file costs less than an
 * open, a read and a close, which are most of a measure (docs/performance.md).  A file of
 * /proc/PID is the process's, not its pid's: once the process has ended it reads nothing,
 * however the pid is reused, and is opened again for whatever has the pid now (checked as
 * the walk checks it: listed by its parent, or an orphan of the command's).  One pread a
 * file, for most (see held_read).  At most a quarter of the descriptor limit is held;
 * beyond that the files are opened and closed each time.  The files of the processes a
 * measure did not find are closed after it.  Nothing is signalled through them. */

struct held {
	pid_t pid;
	int stat, children; /* -1: not held */
	unsigned measure;   /* the last measure that found the process */
};

static struct held *held;
static size_t nheld, held_cap, held_fds;
static struct pidmap held_index;
static unsigned measures;
static char *list_text; /* a children file's text, grown as needed */
static size_t list_size;

/* How many descriptors may be held: a quarter of the limit, at most 4096. */
static size_t held_room(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur / 4 > 4096)
		return 4096;
	return (size_t)(rl.rlim_cur / 4);
}

/* The held entry of pid (made if memory allows; NULL if not). */
static struct held *held_of(pid_t pid)
{
	long k = pidmap_get(&held_index, pid);
	if (k >= 0)
		return &held[k];
	if (!grow(&held, nheld, &held_cap, sizeof *held) ||
	    !pidmap_put(&held_index, pid, (long)nheld))
		return NULL;
	held[nheld] = (struct held){pid, -1, -1, measures};
	return &held[nheld++];
}

static void held_drop(int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
	held_fds--;
}

/* What a seq_file of /proc gives at most in one read (a page: at least this), and the
 * longest record of the files read here that matters (a children file's "PID "). */
#define SEQ_PAGE 4096
#define SEQ_RECORD 64

/* Read a file of pid's from its start through *fd, held (or -1: opened now from path, and
 * held if there is room), into list_text.  Its length, or -1 if it cannot be read: the
 * process is gone (errno ESRCH or ENOENT), or for want of a descriptor or memory. */
static ssize_t held_read(int *fd, const char *path)
{
	bool fresh = *fd < 0;
	if (fresh) {
		int f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0)
			return -1;
		*fd = f;
		held_fds++;
	}
	size_t len = 0;
	for (;;) {
		if (list_size - len < 1024) {
			size_t bigger = list_size ? list_size * 2 : 4096;
			char *grown = realloc(list_text, bigger);
			if (!grown) {
				errno = ENOMEM;
				return -1;
			}
			list_text = grown;
			list_size = bigger;
		}
		size_t want = list_size - len - 1;
		ssize_t got = pread(*fd, list_text + len, want, (off_t)len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;
			held_drop(fd); /* the process it was opened for has ended */
			errno = err == ENOMEM ? ENOMEM : ESRCH;
			return -1;
		}
		len += (size_t)got;
		/* A /proc file (a seq_file) gives at most its own buffer's worth in one read, a
		 * page, however much is asked: a read short of that by more than a record (a
		 * child's pid and a space, or a whole stat line) is the end, and no read more is
		 * needed to see the 0; a shorter one may be followed by more (a children file of
		 * some 700 pids or more). */
		if (got == 0 || ((size_t)got < want && (size_t)got + SEQ_RECORD < SEQ_PAGE))
			break;
	}
	list_text[len] = '\0';
	return (ssize_t)len;
}

/* pid's stat into *f, through its held file; opened afresh once if the held one is of a
 * process that has ended (the pid may be another's now).  GOT, GONE or BLIND. */
static enum got held_stat(struct held *h, struct stat_fields *f)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)h->pid);
	for (int tries = 0; tries < 2; tries++) {
		bool was_held = h->stat >= 0;
		if (held_read(&h->stat, path) >= 0)
			return stat_parse(list_text, f) ? GOT : GONE;
		if (stat_wanting(errno))
			return BLIND;
		held_drop(&h->children); /* of the same ended process */
		if (!was_held)
			return GONE;
	}
	return GONE;
}

/* Close the files of the processes this measure did not find, and index the rest. */
static void held_sweep(void)
{
	size_t k = 0;
	pidmap_free(&held_index);
	for (size_t i = 0; i < nheld; i++) {
		if (held[i].measure != measures) {
			held_drop(&held[i].stat);
			held_drop(&held[i].children);
			continue;
		}
		held[k] = held[i];
		if (!pidmap_put(&held_index, held[k].pid, (long)k)) {
			held_drop(&held[k].stat); /* no index, no entry: opened afresh next time */
			held_drop(&held[k].children);
			continue;
		}
		k++;
	}
	nheld = k;
}

/* Add the pids of list_text ("12 34 ") to the queue under parent, those not seen yet. */
static bool queue_listed(struct listed **queue, size_t *n, size_t *cap, struct pidmap *seen,
                         pid_t parent)
{
	for (char *p = list_text, *end;; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p || pid <= 0)
			return true;
		if (pidmap_get(seen, (pid_t)pid) >= 0)
			continue;
		if (!pidmap_put(seen, (pid_t)pid, 1) || !grow(queue, *n, cap, sizeof **queue))
			return false;
		(*queue)[(*n)++] = (struct listed){(pid_t)pid, parent};
	}
}

/* One process of the measure: counted and measured if it is alive and still the one its
 * parent listed, and its children queued.  False for want of a descriptor or memory. */
static bool measure_one(const struct target *t, struct tree_usage *u, struct listed l,
                        struct listed **queue, size_t *n, size_t *cap, struct pidmap *seen)
{
	bool own = l.parent == self;
	if (own && child_is_dead(l.pid))
		return true; /* a zombie of runlimit's, not yet collected */
	struct held *h = held_of(l.pid);
	if (!h)
		return false;
	h->measure = measures;
	bool keep = held_fds + 2 <= held_room();
	struct stat_fields f;
	enum got got = held_stat(h, &f);
	if (!keep) {
		held_drop(&h->stat);
		held_drop(&h->children);
	}
	if (got == BLIND)
		return false;
	if (got == GONE || f.state == 'X' || (f.state == 'Z' && f.threads <= 1))
		return true;
	struct tree_proc p = {.pid = l.pid, .ppid = f.ppid, .pgid = f.pgrp, .start = f.start};
	if (!still_listed(t, l.pid, l.parent, &p))
		return true; /* another process has the pid now */
	struct tree_usage one;
	if (proc_figures(f.rss, f.utime + f.stime + f.cutime + f.cstime, &one))
		tree_usage_add(u, &one);
	else
		u->figure[USAGE_PROCS]++;
	if (f.threads > 1) {
		/* Children of other threads too: each thread's file, opened each time. */
		pid_t *list = NULL;
		size_t m = 0, list_cap = 0;
		tree_scan_short = false;
		children_of(l.pid, f.threads, &list, &m, &list_cap);
		add_unseen(queue, n, cap, seen, list, m, l.pid);
		free(list);
		return !tree_scan_short;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)l.pid, (int)l.pid);
	if (held_read(&h->children, path) < 0)
		return !stat_wanting(errno); /* gone since its stat was read: no children */
	if (!keep)
		held_drop(&h->children);
	return queue_listed(queue, n, cap, seen, l.pid);
}

int tree_usage(const struct target *t, struct tree_usage *u)
{
	if (walk_state() != 1 || !has_children_files())
		return tree_usage_by_scan(t, u); /* the walk's own answer, or none */
	struct listed *queue = NULL;
	size_t n = 0, cap = 0;
	struct pidmap seen = {NULL, 0, 0};
	pid_t *own = NULL;
	size_t nown = 0, own_cap = 0;
	measures++;
	*u = (struct tree_usage){{0}};
	tree_scan_short = false;
	bool ok = read_children(own_path, &own, &nown, &own_cap);
	add_unseen(&queue, &n, &cap, &seen, own, nown, self);
	ok = ok && !tree_scan_short;
	for (size_t i = 0; ok && i < n; i++)
		if (queue[i].pid != self && queue[i].pid != t->guard && queue[i].pid != t->hook)
			ok = measure_one(t, u, queue[i], &queue, &n, &cap, &seen);
	held_sweep();
	free(own);
	free(queue);
	pidmap_free(&seen);
	return ok ? 0 : -1;
}

bool tree_watch_exits(const struct target *t)
{
	/* As a subreaper runlimit is the parent, or becomes it, of whatever of the tree dies
	 * last: SIGCHLD tells it, with or without /proc.  Not being one, nothing tells it. */
	(void)t;
	int on = 0;
	return prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 && on;
}

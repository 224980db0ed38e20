/* Linux: runlimit is a child subreaper, so every orphan of the command's tree is re-parented
 * to it instead of init, and the tree can always be rebuilt from /proc: the command, the
 * children runlimit adopted, and their descendants. */
#define _GNU_SOURCE
#include "tree.h"
#include "tree_walk.h"

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
#include <unistd.h>


static pid_t self;
static pid_t guard;
/* runlimit's children from before it started (its exec'ing parent's): never the command's.
 * Their start times too, since once reaped their pids can be reused inside the tree. */
static pid_t *preexisting;
static unsigned long long *preexisting_start;
static size_t npreexisting;

static bool read_stat(pid_t pid, pid_t *ppid, pid_t *pgrp, char *state, long *threads,
                      unsigned long long *start);

static bool is_preexisting(pid_t pid, unsigned long long start)
{
	for (size_t k = 0; k < npreexisting; k++)
		if (preexisting[k] == pid && preexisting_start[k] == start)
			return true;
	return false;
}

static void note_preexisting_children(void)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)self);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *p = buf, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		pid_t ppid, pgrp;
		char state;
		long threads;
		unsigned long long start;
		if (!read_stat((pid_t)pid, &ppid, &pgrp, &state, &threads, &start))
			continue;
		pid_t *grown = realloc(preexisting, (npreexisting + 1) * sizeof *grown);
		if (!grown)
			return;
		preexisting = grown;
		unsigned long long *grown_start =
			realloc(preexisting_start, (npreexisting + 1) * sizeof *grown_start);
		if (!grown_start)
			return;
		preexisting_start = grown_start;
		preexisting[npreexisting] = (pid_t)pid;
		preexisting_start[npreexisting++] = start;
	}
}

void tree_init(void)
{
	self = getpid();
	note_preexisting_children();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

int tree_child_prepare(int sig, pid_t parent_pid)
{
	if (sig > 0)
		prctl(PR_SET_PDEATHSIG, sig);
	/* Compare with runlimit's own pid, not with 1: runlimit may itself be PID 1 of a
	 * container, or live under another subreaper. */
	return getppid() == parent_pid ? 0 : -1;
}

/* Read /proc/PID/stat: ppid, state and start time.  The command name (field 2) may hold
 * spaces and parentheses, so parse from the last ')'. */
static bool read_stat(pid_t pid, pid_t *ppid, pid_t *pgrp, char *state, long *threads,
                      unsigned long long *start)
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
	int parent, group;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	 * cutime cstime priority nice threads itrealvalue starttime */
	if (sscanf(p + 1, " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld %*d %llu",
	           state, &parent, &group, threads, start) != 5)
		return false;
	*ppid = parent;
	*pgrp = group;
	return true;
}

/* A live process into *p, keeping p->in_tree; false if it is gone.  A zombie main thread
 * with other threads still running (it called pthread_exit) is alive. */
static bool read_live(pid_t pid, struct tree_proc *p, pid_t *pgrp, long *threads)
{
	char state;
	unsigned long long start;
	if (!read_stat(pid, &p->ppid, pgrp, &state, threads, &start) || state == 'X' ||
	    (state == 'Z' && *threads <= 1))
		return false;
	p->pid = pid;
	p->start = start;
	p->stopped = state == 'T' || state == 't';
	return true;
}

static bool push(struct tree_proc **procs, size_t *n, size_t *cap, const struct tree_proc *p)
{
	if (*n == *cap) {
		size_t bigger = *cap ? *cap * 2 : 64;
		struct tree_proc *grown = realloc(*procs, bigger * sizeof *grown);
		if (!grown)
			return false;
		*procs = grown;
		*cap = bigger;
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
			if (!grown)
				break;
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
		if (*n == *cap) {
			size_t bigger = *cap ? *cap * 2 : 64;
			pid_t *grown = realloc(*list, bigger * sizeof *grown);
			if (!grown)
				break;
			*list = grown;
			*cap = bigger;
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

/* Append to queue[*n...] the pids of list[0..m) it does not hold yet, each with the parent
 * it was listed under; how many were new. */
static size_t add_unseen(pid_t **queue, pid_t **parents, size_t *n, size_t *cap,
                         const pid_t *list, size_t m, pid_t parent)
{
	size_t added = 0;
	for (size_t i = 0; i < m; i++) {
		bool seen = false; /* re-parented between two reads, a pid can be listed twice */
		for (size_t k = 0; k < *n && !seen; k++)
			seen = (*queue)[k] == list[i];
		if (seen)
			continue;
		if (*n == *cap) {
			size_t bigger = *cap ? *cap * 2 : 64;
			pid_t *grown = realloc(*queue, bigger * sizeof *grown);
			if (!grown)
				break;
			*queue = grown;
			grown = realloc(*parents, bigger * sizeof *grown);
			if (!grown)
				break;
			*parents = grown;
			*cap = bigger;
		}
		(*parents)[*n] = parent;
		(*queue)[(*n)++] = list[i];
		added++;
	}
	return added;
}

/* The tree as the kernel links it: runlimit's children (not the guard, not those it was
 * born with) and their descendants, breadth first.  As a subreaper runlimit inherits every
 * orphan, so nothing of the tree hangs anywhere else, and only the tree is read: a handful
 * of files for a small command, however many processes the system runs.  A process whose
 * parent dies during the walk moves to runlimit's own list, which is therefore read again
 * at the end, until it holds nothing new. */
static long scan_children(struct tree_proc **out)
{
	pid_t *queue = NULL, *parents = NULL, *list = NULL;
	size_t n = 0, cap = 0, nlist = 0, list_cap = 0;
	char self_children[64];
	snprintf(self_children, sizeof self_children, "/proc/self/task/%d/children", (int)self);
	struct tree_proc *procs = NULL;
	size_t nprocs = 0, procs_cap = 0, i = 0;
	for (int pass = 0; pass < 100; pass++) {
		nlist = 0;
		read_children(self_children, &list, &nlist, &list_cap);
		if (add_unseen(&queue, &parents, &n, &cap, list, nlist, self) == 0 && pass > 0)
			break;
		for (; i < n; i++) {
			pid_t pid = queue[i];
			if (pid == self || pid == guard)
				continue;
			struct tree_proc p = {.in_tree = true};
			pid_t pgrp;
			long threads;
			if (!read_live(pid, &p, &pgrp, &threads))
				continue;
			/* Still the process that was listed, not a later one given its pid: its parent
			 * is the one it was listed under, or runlimit, which adopts orphans. */
			if (p.ppid != parents[i] && p.ppid != self)
				continue;
			if (p.ppid == self && is_preexisting(pid, p.start))
				continue;
			if (!push(&procs, &nprocs, &procs_cap, &p))
				break;
			nlist = 0;
			children_of(pid, threads, &list, &nlist, &list_cap);
			add_unseen(&queue, &parents, &n, &cap, list, nlist, pid);
		}
	}
	free(queue);
	free(parents);
	free(list);
	*out = procs;
	return (long)nprocs;
}

long tree_scan(pid_t command, bool command_alive, struct tree_proc **out)
{
	if (has_children_files())
		return scan_children(out);
	/* No children files (a kernel without CONFIG_PROC_CHILDREN): every process is read. */
	DIR *dir = opendir("/proc");
	if (!dir)
		return -1;
	struct tree_proc *procs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self || pid == guard)
			continue;
		struct tree_proc p;
		pid_t pgrp;
		long threads;
		if (!read_live((pid_t)pid, &p, &pgrp, &threads))
			continue;
		p.in_tree = (command_alive && p.pid == command) || pgrp == command ||
		            (p.ppid == self && !is_preexisting(p.pid, p.start));
		if (!push(&procs, &n, &cap, &p))
			break;
	}
	closedir(dir);
	tree_close_over_parents(procs, n);
	*out = procs;
	return (long)n;
}

/* Signal the process only if it is still the one scanned: through a pidfd where the kernel
 * has them (no window at all), else after re-checking its start time. */
void tree_send(const struct tree_proc *p, int sig)
{
	pid_t ppid, pgrp;
	char state;
	long threads;
	unsigned long long start;
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	if (fd >= 0) {
		if (read_stat(p->pid, &ppid, &pgrp, &state, &threads, &start) && start == p->start)
			syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
		close(fd);
		return;
	}
	if (errno != ENOSYS)
		return; /* gone */
#endif
	if (read_stat(p->pid, &ppid, &pgrp, &state, &threads, &start) && start == p->start)
		kill(p->pid, sig);
}

/* The guard: a copy of runlimit in the command's group, holding nothing open, that waits
 * for its parent-death signal and then passes the time-out signal to the group.  Being in
 * the group also keeps the group's id from being reused while it waits. */
static void guard_main(pid_t pgid, int sig, pid_t parent)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (setpgid(0, pgid) < 0)
		_exit(0); /* the group is already gone */
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 0U, ~0U, 0) < 0)
#endif
		for (int fd = 0; fd < 1024; fd++)
			close(fd);
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	sigset_t wake;
	sigemptyset(&wake);
	sigaddset(&wake, SIGUSR1);
	int got;
	while (getppid() == parent)
		sigwait(&wake, &got);
	kill(-pgid, sig);
	kill(-pgid, SIGCONT);
	_exit(0);
}

pid_t tree_guard_start(pid_t pgid, int sig)
{
	if (sig <= 0)
		return 0;
	pid_t pid = fork();
	if (pid == 0)
		guard_main(pgid, sig, self);
	guard = pid > 0 ? pid : 0;
	return guard;
}

void tree_guard_stop(void)
{
	if (guard > 0)
		kill(guard, SIGKILL);
	guard = 0;
}

bool tree_dumped_core(int status)
{
	return WCOREDUMP(status) != 0;
}

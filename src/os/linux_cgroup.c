/* Linux: the run's own cgroup v2, where the budgets are the kernel's: memory.max
 * and pids.max enforce them, memory.events and pids.events say when they were hit,
 * cgroup.events says when the tree is gone, cgroup.kill is the final KILL, and memory.peak,
 * pids.current and cpu.stat measure the tree for the report and the CPU-time budget.
 *
 * Where.  Under the cgroup runlimit is in (P), never beside it: a cgroup anywhere else would
 * take the command out of the limits the caller put runlimit under (a service's MemoryMax).
 * The controllers a budget needs (memory, pids) reach a child of P only through P's
 * cgroup.subtree_control, and the kernel enables a controller there only while P holds no
 * process (its "no internal processes" rule; the top cgroup is exempt).  runlimit itself is
 * in P: so where enabling them fails with EBUSY, runlimit first moves itself into a leaf of
 * its own beside the run's (P/runlimit-PID.supervisor), then enables them.  That works when
 * runlimit was alone in P (a systemd scope with Delegate=yes, a delegated subtree of the
 * user's), and is refused, with the reason, when P holds other processes (the caller's
 * shell): those are not runlimit's to move.  At the end runlimit undoes, in reverse, all it
 * did: the controllers it enabled, its own move, the directories it made.
 *
 * Who may.  The kernel's own rules decide, and runlimit asks for nothing more: making a
 * directory in P needs write access to P; moving a process needs write access to the
 * cgroup.procs of the source and target's common ancestor (P); so root may, and a user
 * may where P was delegated to them (chowned, with its cgroup.procs and subtree_control).
 *
 * Safety.  Each directory is made with mkdir, which fails if the name exists: a cgroup is
 * never reused, so nobody can hand runlimit one of theirs, with limits or members of their
 * choosing.  It is then opened (O_NOFOLLOW), checked to be a cgroup2 directory owned by
 * runlimit's user, and from then on reached only through that descriptor (the *at() calls):
 * cgroup2 refuses rename(2), and only who may write to P could remove and remake it between
 * the mkdir and the open, which the owner check catches.
 *
 * Starting the command in it: the child writes "0" to the run's cgroup.procs, opened here
 * before the fork, before it execs (start_exec.c): nothing of the command runs outside it.  The
 * guard stays in runlimit's cgroup: it is runlimit's, not the tree's, and cgroup.kill must
 * not end it before runlimit has reaped the command. */
#define _GNU_SOURCE
#include "os.h"
#include "cpufiles.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static struct {
	int parent;          /* P, the cgroup runlimit was in (-1: no cgroup made) */
	int run;             /* the run's cgroup, P/runlimit-PID */
	int self;            /* runlimit's own leaf, P/runlimit-PID.supervisor (-1: not moved) */
	int procs;           /* the run's cgroup.procs, open for writing, for the child */
	int events[3];       /* cgroup.events, memory.events, pids.events (-1: not watched) */
	char name[64];       /* the run's directory in P */
	char self_name[80];  /* runlimit's leaf in P */
	bool enabled[2];     /* the controllers runlimit enabled in P (memory, pids) */
	bool killed;         /* cgroup.kill was written */
	struct cgroup_state state;
	int64_t procs_peak;  /* the most pids.current seen (where there is no pids.peak) */
} cg = {-1, -1, -1, -1, {-1, -1, -1}, "", "", {false, false}, false, {true, 0, 0}, 0};

static const char *const controller[2] = {"memory", "pids"};

/* Read the small file name of dir, whole, into buf; false if it cannot be. */
static bool read_at(int dir, const char *name, char *buf, size_t size)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n >= 0;
}

/* Write text to the file name of dir, in one write; 0, or -1 with errno. */
static int write_at(int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)len ? 0 : -1;
}

/* The value of "key VALUE" in a flat-keyed cgroup file (memory.events, cpu.stat), -1 if
 * it has none. */
static int64_t keyed(const char *text, const char *key)
{
	size_t len = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, len) == 0 && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
	return -1;
}

/* A number file (memory.peak, pids.current); -1 if missing, "max" or unreadable. */
static int64_t number_at(int dir, const char *name)
{
	char buf[64];
	if (!read_at(dir, name, buf, sizeof buf) || buf[0] < '0' || buf[0] > '9')
		return -1;
	return strtoll(buf, NULL, 10);
}

/* Is word one of the blank-separated words of text (cgroup.controllers)? */
static bool has_word(const char *text, const char *word)
{
	size_t len = strlen(word);
	for (const char *p = text; (p = strstr(p, word)) != NULL; p += len)
		if ((p == text || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\n' || !p[len]))
			return true;
	return false;
}

/* The reason, into why: fmt with one "%s" (a, a path of at most PATH_MAX), and err's
 * words.  Room for the whole path here: it is cut, if at all, to why's size. */
static void say(char *why, size_t size, const char *fmt, const char *a, int err)
{
	char text[PATH_MAX + 256];
	snprintf(text, sizeof text, fmt, a);
	if (err)
		snprintf(why, size, "%s: %s", text, strerror(err));
	else
		snprintf(why, size, "%s", text);
}

/* Make the directory name in P, never one that exists, and open it: -1 with errno if
 * either fails or what was opened is not the cgroup2 directory runlimit just made. */
static int make_dir(const char *name)
{
	if (mkdirat(cg.parent, name, 0755) != 0)
		return -1;
	int fd = openat(cg.parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	struct statfs fs;
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || fstatfs(fd, &fs) != 0 ||
	                fs.f_type != CGROUP2_SUPER_MAGIC)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Enable the controllers the budgets need (want[k]) in P's subtree_control, noting which
 * runlimit enabled; 0, or -1 with errno (EBUSY: P holds processes). */
static int enable(const bool want[2])
{
	char have[256];
	if (!read_at(cg.parent, "cgroup.subtree_control", have, sizeof have))
		return -1;
	for (int k = 0; k < 2; k++) {
		if (!want[k] || has_word(have, controller[k]))
			continue;
		char op[16];
		snprintf(op, sizeof op, "+%s", controller[k]);
		if (write_at(cg.parent, "cgroup.subtree_control", op) != 0)
			return -1;
		cg.enabled[k] = true;
	}
	return 0;
}

/* Undo enable(): where something else below P has come to use a controller since, the
 * kernel refuses, and it stays. */
static void disable(void)
{
	for (int k = 0; k < 2; k++) {
		char op[16];
		snprintf(op, sizeof op, "-%s", controller[k]);
		if (cg.enabled[k] && write_at(cg.parent, "cgroup.subtree_control", op) == 0)
			cg.enabled[k] = false;
	}
}

/* runlimit into a leaf of its own beside the run's, so that P holds no process. */
static int move_self_out(void)
{
	snprintf(cg.self_name, sizeof cg.self_name, "%s.supervisor", cg.name);
	cg.self = make_dir(cg.self_name);
	if (cg.self < 0)
		return -1;
	if (write_at(cg.self, "cgroup.procs", "0") == 0)
		return 0;
	int err = errno;
	close(cg.self);
	cg.self = -1;
	unlinkat(cg.parent, cg.self_name, AT_REMOVEDIR);
	errno = err;
	return -1;
}

static void move_self_back(void)
{
	if (cg.self < 0)
		return;
	if (write_at(cg.parent, "cgroup.procs", "0") != 0)
		return; /* the controllers stayed enabled in P: runlimit stays in its leaf */
	close(cg.self);
	cg.self = -1;
	unlinkat(cg.parent, cg.self_name, AT_REMOVEDIR);
}

/* A limit: memory.max, pids.max, memory.swap.max.  The swap file is there only where the
 * kernel accounts swap: without it, there is no swap to escape to either. */
static int limit(const char *file, int64_t value, bool optional)
{
	char text[32];
	snprintf(text, sizeof text, "%" PRId64, value);
	if (write_at(cg.run, file, text) == 0 || (optional && errno == ENOENT))
		return 0;
	return -1;
}

static int watch(const char *file)
{
	int fd = openat(cg.run, file, O_RDONLY | O_CLOEXEC);
	char buf[256];
	if (fd >= 0 && pread(fd, buf, sizeof buf, 0) < 0) { /* arms the kernel's notification */
		close(fd);
		fd = -1;
	}
	return fd;
}

/* P, the cgroup runlimit is in, opened (its path into dir), with the controllers that want
 * asks for available there; 0, or -1 with why not. */
static int open_parent(const bool want[2], char *dir, size_t dir_size, char *why, size_t size)
{
	if (!cgroup_v2_dir("/proc/self/cgroup", "/proc/self/mountinfo", "/sys/fs/cgroup", dir,
	                   dir_size)) {
		snprintf(why, size, "no cgroup v2 hierarchy holds runlimit's cgroup");
		return -1;
	}
	cg.parent = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg.parent < 0) {
		say(why, size, "cannot open cgroup %s", dir, errno);
		return -1;
	}
	char have[256];
	for (int k = 0; k < 2; k++) {
		if (want[k] && (!read_at(cg.parent, "cgroup.controllers", have, sizeof have) ||
		                !has_word(have, controller[k]))) {
			char text[128];
			snprintf(text, sizeof text, "the %s controller is not available in cgroup %%s",
			         controller[k]);
			say(why, size, text, dir, 0);
			return -1;
		}
	}
	return 0;
}

/* The run's directory in P, under a name no cgroup has: runlimit-PID, else runlimit-PID.N.
 * 0, or -1 with errno. */
static int make_run_dir(void)
{
	pid_t self = getpid();
	for (int k = 0; cg.run < 0; k++) {
		if (k == 0)
			snprintf(cg.name, sizeof cg.name, "runlimit-%ld", (long)self);
		else
			snprintf(cg.name, sizeof cg.name, "runlimit-%ld.%d", (long)self, k);
		if ((cg.run = make_dir(cg.name)) < 0 && (errno != EEXIST || k == 16))
			return -1;
	}
	return 0;
}

/* The controllers that want asks for, enabled below P, runlimit moving out of P first where
 * the kernel asks it to; NULL, or what failed (a format with P's path as its "%s"; errno
 * says why). */
static const char *enable_controllers(const bool want[2])
{
	if (!(want[0] || want[1]) || enable(want) == 0)
		return NULL;
	if (errno != EBUSY)
		return "cannot enable the budgets' controllers below cgroup %s";
	if (move_self_out() != 0) /* runlimit is a process of P: out of it */
		return "cannot move runlimit out of cgroup %s, to enable the budgets' controllers "
		       "below it";
	if (enable(want) == 0)
		return NULL;
	return errno == EBUSY ? "cgroup %s holds other processes than runlimit: the budgets' "
	                        "controllers cannot be enabled below it"
	                      : "cannot enable the budgets' controllers below cgroup %s";
}

/* ask's limits written in the run's cgroup, and its cgroup.procs opened for the child;
 * NULL, or what failed (as enable_controllers says it). */
static const char *set_limits(const struct cgroup_ask *ask, const bool want[2])
{
	if ((want[0] && (limit("memory.max", ask->memory, false) != 0 ||
	                 limit("memory.swap.max", 0, true) != 0)) ||
	    (want[1] && limit("pids.max", ask->procs, false) != 0))
		return "cannot set the budgets' limits in cgroup %s";
	if ((cg.procs = openat(cg.run, "cgroup.procs", O_WRONLY | O_CLOEXEC)) < 0)
		return "cannot open the cgroup.procs of the run's cgroup in %s";
	return NULL;
}

int cgroup_make(const struct cgroup_ask *ask, char *why, size_t size)
{
	char dir[4096];
	const bool want[2] = {ask->memory > 0, ask->procs > 0};
	if (open_parent(want, dir, sizeof dir, why, size) != 0) {
		cgroup_remove(0);
		return -1;
	}
	/* The run's directory first: the controllers enabled in P reach it as they do every
	 * child of P. */
	if (make_run_dir() != 0) {
		say(why, size, "cannot make a cgroup in %s", dir, errno);
		cgroup_remove(0);
		return -1;
	}
	const char *step = enable_controllers(want);
	if (!step)
		step = set_limits(ask, want);
	if (step) {
		say(why, size, step, dir, errno);
		cgroup_remove(0);
		return -1;
	}
	cg.events[0] = watch("cgroup.events");
	cg.events[1] = want[0] ? watch("memory.events") : -1;
	cg.events[2] = want[1] ? watch("pids.events") : -1;
	return 0;
}

int cgroup_procs_fd(void)
{
	return cg.procs;
}

int cgroup_kill_fd(void)
{
	static int fd = -2;
	if (fd == -2)
		fd = cg.run < 0 ? -1 : openat(cg.run, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	return fd;
}

void cgroup_started(void)
{
	if (cg.procs >= 0)
		close(cg.procs);
	cg.procs = -1;
}

size_t cgroup_fds(struct pollfd *fds)
{
	size_t n = 0;
	for (int k = 0; k < 3; k++)
		if (cg.events[k] >= 0)
			fds[n++] = (struct pollfd){.fd = cg.events[k], .events = POLLPRI};
	return n;
}

/* Read the event files anew (which also re-arms their notification). */
static void read_events(void)
{
	char buf[512];
	ssize_t n;
	if (cg.events[0] >= 0 && (n = pread(cg.events[0], buf, sizeof buf - 1, 0)) >= 0) {
		buf[n] = '\0';
		cg.state.populated = keyed(buf, "populated") != 0;
	}
	if (cg.events[1] >= 0 && (n = pread(cg.events[1], buf, sizeof buf - 1, 0)) >= 0) {
		buf[n] = '\0';
		int64_t k = keyed(buf, "oom_kill");
		cg.state.oom_kills = k > 0 ? k : 0;
	}
	if (cg.events[2] >= 0 && (n = pread(cg.events[2], buf, sizeof buf - 1, 0)) >= 0) {
		buf[n] = '\0';
		int64_t k = keyed(buf, "max");
		cg.state.procs_refused = k > 0 ? k : 0;
	}
}

const struct cgroup_state *cgroup_events(void)
{
	if (cg.run < 0)
		return NULL;
	read_events();
	return &cg.state;
}

int cgroup_populated(void)
{
	if (cg.run < 0 || cg.events[0] < 0)
		return -1;
	read_events();
	return cg.state.populated;
}

bool cgroup_usage(struct cgroup_usage *u)
{
	if (cg.run < 0)
		return false;
	char buf[1024];
	int64_t usec = read_at(cg.run, "cpu.stat", buf, sizeof buf) ? keyed(buf, "usage_usec") : -1;
	u->cpu_ns = usec >= 0 ? usec * 1000 : -1;
	u->memory_now = number_at(cg.run, "memory.current");
	u->memory_peak = number_at(cg.run, "memory.peak"); /* Linux 5.19 */
	if (u->memory_peak < u->memory_now)
		u->memory_peak = u->memory_now;
	u->procs_now = number_at(cg.run, "pids.current");
	int64_t peak = number_at(cg.run, "pids.peak"); /* Linux 6.13 */
	if (u->procs_now > cg.procs_peak)
		cg.procs_peak = u->procs_now;
	if (peak > cg.procs_peak)
		cg.procs_peak = peak;
	u->procs_peak = u->procs_now < 0 && peak < 0 ? -1 : cg.procs_peak;
	read_events();
	u->oom_kills = cg.state.oom_kills;
	return true;
}

bool cgroup_kill(void)
{
	if (cg.run < 0)
		return false;
	/* Before Linux 5.14 there is no cgroup.kill: the walk does it alone. */
	if (!cg.killed && write_at(cg.run, "cgroup.kill", "1") == 0)
		cg.killed = true;
	return cg.killed;
}

/* What the command left running when runlimit returns without a final KILL (it exited of
 * itself, and its leftovers are let be, as without a cgroup): back into P, so that the
 * run's cgroup can go.  They leave the budgets with runlimit. */
static void release_leftovers(void)
{
	char buf[4096];
	for (int round = 0; round < 64; round++) {
		int fd = openat(cg.run, "cgroup.procs", O_RDONLY | O_CLOEXEC);
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
			char text[24];
			snprintf(text, sizeof text, "%ld", pid);
			write_at(cg.parent, "cgroup.procs", text);
		}
	}
}

void cgroup_remove(int64_t until)
{
	if (cg.parent < 0)
		return;
	cgroup_started();
	/* After cgroup.kill, the dying have a moment to be gone (the settle): runlimit does not
	 * return before its tree, nor leave the cgroup behind; but never past until, or a
	 * process that cannot die (an uninterruptible wait) would hold runlimit past its bound.
	 * What is still there then is moved out with the leftovers below. */
	int64_t now;
	while (cg.killed && cgroup_populated() == 1 && (now = clock_now()) < until) {
		struct pollfd p = {.fd = cg.events[0], .events = POLLPRI};
		int64_t ms = (until - now) / 1000000 + 1;
		poll(&p, 1, ms < 100 ? (int)ms : 100);
	}
	for (int k = 0; k < 3; k++)
		if (cg.events[k] >= 0)
			close(cg.events[k]);
	cg.events[0] = cg.events[1] = cg.events[2] = -1;
	/* The order matters: P takes processes again only once its controllers are off. */
	disable();
	move_self_back();
	if (cg.run >= 0) {
		if (unlinkat(cg.parent, cg.name, AT_REMOVEDIR) != 0 && errno == EBUSY) {
			release_leftovers();
			unlinkat(cg.parent, cg.name, AT_REMOVEDIR);
		}
		close(cg.run);
		cg.run = -1;
	}
	close(cg.parent);
	cg.parent = -1;
}

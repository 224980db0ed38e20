/* Any other system, and the portable build (PLATFORM=portable, which is how the paths of
 * systems without a reaper or a process table are tested on Linux): POSIX alone.
 * Containment is the command's process group, which the core signals and asks; a child
 * learns of runlimit's death only by asking (the core's guard pipe); the wait is poll(2)
 * with the self-pipe (selfpipe.c); the processor counts are sysconf's.  What POSIX has no
 * way for is said here to be missing, and the core does without. */
#define _DARWIN_C_SOURCE /* WCOREDUMP and _SC_NPROCESSORS_* are not POSIX: macOS hides them, */
#define _DEFAULT_SOURCE  /* and glibc and musl hide WCOREDUMP */
#include "os.h"
#include "selfpipe.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void os_init(void)
{
	/* no reaper: orphans go to init */
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

/* ru_maxrss where it counts KiB: the systems not known otherwise. */
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

/* No way to know a socket's peer: the directory of named runs, which only its user and root
 * can enter, is all. */
int peer_uid(int fd, uid_t *uid)
{
	(void)fd;
	(void)uid;
	return 0;
}

/* No pid of the peer here. */
pid_t peer_pid(int fd)
{
	(void)fd;
	return 0;
}

/* The clock: poll(2) takes whole milliseconds, so round up, never wake early.  poll cannot
 * swap the signal mask itself, so the handlers wake it through the self-pipe. */
int64_t clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void selfpipe_sleep(int pipe, struct pollfd *fds, size_t n, int64_t deadline)
{
	selfpipe_poll(pipe, fds, n, deadline);
}

bool clock_watch_exit(pid_t pid)
{
	(void)pid;
	return false;
}

/* The tree: no process table to read; the group is all. */
long tree_signal(const struct target *t, int sig, int flags, struct tree_seen *seen)
{
	(void)t;
	(void)sig;
	(void)flags;
	if (seen)
		seen->unknown = true;
	return -1;
}

int tree_alive(const struct target *t)
{
	(void)t;
	return -1;
}

bool tree_watch_exits(const struct target *t)
{
	(void)t;
	return false; /* orphans go to init: nothing tells runlimit they exited */
}

long tree_list(const struct target *t, struct tree_id **out)
{
	(void)t;
	*out = NULL;
	return -1; /* no process table read here */
}

/* No process table: the budgets are refused (budget.c) rather than kept on the command
 * alone, which a tree could exceed many times over unseen. */
int tree_usage(const struct target *t, struct tree_usage *u)
{
	(void)t;
	(void)u;
	return -1;
}

bool tree_usage_possible(void)
{
	return false;
}

long tree_snapshot(const struct target *t, struct snap_proc *out, size_t max, size_t *omitted)
{
	(void)t;
	(void)out;
	(void)max;
	*omitted = 0;
	return -1; /* no process table to describe the tree from */
}

/* Processor counts: what sysconf reports. */
static unsigned long count(int name)
{
	long n = sysconf(name);
	return n > 0 ? (unsigned long)n : 0;
}

unsigned long ncpu_available(void)
{
	return count(_SC_NPROCESSORS_ONLN);
}

unsigned long ncpu_installed(void)
{
	unsigned long n = count(_SC_NPROCESSORS_CONF), available = ncpu_available();
	return n > available ? n : available;
}

int os_relay_signal(pid_t pid, int sig, int value)
{
	return sigqueue(pid, sig, (union sigval){.sival_int = value});
}

int os_watch_exit(pid_t pid)
{
	(void)pid;
	errno = ENOSYS; /* POSIX has no such event: the caller asks getppid() on a period */
	return -1;
}

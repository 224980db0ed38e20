/* What the systems without Linux's own means do alike (os/os.h): macOS, FreeBSD and the
 * portable build.  The guard is a plain fork (guard.c), and so is the command's child
 * (forkchild.c makes its calls), the waits have no timer slack to shrink, a core dump is
 * told by WCOREDUMP where the system has it, and the working directory is held with
 * POSIX's O_SEARCH where the system has it (searching the directory is then enough), else
 * O_RDONLY, which needs read permission.  The tree needs nothing made ready and no orphan
 * told apart: only Linux's walk adopts orphans that may be another's.  No CPU quota is
 * counted.  No call moves bytes between pipes: the relay copies them through its own
 * buffer.  None of them has cgroups: the budgets are measured from the walk. */
#define _DARWIN_C_SOURCE /* WCOREDUMP is not POSIX: macOS hides it, */
#define _DEFAULT_SOURCE  /* and glibc and musl too */
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef O_SEARCH
#define O_SEARCH O_RDONLY
#endif

pid_t os_guard_start(int sig, pid_t parent, bool in_parents, const sigset_t *relay,
                     int late_ms, int kill_fd)
{
	(void)late_ms;
	(void)kill_fd;
	(void)relay;
	(void)in_parents;
	(void)sig;
	(void)parent;
	return 0; /* a plain fork */
}

pid_t os_spawn_shared(void (*fn)(void *), void *arg)
{
	(void)fn;
	(void)arg;
	return 0; /* a plain fork */
}

void os_sharpen_waits(void)
{
	/* no timer slack to shrink */
}

bool os_dumped_core(int status)
{
#ifdef WCOREDUMP
	return WCOREDUMP(status) != 0;
#else
	(void)status;
	return false;
#endif
}

void tree_init(pid_t runlimit)
{
	(void)runlimit;
}

void tree_started(void)
{
}

void tree_prepare(const struct target *t)
{
	(void)t;
}

unsigned long ncpu_quota(void)
{
	return ULONG_MAX;
}

bool pipe_can_move(int in, int out)
{
	(void)in;
	(void)out;
	return false;
}

ssize_t pipe_move(int in, int out, size_t max)
{
	(void)in;
	(void)out;
	(void)max;
	errno = ENOSYS;
	return -1;
}

ssize_t pipe_tee(int in, int out, size_t max)
{
	return pipe_move(in, out, max);
}

void pipe_widen(int fd)
{
	(void)fd;
}

int os_pipe_cloexec(int ends[2])
{
	if (pipe(ends) != 0)
		return -1;
	for (int k = 0; k < 2; k++) {
		if (fcntl(ends[k], F_SETFD, FD_CLOEXEC) != 0) {
			int err = errno;
			close(ends[0]);
			close(ends[1]);
			errno = err;
			return -1;
		}
	}
	return 0;
}

int os_open_here(void)
{
	return os_open_dir(".");
}

int os_open_dir(const char *path)
{
	return open(path, O_SEARCH | O_DIRECTORY | O_CLOEXEC);
}

int cgroup_make(const struct cgroup_ask *ask, char *why, size_t size)
{
	(void)ask;
	if (size > 0)
		snprintf(why, size, "this system has no cgroups");
	return -1;
}

int cgroup_procs_fd(void)
{
	return -1;
}

int cgroup_kill_fd(void)
{
	return -1;
}

void cgroup_started(void)
{
}

size_t cgroup_fds(struct pollfd *fds)
{
	(void)fds;
	return 0;
}

const struct cgroup_state *cgroup_events(void)
{
	return NULL;
}

int cgroup_populated(void)
{
	return -1;
}

bool cgroup_usage(struct cgroup_usage *u)
{
	(void)u;
	return false;
}

bool cgroup_kill(void)
{
	return false;
}

void cgroup_remove(int64_t until)
{
	(void)until;
}

/* Other systems: no subreaper, no parent-death signal and no process table; containment is
 * the command's process group, which the caller signals and asks. */
#define _DARWIN_C_SOURCE /* WCOREDUMP is not POSIX: macOS, glibc and musl hide it */
#define _DEFAULT_SOURCE
#include "tree.h"

#include <sys/wait.h>
#include <unistd.h>

void tree_init(void)
{
}

bool tree_has_death_signal(void)
{
	return false;
}

int tree_child_prepare(int sig, pid_t parent_pid)
{
	(void)sig;
	return getppid() == parent_pid ? 0 : -1;
}

long tree_signal(const struct tree_target *t, int sig, int flags, struct tree_seen *seen)
{
	(void)t;
	(void)sig;
	(void)flags;
	if (seen)
		seen->unknown = true;
	return -1;
}

int tree_alive(const struct tree_target *t)
{
	(void)t;
	return -1;
}

bool tree_watch_exits(const struct tree_target *t)
{
	(void)t;
	return false; /* orphans go to init: nothing tells runlimit they exited */
}

pid_t tree_guard_clone(int sig)
{
	(void)sig;
	return 0; /* a plain fork */
}

bool tree_dumped_core(int status)
{
#ifdef WCOREDUMP
	return WCOREDUMP(status) != 0;
#else
	(void)status;
	return false;
#endif
}

long tree_maxrss_kib(long ru_maxrss)
{
	return ru_maxrss; /* KiB on the systems known to have it */
}

long tree_list(const struct tree_target *t, struct tree_id **out)
{
	(void)t;
	*out = NULL;
	return -1; /* no process table read here */
}

/* Other systems: no process table to read; containment is the command's process group,
 * which the caller signals and asks. */
#include "tree.h"

#include <stddef.h>

void tree_init(pid_t runlimit)
{
	(void)runlimit;
}

void tree_started(void)
{
	/* nothing to hold */
}

void tree_prepare(const struct tree_target *t)
{
	(void)t; /* no walk: nothing to note */
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

long tree_list(const struct tree_target *t, struct tree_id **out)
{
	(void)t;
	*out = NULL;
	return -1; /* no process table read here */
}

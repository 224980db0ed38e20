/* macOS and other systems: no subreaper and no parent-death signal; containment is the
 * command's process group. */
#include "tree.h"

void tree_init(void)
{
}

int tree_child_prepare(int sig, pid_t parent_pid)
{
	(void)sig;
	(void)parent_pid;
	return 0;
}

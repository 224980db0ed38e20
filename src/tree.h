/* The command's process tree: what the platform offers to keep it contained.
 * tree_linux.c (child subreaper, parent-death signal), tree_freebsd.c (procctl reaper),
 * tree_darwin.c and tree_other.c (process group only). */
#ifndef RUNLIMIT_TREE_H
#define RUNLIMIT_TREE_H

#include <stdbool.h>
#include <sys/types.h>

/* In runlimit, before the fork: arrange for orphans of the command's descendants to be
 * re-parented to runlimit where the OS allows it, so they stay reachable. */
void tree_init(void);

/* In the child, before exec: have the kernel send sig to the command if runlimit dies
 * (sig 0: nothing).  Returns -1 if runlimit (parent_pid) is already gone. */
int tree_child_prepare(int sig, pid_t parent_pid);

/* Did the wait status of a process killed by a signal come with a core dump?  (WCOREDUMP is
 * not POSIX, so it lives with the platform code.) */
bool tree_dumped_core(int status);

#endif

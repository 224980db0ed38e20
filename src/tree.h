/* The command's process tree: finding and signalling every descendant, not only its
 * process group, and tying the command's fate to runlimit's.  One file per platform:
 * tree_linux.c (child subreaper, /proc walk, pidfd, parent-death signal and guard),
 * tree_freebsd.c (procctl reaper), tree_darwin.c (libproc walk), tree_other.c (group only). */
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

/* After the command started in its own group pgid: where the OS allows, start a guard that
 * sends sig (then SIGCONT) to that group if runlimit is killed outright.  Returns the
 * guard's pid (a child of runlimit, to be reaped and ignored), or 0. */
pid_t tree_guard_start(pid_t pgid, int sig);
void tree_guard_stop(void);

#define TREE_CONTINUE 1 /* follow sig with SIGCONT, so stopped processes act on it */
#define TREE_FREEZE   2 /* stop everything found, rescan until nothing new, then signal */

/* Send sig to every descendant of the command that can be found, including those that left
 * its process group (the caller signals the group itself).  command is the command's pid
 * (also its group's id); reaped says it is gone, so that pid may belong to someone else. */
void tree_signal(pid_t command, bool reaped, int sig, int flags);

/* Once the command has been reaped: is any process of its tree (its group, or a descendant
 * found) still alive? */
bool tree_alive(pid_t command);

/* Did the wait status of a process killed by a signal come with a core dump?  (WCOREDUMP is
 * not POSIX, so it lives with the platform code.) */
bool tree_dumped_core(int status);

#endif

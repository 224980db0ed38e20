/* What runlimit asks of the OS that is not about the command's tree (tree.h): becoming the
 * reaper of orphans, tying a child's fate to runlimit's, the guard's cheap start, and the
 * parts of a finished process's story that POSIX leaves to each system.  Linux has it all
 * in os_linux.c.  Elsewhere: the subreaper and the parent-death signal in os_freebsd.c or
 * reaper_posix.c (none: macOS, the portable build), the rest in os_posix.c; the unit of
 * ru_maxrss, the one thing macOS does its own way, in rusage_darwin.c or rusage_posix.c. */
#ifndef RUNLIMIT_OS_H
#define RUNLIMIT_OS_H

#include <stdbool.h>
#include <sys/types.h>

/* In runlimit, before the fork: have orphans of the command's descendants re-parented to
 * runlimit where the OS allows it (a subreaper, a reaper), so that they stay reachable. */
void os_init(void);

/* Whether the OS can send a child a signal when its parent dies. */
bool os_has_death_signal(void);

/* In a child of runlimit (parent_pid), before exec: have the kernel send sig to it if
 * runlimit dies (sig 0: nothing).  Returns 1 if that is armed, 0 if the OS has no such
 * thing (or sig is 0), -1 if runlimit is already gone. */
int os_child_prepare(int sig, pid_t parent_pid);

/* Start the guard (guard.h), runlimit being parent, in the cheapest way the OS allows where
 * that is not a plain fork: Linux clones it sharing runlimit's memory (no page tables
 * copied, a third of a fork's cost).  Returns its pid, 0 where there is no such way, or -1
 * with errno where the system refused it: guard.c then forks.  All signals must be blocked. */
pid_t os_guard_clone(int sig, pid_t parent);

/* Ask the kernel to end runlimit's waits at their deadline itself, not within its usual
 * slack (Linux's timer slack: 50 us).  Called after the command is forked, which must not
 * inherit it. */
void os_sharpen_waits(void);

/* Did the wait status of a process killed by a signal come with a core dump?  (WCOREDUMP is
 * not POSIX.) */
bool os_dumped_core(int status);

/* ru_maxrss of getrusage() in KiB: Linux and FreeBSD count in KiB, macOS in bytes. */
long os_maxrss_kib(long ru_maxrss);

#endif

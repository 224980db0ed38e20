/* The guard: a small child of runlimit that creates the command's process group and leads
 * it, so that the command joins the group as a member, not its leader (a leader cannot
 * setsid(), and setsid(1) would fork away from the limit).  While the guard lives, or is a
 * zombie runlimit has not reaped, no other process can be given its pid, so no new process
 * group can take the group's id: runlimit may signal the group until it reaps the guard.
 * If runlimit is killed outright, the guard passes the time-out signal (then SIGCONT) to
 * the group; it holds no standard descriptor and blocks every other signal. */
#ifndef RUNLIMIT_GUARD_H
#define RUNLIMIT_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

/* Start the guard (runlimit being parent: a clone where the platform has that cheaper way,
 * os_guard_start, else a fork), which leads a new process group of its own; sig is what it
 * sends to the group if runlimit dies (0: only SIGCONT).  Returns the group's id (the
 * guard's pid), or -1 with errno if it could not be started. */
pid_t guard_start(int sig, pid_t parent);

/* runlimit reaped pid: if it was the guard, forget it (its pid may now be reused). */
void guard_reaped(pid_t pid);

/* Move the guard out of the group into runlimit's own, so that a liveness test of the group
 * (kill(-pgid, 0)) counts only the command's processes.  The guard still reserves the id. */
void guard_leave_group(void);

/* At the end: kill and reap the guard, if it is still runlimit's. */
void guard_stop(void);

#endif

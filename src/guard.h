/* The guard: a small child of runlimit in the command's process group, so that the command
 * joins the group as a member, not its leader (a leader cannot setsid(), and setsid(1)
 * would fork away from the limit).  The group's id is runlimit's own pid where runlimit is a
 * member of its caller's group (home): runlimit makes the group at the command's fork, the
 * guard keeping home meanwhile (guard_group_open, guard_group_close); no new process can be
 * given that pid while runlimit runs, nor while the group has members.  There the guard
 * passes on to runlimit a signal another process sent to the group, which a member of it,
 * as GNU's timeout is, would have received.  Elsewhere the guard leads the group: while it
 * lives, or is a zombie runlimit has not reaped, no other process can be given its pid, so
 * runlimit may signal the group until it reaps the guard.  If runlimit is killed outright,
 * the guard passes the time-out signal (then SIGCONT) to the group; it holds no standard
 * descriptor and blocks every other signal. */
#ifndef RUNLIMIT_GUARD_H
#define RUNLIMIT_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

/* Start the guard (runlimit, parent, being the caller: a clone where the platform has that
 * cheaper way, os_guard_start, else a fork).  The command's group id goes to *group: parent
 * itself where runlimit is to make it (guard_group_open), else the guard's pid (the guard
 * leads it).  sig is what the guard sends to the group if runlimit dies (0: only SIGCONT).
 * Returns the guard's pid, or -1 with errno if it could not be started. */
pid_t guard_start(int sig, pid_t parent, pid_t *group);

/* Right before the command's fork, where *group was parent: make the group, runlimit in it,
 * so that the command is born in it.  False if it could not be made (then
 * guard_lead_instead).  Then, right after the fork (command: its pid, or -1), in every case:
 * guard_group_close takes runlimit back into its caller's group and puts the guard in the
 * command's. */
bool guard_group_open(void);
void guard_group_close(pid_t command);

/* The group could not be made with runlimit's pid: a new guard, which leads it. */
pid_t guard_lead_instead(int sig, pid_t parent, pid_t *group);

/* runlimit reaped pid: if it was the guard, forget it (its pid may now be reused). */
void guard_reaped(pid_t pid);

/* Is any process but the guard in the command's group pgid?  The guard is moved out of it
 * into runlimit's own, for good, so that the look (kill(-pgid, 0)) counts only the
 * command's processes.  The id stays safe: it is runlimit's pid, or the guard's. */
bool guard_group_alive(pid_t pgid);

/* At the end: kill and reap the guard, if it is still runlimit's. */
void guard_stop(void);

#endif

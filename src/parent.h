/* --die-with-parent: the end of the process that started runlimit (its parent as runlimit
 * starts) ends the run as a cancel does (supervise.c): the -s signal, the grace, the final
 * KILL, the settle, and the report says so.  Never while that process lives: the process is
 * watched, not the thread that started runlimit.  Nothing is watched, and no system call
 * made, without the option. */
#ifndef RUNLIMIT_PARENT_H
#define RUNLIMIT_PARENT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

#define PARENT_MAX_FDS 1

/* With the option, start watching runlimit's parent: false if it has ended already (then
 * the run ends at once, its command never started). */
bool parent_watch(const struct config *cfg);

/* The descriptor the run's wait watches for it (at most PARENT_MAX_FDS; none once it has
 * ended, or where the system cannot watch it). */
size_t parent_fds(struct pollfd *fds);

/* Where no descriptor can watch it: when to look at getppid() next (CLOCK_NEVER else). */
int64_t parent_next_wake(void);

/* After the wait (fds: what parent_fds gave, and what came of them): has the parent ended
 * since?  True once. */
bool parent_gone(const struct pollfd *fds, size_t n, int64_t now);

#endif

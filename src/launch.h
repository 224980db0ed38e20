/* Starting the command in its own process group: the guard first (guard.h), which makes the
 * group, then the command as a member of it.  Where no guard can be had (fork refused, or
 * the guard took the last process the user may have), the command still runs, as GNU's
 * would, and is still timed out: it leads a group of its own, and stderr says what that
 * costs (setsid fails in it). */
#ifndef RUNLIMIT_LAUNCH_H
#define RUNLIMIT_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli.h"

struct launch {
	pid_t pid;        /* the command, or -1 with errno if it could not be forked */
	pid_t pgid;       /* its process group (0: --foreground, runlimit's own) */
	bool leads_group; /* no guard: the command leads its group itself */
	bool relay_failed; /* pid -1: the output relay's pipes could not be made */
};

/* Start cfg's command, runlimit being pid self, with every signal blocked meanwhile, and
 * give its group the terminal if runlimit has it. */
struct launch launch_command(const struct config *cfg, pid_t self);

#endif

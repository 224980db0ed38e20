/* Starting the command in its own process group: the guard first (guard.h), which makes the
 * group, then the command as a member of it.  Where no guard can be had (fork refused, or
 * the guard took the last process the user may have), the command still runs, as GNU's
 * would, and is still timed out: it leads a group of its own, and stderr says what that
 * costs (setsid fails in it). */
#ifndef RUNLIMIT_START_H
#define RUNLIMIT_START_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli.h"
#include "os/os.h"

/* Start cfg's command, runlimit being pid self, with every signal blocked meanwhile, and
 * give its group the terminal if runlimit has it.  The target (os/os.h) it returns has
 * command -1, with errno, if the command could not be forked; *relay_failed then says
 * whether the output relay's pipes were what could not be made. */
struct target start_command(const struct config *cfg, pid_t self, bool *relay_failed);

#endif

/* The supervisor: start the command, wait for it against the deadline, pass signals on,
 * escalate, and work out runlimit's exit status. */
#ifndef RUNLIMIT_SUPERVISE_H
#define RUNLIMIT_SUPERVISE_H

#include "cli.h"

/* Runs the command to completion.  Returns the exit status for runlimit, or does not return
 * at all when runlimit must die of the signal that killed the command. */
int supervise(const struct config *cfg);

#endif

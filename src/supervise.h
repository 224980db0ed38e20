/* The supervisor: start the command, wait for it against the deadline, pass signals on,
 * escalate, and work out runlimit's exit status. */
#ifndef RUNLIMIT_SUPERVISE_H
#define RUNLIMIT_SUPERVISE_H

#include "cli.h"

/* Runs the command to completion.  Returns the exit status for runlimit, or does not return
 * at all when runlimit must die of the signal that killed the command. */
int supervise(const struct config *cfg);

/* runlimit failed before there was a run to supervise (bad usage), and said why: the run's
 * end, refused, reported as any other's (if cfg asks for a report).  Returns 125. */
int supervise_refused(const struct config *cfg, const char *why);

#endif

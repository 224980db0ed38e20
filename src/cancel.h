/* The other side of a named run's control socket (control.h): `runlimit --cancel=NAME`
 * asks the run to end and waits until it has; `runlimit --list` shows the live named runs
 * of this user.  Neither ever signals anything itself: the run signals its own tree. */
#ifndef RUNLIMIT_CANCEL_H
#define RUNLIMIT_CANCEL_H

#include "cli.h"

/* --cancel=NAME (with cfg's -s and -k, if given): 0 once the run has ended, 1 if no run of
 * that NAME is running (its marker is left: a run of NAME that starts later does not run its
 * command), 125 on error. */
int cancel_main(const struct config *cfg);

/* --list: one line per live named run, "NAME PID ELAPSED COMMAND"; 0, or 125 on error. */
int list_main(void);

#endif

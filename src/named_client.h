/* The other side of a named run's control socket (named_wire.h): `runlimit --cancel=NAME`
 * asks the run to end and waits until it has; `runlimit --list` shows the live named runs
 * of this user (to root, of every user).  Neither ever signals anything itself: the run
 * signals its own tree.  Neither ever blocks: connections are made without blocking, a
 * cancel awaits every answer for 2 s at most, and --list asks one run after another against
 * one deadline 2 s away; only a listener of the directory's own user is talked to. */
#ifndef RUNLIMIT_NAMED_CLIENT_H
#define RUNLIMIT_NAMED_CLIENT_H

#include <stdbool.h>

#include "cli.h"

/* --cancel=NAME or UID:NAME (with cfg's -s, -k and --marker-ttl, if given): 0 once the run
 * has ended; 1 if no run of that NAME is running, nor has one ended within TOMBSTONE_TTL, and
 * a marker was left (a run of NAME that starts within its time does not run its command); 2
 * if none is and no marker was left; 3 if the run does not answer (the request is left in its
 * socket) or has not ended within the bound it gave; 4 if the run had ended (its tombstone,
 * and no live run) or ended before it was reached, and no marker was left (a run of NAME
 * started since is not this cancel's); 125 on error. */
int cancel_main(const struct config *cfg);

/* --list: one line per live named run, "NAME PID ELAPSED COMMAND" (its description worded in
 * this locale: wire_shown), "NAME - - not answering" (stopped, or its turn came after the
 * deadline) or "NAME - - not reached: WHY" (it could not be asked, or its answer read): none
 * is left out; with json, one JSON object per run (JSON Lines: the manual's --list); 0, or 125
 * on error. */
int list_main(bool json);

#endif

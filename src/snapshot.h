/* The tree at the limit: once per run, when a limit runs out or a request to end comes, and
 * before runlimit's first signal, the command's tree is described (os/os.h, the snapshot)
 * for the report (tree_at_limit), for -v (a compact tree on stderr) and for the
 * --on-timeout hook (RUNLIMIT_PIDS).  Nothing is read unless one of the three is asked for.
 * The manual says what is shown (RUN REPORT, -v). */
#ifndef RUNLIMIT_SNAPSHOT_H
#define RUNLIMIT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "json.h"
#include "os/os.h"

/* The most processes described; those past it are counted. */
#define SNAPSHOT_MAX 1000

/* Take the snapshot, if one is wanted and none was taken yet in this run; why: the reason's
 * word in the report ("deadline", "no-output", "alarm", "cancel", "forwarded").  -v then
 * shows it. */
void snapshot_take(const struct config *cfg, const struct target *t, const char *why);

/* The pids described, space-separated, into buf (size bytes, NUL-terminated; as many as
 * fit). */
void snapshot_pids(char *buf, size_t size);

/* The report's member: "tree_at_limit", null if no snapshot was taken. */
void snapshot_member(struct json *j, int64_t started);

#endif

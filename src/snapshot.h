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
#include "os/os.h"

/* The most processes described; those past it are counted. */
#define SNAPSHOT_MAX 1000

/* Is a snapshot wanted in this run: for the report, the hook or -v? */
bool snapshot_wanted(const struct config *cfg);

/* Where a limit's time is known (the deadline; the no-output limit's, while no output
 * comes), the tree is read SNAPSHOT_LEAD before it (at most a tenth of the limit), so that
 * the reading does not hold back the first signal.  A reading ahead serves a limit or a
 * request that comes while it is fresh, read at most its lead and SNAPSHOT_SLACK (or half
 * the lead, if more) before (a stop of runlimit, say, outlasts that); else the tree is read
 * again then.  Not with --on-timeout (supervise.c). */
#define SNAPSHOT_LEAD ((int64_t)100 * 1000000)
#define SNAPSHOT_SLACK ((int64_t)50 * 1000000)

/* How long before a limit of span (the duration, the no-output limit) the tree is read. */
int64_t snapshot_lead(int64_t span);

/* Read the tree ahead of a limit lead away (kept, not yet shown or reported). */
void snapshot_read_ahead(const struct config *cfg, const struct target *t, int64_t lead);

/* The command has ended: a tree read ahead of a limit is never described. */
void snapshot_forget_ahead(void);

/* Take the snapshot, if one is wanted and none was taken yet in this run: the read ahead if
 * it is fresh, else the tree as it is now; why: the reason's word in the report
 * ("deadline", "no-output", "alarm", "cancel", "forwarded").  -v then shows it. */
void snapshot_take(const struct config *cfg, const struct target *t, const char *why);

/* The pids described, space-separated, into buf (size bytes, NUL-terminated; as many as
 * fit). */
void snapshot_pids(char *buf, size_t size);

/* The snapshot, for the report (tree_at_limit): the reason's word, when the reading began
 * (clock_now()), the processes described (procs NULL: none could be, unavailable says
 * why), and how many more there were than the cap. */
struct snapshot_figures {
	const char *why;
	int64_t at;
	struct snap_proc *procs;
	size_t n, omitted;
	const char *unavailable;
};

/* The snapshot taken in this run (NULL: none was). */
const struct snapshot_figures *snapshot_figures(void);

#endif

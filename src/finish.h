/* What is said once the run is over: the last words on stderr (why the command could not
 * run, a status no rule knows, a core dump) and the run report's end. */
#ifndef RUNLIMIT_FINISH_H
#define RUNLIMIT_FINISH_H

#include "cli.h"
#include "os/os.h"
#include "status.h"

void finish_say(const struct config *cfg, const struct run_end *e);

/* The report's end (if one is wanted): how it went, and what of the tree is still alive. */
void finish_report(const struct config *cfg, const struct target *t, const struct run_end *e,
                   struct verdict v);

/* runlimit failed before the command could run (what, err): say it, report it, and return
 * 125. */
int finish_failed(const char *what, int err);

/* The same when what went wrong was said already: report why, and return 125. */
int finish_refused(const char *why);

/* A cancel came before the command started (named_control.h): the command never runs, and
 * runlimit ends as a cancelled run does, dying of SIGTERM, its report saying so. */
_Noreturn void finish_cancelled_early(const struct config *cfg);

#endif

/* What is said once the run is over: the last words on stderr (why the command could not
 * run, a status no rule knows, a core dump) and the run report's end. */
#ifndef RUNLIMIT_FINISH_H
#define RUNLIMIT_FINISH_H

#include "cli.h"
#include "os/os.h"
#include "status.h"

void finish_say(const struct config *cfg, const struct run_end *e);

/* What runlimit sent SIGKILL and was still alive when it gave up waiting for it (the
 * settle ran out, or a request cut it short): a process in an uninterruptible wait. */
struct unkilled {
	pid_t *pids; /* to be freed */
	long n;
	bool more;   /* others of the command's group may be alive too, which nothing here
	                can list (no process table) */
};

/* The settle gave up (supervise.c): what it left alive, found now, said on stderr: the
 * command if it is not reaped (command_alive), what of its tree is alive after its final
 * KILL (tree_killed), and the hook after its KILL. */
struct unkilled finish_unkilled(const struct config *cfg, const struct target *t,
                                bool command_alive, bool tree_killed);

/* The report's end (if one is wanted): how it went, and what of the tree is still alive
 * (u: what outlived a KILL). */
void finish_report(const struct config *cfg, const struct target *t, const struct run_end *e,
                   struct verdict v, const struct unkilled *u);

/* runlimit failed before the command could run (what, err): say it, report it, and return
 * 125. */
int finish_failed(const char *what, int err);

/* The same when what went wrong was said already: report why, and return 125. */
int finish_refused(const char *why);

/* A cancel came before the command started (named_control.h): the command never runs, and
 * runlimit ends as a cancelled run does, dying of SIGTERM, its report saying so. */
_Noreturn void finish_cancelled_early(const struct config *cfg);

#endif

/* What is said and written once the run is over, into its one record (run_end.h): the last
 * words on stderr (why the command could not run, a status no rule knows, a core dump, what
 * outlived its KILL) and the run report. */
#ifndef RUNLIMIT_FINISH_H
#define RUNLIMIT_FINISH_H

#include <stdbool.h>

#include "cli.h"
#include "os/os.h"
#include "run_end.h"

void finish_say(const struct config *cfg, const struct run_end *e);

/* The settle gave up (supervise.c): what it left alive, found now, said on stderr and kept
 * in e->unkilled: the command if it is not reaped (e->unreaped), what of its tree is alive
 * after its final KILL (tree_killed), and the hook after its KILL. */
void finish_unkilled(const struct config *cfg, const struct target *t, struct run_end *e,
                     bool tree_killed);

/* The report's end (if one is wanted), of e decided: what of the tree is still alive, and
 * what the relay saw.  e's lists are freed. */
void finish_report(const struct config *cfg, const struct target *t, struct run_end *e);

/* runlimit failed before the command could run (bad usage), and said why: the report of
 * cfg (if it asks for one) says why; returns 125. */
int finish_refused(const struct config *cfg, const char *why);

/* A cancel came before the command started (named_control.h): the command never runs, and
 * the run ends as a cancelled run does, runlimit dying of the cancel's signal. */
/* --die-with-parent: the process that started runlimit had ended before the command
 * started, which then never runs (said with -v). */
void finish_parent_gone_early(const struct config *cfg, struct run_end *e);

void finish_cancelled_early(const struct config *cfg, struct run_end *e);

#endif

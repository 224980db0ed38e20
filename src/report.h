/* --report=FILE: what happened in a run, as one JSON object on one line, written when
 * runlimit finishes, however it finishes.  Nothing here is collected, and no system call is
 * made, unless report_start was given a path.  The fields are documented in the manual
 * (RUN REPORT). */
#ifndef RUNLIMIT_REPORT_H
#define RUNLIMIT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"
#include "os/os.h"
#include "relay.h"
#include "run_end.h"

/* Begin collecting for cfg (cfg->report is the path; NULL: no report).  cfg may be only
 * partly filled in (bad usage), and its command NULL. */
void report_start(const struct config *cfg);

/* Is a report being collected? */
bool report_wanted(void);

/* A signal runlimit sent: to whom (target: "tree", "group", "command", "leftovers") and
 * why. */
void report_signal(int sig, const char *target, enum reason why);

/* runlimit has asked the tree to end (kill: with SIGKILL): the processes its walk found
 * (seen) count among those runlimit ended, unless they are still alive at the end.  seen's
 * list is sorted in place. */
void report_targets(struct tree_seen *seen, bool kill);

/* The limit that ran out: REASON_DEADLINE, REASON_ALARM, REASON_NO_OUTPUT or a budget's. */
void report_timed_out_by(enum reason why);

/* The run was ended by a --cancel (or a cancel came before it started). */
void report_cancelled(void);

/* The run was ended by the end of the process that started runlimit (--die-with-parent),
 * or that process had ended before it started. */
void report_parent_gone(void);

/* A final KILL that ran out of memory looked until nothing was alive, or gave up with left
 * processes alive: the count the report gives if it cannot list the tree itself. */
void report_kill_left(long left);

/* The command has been reaped: alive processes of its tree are still alive (-1: not
 * known). */
void report_command_ended(long alive);

/* Does the end of the report need the list of the tree's processes still alive
 * (run_end's survivors)?  Not when nothing was left at the command's exit and nothing was
 * asked to end: the listing is then skipped. */
bool report_wants_survivors(void);

/* Write the report (if one is wanted) of the run that ended as e says, its verdict drawn
 * (run_end.h).  A report that cannot be written is a warning on stderr, nothing more. */
void report_finish(const struct run_end *e);

#endif

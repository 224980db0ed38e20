/* Nested limits (the manual, NESTED LIMITS): a run takes the deadline its caller passed down
 * in RUNLIMIT_DEADLINE, less a reserve, when that comes before its own, and passes its own
 * deadline down to its command the same way; runlimit --remaining tells a script the time
 * left.  runlimit's own environment is never changed: the command's is a copy. */
#ifndef RUNLIMIT_NESTED_H
#define RUNLIMIT_NESTED_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

/* What a run took from RUNLIMIT_DEADLINE, for the report. */
struct inherited {
	int64_t deadline;  /* the inherited deadline, nanoseconds since the epoch */
	int64_t reserve;   /* the reserve taken off it (ns) */
	bool shortened;    /* the deadline less the reserve came before the run's own */
};

/* Before the command starts: the run's deadline on the deadline clock (os/os.h) from own,
 * its own (CLOCK_NEVER: none), and RUNLIMIT_DEADLINE (unless cfg->no_inherit); said with
 * -v when the inherited one is the earlier, and warned of when it is not a time.  Makes the
 * command's environment too (nested_env).  Returns the deadline, which may have passed. */
int64_t nested_deadline(const struct config *cfg, int64_t own);

/* While an inherited deadline is taken: when the final KILL of a grace goes out at the
 * latest, a second and the output grace before it, so that the run ends before the outer
 * limit fires even when the grace would not fit (CLOCK_NEVER: no such bound). */
int64_t nested_kill_by(void);

/* The run's deadline as nested_deadline made it (CLOCK_NEVER: none, or not made yet):
 * what --list --json tells of it. */
int64_t nested_run_deadline(void);

/* The command's environment, with RUNLIMIT_DEADLINE the earliest deadline the run knows
 * of, or without it when there is none; NULL: runlimit's own, as it is. */
char **nested_env(void);

/* What the run took from RUNLIMIT_DEADLINE; NULL if nothing (none, not a time, or
 * --no-inherit). */
const struct inherited *nested_taken(void);

/* runlimit --remaining [--reserve=DURATION]: print the seconds left under RUNLIMIT_DEADLINE,
 * less the reserve; the exit status (1: none, or none left). */
int remaining_main(const struct config *cfg);

#endif

/* What a limit sends the tree, as data: a list of steps, each a signal and how long after the
 * step before it it goes out.  -s and -k make today's two: the -s signal at the limit, then
 * SIGKILL, the final KILL, after -k's grace (runlimit's default grace where -k is not given).
 * A request to end (a signal from outside, a cancel, --kill-leftovers) sends its own signal
 * in place of the first step, and the steps after it follow.  After the final KILL runlimit
 * only waits for what it killed (supervise.c's settle).
 *
 * supervise.c walks the list (the phases), run_end.c reads kill_asked (the status rules),
 * nested.c its span (the nesting arithmetic), and a cancel's grace sets the final KILL's
 * delay (named_control.h). */
#ifndef RUNLIMIT_ESCALATION_H
#define RUNLIMIT_ESCALATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

#define STEPS_MAX 4

struct step {
	int sig;       /* the signal (0: nothing is sent, as with -s 0) */
	int64_t after; /* ns after the step before it (the first: at the limit, 0) */
};

struct escalation {
	struct step step[STEPS_MAX];
	size_t n;       /* at least 1; the last is the final KILL, unless nothing escalates
	                   (-k 0) */
	bool kill_asked; /* the final KILL is the caller's (-k or -s KILL), not runlimit's
	                    default grace: it escalates past a first step that sends nothing,
	                    and a death by it is 137 (run_end.c) */
};

/* The steps -s and -k (cfg) ask for. */
void escalation_of(const struct config *cfg, struct escalation *e);

/* Is step k a KILL (the final one, or a first step that is SIGKILL)? */
bool escalation_is_final(const struct escalation *e, size_t k);

/* The time from step k to the last step (0 when k is the last, or past it). */
int64_t escalation_span_from(const struct escalation *e, size_t k);

/* A cancel asks for its grace (ns, at least 1) before the final KILL: the last step's delay,
 * a final KILL added where the list had none (a cancel always ends the tree). */
void escalation_set_grace(struct escalation *e, int64_t grace);

/* The final KILL's delay (0: there is no final KILL after the first step). */
int64_t escalation_grace(const struct escalation *e);

#endif

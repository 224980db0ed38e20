/* The budgets (--memory, --max-procs, --cpu-time): limits on the command's whole tree, its
 * resident memory, the processes alive at once and the CPU time used, the ended included.
 * One that is exceeded is a limit running out, handled as the deadline is (supervise.c's
 * BUDGET event: the -s signal to the tree, the grace, KILL; 124).
 *
 * A budget is data: a row of budget_rows (budget_table.h: its option, unit, figure, words
 * and report members), which the options, the checks, -v and the report read; no code names
 * a budget but where a mechanism enforces one itself (budget_cgroup.c).
 *
 * What measures the tree is a mechanism: "sampled", the tree's processes read every
 * --budget-interval (os.h: tree_usage), on every system that can read them; where the
 * system can do better (a cgroup of the run's own, Linux), its mechanism measures instead,
 * the sampled one still measuring the figures it cannot, and it may tell of a budget it
 * enforced itself (budget_exceeded).  Nothing here runs, and no system call is made,
 * without a budget: then budget_next_wake is CLOCK_NEVER and budget_check BUDGET_NONE. */
#ifndef RUNLIMIT_BUDGET_H
#define RUNLIMIT_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "os/os.h"

/* How a mechanism measures the tree now, into *u (os.h; -1 in a figure it cannot tell):
 * 0, or -1 when it cannot measure at all (the budgets then go unchecked until it can). */
typedef int budget_measure_fn(const struct target *t, struct tree_usage *u);

struct budget_mechanism {
	const char *name;           /* the report's word: "sampled", "cgroup" */
	budget_measure_fn *measure;
	unsigned figures;           /* the figures it measures, a bit (1 << figure) each; a
	                               budget on another figure is measured by the sampled
	                               mechanism beside it, never not at all */
};

/* Is any budget asked? */
bool budget_wanted(const struct config *cfg);

/* Before the command starts: choose the mechanism (with --cgroup).  NULL when the budgets
 * can be kept, or why not (runlimit then refuses the run: 125). */
const char *budget_prepare(const struct config *cfg);

/* A mechanism other than the sampled one measures this run (its budget_prepare part). */
void budget_use(const struct budget_mechanism *m);

/* The command has started as t (which stays where it is for the run): the clock runs. */
void budget_start(const struct target *t);

/* When the budgets next want a look (CLOCK_NEVER: not at all, or no more). */
int64_t budget_next_wake(void);

/* At now: measure if due, keep the peaks, and say which budget is exceeded, if one is
 * (once: after that none is checked again, as a limit runs out once). */
enum budget_kind budget_check(int64_t now);

/* A mechanism's own news of an exceeded budget (the kernel's OOM kill in a cgroup), at the
 * usage found (-1: not known): the next budget_check returns it. */
void budget_exceeded(enum budget_kind kind, int64_t used);

/* What -v says of the budget exceeded, in its row's word and unit: "memory 2.3G over the 2G
 * budget", "procs 51 over the 50 budget", "cpu-time 1.02s over the 1s budget".  Empty
 * before one is. */
void budget_over_words(char *buf, size_t size);

/* A limit ran out (any, or a request to end came): the tree is measured one last time for
 * the report, and no more (the --on-timeout hook, runlimit's child too, is not the tree). */
void budget_stop(void);

/* For the run report, whenever a budget was asked (else NULL): each budget's limit (0: none)
 * and the peak its figure was seen at (-1: never measured; CPU time: the last, the most
 * used), and the mechanism; budget.c's own, as they stand now. */
struct budget_figures {
	int64_t limit[BUDGET_KINDS];
	int64_t peak[BUDGET_KINDS];
	const char *mechanism;
	int64_t interval;      /* --budget-interval */
};
const struct budget_figures *budget_figures(void);

#endif

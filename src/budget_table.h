/* The budgets as data: a kind and a row each, all that differs between two budgets (the
 * option, its unit, the figure of a measure it is kept on, its words and its members of the
 * report).  The options (cli.c), the checks and -v's words (budget.c) and the report
 * (report.c) read the rows; budget.h is what keeps them.  Adding a budget: CONTRIBUTING.md,
 * Adding a budget. */
#ifndef RUNLIMIT_BUDGET_TABLE_H
#define RUNLIMIT_BUDGET_TABLE_H

#include "os/os.h"

/* One per row, in the order they are checked in (memory first, the likeliest to do harm
 * soonest), listed in --help and written in the report. */
enum budget_kind { BUDGET_NONE, BUDGET_MEMORY, BUDGET_PROCS, BUDGET_CPU, BUDGET_KINDS };

/* How a budget's value reads on the command line (cli.c), and how -v and the report write
 * it: a size in bytes ("2G"), a count, or a duration in ns ("1.5s"; the report's seconds). */
enum budget_unit { BUDGET_BYTES, BUDGET_COUNT, BUDGET_NS };

/* A budget, all that differs between two: its row of budget_rows. */
struct budget_row {
	const char *option;       /* its option, without "--": "memory" */
	const char *help;         /* its lines of --help, each ended by a newline */
	const char *value_name;   /* a bad value's message: "invalid memory size '1x' (...)" */
	enum budget_unit unit;
	enum usage_figure figure; /* the figure of a measure it is kept on (os.h) */
	const char *word;         /* its name in -v's words and the report's reasons: "memory" */
	const char *limit_field;  /* its members of the report's budgets: the limit ... */
	const char *peak_field;   /* ... and its figure's peak */
};

/* Indexed by enum budget_kind, from BUDGET_NONE + 1. */
extern const struct budget_row budget_rows[BUDGET_KINDS];

#endif

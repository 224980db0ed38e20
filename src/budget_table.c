/* The budgets' rows (budget_table.h): a new budget is a row here and its kind in the
 * header (CONTRIBUTING.md, Adding a budget). */
#include "budget_table.h"

const struct budget_row budget_rows[BUDGET_KINDS] = {
	[BUDGET_MEMORY] = {
		"memory",
		"      --memory=SIZE          time out when the resident memory of COMMAND and\n"
		"                               what it started exceeds SIZE together: bytes,\n"
		"                               or a number with K, M, G or T (1024s) after it\n",
		"memory size", BUDGET_BYTES, USAGE_MEMORY,
		"memory", "memory_limit_bytes", "memory_peak_bytes",
	},
	[BUDGET_PROCS] = {
		"max-procs",
		"      --max-procs=N          time out when more than N processes of COMMAND's\n"
		"                               tree are alive at once\n",
		"process count", BUDGET_COUNT, USAGE_PROCS,
		"procs", "max_procs", "procs_peak",
	},
	[BUDGET_CPU] = {
		"cpu-time",
		"      --cpu-time=DURATION    time out when COMMAND and what it started, the\n"
		"                               ended included, have used DURATION of CPU time\n",
		"CPU time", BUDGET_NS, USAGE_CPU,
		"cpu-time", "cpu_time_limit_seconds", "cpu_seconds",
	},
};

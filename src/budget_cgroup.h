/* The budgets' cgroup mechanism (budget.h): where --cgroup and the system allow it, the run
 * gets a cgroup of its own (os.h: cgroup_make; Linux, cgroup v2) that the kernel enforces the
 * memory and process budgets in, and that measures the tree for the report and the CPU-time
 * budget.  Its event files wake runlimit's wait; an OOM kill or a refused fork there is the
 * budget running out.  --cgroup=auto uses it when a budget is asked and it can be made, and
 * the sampled mechanism otherwise; required refuses the run (125) when it cannot be made,
 * and makes one even without a budget (the final KILL is then its cgroup.kill); no never. */
#ifndef RUNLIMIT_BUDGET_CGROUP_H
#define RUNLIMIT_BUDGET_CGROUP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* Before the guard and the command start, and before budget_prepare: make the cgroup where
 * cfg asks for one and plug the mechanism in (budget_use).  NULL, or why the run is refused
 * (--cgroup=required). */
const char *budget_cgroup_prepare(const struct config *cfg);

/* The descriptors for the run's wait, into fds (at most CGROUP_MAX_FDS); how many. */
size_t budget_cgroup_fds(struct pollfd *fds);

/* After the wait: if the cgroup's files changed, what they say (a budget exceeded). */
void budget_cgroup_pump(const struct pollfd *fds, size_t n);

/* For the report: the processes the kernel's OOM killer ended in the run's cgroup (-1: no
 * cgroup with the memory budget). */
int64_t budget_cgroup_oom_kills(void);

/* Before runlimit returns, on every path after budget_cgroup_prepare: the cgroup goes,
 * once what was KILLed in it is gone or until (the settle's end) has come. */
void budget_cgroup_end(int64_t until);

#endif

#include "budget_cgroup.h"

#include <stdbool.h>
#include <stdio.h>

#include "budget.h"
#include "os/os.h"
#include "test_hooks.h"

static struct {
	bool made;          /* the run has its cgroup (until budget_cgroup_end) */
	bool used;          /* it had one: the report tells its OOM kills */
	bool memory;        /* the memory budget is the cgroup's */
	int64_t procs;      /* the process budget (0: none) */
	int64_t oom_kills;
	char why[512];
} c;

static int cgroup_measure(const struct target *t, struct tree_usage *u);

/* Measured every --budget-interval, as the sampled mechanism is: the CPU-time budget has no
 * event of the kernel's, and the peak process count is read (pids.peak only came with Linux
 * 6.13).  The figures it declares are those cgroup_measure fills (fewer in the hooks build,
 * TEST_CGROUP_BLIND). */
static struct budget_mechanism cgroup_mechanism = {
	"cgroup", cgroup_measure, 1u << USAGE_MEMORY | 1u << USAGE_PROCS | 1u << USAGE_CPU,
};

/* The mechanism's measure: the cgroup's own counts, of the figures it declares.  Memory is
 * memory.peak, the most the tree was charged at once (page cache included: the kernel's
 * figure, not the sum of the resident sets); processes are pids.current, which counts
 * threads as the kernel does. */
static int cgroup_measure(const struct target *t, struct tree_usage *u)
{
	(void)t;
	struct cgroup_usage cu;
	if (!cgroup_usage(&cu))
		return -1;
	const int64_t got[USAGE_FIGURES] = {
	    [USAGE_MEMORY] = cu.memory_peak, [USAGE_PROCS] = cu.procs_now, [USAGE_CPU] = cu.cpu_ns};
	for (int f = 0; f < USAGE_FIGURES; f++)
		if (cgroup_mechanism.figures & 1u << f)
			u->figure[f] = got[f];
	return 0;
}

const char *budget_cgroup_prepare(const struct config *cfg)
{
	bool wanted = budget_wanted(cfg);
	if (cfg->cgroup == CGROUP_NO || (cfg->cgroup == CGROUP_AUTO && !wanted))
		return NULL;
	struct cgroup_ask ask = {cfg->budget[BUDGET_MEMORY], cfg->budget[BUDGET_PROCS]};
	char reason[400];
	if (cgroup_make(&ask, reason, sizeof reason) != 0) {
		if (cfg->cgroup != CGROUP_REQUIRED)
			return NULL; /* auto: the sampled mechanism */
		snprintf(c.why, sizeof c.why, "cannot make a cgroup for the run: %s", reason);
		return c.why;
	}
	c.made = c.used = true;
	c.memory = cfg->budget[BUDGET_MEMORY] > 0;
	c.procs = cfg->budget[BUDGET_PROCS];
	cgroup_mechanism.figures &= ~(unsigned)test_hook_number(TEST_CGROUP_BLIND);
	if (wanted)
		budget_use(&cgroup_mechanism);
	return NULL;
}

size_t budget_cgroup_fds(struct pollfd *fds)
{
	return c.made ? cgroup_fds(fds) : 0;
}

void budget_cgroup_pump(const struct pollfd *fds, size_t n)
{
	bool news = false;
	for (size_t k = 0; k < n; k++)
		news = news || fds[k].revents != 0;
	const struct cgroup_state *s = news ? cgroup_events() : NULL;
	if (!s)
		return;
	/* The kernel enforced the budget: an OOM kill at memory.max, a fork refused at
	 * pids.max.  Either is the budget running out, as a measure over it would be. */
	if (c.memory && s->oom_kills > c.oom_kills) {
		c.oom_kills = s->oom_kills;
		struct cgroup_usage u;
		budget_exceeded(BUDGET_MEMORY, cgroup_usage(&u) ? u.memory_peak : -1);
	}
	if (c.procs > 0 && s->procs_refused > 0)
		budget_exceeded(BUDGET_PROCS, c.procs + 1);
}

int64_t budget_cgroup_oom_kills(void)
{
	if (!c.used || !c.memory)
		return -1;
	const struct cgroup_state *s = c.made ? cgroup_events() : NULL;
	if (s && s->oom_kills > c.oom_kills)
		c.oom_kills = s->oom_kills;
	return c.oom_kills;
}

void budget_cgroup_end(int64_t until)
{
	if (c.made) {
		/* The last figures before the files go (the report's peaks). */
		budget_cgroup_oom_kills();
		budget_stop();
	}
	cgroup_remove(until);
	c.made = false;
}

/* The budgets (budget.h): the limits, the mechanism that measures, the peaks it saw, and
 * the one budget that ran out.  The sampled mechanism is here: the walk's usage of the live
 * tree (os.h, tree_usage), plus the CPU time of what runlimit itself collected, the command
 * and the orphans it adopted as a reaper (getrusage RUSAGE_CHILDREN, less what it had
 * collected before the run: those are not the tree's). */
#include "budget.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "size.h"

static int sampled_measure(const struct target *t, struct tree_usage *u);

static const struct budget_mechanism sampled = {"sampled", sampled_measure, true};

static struct {
	const struct config *cfg;     /* NULL: no budget, nothing to do */
	const struct budget_mechanism *mechanism;
	const struct target *target;  /* NULL until the command starts */
	int64_t next;                 /* the next measure (CLOCK_NEVER: none) */
	bool stopped;                 /* measured for the last time */
	int64_t reaped_before;        /* ns of CPU runlimit's children had used before the run */
	int64_t memory_peak;          /* -1: not known (yet) */
	long procs_peak;
	int64_t cpu_used;
	enum budget_kind over;        /* the budget that ran out (BUDGET_NONE: none yet) */
	int64_t over_by;              /* what was measured then (-1: not known) */
	bool told;                    /* budget_check has returned over */
} b = {.next = CLOCK_NEVER, .memory_peak = -1, .procs_peak = -1, .cpu_used = -1};

bool budget_wanted(const struct config *cfg)
{
	return cfg->mem_budget > 0 || cfg->procs_budget > 0 || cfg->cpu_budget > 0;
}

/* ns of CPU, user and system, of the children runlimit has collected. */
static int64_t reaped_cpu(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		return -1;
	return ((int64_t)ru.ru_utime.tv_sec + (int64_t)ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + (int64_t)ru.ru_stime.tv_usec) * 1000;
}

/* The walk's live tree, and what runlimit collected of it.  The command's exit moves its
 * time (and what it collected) from the walk to runlimit's children in one step of
 * runlimit's own (the reaping), never between the two reads here: nothing is counted twice
 * or missed.  A zombie not yet collected by its parent counts in neither until it is. */
static int sampled_measure(const struct target *t, struct tree_usage *u)
{
	if (tree_usage(t, u) != 0)
		return -1;
	int64_t reaped = reaped_cpu();
	if (u->figure[USAGE_CPU] >= 0 && reaped >= 0 && b.reaped_before >= 0)
		u->figure[USAGE_CPU] += reaped - b.reaped_before;
	else
		u->figure[USAGE_CPU] = -1;
	return 0;
}

const char *budget_prepare(const struct config *cfg)
{
	/* --cgroup=required is budget_cgroup.c's to refuse, before: it calls budget_use when
	 * the run has its cgroup. */
	if (!budget_wanted(cfg))
		return NULL;
	if (!b.mechanism && !tree_usage_possible())
		return "the budgets cannot be measured here: the command's processes cannot be "
		       "listed";
	b.cfg = cfg;
	if (!b.mechanism)
		b.mechanism = &sampled;
	b.reaped_before = reaped_cpu();
	return NULL;
}

void budget_use(const struct budget_mechanism *m)
{
	b.mechanism = m;
}

void budget_start(const struct target *t)
{
	if (!b.cfg)
		return;
	b.target = t;
	/* The first look one interval after the start: before that a tree has hardly begun. */
	b.next = b.mechanism->periodic ? clock_after(clock_now(), b.cfg->budget_interval)
	                               : CLOCK_NEVER;
}

int64_t budget_next_wake(void)
{
	return b.stopped ? CLOCK_NEVER : b.next;
}

/* Measure the tree now and keep the peaks; false if it could not be measured. */
static bool measure(struct tree_usage *u)
{
	*u = (struct tree_usage){{-1, -1, -1}};
	if (!b.target || b.mechanism->measure(b.target, u) != 0)
		return false;
	if (u->figure[USAGE_MEMORY] > b.memory_peak)
		b.memory_peak = u->figure[USAGE_MEMORY];
	if (u->figure[USAGE_PROCS] > b.procs_peak)
		b.procs_peak = u->figure[USAGE_PROCS];
	if (u->figure[USAGE_CPU] > b.cpu_used)
		b.cpu_used = u->figure[USAGE_CPU];
	return true;
}

/* The budget u exceeds, if one: memory first, the likeliest to do harm soonest. */
static enum budget_kind exceeded(const struct tree_usage *u)
{
	const struct config *cfg = b.cfg;
	if (cfg->mem_budget > 0 && u->figure[USAGE_MEMORY] >= 0 && (uint64_t)u->figure[USAGE_MEMORY] > cfg->mem_budget) {
		b.over_by = u->figure[USAGE_MEMORY];
		return BUDGET_MEMORY;
	}
	if (cfg->procs_budget > 0 && u->figure[USAGE_PROCS] > cfg->procs_budget) {
		b.over_by = u->figure[USAGE_PROCS];
		return BUDGET_PROCS;
	}
	if (cfg->cpu_budget > 0 && u->figure[USAGE_CPU] > cfg->cpu_budget) {
		b.over_by = u->figure[USAGE_CPU];
		return BUDGET_CPU;
	}
	return BUDGET_NONE;
}

enum budget_kind budget_check(int64_t now)
{
	if (!b.cfg || b.told)
		return BUDGET_NONE;
	if (b.over == BUDGET_NONE && !b.stopped && now >= b.next) {
		struct tree_usage u;
		if (measure(&u))
			b.over = exceeded(&u);
		b.next = clock_after(now, b.cfg->budget_interval);
	}
	if (b.over == BUDGET_NONE)
		return BUDGET_NONE;
	b.told = true;
	b.stopped = true; /* a limit runs out once: the measures end with it */
	return b.over;
}

void budget_exceeded(enum budget_kind kind, int64_t used)
{
	if (!b.cfg || b.over != BUDGET_NONE)
		return;
	b.over = kind;
	b.over_by = used;
}

/* ns as seconds with up to places decimals, none of them trailing zeros; rounded up with
 * up (a use over a limit never reads as the limit). */
static void seconds(int64_t ns, int places, bool up, char *buf, size_t size)
{
	int64_t unit = 1000000000, step = 1;
	for (int k = 0; k < places; k++)
		unit /= 10, step *= 10;
	int64_t n = ns / unit + (up && ns % unit ? 1 : 0);
	int len = snprintf(buf, size, "%lld.%0*lld", (long long)(n / step), places,
	                   (long long)(n % step));
	while (len > 0 && (size_t)len < size && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (len > 0 && (size_t)len < size && buf[len - 1] == '.')
		buf[--len] = '\0';
	if (len >= 0 && (size_t)len + 1 < size)
		strcat(buf, "s");
}

void budget_over_words(char *buf, size_t size)
{
	char used[32], limit[32];
	const struct config *cfg = b.cfg;
	*buf = '\0';
	if (!cfg)
		return;
	switch (b.over) {
	case BUDGET_MEMORY:
		size_format(cfg->mem_budget, limit, sizeof limit);
		if (b.over_by >= 0)
			size_format((uint64_t)b.over_by, used, sizeof used);
		snprintf(buf, size, "memory %s over the %s budget", b.over_by >= 0 ? used : "?", limit);
		break;
	case BUDGET_PROCS:
		snprintf(buf, size, "procs %ld over the %ld budget", (long)b.over_by, cfg->procs_budget);
		break;
	case BUDGET_CPU:
		seconds(cfg->cpu_budget, 3, false, limit, sizeof limit);
		seconds(b.over_by, 2, true, used, sizeof used);
		snprintf(buf, size, "cpu-time %s over the %s budget", used, limit);
		break;
	case BUDGET_NONE:
		break;
	}
}

void budget_stop(void)
{
	if (!b.cfg || b.stopped)
		return;
	struct tree_usage u;
	measure(&u);
	b.stopped = true;
}

bool budget_figures(struct budget_figures *f)
{
	const struct config *cfg = b.cfg;
	if (!cfg)
		return false;
	*f = (struct budget_figures){cfg->mem_budget, cfg->procs_budget, cfg->cpu_budget,
	                             b.memory_peak, b.procs_peak, b.cpu_used,
	                             b.mechanism->name, cfg->budget_interval};
	return true;
}

/* The budgets (budget.h): the limits, the mechanism that measures, the peaks
 * it saw, and the one budget that ran out.  The sampled mechanism is here: the walk's usage
 * of the live tree (os.h, tree_usage), plus the CPU time of what runlimit itself collected,
 * the command and the orphans it adopted as a reaper (getrusage RUSAGE_CHILDREN, less what
 * it had collected before the run: those are not the tree's). */
#include "budget.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "size.h"

static int sampled_measure(const struct target *t, struct tree_usage *u);

static const struct budget_mechanism sampled = {
	"sampled", sampled_measure, (1u << USAGE_FIGURES) - 1,
};

static struct {
	const struct config *cfg;     /* NULL: no budget, nothing to do */
	const struct budget_mechanism *mechanism;
	unsigned sampled_too;         /* figures asked that the mechanism cannot measure: the
	                                 sampled mechanism's beside it */
	const struct target *target;  /* NULL until the command starts */
	int64_t next;                 /* the next measure (CLOCK_NEVER: none) */
	bool stopped;                 /* measured for the last time */
	int64_t reaped_before;        /* ns of CPU runlimit's children had used before the run */
	int64_t peak[USAGE_FIGURES];  /* the most each figure was seen at (-1: not known yet) */
	enum budget_kind over;        /* the budget that ran out (BUDGET_NONE: none yet) */
	int64_t over_by;              /* what was measured then (-1: not known) */
	bool told;                    /* budget_check has returned over */
} b = {.next = CLOCK_NEVER};

/* Every figure of *u not known (a figure no mechanism fills stays so, never reads as 0). */
static void unknown(struct tree_usage *u)
{
	for (int f = 0; f < USAGE_FIGURES; f++)
		u->figure[f] = -1;
}

bool budget_wanted(const struct config *cfg)
{
	for (int k = BUDGET_NONE + 1; k < BUDGET_KINDS; k++)
		if (cfg->budget[k] > 0)
			return true;
	return false;
}

/* The figures the budgets asked are kept on, a bit each. */
static unsigned figures_asked(const struct config *cfg)
{
	unsigned asked = 0;
	for (int k = BUDGET_NONE + 1; k < BUDGET_KINDS; k++)
		if (cfg->budget[k] > 0)
			asked |= 1u << budget_rows[k].figure;
	return asked;
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
	unsigned others = b.mechanism ? figures_asked(cfg) & ~b.mechanism->figures : 0;
	if ((!b.mechanism || others) && !tree_usage_possible())
		return "the budgets cannot be measured here: the command's processes cannot be "
		       "listed";
	b.cfg = cfg;
	for (int f = 0; f < USAGE_FIGURES; f++)
		b.peak[f] = -1;
	if (!b.mechanism)
		b.mechanism = &sampled;
	b.sampled_too = others;
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
	b.next = clock_after(clock_now(), b.cfg->budget_interval);
}

int64_t budget_next_wake(void)
{
	return b.stopped ? CLOCK_NEVER : b.next;
}

/* Measure the tree now, by the mechanism and, for the figures it cannot tell, the sampled
 * one, and keep the peaks; false if nothing could be measured. */
static bool measure(struct tree_usage *u)
{
	unknown(u);
	if (!b.target)
		return false;
	bool measured = b.mechanism->measure(b.target, u) == 0;
	struct tree_usage s;
	unknown(&s);
	if (b.sampled_too && sampled_measure(b.target, &s) == 0) {
		for (int f = 0; f < USAGE_FIGURES; f++)
			if (b.sampled_too & 1u << f)
				u->figure[f] = s.figure[f];
		measured = true;
	}
	if (!measured)
		return false;
	for (int f = 0; f < USAGE_FIGURES; f++)
		if (u->figure[f] > b.peak[f])
			b.peak[f] = u->figure[f];
	return true;
}

/* The budget u exceeds, if one: the first in the table's order. */
static enum budget_kind exceeded(const struct tree_usage *u)
{
	for (int k = BUDGET_NONE + 1; k < BUDGET_KINDS; k++) {
		int64_t limit = b.cfg->budget[k], used = u->figure[budget_rows[k].figure];
		if (limit > 0 && used >= 0 && used > limit) {
			b.over_by = used;
			return (enum budget_kind)k;
		}
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

/* value in unit, as -v says it; up: a use over a limit, never to read as the limit. */
static void unit_words(enum budget_unit unit, int64_t value, bool up, char *buf, size_t size)
{
	switch (unit) {
	case BUDGET_BYTES:
		if (value >= 0)
			size_format((uint64_t)value, buf, size);
		else
			snprintf(buf, size, "?");
		break;
	case BUDGET_COUNT:
		snprintf(buf, size, "%lld", (long long)value);
		break;
	case BUDGET_NS:
		seconds(value, up ? 2 : 3, up, buf, size);
		break;
	}
}

void budget_over_words(char *buf, size_t size)
{
	char used[32], limit[32];
	*buf = '\0';
	if (!b.cfg || b.over == BUDGET_NONE)
		return;
	const struct budget_row *row = &budget_rows[b.over];
	unit_words(row->unit, b.cfg->budget[b.over], false, limit, sizeof limit);
	unit_words(row->unit, b.over_by, true, used, sizeof used);
	snprintf(buf, size, "%s %s over the %s budget", row->word, used, limit);
}

void budget_stop(void)
{
	if (!b.cfg || b.stopped)
		return;
	struct tree_usage u;
	measure(&u);
	b.stopped = true;
}

const struct budget_figures *budget_figures(void)
{
	static struct budget_figures f;
	const struct config *cfg = b.cfg;
	if (!cfg)
		return NULL;
	f = (struct budget_figures){.mechanism = b.mechanism->name,
	                            .interval = cfg->budget_interval};
	for (int k = BUDGET_NONE + 1; k < BUDGET_KINDS; k++) {
		f.limit[k] = cfg->budget[k];
		f.peak[k] = b.peak[budget_rows[k].figure];
	}
	return &f;
}

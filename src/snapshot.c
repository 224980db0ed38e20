#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "test_hooks.h"

static struct snapshot_figures snap; /* the tree as last read */
static struct {
	bool taken;
	bool ahead;      /* read ahead of the deadline, not yet taken */
	int64_t read_by; /* clock_now() when the reading ended */
	int64_t lead;    /* how long before the deadline a reading ahead begins */
} reading;

/* The cap, which test builds may lower (TEST_SNAP_MAX) to show the omitted count
 * without starting a thousand processes. */
static size_t cap(void)
{
	int max = test_hook_number(TEST_SNAP_MAX);
	if (max > 0 && max < SNAPSHOT_MAX)
		return (size_t)max;
	return SNAPSHOT_MAX;
}

/* "9m58s": the elapsed time as -v shows it. */
static void short_time(char *buf, size_t size, int64_t ns)
{
	long long s = ns / 1000000000;
	if (ns < 0)
		snprintf(buf, size, "?");
	else if (s < 10)
		snprintf(buf, size, "%lld.%llds", s, (long long)(ns / 100000000 % 10));
	else if (s < 3600)
		snprintf(buf, size, s < 60 ? "%llds" : "%lldm%02llds", s < 60 ? s : s / 60, s % 60);
	else
		snprintf(buf, size, "%lldh%02lldm", s / 3600, s / 60 % 60);
}

/* The arguments as -v shows them: joined by spaces, control characters as '?', at most
 * size - 1 bytes (then "..."). */
static void command_line(char *buf, size_t size, const struct snap_proc *p)
{
	size_t n = 0;
	if (p->args_len == 0 && size > 10) {
		snprintf(buf, size, p->state == 'Z' ? "<defunct>" : "<no arguments>");
		return;
	}
	for (size_t k = 0; k < p->args_len && n + 1 < size; k++) {
		unsigned char c = (unsigned char)p->args[k];
		if (c == '\0' && k + 1 == p->args_len)
			break;
		buf[n++] = c == '\0' ? ' ' : c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (n + 1 >= size && size > 4) {
		memcpy(buf + size - 4, "...", 3);
		n = size - 1;
	}
	buf[n] = '\0';
}

struct tell {
	long *parent; /* each process's parent among procs (-1: none described) */
	int lines;
};

#define TELL_LINES 20

/* One line for procs[i], then its children, depth deep. */
static void tell_one(struct tell *t, size_t i, int depth)
{
	if (t->lines == TELL_LINES)
		return;
	const struct snap_proc *p = &snap.procs[i];
	char when[32], cmd[160];
	short_time(when, sizeof when, p->elapsed);
	command_line(cmd, sizeof cmd, p);
	int indent = 2 + 2 * (depth < 12 ? depth : 12);
	msg_plain("%*s%d %c %s  %s", indent, "", (int)p->pid, p->state, when, cmd);
	t->lines++;
	for (size_t k = 0; k < snap.n; k++)
		if (t->parent[k] == (long)i)
			tell_one(t, k, depth + 1);
}

/* -v: the tree, nested by parent, at most TELL_LINES lines. */
static void tell(void)
{
	static const char *const at[][2] = {
		{"deadline", "the deadline"}, {"no-output", "the no-output limit"},
		{"alarm", "SIGALRM"}, {"cancel", "the cancel"}, {"forwarded", "the request to end"},
		{"parent", "its caller's end"},
	};
	const char *when = snap.why;
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
		if (strcmp(at[k][0], snap.why) == 0)
			when = at[k][1];
	if (!snap.procs) {
		msg("the command's tree at %s: not known (%s)", when, snap.unavailable);
		return;
	}
	size_t total = snap.n + snap.omitted;
	msg("the command's tree at %s: %zu process%s", when, total, total == 1 ? "" : "es");
	struct tell t = {calloc(snap.n ? snap.n : 1, sizeof *t.parent), 0};
	if (!t.parent)
		return;
	for (size_t i = 0; i < snap.n; i++) {
		t.parent[i] = -1;
		for (size_t k = 0; k < snap.n; k++)
			if (k != i && snap.procs[k].pid == snap.procs[i].ppid)
				t.parent[i] = (long)k;
	}
	for (size_t i = 0; i < snap.n; i++)
		if (t.parent[i] < 0)
			tell_one(&t, i, 0);
	if (total > (size_t)t.lines)
		msg_plain("  \xe2\x80\xa6 and %zu more", total - (size_t)t.lines);
	free(t.parent);
}

/* Only for what shows it: the report, the hook, and -v (as timeout, -v stays GNU's). */
static bool shown(const struct config *cfg)
{
	return cfg->verbose && strcmp(progname, "timeout") != 0;
}

bool snapshot_wanted(const struct config *cfg)
{
	return cfg->report || shown(cfg) || cfg->on_timeout;
}

int64_t snapshot_lead(int64_t span)
{
	/* Test builds only: a longer lead, so that a test can act between the reading and the
	 * limit without a race. */
	int ms = test_hook_number(TEST_SNAP_LEAD_MS);
	if (ms > 0)
		return (int64_t)ms * 1000000;
	if (span < 0)
		span = 0; /* an inherited deadline already past */
	return span / 10 < SNAPSHOT_LEAD ? span / 10 : SNAPSHOT_LEAD;
}

/* Read the tree into snap (bounded, about 1 MiB for the cap; never a failure: short of
 * memory, fewer). */
static void read_tree(const struct target *t)
{
	free(snap.procs);
	snap.procs = NULL;
	snap.n = snap.omitted = 0;
	snap.unavailable = NULL;
	snap.at = clock_now();
	size_t max = cap();
	while (max > 0 && !(snap.procs = malloc(max * sizeof *snap.procs)))
		max /= 4;
	if (!snap.procs) {
		snap.unavailable = "out of memory";
	} else {
		long n = tree_snapshot(t, snap.procs, max, &snap.omitted);
		if (n < 0) {
			free(snap.procs);
			snap.procs = NULL;
			snap.unavailable = "this system cannot list the command's tree";
		} else {
			snap.n = (size_t)n;
		}
	}
	reading.read_by = clock_now();
}

void snapshot_read_ahead(const struct config *cfg, const struct target *t, int64_t lead)
{
	if (reading.taken || !snapshot_wanted(cfg))
		return;
	read_tree(t);
	reading.ahead = true;
	reading.lead = lead;
}

void snapshot_forget_ahead(void)
{
	reading.ahead = false;
}

void snapshot_take(const struct config *cfg, const struct target *t, const char *why)
{
	if (reading.taken || !snapshot_wanted(cfg))
		return;
	int64_t slack = reading.lead / 2 > SNAPSHOT_SLACK ? reading.lead / 2 : SNAPSHOT_SLACK;
	if (!reading.ahead || clock_now() - reading.read_by > reading.lead + slack)
		read_tree(t);
	reading.ahead = false;
	reading.taken = true;
	snap.why = why;
	if (shown(cfg))
		tell();
}

void snapshot_pids(char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < snap.n && snap.procs; k++) {
		int w = snprintf(buf + n, size - n, n == 0 ? "%d" : " %d", (int)snap.procs[k].pid);
		if (w < 0 || (size_t)w >= size - n) {
			buf[n] = '\0';
			return;
		}
		n += (size_t)w;
	}
}

const struct snapshot_figures *snapshot_figures(void)
{
	return reading.taken ? &snap : NULL;
}

#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "test_hooks.h"

static struct {
	bool taken;
	bool ahead;              /* read ahead of the deadline, not yet taken */
	const char *why;         /* the report's reason */
	int64_t at;              /* clock_now() when the reading began */
	int64_t read_by;         /* clock_now() when it ended */
	int64_t lead;            /* how long before the deadline a reading ahead begins */
	struct snap_proc *procs; /* NULL: none could be described (unavailable says why) */
	size_t n, omitted;
	const char *unavailable;
} snap;

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
	snap.read_by = clock_now();
}

void snapshot_read_ahead(const struct config *cfg, const struct target *t, int64_t lead)
{
	if (snap.taken || !snapshot_wanted(cfg))
		return;
	read_tree(t);
	snap.ahead = true;
	snap.lead = lead;
}

void snapshot_forget_ahead(void)
{
	snap.ahead = false;
}

void snapshot_take(const struct config *cfg, const struct target *t, const char *why)
{
	if (snap.taken || !snapshot_wanted(cfg))
		return;
	int64_t slack = snap.lead / 2 > SNAPSHOT_SLACK ? snap.lead / 2 : SNAPSHOT_SLACK;
	if (!snap.ahead || clock_now() - snap.read_by > snap.lead + slack)
		read_tree(t);
	snap.ahead = false;
	snap.taken = true;
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

/* The report's word for a state letter as ps shows it. */
static const char *state_word(char state)
{
	static const char letters[] = "RSDTtZIWL";
	static const char *const words[] = {"running", "sleeping", "disk-wait", "stopped", "traced",
	                                    "zombie", "idle", "waiting", "locked"};
	const char *at = state ? strchr(letters, state) : NULL;
	return at ? words[at - letters] : "unknown";
}

static void process_member(struct json *j, const struct snap_proc *p)
{
	json_open(j, '{');
	json_int_member(j, "pid", true, p->pid);
	json_int_member(j, "ppid", true, p->ppid);
	json_int_member(j, "pgid", true, p->pgid);
	json_string_member(j, "state", state_word(p->state));
	json_seconds_member(j, "elapsed_seconds", p->elapsed >= 0, p->elapsed);
	json_seconds_member(j, "cpu_seconds", p->cpu >= 0, p->cpu);
	json_int_member(j, "rss_kib", p->rss_kib >= 0, p->rss_kib);
	/* As the report's command (each argument at least its NUL: SNAP_ARGS_MAX at most). */
	const char *argv[SNAP_ARGS_MAX + 1];
	size_t n = 0;
	for (size_t k = 0; k < p->args_len; k += strlen(p->args + k) + 1)
		argv[n++] = p->args + k;
	argv[n] = NULL;
	json_strings_member(j, "command", "command_base64", argv);
	json_bool_member(j, "command_cut", p->args_cut);
	json_close(j, '}');
}

void snapshot_member(struct json *j, int64_t started)
{
	if (!json_object_member(j, "tree_at_limit", snap.taken))
		return;
	json_string_member(j, "reason", snap.why);
	json_seconds_member(j, "at", true, snap.at - started);
	json_key(j, "processes");
	if (snap.procs) {
		json_open(j, '[');
		for (size_t k = 0; k < snap.n; k++)
			process_member(j, &snap.procs[k]);
		json_close(j, ']');
	} else {
		json_null(j);
	}
	json_int_member(j, "omitted", true, (long long)snap.omitted);
	json_string_member(j, "unavailable", snap.unavailable);
	json_close(j, '}');
}

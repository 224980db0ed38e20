#include "report.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "budget.h"
#include "hook.h"
#include "nested.h"
#include "os/os.h"
#include "relay.h"
#include "signal_names.h"
#include "snapshot.h"

/* The report's schema (docs/report.schema.json): bumped on any change a reader of the old
 * one could trip on (a field gone, renamed, or of another type); a new field is no such
 * change. */
#define REPORT_SCHEMA 1

/* A signal by its name ("TERM"); null where have is false. */
static void signal_member(struct json *j, const char *key, bool have, int sig)
{
	char name[16];
	json_string_member(j, key, have ? sig_name(sig, name, sizeof name) : NULL);
}

/* The processes still alive at the end, and how many of those runlimit asked to end are
 * gone (run_end_count). */
static void process_counts(struct json *j, const struct run_end *e)
{
	json_int_member(j, "alive_at_command_exit", e->alive_at_exit >= 0, e->alive_at_exit);
	json_int_member(j, "ended", e->ended >= 0, e->ended);
	json_int_member(j, "left_running", e->left >= 0, e->left);
	/* What outlived its SIGKILL: runlimit gave up on it after the settle. */
	json_key(j, "alive_after_kill");
	json_open(j, '[');
	for (long k = 0; k < e->nunkilled; k++)
		json_int(j, e->unkilled[k]);
	json_close(j, ']');
}

/* What ended the run, and how the command ended. */
static void end_members(struct json *j, const struct config *cfg, const struct run_end *e)
{
	json_string_member(j, "outcome", outcome_word(e->outcome));
	json_int_member(j, "exit_status", !e->die, e->status);
	signal_member(j, "exit_signal", e->die != 0, e->die);
	json_bool_member(j, "timed_out", e->timed_out);
	json_string_member(j, "timed_out_by", e->timed_out ? reason_word(e->limit) : NULL);
	json_bool_member(j, "kill_needed", e->kill_needed);
	json_bool_member(j, "cancelled", e->cancelled);
	json_bool_member(j, "parent_gone", e->parent_gone);
	json_string_member(j, "name", cfg->name);
	static const char *const none[] = {NULL}; /* bad usage: no command */
	const char *const *argv = cfg->command ? (const char *const *)cfg->command : none;
	json_strings_member(j, "command", "command_base64", argv);
	json_int_member(j, "pid", e->pid > 0, e->pid);
	/* The command's own wait status, once it ran and was reaped. */
	bool have = e->pid > 0 && !e->exec_error && !e->unreaped;
	int st = e->wait_status;
	bool exited = have && WIFEXITED(st), signalled = have && WIFSIGNALED(st);
	json_int_member(j, "command_exit", exited, exited ? WEXITSTATUS(st) : 0);
	signal_member(j, "command_signal", signalled, signalled ? WTERMSIG(st) : 0);
	json_bool_member(j, "core_dumped", signalled && os_dumped_core(st));
	json_string_member(j, "error", e->exec_error ? strerror(e->exec_error) : e->error);
}

/* The limits asked for, and the time the run took. */
static void limit_members(struct json *j, const struct config *cfg, const struct run_end *e)
{
	json_seconds_member(j, "duration_seconds", true, cfg->duration);
	json_seconds_member(j, "kill_after_seconds", true, cfg->kill_after);
	json_seconds_member(j, "no_output_timeout_seconds", cfg->silence > 0, cfg->silence);
	signal_member(j, "timeout_signal", true, cfg->signal);
	json_seconds_member(j, "wall_seconds", true, e->finished - cfg->started);
	json_key(j, "started_at");
	json_time(j, cfg->started_wall);
	json_key(j, "ended_at");
	json_time(j, e->finished_wall);
}

/* The deadline passed down in RUNLIMIT_DEADLINE, if the run took it into account. */
static void inherited_member(struct json *j, const struct inherited *in)
{
	if (!json_object_member(j, "deadline_inherited", in != NULL))
		return;
	json_key(j, "deadline");
	json_time(j, in->deadline);
	json_seconds_member(j, "reserve_seconds", true, in->reserve);
	json_bool_member(j, "shortened", in->shortened);
	json_close(j, '}');
}

/* Every signal sent, in order. */
static void signal_members(struct json *j, const struct config *cfg, const struct run_end *e)
{
	json_key(j, "signals");
	json_open(j, '[');
	for (size_t k = 0; k < e->nsent; k++) {
		json_open(j, '{');
		json_seconds_member(j, "at", true, e->sent[k].at - cfg->started);
		signal_member(j, "signal", true, e->sent[k].sig);
		json_string_member(j, "target", e->sent[k].target);
		json_string_member(j, "reason", reason_word(e->sent[k].reason));
		json_close(j, '}');
	}
	json_close(j, ']');
	json_int_member(j, "signals_omitted", true, (long long)e->omitted);
}

/* A budget's figure in the report: a number in its unit, or seconds for a duration; null
 * where have is false. */
static void budget_value(struct json *j, const char *key, enum budget_unit unit, bool have,
                         int64_t v)
{
	if (unit == BUDGET_NS)
		json_seconds_member(j, key, have, v);
	else
		json_int_member(j, key, have, (long long)v);
}

/* The budgets, only when one was asked: the limits (null: not asked), what the mechanism
 * measured of the tree at its peak (null: never measured) and which one it was; a member
 * each of budget_table.h's table, the limits first. */
static void budgets_member(struct json *j, const struct run_end *e)
{
	const struct budget_figures *f = e->budgets;
	if (!f)
		return;
	json_key(j, "budgets");
	json_open(j, '{');
	json_string_member(j, "mechanism", f->mechanism);
	json_seconds_member(j, "interval_seconds", true, f->interval);
	for (int k = BUDGET_NONE + 1; k < BUDGET_KINDS; k++)
		budget_value(j, budget_rows[k].limit_field, budget_rows[k].unit, f->limit[k] > 0,
		             f->limit[k]);
	for (int k = BUDGET_NONE + 1; k < BUDGET_KINDS; k++)
		budget_value(j, budget_rows[k].peak_field, budget_rows[k].unit, f->peak[k] >= 0,
		             f->peak[k]);
	/* The kernel's OOM kills in the run's cgroup (null: no cgroup kept the memory budget,
	 * and what the kernel's own OOM killer did is not known). */
	json_int_member(j, "oom_kills", e->oom_kills >= 0, e->oom_kills);
	json_close(j, '}');
}

/* The resources used by the command and what it started (all of runlimit's children). */
static void rusage_member(struct json *j, const struct run_end *e)
{
	if (!json_object_member(j, "rusage", e->have_usage))
		return;
	json_seconds_member(j, "user_seconds", true, e->user_ns);
	json_seconds_member(j, "system_seconds", true, e->system_ns);
	json_int_member(j, "max_rss_kib", true, e->max_rss_kib);
	json_close(j, '}');
}

/* --report-tail: the end of stderr, and how much of it there was; or why it could not be
 * kept.  The text is escaped straight from the ring, a buffer's worth at a time, so a tail
 * of 16 MiB costs no copy of it (its escapes alone could take six times that). */
static void tail_member(struct json *j, const struct tail *t)
{
	if (!json_object_member(j, "stderr_tail", t && t->buf))
		return;
	const char *piece[2];
	size_t len[2];
	tail_pieces(t, &piece[0], &len[0], &piece[1], &len[1]);
	json_key(j, "text");
	struct json_text text;
	json_text_open(j, &text, t->total > t->len);
	for (int k = 0; k < 2; k++)
		json_text_add(j, &text, piece[k], len[k]);
	bool exact = json_text_close(j, &text);
	json_key(j, "base64");
	if (exact) {
		json_null(j);
	} else {
		struct json_base64 b;
		json_base64_open(j, &b);
		for (int k = 0; k < 2; k++)
			json_base64_add(j, &b, piece[k], len[k]);
		json_base64_close(j, &b);
	}
	json_int_member(j, "bytes", true, (long long)t->total);
	json_int_member(j, "cut", true, (long long)(t->total - t->len));
	json_close(j, '}');
}

/* What came out, where the relay saw it (null where it relayed nothing). */
static void output_member(struct json *j, const struct config *cfg, const struct relay_stats *o)
{
	if (!json_object_member(j, "output", o != NULL))
		return;
	json_int_member(j, "stdout_bytes", o->bytes[0] >= 0, o->bytes[0]);
	json_int_member(j, "stderr_bytes", o->bytes[1] >= 0, o->bytes[1]);
	json_int_member(j, "stdout_dropped", o->dropped[0] >= 0, o->dropped[0]);
	json_int_member(j, "stderr_dropped", o->dropped[1] >= 0, o->dropped[1]);
	json_bool_member(j, "stderr_with_stdout", o->stderr_shared);
	json_seconds_member(j, "last_output_seconds", o->last_output != CLOCK_NEVER,
	                    o->last_output - cfg->started);
	const struct tail *t = cfg->report_tail ? o->tail : NULL;
	tail_member(j, t);
	/* Why there is no tail though one was asked for: a terminal (never interposed), or
	 * no memory for the ring (the command ran all the same).  One field for both. */
	const char *why = NULL;
	if (cfg->report_tail && !t)
		why = o->tail_missing;
	else if (t && t->error)
		why = strerror(t->error);
	json_string_member(j, "stderr_tail_unavailable", why);
	json_close(j, '}');
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

/* The tree at the limit (snapshot.h), null if no snapshot was taken. */
static void snapshot_member(struct json *j, const struct snapshot_figures *snap,
                            int64_t started)
{
	if (!json_object_member(j, "tree_at_limit", snap != NULL))
		return;
	json_string_member(j, "reason", snap->why);
	json_seconds_member(j, "at", true, snap->at - started);
	json_key(j, "processes");
	if (snap->procs) {
		json_open(j, '[');
		for (size_t k = 0; k < snap->n; k++)
			process_member(j, &snap->procs[k]);
		json_close(j, ']');
	} else {
		json_null(j);
	}
	json_int_member(j, "omitted", true, (long long)snap->omitted);
	json_string_member(j, "unavailable", snap->unavailable);
	json_close(j, '}');
}

/* The --on-timeout hook (hook.h), null if it did not run. */
static void hook_member(struct json *j, const struct hook_figures *hook, int64_t started)
{
	if (!json_object_member(j, "on_timeout", hook != NULL))
		return;
	json_string_member(j, "reason", hook->why);
	json_seconds_member(j, "at", true, hook->started - started);
	json_seconds_member(j, "seconds", hook->over && hook->ended, hook->ended - hook->started);
	bool exited = hook->have_status && WIFEXITED(hook->status);
	bool signalled = hook->have_status && WIFSIGNALED(hook->status);
	json_int_member(j, "exit_status", exited, exited ? WEXITSTATUS(hook->status) : 0);
	char buf[16];
	const char *sig = NULL;
	if (signalled || (hook->killed && !hook->have_status))
		sig = sig_name(signalled ? WTERMSIG(hook->status) : SIGKILL, buf, sizeof buf);
	json_string_member(j, "signal", sig);
	json_string_member(j, "killed", hook->killed);
	json_close(j, '}');
}

void report_json(struct json *j, const struct config *cfg, const struct run_end *e)
{
	json_open(j, '{');
	json_int_member(j, "schema", true, REPORT_SCHEMA);
	json_string_member(j, "version", RUNLIMIT_VERSION);
	end_members(j, cfg, e);
	limit_members(j, cfg, e);
	inherited_member(j, e->inherited);
	signal_members(j, cfg, e);
	process_counts(j, e);
	output_member(j, cfg, e->output);
	snapshot_member(j, e->tree_at_limit, cfg->started);
	hook_member(j, e->on_timeout, cfg->started);
	budgets_member(j, e);
	rusage_member(j, e);
	json_close(j, '}');
	json_raw(j, "\n");
}

#include "finish.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "deliver.h"
#include "dispositions.h"
#include "hook.h"
#include "named_control.h"
#include "msg.h"
#include "os/os.h"
#include "quote.h"
#include "relay.h"
#include "report.h"
#include "spawn.h"

void finish_say(const struct config *cfg, const struct run_end *e)
{
	int st = e->wait_status;
	if (e->exec_error)
		spawn_say_failed(cfg->command[0], e->exec_error);
	else if (!WIFEXITED(st) && !WIFSIGNALED(st))
		msg("unknown status from command (%d)", st);
	else if (WIFSIGNALED(st) && os_dumped_core(st))
		msg("the monitored command dumped core");
}

/* At most this many pids are named on stderr; the report has them all. */
#define UNKILLED_SAID 8

static void say_unkilled(const struct unkilled *u, pid_t command, pid_t hook)
{
	char line[512];
	size_t len = 0;
	line[0] = '\0';
	for (long k = 0; k < u->n && k < UNKILLED_SAID; k++) {
		const char *who = u->pids[k] == command ? " (the command)"
		                  : u->pids[k] == hook  ? " (--on-timeout)" : "";
		int w = snprintf(line + len, sizeof line - len, "%s%ld%s", k ? ", " : "",
		                 (long)u->pids[k], who);
		if (w > 0 && (size_t)w < sizeof line - len)
			len += (size_t)w;
	}
	if (u->n > UNKILLED_SAID)
		snprintf(line + len, sizeof line - len, " and %ld more", u->n - UNKILLED_SAID);
	else if (u->more)
		snprintf(line + len, sizeof line - len, "%sprocesses of its group", u->n ? " and " : "");
	msg("still alive after SIGKILL (an uninterruptible wait?), left behind: %s", line);
}

struct unkilled finish_unkilled(const struct config *cfg, const struct target *t,
                                bool command_alive, bool tree_killed)
{
	struct unkilled u = {NULL, 0, false};
	struct tree_id *ids = NULL;
	long n = tree_killed && !cfg->foreground ? tree_list(t, &ids) : 0;
	if (n < 0) {
		/* No process table: the command's group tells only whether something is left. */
		u.more = deliver_leftovers_alive(t);
		n = 0;
	}
	u.pids = malloc((size_t)(n + 2) * sizeof *u.pids);
	if (!u.pids) {
		free(ids);
		u.more = true;
		say_unkilled(&u, 0, 0);
		return u;
	}
	/* The command first, as the list names it; the walk never lists the hook. */
	pid_t command = command_alive && !t->reaped ? t->command : 0;
	if (command)
		u.pids[u.n++] = command;
	for (long k = 0; k < n; k++)
		if (ids[k].pid != command)
			u.pids[u.n++] = ids[k].pid;
	free(ids);
	pid_t hook = hook_dying_since() != CLOCK_NEVER ? hook_pid() : 0;
	if (hook > 0)
		u.pids[u.n++] = hook;
	if (u.n > 0 || u.more)
		say_unkilled(&u, command, hook);
	return u;
}

void finish_report(const struct config *cfg, const struct target *t, const struct run_end *end,
                   struct verdict v, const struct unkilled *u)
{
	if (!report_wanted())
		return;
	struct tree_id *alive = NULL;
	long nalive = -1;
	if (!cfg->foreground && report_wants_survivors())
		nalive = tree_list(t, &alive);
	struct report_end e = {
		.outcome = run_outcome(end),
		.exit_status = v.status,
		.die_signal = v.die,
		.pid = t->command,
		.have_status = !end->exec_error && !end->unreaped,
		.status = end->wait_status,
		.timed_out = end->timed_out,
		.kill_needed = end->kill_needed,
		.error = end->exec_error ? strerror(end->exec_error) : NULL,
		.has_tree = !cfg->foreground,
		.survivors = alive,
		.nsurvivors = nalive,
		.unkilled = u->pids,
		.nunkilled = u->n,
	};
	struct relay_stats output;
	if (cfg->relay) {
		relay_get_stats(&output);
		e.output = &output;
	}
	report_finish(&e);
	free(alive);
}

int finish_failed(const char *what, int err)
{
	msg("%s: %s", what, strerror(err));
	return finish_refused(strerror(err));
}

int finish_refused(const char *why)
{
	struct report_end e = {.outcome = "error", .exit_status = EXIT_RUNLIMIT_FAILED,
	                       .error = why};
	report_finish(&e);
	return EXIT_RUNLIMIT_FAILED;
}

void finish_cancelled_early(const struct config *cfg)
{
	if (cfg->verbose)
		msg("a cancel came before the command started: not running %s", quote(cfg->command[0]));
	report_cancelled();
	int sig = control_early_signal();
	struct report_end e = {.outcome = "interrupted", .exit_status = 128 + sig, .die_signal = sig};
	report_finish(&e);
	control_close();
	disp_die_of(sig);
	_exit(128 + sig);
}

#include "finish.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hook.h"
#include "msg.h"
#include "named_control.h"
#include "os/os.h"
#include "quote.h"
#include "relay.h"
#include "report.h"
#include "signal_in.h"
#include "signal_out.h"
#include "start_exec.h"

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

static void say_unkilled(const struct run_end *e, pid_t command, pid_t hook)
{
	char line[512];
	size_t len = 0;
	line[0] = '\0';
	for (long k = 0; k < e->nunkilled && k < UNKILLED_SAID; k++) {
		const char *who = e->unkilled[k] == command ? " (the command)"
		                  : e->unkilled[k] == hook  ? " (--on-timeout)" : "";
		int w = snprintf(line + len, sizeof line - len, "%s%ld%s", k ? ", " : "",
		                 (long)e->unkilled[k], who);
		if (w > 0 && (size_t)w < sizeof line - len)
			len += (size_t)w;
	}
	if (e->nunkilled > UNKILLED_SAID)
		snprintf(line + len, sizeof line - len, " and %ld more", e->nunkilled - UNKILLED_SAID);
	else if (e->unkilled_more)
		snprintf(line + len, sizeof line - len, "%sprocesses of its group",
		         e->nunkilled ? " and " : "");
	msg("still alive after SIGKILL (an uninterruptible wait?), left behind: %s", line);
}

void finish_unkilled(const struct config *cfg, const struct target *t, struct run_end *e,
                     bool tree_killed)
{
	struct tree_id *ids = NULL;
	long n = tree_killed && !cfg->foreground ? tree_list(t, &ids) : 0;
	if (n < 0) {
		/* No process table: the command's group tells only whether something is left. */
		e->unkilled_more = deliver_leftovers_alive(t);
		n = 0;
	}
	e->unkilled = malloc((size_t)(n + 2) * sizeof *e->unkilled);
	if (!e->unkilled) {
		free(ids);
		e->unkilled_more = true;
		say_unkilled(e, 0, 0);
		return;
	}
	/* The command first, as the list names it; the walk never lists the hook. */
	pid_t command = e->unreaped && !t->reaped ? t->command : 0;
	if (command)
		e->unkilled[e->nunkilled++] = command;
	for (long k = 0; k < n; k++)
		if (ids[k].pid != command)
			e->unkilled[e->nunkilled++] = ids[k].pid;
	free(ids);
	pid_t hook = hook_dying_since() != CLOCK_NEVER ? hook_pid() : 0;
	if (hook > 0)
		e->unkilled[e->nunkilled++] = hook;
	if (e->nunkilled > 0 || e->unkilled_more)
		say_unkilled(e, command, hook);
}

void finish_report(const struct config *cfg, const struct target *t, struct run_end *e)
{
	struct relay_stats output;
	if (e->recording) {
		/* Only a command that started has a tree left, or output relayed. */
		struct tree_id *alive = NULL;
		long n = -1;
		if (e->has_tree && run_end_wants_survivors(e))
			n = tree_list(t, &alive);
		run_end_count(e, alive, n);
		free(alive);
		if (cfg->relay && e->pid > 0) {
			relay_get_stats(&output);
			e->output = &output;
		}
		report_finish(cfg, e);
		e->output = NULL;
	}
	free(e->targets);
	free(e->unkilled);
	e->targets = NULL;
	e->unkilled = NULL;
}

int finish_refused(const struct config *cfg, const char *why)
{
	struct run_end e;
	run_end_start(&e, cfg);
	e.refused = true;
	e.error = why;
	run_decide(&e);
	report_finish(cfg, &e);
	return e.status;
}

void finish_parent_gone_early(const struct config *cfg, struct run_end *e)
{
	if (cfg->verbose)
		msg("the process that started this one has ended: not running %s",
		    quote(cfg->command[0]));
	e->parent_gone = true;
	/* As a cancel that came first: runlimit ends as by the -s signal (TERM with -s 0). */
	e->interrupted = true;
	e->late_signal = cfg->signal > 0 ? cfg->signal : SIGTERM;
}

void finish_cancelled_early(const struct config *cfg, struct run_end *e)
{
	if (cfg->verbose)
		msg("a cancel came before the command started: not running %s", quote(cfg->command[0]));
	e->cancelled = true;
	/* Ended as by a signal from outside once nothing is left to run: runlimit dies of it. */
	e->interrupted = true;
	e->late_signal = control_early_signal();
}

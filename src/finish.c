#include "finish.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "named_control.h"
#include "dispositions.h"
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

void finish_report(const struct config *cfg, const struct target *t, const struct run_end *end,
                   struct verdict v)
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
		.have_status = !end->exec_error,
		.status = end->wait_status,
		.timed_out = end->timed_out,
		.kill_needed = end->kill_needed,
		.error = end->exec_error ? strerror(end->exec_error) : NULL,
		.has_tree = !cfg->foreground,
		.survivors = alive,
		.nsurvivors = nalive,
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

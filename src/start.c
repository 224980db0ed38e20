#include "start.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"
#include "msg.h"
#include "nested.h"
#include "os/os.h"
#include "relay.h"
#include "signal_in.h"
#include "start_exec.h"
#include "tty.h"

/* What the relay cannot see, said before the command starts: a terminal is the command's,
 * never interposed (relay.h).  A limit that is off for it is said always: it was asked for. */
static void say_unseen(const struct config *cfg)
{
	bool out = isatty(STDOUT_FILENO), err = isatty(STDERR_FILENO);
	const char *which = out && err ? "standard output and standard error"
	                    : out      ? "standard output"
	                               : "standard error";
	if (cfg->silence > 0 && relay_silence_off())
		msg("--no-output-timeout is off: output to a terminal is not watched (%s)", which);
	else if (cfg->silence > 0 && (out || err) && cfg->verbose)
		msg("--no-output-timeout does not watch output to a terminal (%s)", which);
	if (cfg->report_tail > 0 && err && cfg->verbose)
		msg("--report-tail keeps no tail of a terminal (standard error)");
}

static struct target start(const struct config *cfg, pid_t self, bool *relay_failed)
{
	struct target l = {0, 0, 0, false, false, false, 0};
	int guard_error = 0;
	*relay_failed = false;
	if (!cfg->foreground) {
		/* the group, with the guard in it */
		pid_t guard = guard_start(cfg->signal, self, &l.group);
		guard_error = guard < 0 ? errno : 0;
		l.guard = guard > 0 ? guard : 0;
		l.group = guard > 0 ? l.group : -1;
		l.group_mine = guard > 0 && l.group == self;
	}
	/* After the guard, which must not hold the pipes' write ends. */
	if (cfg->relay && !relay_prepare(cfg->silence, cfg->report_tail)) {
		l.command = -1;
		*relay_failed = true;
		return l;
	}
	if (cfg->relay)
		say_unseen(cfg);
	for (;;) {
		struct spawn_req req = {
			.argv = cfg->command,
			.parent = self,
			.cgroup_procs = cgroup_procs_fd(),
			.tty_fd = tty_child_fd(),
			.death_signal = cfg->signal,
			.mask = disp_command_mask(),
			.env = nested_env(),
		};
		req.ndisp = disp_child_resets(req.disp, SPAWN_MAX_DISPS);
		req.ndup = relay_child_dups(req.dup, SPAWN_MAX_DUPS);
		/* Where the group is to have runlimit's pid, the command is born in it (the
		 * moment runlimit is out of its caller's group: from here to guard_group_close). */
		bool born_in = l.group_mine && guard_group_open();
		if (l.group_mine && !born_in) {
			pid_t guard = guard_lead_instead(cfg->signal, self, &l.group);
			guard_error = guard < 0 ? errno : 0;
			l.guard = guard > 0 ? guard : 0;
			l.group = guard > 0 ? l.group : -1;
			l.group_mine = false;
		}
		l.leads_group = !cfg->foreground && l.group < 0;
		req.group = born_in ? 0 : l.leads_group ? SPAWN_OWN_GROUP : l.group;
		req.companion = born_in ? l.guard : 0;
		l.command = spawn(&req);
		if (born_in) {
			int err = errno;
			guard_group_close(l.command);
			errno = err;
		}
		if (l.command < 0 && errno == EAGAIN && l.group > 0) {
			guard_error = errno;
			guard_stop(); /* its process slot is the command's */
			l.group = -1;
			l.guard = 0;
			l.group_mine = false;
			continue;
		}
		break;
	}
	int err = errno;
	if (l.leads_group) {
		l.group = l.command > 0 ? l.command : 0;
		if (l.command > 0)
			msg("cannot start the guard (%s): the command leads its own process group, "
			    "where setsid fails", strerror(guard_error));
	}
	errno = err;
	return l;
}

struct target start_command(const struct config *cfg, pid_t self, bool *relay_failed)
{
	/* Every signal stays blocked across the forks: none can be lost, or reach a handler in
	 * a child, before each side has set itself up. */
	sigset_t all, working;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &working);
	struct target l = start(cfg, self, relay_failed);
	int err = errno;
	relay_started();
	tree_started();
	cgroup_started();
	os_sharpen_waits();
	if (l.command > 0 && l.group > 0 && tty_leading())
		tty_give(l.group); /* the child takes it too: whichever runs first */
	sigprocmask(SIG_SETMASK, &working, NULL);
	errno = err;
	return l;
}

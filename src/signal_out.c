#include "signal_out.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "guard.h"
#include "msg.h"
#include "quote.h"
#include "signal_names.h"
#include "test_hooks.h"

/* The command's process group may be signalled while its id cannot have been reused: it is
 * runlimit's own pid (guard.h), or the process that leads it is still runlimit's, unreaped
 * (the guard, or without one the command itself). */
static bool group_held(const struct target *t)
{
	return t->group > 0 && (t->group_mine || (t->leads_group ? !t->reaped : t->guard > 0));
}

static void signal_group(const struct target *t, int sig)
{
	if (group_held(t))
		kill(-t->group, sig);
}

/* Who a send reaches, for the run report. */
static const char *reach_name(const struct config *cfg, const struct target *t,
                              enum reach reach)
{
	if (reach == REACH_GROUP)
		return "group";
	if (cfg->foreground)
		return "command";
	if (t->reaped)
		return "leftovers";
	return reach == REACH_TREE ? "tree" : "group";
}

/* The tree beyond the group, from a walk that notes what it reaches for the report (so
 * that asking for a report delays no signal by a walk of its own). */
static void signal_tree(const struct target *t, struct run_end *e, int sig, int sent)
{
	struct tree_seen seen = {NULL, 0, 0, false};
	int flags = sent | (sig == SIGKILL ? TREE_FREEZE : TREE_SOFT);
	long left = tree_signal(t, sig, flags, e->recording ? &seen : NULL);
	const char *want = errno == EMFILE || errno == ENFILE ? "out of file descriptors"
	                                                      : "out of memory";
	if (e->recording)
		run_end_targets(e, &seen, sig == SIGKILL);
	free(seen.ids);
	if (left > 0)
		msg("%s: %ld processes of the command's tree may still be alive", want, left);
	if (left >= 0)
		e->kill_left = left;
	if (left != TREE_UNVERIFIED)
		return;
	/* The walk could not read all of the tree, and nothing else could tell. */
	char name[16];
	sig_name(sig, name, sizeof name);
	if (sig == SIGKILL)
		msg("%s: the command's tree could not be verified; processes of it may still be alive",
		    want);
	else
		msg("%s: the command's tree could not be read in full; processes of it may not have "
		    "been sent signal %s", want, name);
}

/* A duration as given without its unit ("1", "0.5"): seconds, which -v then says. */
static bool unitless(const char *duration)
{
	size_t len = strlen(duration);
	return len > 0 && strchr("0123456789.", duration[len - 1]);
}

/* -v: the signal sent, and which limit sent it, where that is not the deadline. */
static void say_sending(const struct config *cfg, int sig, enum reason why)
{
	char name[16], words[96];
	sig_name(sig, name, sizeof name);
	const char *command = quote(cfg->command[0]);
	if (why == REASON_NO_OUTPUT) {
		msg("no output for %s%s: sending signal %s to command %s", cfg->silence_arg,
		    unitless(cfg->silence_arg) ? "s" : "", name, command);
	} else if (why >= REASON_BUDGET) {
		budget_over_words(words, sizeof words); /* "memory 2.3G over the 2G budget" */
		msg("%s: sending signal %s to command %s", words, name, command);
	} else if (why == REASON_CANCEL) {
		msg("cancelled by --cancel=%s: sending signal %s to command %s", cfg->name, name,
		    command);
	} else if (why == REASON_PARENT) {
		msg("the process that started this one ended: sending signal %s to command %s", name,
		    command);
	} else {
		msg("sending signal %s to command %s", name, command);
	}
}

void deliver(const struct config *cfg, const struct target *t, struct run_end *e, int sig,
             enum reach reach, bool cont, enum reason why)
{
	cont = cont && sig != SIGKILL && sig != SIGCONT && reach != REACH_GROUP;
	if (sig != 0 && !(cfg->foreground && t->reaped)) {
		run_end_sent(e, sig, reach_name(cfg, t, reach), why);
		if (cont && !cfg->foreground)
			run_end_sent(e, SIGCONT, reach_name(cfg, t, reach), why);
	}
	if (reach == REACH_GROUP) {
		signal_group(t, sig);
		return;
	}
	if (cfg->verbose)
		say_sending(cfg, sig, why);
	if (reach == REACH_TREE && sig != 0 && !cfg->foreground)
		tree_prepare(t);
	/* The final KILL, where the run has a cgroup: one write, and nothing in it can fork
	 * past it.  The walk below still follows, for what left the cgroup (a process of the
	 * tree with the right to move itself out), and it counts what is left. */
	if (reach == REACH_TREE && sig == SIGKILL && !cfg->foreground) {
		cgroup_kill();
		/* Test builds only: cgroup.kill alone, no walk nor group, to show it does it all. */
		if (test_hook_on(TEST_CGROUP_KILL_ONLY)) {
			if (!t->reaped)
				kill(t->command, sig);
			return;
		}
	}
	/* One copy to each process (a nested runlimit counts SIGALRMs): the group, then the
	 * command if it has left it, then the walk, past the group's members. */
	signal_group(t, sig);
	if (!t->reaped && !(group_held(t) && getpgid(t->command) == t->group))
		kill(t->command, sig);
	if (cfg->foreground)
		return;
	if (reach == REACH_TREE && sig != 0)
		signal_tree(t, e, sig, (cont ? TREE_CONTINUE : 0) | (group_held(t) ? TREE_GROUP_SENT : 0));
	if (cont) {
		if (!t->reaped)
			kill(t->command, SIGCONT);
		signal_group(t, SIGCONT);
	}
}

bool deliver_leftovers_alive(const struct target *t)
{
	if (cgroup_populated() == 1)
		return true; /* the kernel's word, without a walk */
	int alive = tree_alive(t);
	if (alive == TREE_MAYBE)
		return true; /* never taken for gone: the grace runs out, and the final KILL says */
	if (alive >= 0)
		return alive;
	return group_held(t) && guard_group_alive(t->group);
}

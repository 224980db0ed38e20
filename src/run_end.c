#include "run_end.h"

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/wait.h>

#include "cli.h"

int exec_error_status(int err)
{
	return err == ENOENT ? 127 : 126;
}

/* How the command ended, as the rules read it: an exit (*n its code), a death (*n the
 * signal), or neither (a wait status no rule knows).  One that outlived the final KILL
 * (the settle ran out) is taken as dead of it: nothing it does can change the run now. */
enum ending { ENDED_EXIT, ENDED_DEATH, ENDED_UNKNOWN };

static enum ending ending(const struct run_end *e, int *n)
{
	int st = e->wait_status;
	if (e->unreaped) {
		*n = SIGKILL;
		return ENDED_DEATH;
	}
	if (WIFEXITED(st)) {
		*n = WEXITSTATUS(st);
		return ENDED_EXIT;
	}
	*n = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return WIFSIGNALED(st) ? ENDED_DEATH : ENDED_UNKNOWN;
}

/* runlimit's exit status (*die: the signal it dies of instead). */
static int verdict(const struct run_end *e, int *die)
{
	*die = 0;
	if (e->late_signal) {
		/* Ctrl-C or Ctrl-\ once the command was done: the calling shell must see runlimit
		 * die of it (a shell breaks a loop only for a child that did), whatever the
		 * command's status was. */
		*die = e->late_signal;
		return 128 + e->late_signal;
	}
	if (e->exec_error)
		return exec_error_status(e->exec_error);
	int n;
	enum ending how = ending(e, &n);
	if (how == ENDED_EXIT)
		return e->timed_out && !e->preserve_status ? 124 : n;
	if (how == ENDED_UNKNOWN)
		return 1; /* neither an exit nor a death: not a status any rule knows */
	int sig = n;
	if (e->timed_out) {
		/* After a time-out, GNU's rule: a death by SIGKILL is 137 (an exit, whoever sent
		 * the KILL), any other 124; but the KILL of runlimit's default grace, which GNU
		 * does not have, is part of the time-out: 124 (one status for every time-out; the
		 * report says the KILL was needed).  -p keeps the command's own status. */
		bool default_kill = e->kill_needed && !e->kill_asked;
		if (!e->preserve_status && (sig != SIGKILL || default_kill))
			return 124;
		return 128 + sig;
	}
	/* A signal passed on from outside, or typed at the terminal the command held: as far
	 * as the calling shell can tell, runlimit was hit too, and dies of it. */
	if (e->forwarded || e->keyboard_death)
		*die = sig;
	return 128 + sig;
}

static enum outcome outcome(const struct run_end *e)
{
	if (e->exec_error)
		return e->exec_error == ENOENT ? OUTCOME_NOT_FOUND : OUTCOME_NOT_RUNNABLE;
	int n;
	enum ending how = ending(e, &n);
	if (how == ENDED_UNKNOWN)
		return OUTCOME_ERROR;
	if (e->timed_out)
		return how == ENDED_DEATH && n == SIGKILL ? OUTCOME_KILLED : OUTCOME_TIMED_OUT;
	if (e->interrupted)
		return OUTCOME_INTERRUPTED;
	return how == ENDED_DEATH ? OUTCOME_SIGNALLED : OUTCOME_EXITED;
}

void run_decide(struct run_end *e)
{
	if (e->refused) {
		e->outcome = OUTCOME_ERROR;
		e->status = EXIT_RUNLIMIT_FAILED;
		e->die = 0;
		return;
	}
	e->status = verdict(e, &e->die);
	e->outcome = outcome(e);
}

static const char *const outcome_words[OUTCOMES] = {
	[OUTCOME_EXITED] = "exited",           [OUTCOME_SIGNALLED] = "signalled",
	[OUTCOME_TIMED_OUT] = "timed-out",     [OUTCOME_KILLED] = "killed",
	[OUTCOME_INTERRUPTED] = "interrupted", [OUTCOME_NOT_FOUND] = "not-found",
	[OUTCOME_NOT_RUNNABLE] = "not-runnable", [OUTCOME_ERROR] = "error",
};

const char *outcome_word(enum outcome o)
{
	return outcome_words[o];
}

static const char *const reason_words[REASONS] = {
	[REASON_DEADLINE] = "deadline",   [REASON_ALARM] = "alarm",
	[REASON_GRACE] = "grace",         [REASON_NO_OUTPUT] = "no-output",
	[REASON_CANCEL] = "cancel",       [REASON_FORWARDED] = "forwarded",
	[REASON_LEFTOVERS] = "leftovers", [REASON_RESUME] = "resume",
	[REASON_PARENT] = "parent",
};

enum reason budget_reason(enum budget_kind kind)
{
	return (enum reason)((int)REASON_BUDGET + (int)kind - 1);
}

const char *reason_word(enum reason why)
{
	if (why >= REASON_BUDGET)
		return budget_rows[(int)why - (int)REASON_BUDGET + 1].word;
	return reason_words[why];
}

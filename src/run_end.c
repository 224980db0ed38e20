#include "run_end.h"

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "os/os.h"

/* A process runlimit asked to end; killed: with SIGKILL (it cannot outlive that). */
struct signalled {
	struct tree_id id;
	bool killed;
};

void run_end_start(struct run_end *e, const struct config *cfg)
{
	memset(e, 0, offsetof(struct run_end, sent)); /* all but the list (run_end.h) */
	e->recording = cfg->report != NULL;
	e->preserve_status = cfg->preserve_status;
	e->kill_left = e->alive_at_exit = e->ended = e->left = -1;
}

void run_end_sent(struct run_end *e, int sig, const char *target, enum reason why)
{
	if (!e->recording)
		return;
	if (e->nsent == MAX_SENT) {
		e->omitted++;
		return;
	}
	e->sent[e->nsent++] = (struct sent){clock_now(), sig, target, why};
}

static int by_id(const void *a, const void *b)
{
	const struct tree_id *x = a, *y = b;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->start > y->start) - (x->start < y->start);
}

/* Is id among e's sorted targets?  Its index, or -1. */
static long find_target(const struct run_end *e, const struct tree_id *id)
{
	size_t lo = 0, hi = e->ntargets;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = by_id(id, &e->targets[mid].id);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

void run_end_targets(struct run_end *e, struct tree_seen *seen, bool kill)
{
	if (!e->recording || e->targets_unknown)
		return;
	if (seen->unknown) {
		e->targets_unknown = true;
		return;
	}
	struct tree_id *ids = seen->ids;
	size_t n = 0;
	if (seen->n > 1)
		qsort(ids, seen->n, sizeof *ids, by_id); /* (ids is NULL when nothing was seen) */
	for (size_t k = 0; k < seen->n; k++) /* a walk in rounds finds a process more than once */
		if (n == 0 || by_id(&ids[n - 1], &ids[k]) != 0)
			ids[n++] = ids[k];
	/* Merge the two sorted lists. */
	struct signalled *merged = malloc((e->ntargets + n + 1) * sizeof *merged);
	if (!merged) {
		e->targets_unknown = true;
		return;
	}
	size_t i = 0, k = 0, m = 0;
	while (i < e->ntargets || k < n) {
		int c = i == e->ntargets ? 1 : k == n ? -1 : by_id(&e->targets[i].id, &ids[k]);
		if (c < 0) {
			merged[m++] = e->targets[i++];
		} else if (c > 0) {
			merged[m++] = (struct signalled){ids[k++], kill};
		} else {
			merged[m] = e->targets[i++];
			merged[m++].killed |= kill;
			k++;
		}
	}
	free(e->targets);
	e->targets = merged;
	e->ntargets = m;
}

bool run_end_wants_survivors(const struct run_end *e)
{
	/* Nothing was left when the command ended, and nothing can start since: no listing. */
	return e->recording && !e->targets_unknown && !(e->alive_at_exit == 0 && e->ntargets == 0);
}

/* Did pid outlive its SIGKILL (runlimit gave up on it after the settle)? */
static bool unkilled(const struct run_end *e, pid_t pid)
{
	for (long k = 0; k < e->nunkilled; k++)
		if (e->unkilled[k] == pid)
			return true;
	return false;
}

/* Those sent SIGKILL count as gone once runlimit stopped waiting for them (the settle), but
 * for those in unkilled, which outlived it. */
void run_end_count(struct run_end *e, const struct tree_id *alive, long n)
{
	e->ended = e->left = -1;
	if (!e->has_tree || e->targets_unknown)
		n = -1;
	else if (!run_end_wants_survivors(e))
		n = 0;
	if (n >= 0) {
		e->left = 0;
		size_t still = 0; /* targets alive (killed: only those that outlived the settle) */
		for (long k = 0; k < n; k++) {
			long at = find_target(e, &alive[k]);
			if (at >= 0 && e->targets[at].killed) {
				still += unkilled(e, alive[k].pid);
				continue;
			}
			e->left++;
			if (at >= 0)
				still++;
		}
		e->ended = (long)(e->ntargets - still);
	}
	if (e->left < 0 && e->kill_left >= 0)
		e->left = e->kill_left; /* the KILL looked until none was alive, short of memory */
}

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

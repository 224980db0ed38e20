#include "status.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

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

struct verdict run_verdict(const struct run_end *e)
{
	struct verdict v = {0, 0};
	if (e->late_signal) {
		/* Ctrl-C or Ctrl-\ once the command was done: the calling shell must see runlimit
		 * die of it (a shell breaks a loop only for a child that did), whatever the
		 * command's status was. */
		v.status = 128 + e->late_signal;
		v.die = e->late_signal;
		return v;
	}
	if (e->exec_error) {
		v.status = exec_error_status(e->exec_error);
		return v;
	}
	int n;
	enum ending how = ending(e, &n);
	if (how == ENDED_EXIT) {
		v.status = e->timed_out && !e->preserve_status ? 124 : n;
		return v;
	}
	if (how == ENDED_UNKNOWN) {
		v.status = 1; /* neither an exit nor a death: not a status any rule knows */
		return v;
	}
	int sig = n;
	v.status = 128 + sig;
	if (e->timed_out) {
		/* After a time-out, GNU's rule: a death by SIGKILL is 137 (an exit, whoever sent
		 * the KILL), any other 124; but the KILL of runlimit's default grace, which GNU
		 * does not have, is part of the time-out: 124 (one status for every time-out; the
		 * report says the KILL was needed).  -p keeps the command's own status. */
		bool default_kill = e->kill_needed && !e->kill_asked;
		if (!e->preserve_status && (sig != SIGKILL || default_kill))
			v.status = 124;
		return v;
	}
	/* A signal passed on from outside, or typed at the terminal the command held: as far
	 * as the calling shell can tell, runlimit was hit too, and dies of it. */
	if (e->forwarded || e->keyboard_death)
		v.die = sig;
	return v;
}

const char *run_outcome(const struct run_end *e)
{
	if (e->exec_error)
		return e->exec_error == ENOENT ? "not-found" : "not-runnable";
	int n;
	enum ending how = ending(e, &n);
	if (how == ENDED_UNKNOWN)
		return "error";
	if (e->timed_out)
		return how == ENDED_DEATH && n == SIGKILL ? "killed" : "timed-out";
	if (e->interrupted)
		return "interrupted";
	return how == ENDED_DEATH ? "signalled" : "exited";
}

#include "status.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

int exec_error_status(int err)
{
	return err == ENOENT ? 127 : 126;
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
	int st = e->wait_status;
	if (WIFEXITED(st)) {
		v.status = e->timed_out && !e->preserve_status ? 124 : WEXITSTATUS(st);
		return v;
	}
	if (!WIFSIGNALED(st)) {
		v.status = 1; /* neither an exit nor a death: not a status any rule knows */
		return v;
	}
	int sig = WTERMSIG(st);
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
	int st = e->wait_status;
	if (!WIFEXITED(st) && !WIFSIGNALED(st))
		return "error";
	if (e->timed_out)
		return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "killed" : "timed-out";
	if (e->interrupted)
		return "interrupted";
	return WIFSIGNALED(st) ? "signalled" : "exited";
}

/* How a run ends: runlimit's exit status (or the signal it dies of) and the run report's
 * outcome, decided from what happened by the rules of the manual's EXIT STATUS table.  Pure
 * functions: no system call, no message (the supervisor says what there is to say). */
#ifndef RUNLIMIT_STATUS_H
#define RUNLIMIT_STATUS_H

#include <stdbool.h>

struct run_end {
	int exec_error;       /* the errno of a failed exec, else 0: wait_status is the command's */
	int wait_status;      /* the command's, from waitpid (unless unreaped) */
	bool unreaped;        /* it was sent SIGKILL and had not died when runlimit returned (in
	                         an uninterruptible wait): taken as dead of that KILL */
	bool timed_out;       /* a limit ran out: the deadline, or SIGALRM from outside */
	bool preserve_status; /* -p */
	bool kill_asked;      /* -k or -s KILL was given: the grace's KILL is the caller's */
	bool kill_needed;     /* the final KILL of a grace went out (the default's, or -k's) */
	bool forwarded;       /* the signal that ended the command came from outside, passed on */
	bool keyboard_death;  /* it died of INT or QUIT typed at the terminal its group had */
	bool interrupted;     /* a signal from outside asked the run to end */
	int late_signal;      /* INT or QUIT that came once the command had exited and ended
	                         the rest of the run (0: none): runlimit dies of it */
};

struct verdict {
	int status; /* runlimit's exit status */
	int die;    /* the signal runlimit dies of instead (0: it exits with status) */
};

/* GNU's exit status for a command that could not be run (err: exec's errno): 127 not
 * found, else 126. */
int exec_error_status(int err);

/* runlimit's exit status, or the signal it must die of. */
struct verdict run_verdict(const struct run_end *e);

/* The report's one word for it: exited, signalled, timed-out, killed, interrupted,
 * not-found, not-runnable, or error (a wait status that is neither an exit nor a death). */
const char *run_outcome(const struct run_end *e);

#endif

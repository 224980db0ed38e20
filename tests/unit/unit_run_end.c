/* The exit-status rules (run_end.h), row by row against the manual's EXIT STATUS table, with
 * real wait statuses: each made by a child that exits, dies of a signal, or stops. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_end.h"
#include "unit.h"

/* A child's wait status: it exits with code (sig 0), dies of sig, or (stop) stops. */
static int status_of(int code, int sig, int stop)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit none = {0, 0};
		setrlimit(RLIMIT_CORE, &none); /* QUIT and SEGV would dump core */
		if (stop)
			raise(SIGSTOP);
		if (sig) {
			signal(sig, SIG_DFL);
			kill(getpid(), sig);
		}
		_exit(code);
	}
	int st = 0;
	waitpid(pid, &st, WUNTRACED);
	if (stop) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return st;
}

static int exited(int code) { return status_of(code, 0, 0); }
static int killed(int sig) { return status_of(0, sig, 0); }

/* One row: the run's end e gives runlimit status (or dies of die) and outcome. */
static void row(const char *what, struct run_end e, int status, int die, const char *outcome)
{
	run_decide(&e);
	const char *word = outcome_word(e.outcome);
	char detail[160];
	snprintf(detail, sizeof detail, "status %d die %d outcome %s; want %d %d %s", e.status,
	         e.die, word, status, die, outcome);
	check(e.status == status && e.die == die && strcmp(word, outcome) == 0, what, detail);
}

void test_run_end(void)
{
	row("status: runlimit failed before the command ran: 125",
	    (struct run_end){.refused = true, .error = "bad usage"}, 125, 0, "error");
	row("status: a cancel came before the command started: dies of its signal",
	    (struct run_end){.interrupted = true, .late_signal = SIGTERM}, 128 + SIGTERM, SIGTERM,
	    "interrupted");
	row("status: the command exits 0", (struct run_end){.wait_status = exited(0)}, 0, 0,
	    "exited");
	row("status: the command exits 3", (struct run_end){.wait_status = exited(3)}, 3, 0,
	    "exited");
	row("status: the command's own 124 is its status, not a time-out",
	    (struct run_end){.wait_status = exited(124)}, 124, 0, "exited");
	row("status: timed out, then exited 0: 124",
	    (struct run_end){.wait_status = exited(0), .timed_out = true}, 124, 0, "timed-out");
	row("status: timed out, then died of TERM: 124",
	    (struct run_end){.wait_status = killed(SIGTERM), .timed_out = true}, 124, 0,
	    "timed-out");
	row("status: -s 0: timed out, the command exits 5 later: 124",
	    (struct run_end){.wait_status = exited(5), .timed_out = true}, 124, 0, "timed-out");
	row("status: timed out, then died of KILL with -k or -s KILL given: 137, an exit",
	    (struct run_end){.wait_status = killed(SIGKILL), .timed_out = true, .kill_asked = true},
	    137, 0, "killed");
	row("status: timed out, then died of the default grace's KILL: 124, one status",
	    (struct run_end){.wait_status = killed(SIGKILL), .timed_out = true, .kill_needed = true},
	    124, 0, "killed");
	row("status: timed out, then died of a KILL runlimit did not send, no -k: 137 (GNU's)",
	    (struct run_end){.wait_status = killed(SIGKILL), .timed_out = true}, 137, 0, "killed");
	row("status: timed out, the -k grace's KILL: 137",
	    (struct run_end){.wait_status = killed(SIGKILL), .timed_out = true, .kill_asked = true,
	                     .kill_needed = true},
	    137, 0, "killed");
	row("status: -p, timed out, exited 7: the command's 7",
	    (struct run_end){.wait_status = exited(7), .timed_out = true, .preserve_status = true},
	    7, 0, "timed-out");
	row("status: -p, timed out, died of TERM: 143",
	    (struct run_end){.wait_status = killed(SIGTERM), .timed_out = true,
	                     .preserve_status = true},
	    128 + SIGTERM, 0, "timed-out");
	row("status: -p, timed out, died of KILL: 137",
	    (struct run_end){.wait_status = killed(SIGKILL), .timed_out = true,
	                     .preserve_status = true},
	    128 + SIGKILL, 0, "killed");
	row("status: -p, timed out, died of the default grace's KILL: 137, the command's own",
	    (struct run_end){.wait_status = killed(SIGKILL), .timed_out = true,
	                     .preserve_status = true, .kill_needed = true},
	    128 + SIGKILL, 0, "killed");
	row("status: a cancel's KILL (not a time-out): 137, its rule unchanged",
	    (struct run_end){.wait_status = killed(SIGKILL), .interrupted = true,
	                     .kill_needed = true},
	    128 + SIGKILL, 0, "interrupted");
	row("status: a forwarded TERM killed it: runlimit dies of TERM",
	    (struct run_end){.wait_status = killed(SIGTERM), .forwarded = true,
	                     .interrupted = true},
	    128 + SIGTERM, SIGTERM, "interrupted");
	row("status: a forwarded USR1 killed it: runlimit dies of USR1, no interruption",
	    (struct run_end){.wait_status = killed(SIGUSR1), .forwarded = true}, 128 + SIGUSR1,
	    SIGUSR1, "signalled");
	row("status: it handled a forwarded TERM and exited 0",
	    (struct run_end){.wait_status = exited(0), .interrupted = true}, 0, 0, "interrupted");
	row("status: died of a signal of its own: 128+N, runlimit exits",
	    (struct run_end){.wait_status = killed(SIGSEGV)}, 128 + SIGSEGV, 0, "signalled");
	row("status: a typed Ctrl-C at the terminal it held: runlimit dies of INT",
	    (struct run_end){.wait_status = killed(SIGINT), .keyboard_death = true}, 128 + SIGINT,
	    SIGINT, "signalled");
	row("status: Ctrl-C once the command had exited 0: runlimit dies of INT",
	    (struct run_end){.wait_status = exited(0), .interrupted = true,
	                     .late_signal = SIGINT},
	    128 + SIGINT, SIGINT, "interrupted");
	row("status: Ctrl-\\ after a time-out's exit: runlimit dies of QUIT, not 124",
	    (struct run_end){.wait_status = killed(SIGTERM), .timed_out = true,
	                     .interrupted = true, .late_signal = SIGQUIT},
	    128 + SIGQUIT, SIGQUIT, "timed-out");
	row("status: a time-out comes first: forwarded or not, a TERM death is 124",
	    (struct run_end){.wait_status = killed(SIGTERM), .timed_out = true, .forwarded = true,
	                     .interrupted = true},
	    124, 0, "timed-out");
	row("status: not found: 127", (struct run_end){.exec_error = ENOENT, .wait_status = exited(127)},
	    127, 0, "not-found");
	row("status: found, not runnable: 126",
	    (struct run_end){.exec_error = EACCES, .wait_status = exited(126)}, 126, 0,
	    "not-runnable");
	row("status: a name too long: 126",
	    (struct run_end){.exec_error = ENAMETOOLONG, .wait_status = exited(126)}, 126, 0,
	    "not-runnable");
	row("status: neither an exit nor a death (a stop): 1",
	    (struct run_end){.wait_status = status_of(0, 0, 1)}, 1, 0, "error");
	check(exec_error_status(ENOENT) == 127 && exec_error_status(ENOEXEC) == 126,
	      "status: exec errors: ENOENT 127, anything else 126", NULL);
}

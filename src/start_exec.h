/* Starting the command: a child that runs the start's steps, given it as data (spawn_req),
 * then searches PATH as execvp does, running a script without "#!" through the shell as GNU
 * timeout does.  On Linux the child shares runlimit's memory until its exec (os.h,
 * os_spawn_shared), and reports a failure in it; a forked child reports it through a
 * close-on-exec pipe (or a page shared with it where no pipe can be had). */
#ifndef RUNLIMIT_START_EXEC_H
#define RUNLIMIT_START_EXEC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SPAWN_OWN_GROUP (-1)
#define SPAWN_MAX_DUPS 3
#define SPAWN_MAX_DISPS 4

/* A descriptor the command gets in place of one of its own (the relay's pipes). */
struct spawn_dup {
	int from, to;
};

/* A signal whose disposition the command gets back: ignored, or the default. */
struct spawn_disp {
	int sig;
	bool ignore;
};

/* What the child does before exec, in this order, as data: it is read by a child that may
 * run alongside runlimit in runlimit's memory, so nothing of it may change under it, and
 * spawn keeps a copy of its own. */
struct spawn_req {
	char **argv;
	pid_t parent;                /* runlimit's pid */
	int cgroup_procs;            /* the cgroup.procs the child moves itself into first (os.h:
	                                cgroup_procs_fd); -1: none */
	pid_t group;                 /* > 0: the child joins this process group (as a member);
	                                SPAWN_OWN_GROUP: it leads a new one; 0: runlimit's */
	int tty_fd;                  /* >= 0: the child makes its group the terminal's foreground
	                                one (runlimit leads the terminal's: tty.h) */
	struct spawn_disp disp[SPAWN_MAX_DISPS]; /* dispositions put back (signal_in.h) */
	size_t ndisp;
	struct spawn_dup dup[SPAWN_MAX_DUPS];    /* the relay's pipes (relay.h) */
	size_t ndup;
	int death_signal;            /* sent to the child if runlimit dies (where supported) */
	pid_t companion;             /* > 0: before exec the child waits (briefly, bounded) until
	                                this process (the guard) is in its group */
	const sigset_t *mask;        /* the signal mask the command gets: runlimit's inherited one */
	char **env;                  /* the command's environment (NULL: runlimit's) */
};

/* Start the child.  Returns its pid, or -1 with errno if it could not be made.  Once the
 * child is gone, spawn_exec_error() tells whether exec failed. */
pid_t spawn(const struct spawn_req *req);

/* After the child has been reaped, with its wait status: the errno of a failed exec, or 0 if
 * exec succeeded (then its status is the command's own, even 126 or 127).  Where the child
 * could not move itself into the run's cgroup (it then exits 125) this says so on stderr,
 * for the child could not, and is 0.  Without the pipe or the page (no memory for it) a
 * forked child itself said why it failed, and this is 0. */
int spawn_exec_error(int wait_status);

/* "failed to run command 'X': reason" */
void spawn_say_failed(const char *command, int err);

/* In a helper child of runlimit (the guard, the lodge, the deadline's timer): block every
 * signal and close the standard descriptors except keep (-1: none), so that a helper never
 * holds the caller's terminal or pipes. */
void spawn_helper_detach(int keep);

#endif

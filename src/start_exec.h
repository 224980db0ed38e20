/* Starting the command: fork + execvp, so a script without "#!" runs through the shell as
 * with GNU timeout, with exec failures reported through a close-on-exec pipe (or a page
 * shared with the child where no pipe can be had). */
#ifndef RUNLIMIT_START_EXEC_H
#define RUNLIMIT_START_EXEC_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#define SPAWN_OWN_GROUP (-1)

struct spawn_req {
	char **argv;
	pid_t parent;                /* runlimit's pid */
	pid_t group;                 /* > 0: the child joins this process group (as a member);
	                                SPAWN_OWN_GROUP: it leads a new one; 0: runlimit's */
	int death_signal;            /* sent to the child if runlimit dies (where supported) */
	const sigset_t *mask;        /* the signal mask the command gets: runlimit's inherited one */
	char **env;                  /* the command's environment (NULL: runlimit's) */
	void (*child_setup)(void);   /* in the child, signals blocked: terminal, dispositions */
	int cgroup_procs;            /* the cgroup.procs the child moves itself into first (os.h:
	                                cgroup_procs_fd); -1: none */
	pid_t companion;             /* > 0: before exec the child waits (briefly, bounded) until
	                                this process (the guard) is in its group */
};

/* Before spawn, and before anything that must be close to the fork: what spawn needs made
 * once (the pipe, or page, the child reports an exec failure through). */
void spawn_prepare(void);

/* Fork and exec.  Returns the child's pid, or -1 with errno if fork failed.  Once the child
 * is gone, spawn_exec_error() tells whether exec failed. */
pid_t spawn(const struct spawn_req *req);

/* After the child has been reaped, with its wait status: the errno of a failed exec, or 0 if
 * exec succeeded (then its status is the command's own, even 126 or 127).  Without the pipe
 * or the page (no memory for it) the child itself said why it failed, and this is 0. */
int spawn_exec_error(int wait_status);

/* "failed to run command 'X': reason" */
void spawn_say_failed(const char *command, int err);

/* In a helper child of runlimit (the guard, the lodge, the deadline's timer): block every
 * signal and close the standard descriptors except keep (-1: none), so that a helper never
 * holds the caller's terminal or pipes. */
void spawn_helper_detach(int keep);

#endif

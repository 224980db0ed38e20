/* Starting the command: fork + execvp, so a script without "#!" runs through the shell as
 * with GNU timeout, with exec failures reported on a close-on-exec pipe. */
#ifndef RUNLIMIT_SPAWN_H
#define RUNLIMIT_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct spawn_req {
	char **argv;
	bool new_group;              /* the child leads a process group of its own */
	int death_signal;            /* sent to the child if runlimit dies (where supported) */
	const sigset_t *mask;        /* the signal mask the command gets: runlimit's inherited one */
	void (*child_setup)(void);   /* in the child, signals blocked: terminal, dispositions */
};

/* Fork and exec.  Returns the child's pid, or -1 with errno if fork failed.  *errfd is the
 * read end of the exec-error pipe: once the child is gone, spawn_exec_error() tells whether
 * exec failed. */
pid_t spawn(const struct spawn_req *req, int *errfd);

/* After the child has been reaped: the errno of a failed exec, or 0 if exec succeeded.
 * Closes errfd. */
int spawn_exec_error(int errfd);

/* Move fd to a number above 2 if it landed on a standard one (which runlimit was started
 * without), keeping that standard descriptor closed for the command.  Returns the fd. */
int spawn_keep_off_stdio(int fd);

#endif

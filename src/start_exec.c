/* MAP_ANONYMOUS is POSIX only since 2024: ask each libc for its extensions. */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include "start_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "msg.h"
#include "os/os.h"
#include "quote.h"
#include "run_end.h"
#include "test_hooks.h"

extern char **environ;

void spawn_helper_detach(int keep)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int fd = 0; fd <= STDERR_FILENO; fd++)
		if (fd != keep)
			close(fd); /* never hold the caller's terminal or pipes */
}

/* Where the child leaves the errno of a failed exec.  A pipe, both ends close-on-exec and
 * above the standard descriptors, whose write end runlimit closes once the child is forked,
 * so that the child's exec closes the last one; runlimit reads it, without waiting, once the
 * child is gone, unless the command exited with a status of its own (not 126 or 127).  Where
 * no such pipe can be had (descriptors short, or the standard ones closed and free), a page
 * shared with the child, which costs no descriptor: making, forking and tearing down a
 * shared mapping cost every start 35-40 µs more (docs/performance.md).  With neither, the
 * child says why itself, as GNU timeout's does. */
static int exec_pipe[2] = {-1, -1};
struct exec_page {
	int failed; /* 1 once the child gave up on exec */
	int err;
};
static struct exec_page *exec_page;

/* The file execvp tried for name, into buf (size bytes): name itself if it has a slash, else
 * the first executable regular file of that name on PATH.  False if there is none. */
static bool resolve(const char *name, char *buf, size_t size)
{
	size_t nlen = strlen(name);
	if (strchr(name, '/')) {
		if (nlen >= size)
			return false;
		memcpy(buf, name, nlen + 1);
		return true;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *dir = path;; dir++) {
		const char *colon = strchr(dir, ':');
		size_t dlen = colon ? (size_t)(colon - dir) : strlen(dir);
		size_t at = dlen ? dlen : 1;
		if (at + 1 + nlen < size) {
			memcpy(buf, dlen ? dir : ".", at);
			buf[at] = '/';
			memcpy(buf + at + 1, name, nlen + 1);
			struct stat st;
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
				return true;
		}
		if (!colon)
			return false;
		dir = colon;
	}
}

/* glibc's execvp runs an executable without "#!" through /bin/sh, and GNU timeout relies
 * on it; musl's does not.  Do the same on every libc, on the stack: the child of a fork
 * should not call malloc. */
static void exec_through_shell(char **argv, size_t argc)
{
	char file[4096];
	if (!resolve(argv[0], file, sizeof file)) {
		errno = ENOEXEC;
		return;
	}
	char *sh[argc + 2];
	sh[0] = "sh";
	sh[1] = file;
	for (size_t k = 1; k <= argc; k++)
		sh[k + 1] = argv[k];
	execv("/bin/sh", sh);
	errno = ENOEXEC;
}

/* How long the command waits for the guard to join its group (spawn_req's companion):
 * runlimit moves it there a few system calls after the fork, so this is reached only when
 * runlimit is held up (stopped, or starved of CPU) between the two. */
#define COMPANION_WAIT ((int64_t)1000 * 1000000)

/* The child was born in a group runlimit made at its fork, which the guard joins once
 * runlimit is back in its caller's group (guard.h): before exec it waits for the guard
 * there, so that a command that leaves the group at once (setsid, an inner timeout, an
 * interactive shell) cannot leave it empty first: an empty group is gone for good, and a
 * `kill -- -PID` then finds nobody to reach runlimit through.  Not for ever: not past
 * runlimit's death, the guard's, or COMPANION_WAIT. */
static void await_companion(pid_t companion, pid_t parent)
{
	pid_t mine = getpgrp();
	int64_t until = clock_now() + COMPANION_WAIT;
	for (;;) {
		pid_t its = getpgid(companion);
		if (its == mine || (its < 0 && errno == ESRCH) || getppid() != parent ||
		    clock_now() >= until)
			return;
		sched_yield();
	}
}

struct child_args {
	const struct spawn_req *req;
	pid_t parent;
	size_t argc;
};

static void child(const struct child_args *a)
{
	const struct spawn_req *req = a->req;
	/* Into the run's cgroup before anything of the command runs: where that fails, the
	 * budgets would not hold, so the command does not run at all. */
	if (req->cgroup_procs >= 0 && write(req->cgroup_procs, "0", 1) != 1) {
		msg("cannot move the command into its cgroup: %s", strerror(errno));
		_exit(EXIT_RUNLIMIT_FAILED);
	}
	if (req->group != 0)
		setpgid(0, req->group > 0 ? req->group : 0);
	req->child_setup();
	if (os_child_prepare(req->death_signal, a->parent) < 0)
		_exit(EXIT_RUNLIMIT_FAILED); /* runlimit died before we could be tied to it */
	if (req->companion > 0)
		await_companion(req->companion, a->parent);
	sigprocmask(SIG_SETMASK, req->mask, NULL);
	if (req->env)
		environ = req->env; /* the child's own: runlimit's is never changed */
	/* Test builds only: a signal that reaches the child after its unblock, before exec. */
	if (test_hook_on(TEST_CHILD_SIGNAL))
		kill(getpid(), SIGUSR1);
	execvp(req->argv[0], req->argv);
	if (errno == ENOEXEC)
		exec_through_shell(req->argv, a->argc);
	int err = errno;
	if (exec_pipe[1] >= 0) {
		(void)!write(exec_pipe[1], &err, sizeof err); /* a few bytes: whole, or none */
	} else if (exec_page) {
		exec_page->err = err;
		exec_page->failed = 1;
	} else {
		spawn_say_failed(req->argv[0], err); /* runlimit could not tell it from an exit */
	}
	_exit(exec_error_status(err));
}

void spawn_prepare(void)
{
	if (exec_pipe[1] >= 0 || exec_page)
		return;
	/* pipe takes the lowest free numbers: the read end above 2, the write end is too */
	if (os_pipe_cloexec(exec_pipe) == 0 && exec_pipe[0] > STDERR_FILENO)
		return;
	for (int k = 0; k < 2 && exec_pipe[0] >= 0; k++)
		close(exec_pipe[k]); /* on a standard descriptor, the command's own would take it */
	exec_pipe[0] = exec_pipe[1] = -1;
	void *page = mmap(NULL, sizeof *exec_page, PROT_READ | PROT_WRITE,
	                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	exec_page = page == MAP_FAILED ? NULL : page;
}

pid_t spawn(const struct spawn_req *req)
{
	spawn_prepare();
	struct child_args a = {.req = req, .parent = req->parent};
	while (req->argv[a.argc])
		a.argc++;
	/* A fork, not a vfork-style clone, though that is cheaper (docs/performance.md): runlimit
	 * would be suspended until the child's exec, and an exec that hangs (a stalled network
	 * file system on PATH) or a stop in that window would hold off the deadline. */
	pid_t pid = fork();
	if (pid == 0)
		child(&a);
	if (pid < 0)
		return -1;
	if (exec_pipe[1] >= 0)
		close(exec_pipe[1]); /* the child's is the last: its exec closes it */
	exec_pipe[1] = -1;
	/* Both sides set the group, so the command is in it before either relies on it.
	 * EACCES (already exec'd) and ESRCH (already gone) are expected. */
	if (req->group != 0)
		setpgid(pid, req->group > 0 ? req->group : pid);
	return pid;
}

int spawn_exec_error(int wait_status)
{
	if (exec_page)
		return exec_page->failed ? exec_page->err : 0;
	/* A status of the command's own: it ran.  A child killed after it wrote is still read. */
	int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
	int err = 0;
	/* Not waited for: a process that took the write end by mistake would hold the read. */
	struct pollfd ready = {.fd = exec_pipe[0], .events = POLLIN};
	if (exec_pipe[0] >= 0 && (code < 0 || code == 126 || code == 127) &&
	    poll(&ready, 1, 0) == 1 && read(exec_pipe[0], &err, sizeof err) != (ssize_t)sizeof err)
		err = 0;
	return err;
}

void spawn_say_failed(const char *command, int err)
{
	msg("failed to run command %s: %s", quote(command), strerror(err));
}

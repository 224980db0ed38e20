/* MAP_ANONYMOUS is POSIX only since 2024: ask each libc for its extensions. */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include "start_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* How a child that gives up says why: the step, and its errno. */
enum child_step { STEP_NONE, STEP_CGROUP, STEP_EXEC };
struct child_report {
	int step;
	int err;
};

/* Where a forked child leaves its report: a pipe, both ends close-on-exec and above the
 * standard descriptors, whose write end runlimit closes once the child is forked, so that the
 * child's exec closes the last one; runlimit reads it, without waiting, once the child is
 * gone, unless the command exited with a status of its own (not 125, 126 or 127).  Where no
 * such pipe can be had (descriptors short, or the standard ones closed and free), a page
 * shared with the child, which costs no descriptor.  With neither, the child says why
 * itself, as GNU timeout's does.  A child that shares runlimit's memory (Linux) needs none
 * of them: it writes its report in shared_report, read once it is reaped. */
static int exec_pipe[2] = {-1, -1};
static struct child_report *exec_page;
static struct child_report shared_report;
static bool spawned_shared;

/* The child's arguments: spawn's copy of the request, for a child that runs alongside
 * runlimit must find them unchanged whatever runlimit does meanwhile. */
#define SH_ARGS_ON_STACK 1024
static struct child_args {
	struct spawn_req req;
	char *const *env;
	const char *path;  /* PATH, for the search */
	char **sh_argv;    /* room for a long script's argument list (see exec_shell), or NULL */
	size_t argc;
	bool shared;       /* the child shares runlimit's memory (it reports in shared_report) */
	int test_signal;   /* test builds only: TEST_CHILD_SIGNAL, TEST_CHILD_STOP */
} args;

static void spawn_prepare(void)
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

/* The child gives up: its report, then its exit. */
static void give_up(const struct child_args *a, enum child_step step, int err, int status)
{
	struct child_report rep = {(int)step, err};
	if (a->shared)
		shared_report = rep;
	else if (exec_pipe[1] >= 0)
		(void)os_child_write(exec_pipe[1], &rep, sizeof rep); /* a few bytes: whole, or none */
	else if (exec_page)
		*exec_page = rep;
	else if (step == STEP_EXEC)
		spawn_say_failed(a->req.argv[0], err); /* forked: runlimit could not tell it */
	else
		msg("cannot move the command into its cgroup: %s", strerror(err));
	os_child_exit(status);
}

/* A file the kernel cannot run for want of "#!" (ENOEXEC) runs through /bin/sh, as glibc's
 * execvp does and GNU timeout relies on (musl's does not): "sh FILE ARG...".  Its list on
 * the child's stack, or in the room spawn made for a long one.  ENOEXEC if that fails: the
 * file's own failure, not the shell's (glibc's would say "No such file" where /bin/sh is
 * missing, and search on). */
static int exec_shell(const struct child_args *a, const char *file)
{
	size_t n = a->argc + 2;
	char *on_stack[n <= SH_ARGS_ON_STACK ? n : 1];
	char **sh = n <= SH_ARGS_ON_STACK ? on_stack : a->sh_argv;
	if (!sh)
		return ENOEXEC;
	sh[0] = "sh";
	sh[1] = (char *)file;
	for (size_t k = 1; k <= a->argc; k++)
		sh[k + 1] = a->req.argv[k];
	(void)os_child_execve("/bin/sh", sh, a->env);
	return ENOEXEC;
}

/* Run one file: the errno of its failure. */
static int exec_file(const struct child_args *a, const char *file)
{
	long r = os_child_execve(file, a->req.argv, a->env);
	return r == -ENOEXEC ? exec_shell(a, file) : (int)-r;
}

/* execvp's search, made here with the child's own calls, by glibc's rules: a name with a
 * slash is run as it is; else each directory of PATH in turn (an empty one is the current
 * directory), going on past one where the name is not (ENOENT, ENOTDIR, ESTALE, ENODEV,
 * ETIMEDOUT) or may not be run (EACCES, which is then the answer if nothing runs), and
 * stopping at any other failure.  A directory too long to make a path of with the name
 * (PATH_MAX) is passed over, where glibc gives up on the whole search.  The errno of the
 * failure. */
static int exec_search(const struct child_args *a)
{
	const char *file = a->req.argv[0];
	if (!*file)
		return ENOENT;
	if (strchr(file, '/'))
		return exec_file(a, file);
	size_t flen = strlen(file);
	if (flen > NAME_MAX)
		return ENAMETOOLONG;
	char buf[PATH_MAX];
	bool denied = false;
	int err = ENOENT;
	for (const char *dir = a->path;; dir++) {
		const char *colon = strchr(dir, ':');
		size_t dlen = colon ? (size_t)(colon - dir) : strlen(dir);
		if (dlen + 1 + flen < sizeof buf) {
			memcpy(buf, dir, dlen);
			buf[dlen] = '/';
			/* an empty directory is the current one: the name alone */
			char *at = dlen ? buf + dlen + 1 : buf;
			memcpy(at, file, flen + 1);
			err = exec_file(a, buf);
			switch (err) {
			case EACCES:
				denied = true;
				break;
			case ENOENT: case ENOTDIR: case ESTALE: case ENODEV: case ETIMEDOUT:
				break;
			default:
				return err;
			}
		}
		if (!colon)
			return denied ? EACCES : err;
		dir = colon;
	}
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
	long mine = os_child_getpgid(0);
	int64_t until = clock_now() + COMPANION_WAIT;
	for (;;) {
		long its = os_child_getpgid(companion);
		if (its == mine || its == -ESRCH || os_child_getppid() != parent ||
		    clock_now() >= until)
			return;
		os_child_yield();
	}
}

/* The child, from its birth to its exec.  It may share runlimit's memory and errno (os.h):
 * it writes nothing of runlimit's but its report, and makes its system calls through
 * os_child_*. */
static void child(void *arg)
{
	const struct child_args *a = arg;
	const struct spawn_req *req = &a->req;
	/* Into the run's cgroup before anything of the command runs: where that fails, the
	 * budgets would not hold, so the command does not run at all. */
	if (req->cgroup_procs >= 0) {
		long wrote = os_child_write(req->cgroup_procs, "0", 1);
		if (wrote != 1)
			give_up(a, STEP_CGROUP, wrote < 0 ? (int)-wrote : EIO, EXIT_RUNLIMIT_FAILED);
	}
	if (req->group != 0)
		os_child_setpgid(0, req->group > 0 ? req->group : 0);
	/* The terminal, whichever of runlimit and the child comes first (start.c); not where
	 * the child is born in runlimit's new group (group 0), which runlimit gives it. */
	pid_t fg = req->group == SPAWN_OWN_GROUP ? (pid_t)os_child_getpid() : req->group;
	if (req->tty_fd >= 0 && fg > 0)
		os_child_tcsetpgrp(req->tty_fd, fg);
	for (size_t k = 0; k < req->ndisp; k++)
		os_child_disposition(req->disp[k].sig, req->disp[k].ignore);
	for (size_t k = 0; k < req->ndup; k++)
		os_child_dup2(req->dup[k].from, req->dup[k].to);
	if (os_child_prepare(req->death_signal, req->parent) < 0)
		os_child_exit(EXIT_RUNLIMIT_FAILED); /* runlimit died before we could be tied to it */
	if (req->companion > 0)
		await_companion(req->companion, req->parent);
	os_child_sigmask(req->mask);
	/* Test builds only: a signal that reaches the child after its unblock, before exec. */
	if (a->test_signal)
		os_child_kill((pid_t)os_child_getpid(), a->test_signal);
	int err = exec_search(a);
	give_up(a, STEP_EXEC, err, exec_error_status(err));
}

pid_t spawn(const struct spawn_req *req)
{
	/* One child a run: a room left from an earlier one is no longer read by it. */
	free(args.sh_argv);
	args = (struct child_args){.req = *req, .env = req->env ? req->env : environ};
	args.path = getenv("PATH");
	if (!args.path)
		args.path = "/bin:/usr/bin";
	while (req->argv[args.argc])
		args.argc++;
	if (args.argc + 2 > SH_ARGS_ON_STACK)
		args.sh_argv = malloc((args.argc + 2) * sizeof *args.sh_argv);
	args.test_signal = test_hook_on(TEST_CHILD_STOP)     ? SIGSTOP
	                   : test_hook_on(TEST_CHILD_SIGNAL) ? SIGUSR1
	                                                     : 0;
	/* Test builds only: a descriptor that refuses the write. */
	if (args.req.cgroup_procs >= 0 && test_hook_on(TEST_CGROUP_MOVE_REFUSED))
		args.req.cgroup_procs = open("/dev/null", O_RDONLY | O_CLOEXEC);
	shared_report = (struct child_report){STEP_NONE, 0};
	/* Cloned sharing runlimit's memory where the system can (os.h): no page tables copied,
	 * none of runlimit's pages made copy-on-write, and runlimit runs on meanwhile, so that an
	 * exec that hangs (a stalled network file system on PATH) or a stop before it cannot
	 * hold off the deadline, which a vfork would. */
	args.shared = true;
	/* Not a child that joins the run's cgroup: its exec is charged there, and an OOM kill
	 * in the cgroup ends every process that shares the victim's memory, runlimit with it (a
	 * vfork's child is passed over, not this one).  A run with a cgroup costs far more than
	 * the fork anyway. */
	pid_t pid = req->cgroup_procs >= 0 ? 0 : os_spawn_shared(child, &args);
	spawned_shared = pid > 0;
	if (pid == 0) {
		spawn_prepare();
		args.shared = false;
		pid = fork();
		if (pid == 0)
			child(&args);
		if (exec_pipe[1] >= 0)
			close(exec_pipe[1]); /* the child's is the last: its exec closes it */
		exec_pipe[1] = -1;
	}
	if (pid < 0)
		return -1;
	/* Both sides set the group, so the command is in it before either relies on it.
	 * EACCES (already exec'd) and ESRCH (already gone) are expected. */
	if (req->group != 0)
		setpgid(pid, req->group > 0 ? req->group : pid);
	return pid;
}

/* The child's report, once it is reaped: where it was forked, read from the pipe only where
 * its status may be one of its giving up (125, 126, 127, or a death after it wrote). */
static struct child_report child_report(int wait_status)
{
	struct child_report rep = {STEP_NONE, 0};
	if (spawned_shared)
		return shared_report;
	if (exec_page)
		return *exec_page;
	int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
	/* Not waited for: a process that took the write end by mistake would hold the read. */
	struct pollfd ready = {.fd = exec_pipe[0], .events = POLLIN};
	if (exec_pipe[0] >= 0 && (code < 0 || (code >= EXIT_RUNLIMIT_FAILED && code <= 127)) &&
	    poll(&ready, 1, 0) == 1 && read(exec_pipe[0], &rep, sizeof rep) != (ssize_t)sizeof rep)
		rep = (struct child_report){STEP_NONE, 0};
	return rep;
}

int spawn_exec_error(int wait_status)
{
	struct child_report rep = child_report(wait_status);
	if (rep.step == STEP_CGROUP)
		msg("cannot move the command into its cgroup: %s", strerror(rep.err));
	return rep.step == STEP_EXEC ? rep.err : 0;
}

void spawn_say_failed(const char *command, int err)
{
	msg("failed to run command %s: %s", quote(command), strerror(err));
}

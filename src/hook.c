#include "hook.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msg.h"
#include "relay.h"
#include "signal_in.h"
#include "snapshot.h"

static struct hook_figures hook; /* what it did, as the report gives it */
static struct {
	bool ran;            /* started, or tried: once in a run */
	pid_t pid;           /* until reaped (0: not running, or reaped) */
	int64_t deadline;
} proc = {.deadline = CLOCK_NEVER};

/* In the child: its group, its environment, its descriptors, then the shell. */
static void child(const struct config *cfg, pid_t parent, int out, char *const env[])
{
	setpgid(0, 0);
	disp_child_reset();
	if (os_child_prepare(SIGKILL, parent) < 0)
		_exit(EXIT_RUNLIMIT_FAILED);
	for (size_t k = 0; env[k]; k++)
		putenv(env[k]);
	int null = open("/dev/null", O_RDONLY);
	if (null >= 0 && null != STDIN_FILENO) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	if (out >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
	} else {
		dup2(STDERR_FILENO, STDOUT_FILENO);
	}
	sigprocmask(SIG_SETMASK, disp_command_mask(), NULL);
	execl("/bin/sh", "sh", "-c", cfg->on_timeout, (char *)NULL);
	_exit(127);
}

pid_t hook_start(const struct config *cfg, const struct target *t, const char *why)
{
	if (proc.ran || !cfg->on_timeout)
		return 0;
	proc.ran = true;
	hook.why = why;
	/* The environment, made before the fork: RUNLIMIT_PIDS may be long. */
	static char pid_var[32], pgid_var[32], reason_var[64];
	char *name_var = NULL, *pids_var = malloc(12 * SNAPSHOT_MAX + 16);
	snprintf(pid_var, sizeof pid_var, "RUNLIMIT_PID=%d", (int)t->command);
	snprintf(pgid_var, sizeof pgid_var, "RUNLIMIT_PGID=%d",
	         (int)(t->group > 0 ? t->group : t->command));
	snprintf(reason_var, sizeof reason_var, "RUNLIMIT_REASON=%s", why);
	if (pids_var) {
		strcpy(pids_var, "RUNLIMIT_PIDS=");
		snapshot_pids(pids_var + 14, 12 * SNAPSHOT_MAX + 2);
	}
	if (cfg->name && (name_var = malloc(strlen(cfg->name) + 16)))
		sprintf(name_var, "RUNLIMIT_NAME=%s", cfg->name);
	static char no_pids[] = "RUNLIMIT_PIDS=";
	char *env[] = {pid_var, pgid_var, reason_var, pids_var ? pids_var : no_pids, name_var, NULL};
	int out = relay_stderr_writer();
	pid_t parent = getpid();
	hook.started = clock_now();
	pid_t pid = fork();
	if (pid == 0)
		child(cfg, parent, out, env);
	int err = errno;
	if (out >= 0)
		close(out);
	free(pids_var);
	free(name_var);
	if (pid < 0) {
		msg("cannot run the --on-timeout command: %s", strerror(err));
		hook.over = true;
		return 0;
	}
	setpgid(pid, pid); /* both sides: it is in its group before either relies on it */
	proc.pid = pid;
	proc.deadline = clock_after(hook.started, cfg->on_timeout_limit);
	if (cfg->verbose)
		msg("running the --on-timeout command (pid %d), for at most %.3gs", (int)pid,
		    (double)cfg->on_timeout_limit / 1e9);
	return pid;
}

int64_t hook_deadline(void)
{
	return proc.pid > 0 && !hook.over ? proc.deadline : CLOCK_NEVER;
}

pid_t hook_pid(void)
{
	return proc.pid;
}

/* Has the hook exited or died (not yet reaped)?  Looked at without collecting it.  An exit
 * only: macOS has been seen to answer this with a stop (CLD_STOPPED). */
static bool hook_dead(void)
{
	siginfo_t info;
	info.si_pid = 0;
	return waitid(P_PID, (id_t)proc.pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	       info.si_pid == proc.pid &&
	       (info.si_code == CLD_EXITED || info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED);
}

int64_t hook_dying_since(void)
{
	if (!hook.killed || proc.pid <= 0 || hook_dead())
		return CLOCK_NEVER;
	return hook.ended;
}

/* KILL the hook's group: held while the hook, its leader, is not reaped. */
static void kill_group(void)
{
	if (proc.pid > 0)
		kill(-proc.pid, SIGKILL);
}

bool hook_reaped(pid_t pid, int status)
{
	if (pid <= 0 || pid != proc.pid)
		return false;
	proc.pid = 0;
	hook.have_status = true;
	hook.status = status;
	if (!hook.over) {
		hook.over = true;
		hook.ended = clock_now();
	}
	return true;
}

bool hook_over(int64_t now)
{
	if (hook.over || proc.pid <= 0)
		return true;
	if (hook_dead()) {
		/* Exited: what it left in its group goes now, while its id is still held. */
		kill_group();
		int st;
		pid_t pid = proc.pid;
		if (waitpid(pid, &st, 0) == pid)
			hook_reaped(pid, st);
		return true;
	}
	if (now < proc.deadline)
		return false;
	kill_group();
	hook.killed = "limit";
	hook.over = true;
	hook.ended = now;
	return true;
}

void hook_kill(void)
{
	if (hook.over || proc.pid <= 0)
		return;
	kill_group();
	hook.killed = "request";
	hook.over = true;
	hook.ended = clock_now();
}

const struct hook_figures *hook_figures(void)
{
	return proc.ran ? &hook : NULL;
}

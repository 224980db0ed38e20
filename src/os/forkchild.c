/* The command's child's calls where it is always forked (os.h, "The command's child"): macOS,
 * FreeBSD and the portable build.  A fork shares nothing with runlimit, so they are libc's,
 * made to answer as Linux's raw ones do (linux_child.c): the result, or -errno, and errno
 * left alone. */
#include "os.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static long answer(long ret, int saved)
{
	if (ret < 0)
		ret = -errno;
	errno = saved;
	return ret;
}

long os_child_write(int fd, const void *buf, size_t len)
{
	int saved = errno;
	return answer(write(fd, buf, len), saved);
}

long os_child_setpgid(pid_t pid, pid_t pgid)
{
	int saved = errno;
	return answer(setpgid(pid, pgid), saved);
}

long os_child_getpgid(pid_t pid)
{
	int saved = errno;
	return answer(getpgid(pid), saved);
}

long os_child_getpid(void)
{
	return getpid();
}

long os_child_getppid(void)
{
	return getppid();
}

long os_child_yield(void)
{
	int saved = errno;
	return answer(sched_yield(), saved);
}

long os_child_tcsetpgrp(int fd, pid_t pgid)
{
	int saved = errno;
	return answer(tcsetpgrp(fd, pgid), saved);
}

long os_child_disposition(int sig, bool ignore)
{
	int saved = errno;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ignore ? SIG_IGN : SIG_DFL;
	return answer(sigaction(sig, &sa, NULL), saved);
}

long os_child_dup2(int from, int to)
{
	int saved = errno;
	return answer(dup2(from, to), saved);
}

long os_child_sigmask(const sigset_t *mask)
{
	int saved = errno;
	return answer(sigprocmask(SIG_SETMASK, mask, NULL), saved);
}

long os_child_kill(pid_t pid, int sig)
{
	int saved = errno;
	return answer(kill(pid, sig), saved);
}

long os_child_execve(const char *path, char *const argv[], char *const envp[])
{
	int saved = errno;
	return answer(execve(path, argv, envp), saved);
}

void os_child_exit(int status)
{
	_exit(status);
}

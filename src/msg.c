#include "msg.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *progname = "runlimit";

static void write_stderr(const char *buf, size_t len)
{
	sigset_t pipe_only, old;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	/* A write to a closed pipe raises SIGPIPE in this process; runlimit forwards SIGPIPE it
	 * receives from others, so its own must be swallowed here, not forwarded. */
	sigprocmask(SIG_BLOCK, &pipe_only, &old);
	int saved = errno;
	ssize_t n;
	do {
		n = write(STDERR_FILENO, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EPIPE && !sigismember(&old, SIGPIPE)) {
		sigset_t pending;
		int sig;
		if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
			sigwait(&pipe_only, &sig);
	}
	errno = saved;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void msg(const char *fmt, ...)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "%s: ", progname);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
	va_list ap;
	va_start(ap, fmt);
	n = vsnprintf(line + len, sizeof line - len, fmt, ap);
	va_end(ap);
	if (n > 0)
		len += (size_t)n < sizeof line - len ? (size_t)n : sizeof line - len - 1;
	if (len >= sizeof line - 1)
		len = sizeof line - 2;
	line[len++] = '\n';
	write_stderr(line, len);
}

void msg_try_help(void)
{
	char line[256];
	int n = snprintf(line, sizeof line, "Try '%s --help' for more information.\n", progname);
	if (n > 0)
		write_stderr(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

bool msg_stdout(const char *text)
{
	if (fputs(text, stdout) == EOF || fflush(stdout) == EOF || ferror(stdout)) {
		msg("write error: %s", strerror(errno));
		return false;
	}
	return true;
}

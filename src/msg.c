#include "msg.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *progname = "runlimit";

static void write_stderr(const char *buf, size_t len)
{
	sigset_t pipe_only, old, pending;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	/* A write to a closed pipe raises SIGPIPE in this process; runlimit forwards SIGPIPE it
	 * receives from others, so its own must be swallowed here, not forwarded.  One already
	 * pending before the write (runlimit keeps the signals it catches blocked) is someone
	 * else's and stays. */
	sigprocmask(SIG_BLOCK, &pipe_only, &old);
	int saved = errno;
	bool had = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	ssize_t n;
	do {
		n = write(STDERR_FILENO, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EPIPE && !had) {
		int sig;
		if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
			sigwait(&pipe_only, &sig);
	}
	errno = saved;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* "PROG: " and the formatted text into buf; the length the whole line needs, newline
 * included (more than size: buf holds a cut line), or 0 on a format error. */
static size_t format_line(char *buf, size_t size, const char *fmt, va_list ap)
{
	int head = snprintf(buf, size, "%s: ", progname);
	if (head < 0)
		return 0;
	size_t len = (size_t)head < size ? (size_t)head : size - 1;
	int body = vsnprintf(buf + len, size - len, fmt, ap);
	return body < 0 ? 0 : (size_t)head + (size_t)body + 1;
}

void msg(const char *fmt, ...)
{
	/* Most lines fit the stack buffer; a longer one (a 5,000-byte command name) gets the
	 * heap, so that the reason at its end is never cut off. */
	char small[1024], *line = small;
	va_list ap;
	va_start(ap, fmt);
	size_t need = format_line(small, sizeof small, fmt, ap);
	va_end(ap);
	if (need == 0)
		return;
	if (need + 1 > sizeof small) {
		char *big = malloc(need + 1);
		if (big) {
			va_start(ap, fmt);
			need = format_line(big, need + 1, fmt, ap);
			va_end(ap);
			line = big;
			if (need == 0) {
				free(big);
				return;
			}
		} else {
			need = sizeof small - 1; /* no memory: what fits */
		}
	}
	line[need - 1] = '\n';
	write_stderr(line, need);
	if (line != small)
		free(line);
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

#include "msg.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nowait.h"

const char *progname = "runlimit";
const char *program_name = "runlimit";
const char *help_mode = "";

/* Take a signal this process just raised against itself off the pending set, unless it
 * was pending already (then it is someone else's and stays). */
static void swallow_own(int sig, bool was_pending)
{
	sigset_t pending, only;
	if (was_pending || sigpending(&pending) != 0 || !sigismember(&pending, sig))
		return;
	sigemptyset(&only);
	sigaddset(&only, sig);
	int got;
	sigwait(&only, &got);
}

/* write(2), or with nowait nowait_write, with SIGPIPE and SIGXFSZ as msg_write says. */
static ssize_t own_write(int fd, const void *buf, size_t len, bool nowait)
{
	/* runlimit forwards SIGPIPE and SIGXFSZ when others send them: its own are swallowed,
	 * or a -v line that cannot be written would send another, without end.  One pending
	 * before the write (runlimit keeps what it catches blocked) is someone else's. */
	sigset_t own, old, pending;
	sigemptyset(&own);
	sigaddset(&own, SIGPIPE);
	sigaddset(&own, SIGXFSZ);
	sigprocmask(SIG_BLOCK, &own, &old);
	bool had_pipe = false, had_xfsz = false;
	if (sigpending(&pending) == 0) {
		had_pipe = sigismember(&pending, SIGPIPE);
		had_xfsz = sigismember(&pending, SIGXFSZ);
	}
	ssize_t n;
	do {
		n = nowait ? nowait_write(fd, buf, len) : write(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	int err = errno;
	if (n < 0 && err == EPIPE)
		swallow_own(SIGPIPE, had_pipe);
	if (n < 0 && err == EFBIG)
		swallow_own(SIGXFSZ, had_xfsz);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return n;
}

ssize_t msg_write(int fd, const void *buf, size_t len)
{
	return own_write(fd, buf, len, false);
}

void msg_drop_sigpipe(void)
{
	swallow_own(SIGPIPE, false);
}

static bool (*sink)(const char *, size_t);
static pid_t sink_owner; /* a child of runlimit's (the command before exec, the guard) has
                            a copy of the sink, not the sink */

void msg_set_sink(bool (*take)(const char *line, size_t len))
{
	sink = take;
	sink_owner = getpid();
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

ssize_t msg_write_within(int fd, const void *buf, size_t len, int ms)
{
	/* A pipe or a terminal with room for a piece of PIPE_BUF takes it whole without
	 * blocking.  The ms are for the whole: a reader that takes a piece now and then is not
	 * waited for longer. */
	const char *p = buf;
	size_t done = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done < len) {
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		long left = ms - ms_since(&t0);
		int r = poll(&pfd, 1, left > 0 ? (int)left : 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EAGAIN;
			break;
		}
		size_t piece = len - done < PIPE_BUF ? len - done : PIPE_BUF;
		ssize_t n = own_write(fd, p + done, piece, true);
		if (n < 0 && errno == EAGAIN)
			continue; /* another writer took the room poll saw: wait again */
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return done > 0 ? (ssize_t)done : -1;
}

static void write_stderr(const char *buf, size_t len)
{
	int saved = errno;
	if (!sink || getpid() != sink_owner || !sink(buf, len))
		msg_write_within(STDERR_FILENO, buf, len, MSG_WAIT_MS);
	errno = saved;
}

/* With prefixed, "PROG: " and then the formatted text into buf; the length the whole line
 * needs, newline included (more than size: buf holds a cut line), or 0 on a format error. */
static size_t format_line(char *buf, size_t size, bool prefixed, const char *fmt, va_list ap)
{
	int head = prefixed ? snprintf(buf, size, "%s: ", program_name) : 0;
	if (head < 0)
		return 0;
	size_t len = (size_t)head < size ? (size_t)head : size - 1;
	int body = vsnprintf(buf + len, size - len, fmt, ap);
	return body < 0 ? 0 : (size_t)head + (size_t)body + 1;
}

/* One line on stderr in one write.  Most lines fit the stack buffer; a longer one (a
 * 5,000-byte command name) gets the heap, so that the reason at its end is never cut off. */
static void print_line(bool prefixed, const char *fmt, va_list ap)
{
	char small[1024], *line = small;
	va_list again;
	va_copy(again, ap);
	size_t need = format_line(small, sizeof small, prefixed, fmt, ap);
	if (need + 1 > sizeof small && need > 0) {
		char *big = malloc(need + 1);
		if (big && (need = format_line(big, need + 1, prefixed, fmt, again)) > 0)
			line = big;
		else
			need = big ? 0 : sizeof small - 1; /* no memory: what fits */
		if (line != big)
			free(big);
	}
	va_end(again);
	if (need == 0)
		return;
	line[need - 1] = '\n';
	write_stderr(line, need);
	if (line != small)
		free(line);
}

void msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	print_line(true, fmt, ap);
	va_end(ap);
}

void msg_try_help(void)
{
	msg_plain("Try '%s%s --help' for more information.", program_name, help_mode);
}

void msg_plain(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	print_line(false, fmt, ap);
	va_end(ap);
}

bool msg_stdout(const char *text)
{
	if (fputs(text, stdout) == EOF || fflush(stdout) == EOF || ferror(stdout)) {
		msg("write error: %s", strerror(errno));
		return false;
	}
	return true;
}

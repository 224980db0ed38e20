#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "msg.h"

/* What is written to the caller per wait that says it is writable: a write of at most
 * PIPE_BUF bytes to a pipe poll calls writable never blocks, and the caller's descriptor is
 * not runlimit's to make non-blocking (the caller shares it). */
#define CHUNK PIPE_BUF
#define BUFFER 65536

struct stream {
	int in;          /* the read end of runlimit's pipe (-1: closed) */
	int write_end;   /* the command's end, until it is forked */
	int out;         /* the caller's descriptor: 1, or 2 */
	bool both;       /* stdout and stderr are the same file (2>&1): one pipe for both */
	bool broken;     /* the caller's end is gone */
	uint64_t owed;   /* written before the command's exit and not yet relayed */
	size_t len, off; /* buf[off..len) is still to be written */
	char buf[BUFFER];
};

static struct stream streams[2];
static size_t nstreams;
static bool exited, grace_over;
static int64_t grace_end = CLOCK_NEVER;

/* A pipe, a FIFO or a socket: what a caller reads to end-of-file. */
static bool relayable(int fd, struct stat *st)
{
	return fstat(fd, st) == 0 && (S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode));
}

/* fd moved above the standard descriptors (which runlimit may have been started without),
 * close-on-exec; -1 if it cannot be. */
static int high(int fd)
{
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	int err = errno;
	close(fd);
	errno = err;
	return moved;
}

static bool open_stream(struct stream *s, int out, bool both)
{
	int p[2];
	if (pipe(p) < 0)
		return false;
	s->in = high(p[0]);
	s->write_end = high(p[1]);
	s->out = out;
	s->both = both;
	if (s->in < 0 || s->write_end < 0 || fcntl(s->in, F_SETFL, O_NONBLOCK) < 0)
		return false;
	nstreams++;
	return true;
}

bool relay_prepare(void)
{
	struct stat o, e;
	bool ro = relayable(STDOUT_FILENO, &o), re = relayable(STDERR_FILENO, &e);
	bool same = ro && re && o.st_dev == e.st_dev && o.st_ino == e.st_ino;
	for (size_t k = 0; k < 2; k++)
		streams[k] = (struct stream){.in = -1, .write_end = -1};
	if (ro && !open_stream(&streams[nstreams], STDOUT_FILENO, same))
		return false;
	if (re && !same && !open_stream(&streams[nstreams], STDERR_FILENO, false))
		return false;
	return true;
}

void relay_child(void)
{
	for (size_t k = 0; k < nstreams; k++) {
		dup2(streams[k].write_end, streams[k].out);
		if (streams[k].both)
			dup2(streams[k].write_end, STDERR_FILENO);
	}
}

void relay_started(void)
{
	for (size_t k = 0; k < nstreams; k++) {
		if (streams[k].write_end >= 0)
			close(streams[k].write_end);
		streams[k].write_end = -1;
	}
}

bool relay_active(void)
{
	return nstreams > 0;
}

static void stop_reading(struct stream *s)
{
	if (s->in >= 0)
		close(s->in);
	s->in = -1;
}

size_t relay_fds(struct pollfd *fds)
{
	size_t n = 0;
	for (size_t k = 0; k < nstreams; k++) {
		struct stream *s = &streams[k];
		if (s->off < s->len)
			fds[n++] = (struct pollfd){.fd = s->out, .events = POLLOUT};
		else if (s->in >= 0)
			fds[n++] = (struct pollfd){.fd = s->in, .events = POLLIN};
	}
	return n;
}

static void take_in(struct stream *s)
{
	ssize_t got;
	do {
		got = read(s->in, s->buf, sizeof s->buf);
	} while (got < 0 && errno == EINTR);
	if (got > 0) {
		s->len = (size_t)got;
		s->off = 0;
	} else if (got == 0 || errno != EAGAIN) {
		stop_reading(s); /* end-of-file: every writer has closed its end */
	}
}

static void give_out(struct stream *s)
{
	size_t chunk = s->len - s->off < CHUNK ? s->len - s->off : CHUNK;
	ssize_t put = msg_write(s->out, s->buf + s->off, chunk);
	if (put < 0 && errno == EAGAIN)
		return;
	if (put <= 0) {
		/* The caller's end is gone: the command's next write gets EPIPE, as it would
		 * have without the relay. */
		s->broken = true;
		s->len = s->off = 0;
		s->owed = 0;
		stop_reading(s);
		return;
	}
	s->off += (size_t)put;
	s->owed -= (uint64_t)put < s->owed ? (uint64_t)put : s->owed;
	if (s->off == s->len)
		s->len = s->off = 0;
}

void relay_pump(const struct pollfd *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!fds[i].revents)
			continue;
		for (size_t k = 0; k < nstreams; k++) {
			struct stream *s = &streams[k];
			if (fds[i].events == POLLOUT && fds[i].fd == s->out && s->off < s->len)
				give_out(s);
			else if (fds[i].events == POLLIN && fds[i].fd == s->in && s->in >= 0)
				take_in(s);
		}
	}
}

/* Bytes waiting in the pipe (0 where the system cannot say: the grace then bounds them). */
static uint64_t waiting(int fd)
{
	int n = 0;
	return fd >= 0 && ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? (uint64_t)n : 0;
}

void relay_command_exited(int64_t now, int64_t grace)
{
	exited = true;
	grace_end = grace > CLOCK_NEVER - now ? CLOCK_NEVER - 1 : now + grace;
	for (size_t k = 0; k < nstreams; k++)
		streams[k].owed = (uint64_t)(streams[k].len - streams[k].off) + waiting(streams[k].in);
}

int64_t relay_deadline(void)
{
	return exited && !grace_over ? grace_end : CLOCK_NEVER;
}

bool relay_finished(int64_t now)
{
	if (!exited)
		return false;
	if (now >= grace_end)
		grace_over = true;
	bool done = true;
	for (size_t k = 0; k < nstreams; k++) {
		struct stream *s = &streams[k];
		if (grace_over && s->owed == 0 && s->off == s->len)
			stop_reading(s); /* what leftovers write from here on is not waited for */
		if (!s->broken && (s->in >= 0 || s->off < s->len))
			done = false;
	}
	return done;
}

void relay_close(void)
{
	for (size_t k = 0; k < nstreams; k++) {
		stop_reading(&streams[k]);
		streams[k].len = streams[k].off = 0;
	}
}

#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "msg.h"
#include "pipemove.h"
#include "pty.h"
#include "relay_watch.h"
#include "tail.h"

/* What is written to the caller at a time: a write of at most PIPE_BUF bytes to a pipe poll
 * calls writable never blocks, and the caller's descriptor is not runlimit's to make
 * non-blocking (the caller shares it); while it stays writable, the next chunk follows at
 * once.  A terminal is written through a description of runlimit's own, non-blocking: as
 * much as it takes.  Between two pipes, where the system can, the bytes are moved in the
 * kernel instead (pipemove.h), up to MOVE at a time. */
#define CHUNK PIPE_BUF
#define MOVE (1 << 20)
#define BUFFER 65536

struct stream {
	int in;          /* the read end of runlimit's pipe, or its pty's master (-1: closed) */
	int write_end;   /* the command's end, until it is forked */
	int std;         /* the command's descriptor: 1, or 2 */
	int out;         /* where it goes: the caller's (std), or runlimit's own of a terminal */
	bool own_out;    /* out is runlimit's own, non-blocking */
	bool terminal;   /* in is a pty's master */
	bool both;       /* stdout and stderr are the same file (2>&1): one pipe for both */
	bool broken;     /* the caller's end is gone */
	bool moved;      /* pipe to pipe: moved in the kernel (pipemove.h), never copied */
	bool stalled;    /* moved, and the caller's pipe had no room: wait until it has */
	uint64_t owed;   /* written before the command's exit and not yet relayed */
	uint64_t bytes;  /* read from the command */
	struct tail *tail; /* the end of stderr kept for the report (NULL: not this stream) */
	size_t len, off; /* buf[off..len) is still to be written */
	char buf[BUFFER];
};

static struct stream streams[2];
static size_t nstreams;
static bool exited, grace_over;
static int64_t grace_end = CLOCK_NEVER;

static bool watching; /* output is timed: silence counts */
static int64_t look_every;
static int64_t quiet_from; /* output last seen, or last written out to a slow caller */
static int64_t last_output = CLOCK_NEVER;
static struct tail err_tail; /* --report-tail: the end of stderr (err_tail.size 0: none) */

/* A pipe, a FIFO or a socket (what a caller reads to end-of-file); with terminals, a
 * terminal too. */
static bool relayable(int fd, struct stat *st, bool terminals)
{
	return fstat(fd, st) == 0 && (S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode) ||
	                              (terminals && isatty(fd)));
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

/* A terminal: a pty like it, and a description of the terminal to write to. */
static bool open_terminal(struct stream *s)
{
	int slave;
	int master = pty_open_like(s->std, &slave);
	if (master < 0)
		return false;
	s->in = high(master);
	s->write_end = high(slave);
	s->terminal = true;
	int own = pty_reopen(s->std);
	s->own_out = own >= 0;
	if (s->own_out)
		s->out = own;
	return s->in >= 0 && s->write_end >= 0;
}

static bool open_stream(struct stream *s, int std, bool both)
{
	s->std = s->out = std;
	s->both = both;
	nstreams++;
	if (isatty(std))
		return open_terminal(s);
	int p[2];
	if (pipe(p) < 0)
		return false;
	s->in = high(p[0]);
	s->write_end = high(p[1]);
	return s->in >= 0 && s->write_end >= 0 && fcntl(s->in, F_SETFL, O_NONBLOCK) == 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A tenth of the limit (at least 1 ms, at most 1 s): how late a file's growth may be seen. */
static int64_t look_interval(int64_t silence)
{
	int64_t step = silence / 10;
	return step < 1000000 ? 1000000 : step > 1000000000 ? 1000000000 : step;
}

/* --report-tail: the stream that carries stderr keeps its end; a regular file is read back
 * at the end instead (relay_get_stats). */
static bool keep_tail(size_t size)
{
	if (size == 0)
		return true;
	if (!tail_init(&err_tail, size))
		return false;
	for (size_t k = 0; k < nstreams; k++)
		if (streams[k].std == STDERR_FILENO || streams[k].both)
			streams[k].tail = &err_tail;
	return true;
}

bool relay_prepare(int64_t silence, bool terminals, size_t tail)
{
	struct stat o, e;
	bool ro = relayable(STDOUT_FILENO, &o, terminals);
	bool re = relayable(STDERR_FILENO, &e, terminals);
	bool same = ro && re && same_file(&o, &e);
	for (size_t k = 0; k < 2; k++)
		streams[k] = (struct stream){.in = -1, .write_end = -1};
	if (ro && !open_stream(&streams[nstreams], STDOUT_FILENO, same))
		return false;
	if (re && !same && !open_stream(&streams[nstreams], STDERR_FILENO, false))
		return false;
	watch_files();
	if (!keep_tail(tail))
		return false;
	for (size_t k = 0; k < nstreams; k++) {
		struct stream *s = &streams[k];
		s->moved = !s->terminal && !s->tail && pipe_can_move(s->in, s->out);
	}
	if (silence > 0) {
		watching = true;
		look_every = look_interval(silence);
	}
	return true;
}

void relay_child(void)
{
	for (size_t k = 0; k < nstreams; k++) {
		dup2(streams[k].write_end, streams[k].std);
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
	quiet_from = clock_now();
	watch_start(quiet_from, watching ? look_every : 0);
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
	s->stalled = false; /* nothing is left to move */
}

size_t relay_fds(struct pollfd *fds)
{
	size_t n = 0;
	for (size_t k = 0; k < nstreams; k++) {
		struct stream *s = &streams[k];
		if (s->off < s->len || s->stalled)
			fds[n++] = (struct pollfd){.fd = s->out, .events = POLLOUT};
		else if (s->in >= 0)
			fds[n++] = (struct pollfd){.fd = s->in, .events = POLLIN};
	}
	return n;
}

/* Bytes waiting in the pipe (0 where the system cannot say: the grace then bounds them). */
static uint64_t waiting(int fd)
{
	int n = 0;
	return fd >= 0 && ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? (uint64_t)n : 0;
}

/* n more of the command's bytes are written out. */
static void written(struct stream *s, size_t n)
{
	s->owed -= (uint64_t)n < s->owed ? (uint64_t)n : s->owed;
	if (s->off == s->len) {
		s->len = s->off = 0;
		if (watching) /* output is silence's end once written out: a slow caller's time */
			quiet_from = clock_now(); /* is no silence (relay_silence_end) */
	}
}

/* The caller's end is gone: the command's next write gets EPIPE, as it would have without
 * the relay.  The SIGPIPE runlimit's write raised is its own, not the command's.  (One sent
 * by another process in the microseconds since the last wait is taken for it.) */
static void lost_reader(struct stream *s)
{
	if (errno == EPIPE)
		msg_drop_sigpipe();
	s->broken = true;
	s->len = s->off = 0;
	s->owed = 0;
	s->stalled = false;
	stop_reading(s);
}

static void take_in(struct stream *s);

/* Pipe to pipe: as much as both allow, moved in the kernel. */
static void move_in(struct stream *s)
{
	ssize_t got = pipe_move(s->in, s->out, MOVE);
	if (got > 0) {
		s->stalled = false;
		s->bytes += (uint64_t)got;
		last_output = clock_now();
		written(s, (size_t)got);
	} else if (got == 0) {
		stop_reading(s);
	} else if (errno == EAGAIN) {
		s->stalled = waiting(s->in) > 0; /* there was something to move: no room for it */
	} else if (errno == EPIPE) {
		lost_reader(s);
	} else if (errno != EINTR) {
		s->moved = s->stalled = false; /* the system will not move these: copy them */
		take_in(s);
	}
}

static void take_in(struct stream *s)
{
	if (s->moved) {
		move_in(s);
		return;
	}
	ssize_t got;
	do {
		got = read(s->in, s->buf, sizeof s->buf);
	} while (got < 0 && errno == EINTR);
	if (got > 0) {
		s->len = (size_t)got;
		s->off = 0;
		s->bytes += (uint64_t)got;
		last_output = clock_now();
		if (s->tail)
			tail_add(s->tail, s->buf, (size_t)got);
	} else if (got == 0 || errno != EAGAIN) {
		stop_reading(s); /* end-of-file: every writer has closed its end */
	}
}

/* Will a write to fd not block now? */
static bool writable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	return poll(&p, 1, 0) == 1 && p.revents;
}

static void give_out(struct stream *s)
{
	if (s->stalled) {
		move_in(s);
		return;
	}
	do {
		size_t left = s->len - s->off;
		ssize_t put;
		do {
			put = write(s->out, s->buf + s->off, left < CHUNK || s->own_out ? left : CHUNK);
		} while (put < 0 && errno == EINTR);
		if (put < 0 && errno == EAGAIN)
			return;
		if (put <= 0) {
			lost_reader(s);
			return;
		}
		s->off += (size_t)put;
		written(s, (size_t)put);
	} while (s->len > 0 && !s->own_out && writable(s->out));
}

void relay_pump(const struct pollfd *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!fds[i].revents)
			continue;
		for (size_t k = 0; k < nstreams; k++) {
			struct stream *s = &streams[k];
			if (fds[i].events == POLLOUT && fds[i].fd == s->out &&
			    (s->off < s->len || s->stalled))
				give_out(s);
			else if (fds[i].events == POLLIN && fds[i].fd == s->in && s->in >= 0)
				take_in(s);
		}
	}
}

void relay_look(int64_t now)
{
	if (watch_look(now))
		quiet_from = last_output = now;
}

int64_t relay_next_look(void)
{
	return watch_next_look();
}

int64_t relay_silence_end(int64_t limit)
{
	for (size_t k = 0; k < nstreams; k++)
		if (streams[k].off < streams[k].len || streams[k].stalled)
			return CLOCK_NEVER; /* written out as fast as the caller reads */
	return clock_after(quiet_from, limit);
}

void relay_command_exited(int64_t now, int64_t grace)
{
	exited = true;
	grace_end = clock_after(now, grace);
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

static const struct tail *stderr_tail(void)
{
	if (err_tail.size == 0)
		return NULL;
	for (size_t k = 0; k < nstreams; k++)
		if (streams[k].tail)
			return &err_tail;
	return watch_read_tail(&err_tail) && (err_tail.total || err_tail.len) ? &err_tail : NULL;
}

void relay_get_stats(struct relay_stats *st)
{
	*st = (struct relay_stats){{-1, -1}, false, last_output, stderr_tail()};
	for (size_t k = 0; k < nstreams; k++) {
		const struct stream *s = &streams[k];
		st->bytes[s->std == STDOUT_FILENO ? 0 : 1] = (long long)s->bytes;
		st->stderr_shared = st->stderr_shared || s->both;
	}
	for (int std = STDOUT_FILENO; std <= STDERR_FILENO; std++)
		if (watch_grown(std) >= 0)
			st->bytes[std - STDOUT_FILENO] = watch_grown(std);
	st->stderr_shared = st->stderr_shared || watch_shared();
}

bool relay_resized(void)
{
	bool changed = false;
	for (size_t k = 0; k < nstreams; k++)
		if (streams[k].terminal && streams[k].in >= 0)
			changed = pty_copy_size(streams[k].std, streams[k].in) || changed;
	return changed;
}

bool relay_has_terminal(void)
{
	for (size_t k = 0; k < nstreams; k++)
		if (streams[k].terminal)
			return true;
	return false;
}

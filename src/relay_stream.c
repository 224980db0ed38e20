#include "relay_stream.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "msg.h"
#include "nowait.h"
#include "os/os.h"

/* What is written to the caller at a time: at most PIPE_BUF bytes, which no other writer
 * cuts into, through nowait_write (the caller shares the descriptor: it is not runlimit's to
 * make non-blocking).  Between two pipes, MOVE at most are moved in the kernel instead. */
#define CHUNK PIPE_BUF
#define MOVE PIPE_WIDEST
#define TEE_READ 65536

uint64_t stream_waiting(const struct stream *s)
{
	int n = 0;
	return s->in >= 0 && ioctl(s->in, FIONREAD, &n) == 0 && n > 0 ? (uint64_t)n : 0;
}

bool stream_pending(const struct stream *s)
{
	return s->off < s->len || s->stalled;
}

void stream_stop_reading(struct stream *s)
{
	if (s->in >= 0)
		close(s->in);
	s->in = -1;
	s->stalled = false; /* nothing is left to move */
}

void stream_drop(struct stream *s)
{
	uint64_t unread = stream_waiting(s); /* the command wrote them: they count */
	s->bytes += unread;
	s->dropped += unread + (uint64_t)(s->len - s->off);
	s->len = s->off = 0;
	s->owed = 0;
	stream_stop_reading(s);
}

/* How many of want bytes may be read now: none past the place of a queued line. */
static size_t room(const struct stream *s, size_t want)
{
	uint64_t place = s->lines ? lines_after(s->lines) : UINT64_MAX;
	return place <= s->bytes ? 0 : place - s->bytes < want ? (size_t)(place - s->bytes) : want;
}

/* The first queued line, if it is due: the command's bytes before it are written out (or
 * will never be: the stream reads no more). */
static const char *line_due(const struct stream *s, size_t *len)
{
	if (!s->lines || s->broken)
		return NULL;
	bool ended = s->in < 0 && s->off == s->len;
	return lines_due(s->lines, ended ? UINT64_MAX : s->sent, len);
}

size_t stream_wants(const struct stream *s, struct pollfd *p)
{
	size_t len;
	if (stream_pending(s) || line_due(s, &len)) {
		p[0] = (struct pollfd){.fd = s->out, .events = POLLOUT};
		return 1;
	}
	if (s->in < 0 || room(s, 1) == 0)
		return 0;
	p[0] = (struct pollfd){.fd = s->in, .events = POLLIN};
	if (s->broken)
		return 1;
	/* Idle, the caller's end is watched too, for nothing: a pipe whose reader has gone says
	 * so unasked (POLLERR; a socket whose peer closed, POLLHUP), and the command's next
	 * write must then fail as it would without the relay, not succeed into runlimit's
	 * pipe and be lost (see lost_reader). */
	p[1] = (struct pollfd){.fd = s->out, .events = 0};
	return 2;
}

/* n more of the command's bytes are written out: STREAM_CAUGHT_UP if that was all. */
static int written(struct stream *s, size_t n)
{
	s->owed -= (uint64_t)n < s->owed ? (uint64_t)n : s->owed;
	s->sent += n;
	if (s->off < s->len)
		return 0;
	s->len = s->off = 0;
	return STREAM_CAUGHT_UP;
}

/* The caller's end is gone: the command's next write gets EPIPE, as it would have without
 * the relay; what the relay still held is dropped.  The SIGPIPE a write of runlimit's
 * raised (raised) is its own, not the command's.  (One sent by another process in the
 * microseconds since the last wait is taken for it.) */
static void lost_reader(struct stream *s, bool raised)
{
	if (raised)
		msg_drop_sigpipe();
	s->broken = true;
	stream_drop(s);
	if (s->lines)
		lines_clear(s->lines); /* runlimit's own lines cannot reach the caller either */
}

static int take_in(struct stream *s);

/* --report-tail, pipe to pipe: the n bytes just put in the caller's pipe (pipe_tee) are
 * still at the head of runlimit's: read them out of it, into the tail.  They are there, so
 * no read waits; false if they could not be read (the stream then reads no more, or it
 * would pass them on twice). */
static bool keep_teed(struct stream *s, size_t n)
{
	while (n > 0) {
		/* The bytes need no room together: a part of the buffer keeps runlimit's memory
		 * small. */
		ssize_t got = read(s->in, s->buf, n < TEE_READ ? n : TEE_READ);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		tail_add(s->tail, s->buf, (size_t)got);
		n -= (size_t)got;
	}
	return true;
}

/* Has runlimit's pipe reached its end: no writer left, and nothing in it?  (The writers are
 * looked at first: once none is left, nothing more can come.) */
static bool at_end(const struct stream *s)
{
	struct pollfd p = {.fd = s->in, .events = POLLIN};
	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP) && stream_waiting(s) == 0;
}

/* Pipe to pipe: as much as both allow, moved in the kernel (for --report-tail, copied in
 * the kernel, then read out of runlimit's pipe into the tail). */
static int move_in(struct stream *s)
{
	size_t max = room(s, MOVE);
	ssize_t got = s->tail ? pipe_tee(s->in, s->out, max) : pipe_move(s->in, s->out, max);
	if (got > 0) {
		/* A whole pipe's worth at once: the command fills its pipe faster than runlimit
		 * empties it, so the pipe is widened, once.  Not before: a wide pipe counts
		 * against its user's pipe quota (docs/design.md, The relay).  Never a copied
		 * stream's: that would only make its reads, and runlimit's memory, larger. */
		if (!s->wide && (size_t)got >= PIPE_USUAL) {
			pipe_widen(s->in);
			s->wide = true;
		}
		s->stalled = false;
		s->bytes += (uint64_t)got;
		int did = STREAM_READ | written(s, (size_t)got);
		if (s->tail && !keep_teed(s, (size_t)got))
			stream_stop_reading(s);
		return did;
	}
	if (got == 0)
		stream_stop_reading(s);
	else if (errno == EAGAIN && at_end(s))
		stream_stop_reading(s); /* tee(2) says EAGAIN for a full caller before it sees the end */
	else if (errno == EAGAIN)
		s->stalled = stream_waiting(s) > 0; /* there was something to move: no room for it */
	else if (errno == EPIPE)
		lost_reader(s, true);
	else if (errno != EINTR) {
		s->moved = s->stalled = false; /* the system will not move these: copy them */
		return take_in(s);
	}
	return 0;
}

static int take_in(struct stream *s)
{
	if (s->moved)
		return move_in(s);
	ssize_t got;
	do {
		got = read(s->in, s->buf, room(s, STREAM_BUFFER));
	} while (got < 0 && errno == EINTR);
	if (got > 0) {
		s->len = (size_t)got;
		s->off = 0;
		s->bytes += (uint64_t)got;
		if (s->tail)
			tail_add(s->tail, s->buf, (size_t)got);
		return STREAM_READ;
	}
	if (got == 0 || errno != EAGAIN)
		stream_stop_reading(s); /* end-of-file: every writer has closed its end */
	return 0;
}

/* Will a write to fd not block now? */
static bool writable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	return poll(&p, 1, 0) == 1 && p.revents;
}

/* One write to the caller, of what cannot block; 0 if it would have, -1 if the caller has
 * gone (the stream is then broken). */
static ssize_t put_out(struct stream *s, const char *bytes, size_t len)
{
	ssize_t put;
	do {
		put = nowait_write_mode(s->out, s->out_mode, bytes, len < CHUNK ? len : CHUNK);
	} while (put < 0 && errno == EINTR);
	if (put < 0 && errno == EAGAIN)
		return 0;
	if (put <= 0) {
		lost_reader(s, put < 0 && errno == EPIPE);
		return -1;
	}
	return put;
}

/* Where the last newline of p[0..n) ends (0: it has none).  Output without one (binary, a
 * long line) is looked through by memchr, the fastest search there is; text has newlines
 * near the end, looked for eight bytes at a time. */
static size_t after_last_newline(const char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, nl = 0x0a0a0a0a0a0a0a0au;
	if (!memchr(p, '\n', n))
		return 0;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p + n - 8, 8);
		w ^= nl; /* a newline's byte is now 0 */
		if ((w - ones) & ~w & (ones << 7))
			break;
		n -= 8;
	}
	while (n > 0 && p[n - 1] != '\n')
		n--;
	return n;
}

/* How much of buf[off..len) the next write takes.  The buffer holds what one read took,
 * and that read emptied runlimit's pipe (the buffer is as large as the widest pipe,
 * PIPE_WIDEST), so it ends where one of the command's writes ended: at most PIPE_BUF of it
 * goes whole.  More holds several writes whose ends are not known; the likeliest is a
 * line's, so the piece ends after the last newline in its PIPE_BUF bytes. */
static size_t next_piece(const struct stream *s)
{
	size_t left = s->len - s->off;
	if (left <= CHUNK)
		return left;
	size_t cut = after_last_newline(s->buf + s->off, CHUNK);
	return cut > 0 ? cut : CHUNK;
}

/* put_out, if the caller's end takes the write at once; else 0. */
static ssize_t put_now(struct stream *s, const char *bytes, size_t len)
{
	return writable(s->out) ? put_out(s, bytes, len) : 0;
}

/* Write runlimit's lines that are due, while the caller's end takes them without waiting. */
static void give_lines(struct stream *s)
{
	size_t len;
	const char *line;
	ssize_t put;
	while ((line = line_due(s, &len)) && (put = put_now(s, line, len)) > 0)
		lines_done(s->lines, (size_t)put);
}

static int give_out(struct stream *s)
{
	if (s->stalled)
		return move_in(s);
	int did = 0;
	while (s->off < s->len) {
		ssize_t put = put_out(s, s->buf + s->off, next_piece(s));
		if (put <= 0)
			return did;
		s->off += (size_t)put;
		did |= written(s, (size_t)put);
	}
	give_lines(s);
	return did;
}

int stream_pump(struct stream *s, const struct pollfd *p)
{
	if (!p->revents)
		return 0;
	if (p->events == 0 && p->fd == s->out && !s->broken) {
		if (p->revents & (POLLERR | POLLHUP))
			lost_reader(s, false); /* the reader has gone: see stream_wants */
		return 0;
	}
	size_t len;
	if (p->events == POLLOUT && p->fd == s->out && (stream_pending(s) || line_due(s, &len)))
		return give_out(s);
	if (p->events == POLLIN && p->fd == s->in && s->in >= 0)
		return take_in(s);
	return 0;
}

bool stream_queue_line(struct stream *s, const char *text, size_t len)
{
	uint64_t after = s->bytes + stream_waiting(s);
	bool behind = lines_waiting(s->lines) ||
	              (after > s->sent && (s->in >= 0 || s->off < s->len));
	return !s->broken && behind && lines_add(s->lines, text, len, after);
}

void stream_flush_lines(struct stream *s)
{
	size_t len;
	const char *line;
	while (!s->broken && (line = lines_due(s->lines, UINT64_MAX, &len))) {
		if (s->dropped == 0) {
			/* As every line of runlimit's own: a caller that takes nothing does not
			 * hold it (msg.h). */
			msg_write_within(s->std, line, len, MSG_WAIT_MS);
			lines_done(s->lines, len);
			continue;
		}
		ssize_t put = put_now(s, line, len);
		if (put <= 0)
			break;
		lines_done(s->lines, (size_t)put);
	}
	lines_clear(s->lines);
}

bool stream_late_line(struct stream *s, const char *text, size_t len)
{
	if (!s->broken && s->dropped == 0)
		return false;
	ssize_t put;
	while (len > 0 && !s->broken && (put = put_now(s, text, len)) > 0) {
		text += put;
		len -= (size_t)put;
	}
	return true;
}

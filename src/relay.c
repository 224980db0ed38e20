#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "os/os.h"
#include "relay_lines.h"
#include "relay_stream.h"
#include "relay_watch.h"
#include "relay_tail.h"

static struct stream streams[2];
static size_t nstreams;
static bool exited, grace_over;
static int64_t grace_end = CLOCK_NEVER;
static int64_t cut_at = CLOCK_NEVER; /* when whatever is unrelayed is dropped */

static int64_t limit; /* the no-output limit, while it runs (0: none, or no longer) */
static bool watching; /* output is timed: silence counts */
static bool unwatchable; /* timed, but no output can be seen: the limit is off (terminals) */
static int64_t look_every;
static int64_t quiet_from; /* output last seen, or last written out to a slow caller */
static int64_t last_output = CLOCK_NEVER;
static struct tail err_tail; /* --report-tail: the end of stderr (err_tail.size 0: none) */
static struct stream *err_stream; /* the relayed stream that carries stderr, if one does */
static struct lines queue; /* runlimit's own lines, waiting for their place in it */

/* A stream socket: one whose reader waits for end-of-file, and whose bytes have no
 * boundaries a pipe could move (a datagram's or a record's). */
static bool stream_socket(int fd)
{
	int type = 0;
	socklen_t len = sizeof type;
	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

/* A pipe, a FIFO or a stream socket (what a caller reads to end-of-file).  Only one open for
 * writing: the command's writes to another fail, as they would without the relay.  Never a
 * terminal (relay.h), which the command may also open again (/dev/tty). */
static bool relayable(int fd, struct stat *st)
{
	int flags = fcntl(fd, F_GETFL);
	if (fstat(fd, st) != 0 || flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
		return false;
	return S_ISFIFO(st->st_mode) || (S_ISSOCK(st->st_mode) && stream_socket(fd));
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

static bool open_stream(struct stream *s, int std, bool both)
{
	s->std = s->out = std;
	struct stat st;
	s->out_mode = fstat(std, &st) == 0 ? st.st_mode : S_IFREG; /* as nowait_write takes it */
	s->both = both;
	nstreams++;
	/* Its buffer, from malloc (mapped, and touched only as a read fills it): not in
	 * runlimit's static data, where its 1 MiB lay between variables every start touches,
	 * a page apart (docs/performance.md). */
	s->buf = malloc(STREAM_BUFFER);
	int p[2];
	if (!s->buf || pipe(p) < 0)
		return false;
	s->in = high(p[0]);
	s->write_end = high(p[1]);
	return s->in >= 0 && s->write_end >= 0 && fcntl(s->in, F_SETFL, O_NONBLOCK) == 0;
}

/* A tenth of the limit (at least 1 ms, at most 1 s): how late a file's growth may be seen. */
static int64_t look_interval(int64_t silence)
{
	int64_t step = silence / 10;
	return step < 1000000 ? 1000000 : step > 1000000000 ? 1000000000 : step;
}

/* msg's sink (msg_set_sink): runlimit's lines go in their place in the stream of stderr;
 * once that has dropped output, only where the caller's end takes them at once. */
static bool queue_line(const char *text, size_t len)
{
	return stream_queue_line(err_stream, text, len) ||
	       stream_late_line(err_stream, text, len);
}

/* Is any output seen: a stream relayed, or a regular file watched? */
static bool sees_output(void)
{
	return nstreams > 0 || watch_grown(STDOUT_FILENO) >= 0 || watch_grown(STDERR_FILENO) >= 0;
}

bool relay_prepare(int64_t silence, size_t tail)
{
	struct stat o, e;
	bool ro = relayable(STDOUT_FILENO, &o);
	bool re = relayable(STDERR_FILENO, &e);
	bool same = ro && re && o.st_dev == e.st_dev && o.st_ino == e.st_ino; /* 2>&1 */
	for (size_t k = 0; k < 2; k++)
		streams[k] = (struct stream){.in = -1, .write_end = -1};
	if (ro && !open_stream(&streams[nstreams], STDOUT_FILENO, same))
		return false;
	if (re && !same && !open_stream(&streams[nstreams], STDERR_FILENO, false))
		return false;
	watch_files();
	for (size_t k = 0; k < nstreams; k++) {
		/* A moved stream's pipe is widened once the command proves fast (relay_stream.c). */
		streams[k].moved = pipe_can_move(streams[k].in, streams[k].out);
		if (streams[k].std == STDERR_FILENO || streams[k].both)
			err_stream = &streams[k];
	}
	/* --report-tail: the stream that carries stderr keeps its end; a regular file is read
	 * back at the end instead (relay_get_stats). */
	if (tail > 0)
		tail_init(&err_tail, tail);
	if (err_stream) {
		err_stream->tail = tail > 0 ? &err_tail : NULL;
		err_stream->lines = &queue;
		msg_set_sink(queue_line);
	}
	if (silence > 0) {
		/* Output to a terminal is not seen: with nothing else to see, a busy interactive
		 * program would look silent. */
		unwatchable = !sees_output() &&
		              (isatty(STDOUT_FILENO) || isatty(STDERR_FILENO));
		watching = !unwatchable;
		look_every = look_interval(silence);
		limit = silence;
	}
	return true;
}

size_t relay_child_dups(struct spawn_dup *dup, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; k < nstreams && n < max; k++) {
		dup[n++] = (struct spawn_dup){streams[k].write_end, streams[k].std};
		if (streams[k].both && n < max)
			dup[n++] = (struct spawn_dup){streams[k].write_end, STDERR_FILENO};
	}
	return n;
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

_Static_assert(RELAY_MAX_FDS >= 2 * STREAM_MAX_FDS, "room for two streams' descriptors");

size_t relay_fds(struct pollfd *fds)
{
	size_t n = 0;
	for (size_t k = 0; k < nstreams; k++)
		n += stream_wants(&streams[k], &fds[n]);
	return n;
}

void relay_pump(const struct pollfd *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < nstreams; k++) {
			int did = stream_pump(&streams[k], &fds[i]);
			if (did & STREAM_READ)
				last_output = clock_now();
			if ((did & STREAM_CAUGHT_UP) && watching) /* output is silence's end once */
				quiet_from = clock_now(); /* written out: a slow caller's time is none */
		}
	}
}

/* relay_silence_end, while the limit runs. */
static int64_t silence_end(void)
{
	if (unwatchable)
		return CLOCK_NEVER;
	for (size_t k = 0; k < nstreams; k++)
		if (stream_pending(&streams[k]))
			return CLOCK_NEVER; /* written out as fast as the caller reads */
	return clock_after(quiet_from, limit);
}

int64_t relay_silence_end(void)
{
	return limit && !exited ? silence_end() : CLOCK_NEVER;
}

void relay_stop_timing(void)
{
	limit = 0;
}

void relay_command_exited(int64_t now, int64_t grace, int64_t cut)
{
	exited = true;
	grace_end = clock_after(now, grace);
	cut_at = cut;
	for (size_t k = 0; k < nstreams; k++)
		streams[k].owed = (uint64_t)(streams[k].len - streams[k].off) + stream_waiting(&streams[k]);
}

/* When the relay next has something to do by itself, once the command has exited: the
 * grace's end, or the cut (CLOCK_NEVER while the command runs, or once nothing is owed). */
static int64_t deadline(void)
{
	if (!exited)
		return CLOCK_NEVER;
	return !grace_over && grace_end < cut_at ? grace_end : cut_at;
}

static bool finished(int64_t now)
{
	if (!exited)
		return false;
	if (now >= grace_end)
		grace_over = true;
	if (now >= cut_at) {
		relay_close(); /* past the bound: nothing more is owed to anyone */
		return true;
	}
	bool done = true;
	for (size_t k = 0; k < nstreams; k++) {
		struct stream *s = &streams[k];
		/* What leftovers write from here on is not waited for, nor what they wrote that
		 * is still held. */
		if (grace_over && s->owed == 0)
			stream_drop(s);
		if (s->lines && s->dropped && s->in < 0)
			stream_flush_lines(s); /* the caller is not reading: see stream_flush_lines */
		if (!s->broken && (s->in >= 0 || s->off < s->len))
			done = false;
		if (s == err_stream && lines_waiting(&queue))
			done = false; /* runlimit's own lines are owed as the command's are */
	}
	return done;
}

enum relay_due relay_due(int64_t now)
{
	if (exited)
		return finished(now) ? RELAY_FINISHED : RELAY_NOTHING;
	if (!limit)
		return RELAY_NOTHING;
	if (watch_look(now)) /* the watched files' sizes, if it is time to look */
		quiet_from = last_output = now;
	return now >= silence_end() ? RELAY_SILENT : RELAY_NOTHING;
}

int64_t relay_next_wake(void)
{
	int64_t wake = deadline();
	if (limit && silence_end() < wake)
		wake = silence_end();
	if (limit && watch_next_look() < wake)
		wake = watch_next_look();
	return wake;
}

void relay_close(void)
{
	for (size_t k = 0; k < nstreams; k++)
		stream_drop(&streams[k]);
	/* runlimit's own lines still go out, at once (what they were to follow will not),
	 * where the caller's end takes them. */
	if (err_stream)
		stream_flush_lines(err_stream);
	cut_at = CLOCK_NEVER;
	grace_over = true;
}

void relay_tell_dropped(void)
{
	for (size_t k = 0; k < nstreams; k++) {
		const struct stream *s = &streams[k];
		if (s->dropped == 0)
			continue;
		msg("dropped %llu byte%s of %s unrelayed", (unsigned long long)s->dropped,
		    s->dropped == 1 ? "" : "s",
		    s->both ? "stdout and stderr" : s->std == STDOUT_FILENO ? "stdout" : "stderr");
	}
}

static const struct tail *stderr_tail(void)
{
	if (err_tail.size == 0)
		return NULL;
	if (err_stream)
		return &err_tail;
	if (err_tail.error && watch_grown(STDERR_FILENO) >= 0)
		return &err_tail; /* a watched file, but no ring to read its end into: say why */
	return watch_read_tail(&err_tail) && (err_tail.total || err_tail.len) ? &err_tail : NULL;
}

const struct relay_stats *relay_get_stats(void)
{
	static struct relay_stats stats;
	struct relay_stats *st = &stats;
	*st = (struct relay_stats){{-1, -1}, {-1, -1}, false, last_output, stderr_tail(), NULL};
	if (!st->tail && isatty(STDERR_FILENO))
		st->tail_missing = "terminal"; /* left to the command: see relayable */
	for (size_t k = 0; k < nstreams; k++) {
		const struct stream *s = &streams[k];
		st->bytes[s->std - STDOUT_FILENO] = (long long)s->bytes;
		st->dropped[s->std - STDOUT_FILENO] = (long long)s->dropped;
		st->stderr_shared = st->stderr_shared || s->both;
	}
	for (int std = STDOUT_FILENO; std <= STDERR_FILENO; std++)
		if (watch_grown(std) >= 0)
			st->bytes[std - STDOUT_FILENO] = watch_grown(std);
	st->stderr_shared = st->stderr_shared || watch_shared();
	return st;
}

bool relay_silence_off(void)
{
	return unwatchable;
}

int relay_stderr_writer(void)
{
	if (!err_stream || err_stream->in < 0)
		return -1;
	int fd = reopen_fd(err_stream->in, O_WRONLY);
	int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

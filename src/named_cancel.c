/* O_NONBLOCK and O_CLOEXEC with fcntl: POSIX 2008, shown by macOS with its own names. */
#define _DARWIN_C_SOURCE
#include "named_cancel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "json.h"
#include "msg.h"
#include "named_control.h"
#include "named_dir.h"
#include "os/os.h"
#include "quote.h"
#include "stdfds.h"

#define NS ((int64_t)1000000000)
/* How long a run has to answer: to greet a connection, and to answer a request.  A run
 * answers at once unless it is stopped (or frozen); --list returns within about this. */
#define PATIENCE (2 * NS)
/* What a cancel waits past the bound the run gave for its end, before it gives up on a
 * run that has stopped since (a loaded machine, a big tree to collect). */
#define MARGIN (5 * NS)
/* Between two tries to reach a run that is busy, starting, or whose queue is full. */
#define RETRY (50 * 1000000)
/* The most connections --list has open at once (fewer where the descriptors allowed are
 * fewer): each run has PATIENCE from its first try, so a list of more stopped runs than
 * that takes a PATIENCE per so many. */
#define AT_ONCE 1024
/* The longest line a run sends: "info" cuts the command to fit 4096 bytes. */
#define REPLY 4200

/* What reaching a run came to. */
enum reached {
	R_PENDING,  /* still at it */
	R_GREETED,  /* the run said "runlimit": fd is open for a request */
	R_ANSWERED, /* --list: its answer to its request is in line */
	R_GONE,     /* no live run there */
	R_SILENT,   /* connected, but no answer in time (stopped?): fd is open, and a request
	             * written now waits for the run in its socket */
	R_UNREACHED, /* a live run is there (its lock is held), but no connection could be made
	              * in time: its queue of connections is full (stopped?) */
	R_BUSY,     /* the run had no room for another connection all that time */
	R_REFUSED,  /* the run refused this user */
	R_FAILED,   /* an error here (err) */
	R_UNREADABLE, /* a live run is there (its lock is held, or it greeted), but what it said
	               * cannot be read (why) */
};

/* Why what a run said cannot be read (R_UNREADABLE), as --list shows it. */
static const char NOT_UNDERSTOOD[] = "answer not understood";
static const char TOO_LONG[] = "answer too long";

struct probe {
	const struct names_dir *d;
	const char *name;
	char shown[NAME_MAX_LEN + 16]; /* --list: the name as shown ("UID:NAME" for another's) */
	const char *ask;               /* --list: the request once greeted ("info\n",
	                                * "describe\n"); NULL: none */
	bool old;                      /* the run refused "describe": an older runlimit's, asked
	                                * "info" instead */
	enum reached end;
	int fd;                        /* -1: none now */
	bool connecting;               /* connect is in progress (EINPROGRESS) */
	bool greeted;
	bool live, busy;               /* seen so far: a lock held; a "busy" */
	pid_t peer;                    /* the listener's pid, as the system tells it (0: it
	                                * cannot) */
	int err;
	const char *why;               /* R_UNREADABLE: NOT_UNDERSTOOD or TOO_LONG */
	int64_t deadline;              /* 0: not started */
	int64_t retry_at;
	int64_t answered_at;           /* --list: the wall clock when the answer came */
	size_t len;
	char *line;                    /* REPLY bytes while it is reached; then the answer, or
	                                * NULL */
};

/* p is done with its connection (for now). */
static void hang_up(struct probe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->connecting = p->greeted = false;
	p->len = 0;
}

/* No run listens on p's socket: one that is starting or ending holds its lock, and is
 * tried again (where a full queue refuses a connection, so does that run); else none. */
static void no_listener(struct probe *p, int64_t now)
{
	hang_up(p);
	if (names_held(p->d, p->name)) {
		p->live = true;
		p->retry_at = now + RETRY;
	} else {
		p->end = R_GONE;
	}
}

/* p's peer said what no run says.  --list leaves no run out (the manual): where a run lives
 * (its lock is held), or the peer greeted as one, it is listed as not reached, with why;
 * otherwise nothing that is a run is there. */
static void unreadable(struct probe *p, const char *why)
{
	bool greeted = p->greeted;
	hang_up(p);
	p->end = greeted || names_held(p->d, p->name) ? R_UNREADABLE : R_GONE;
	p->why = why;
}

/* Is the listener on p's connection the directory's user?  A socket there may be any
 * socket the user points it at (a symbolic link, swapped in after any check): root must
 * never talk to a daemon of its own through another user's directory.  Where the system
 * cannot tell (the portable build), only a directory of this user's own is trusted. */
static bool right_peer(struct probe *p)
{
	uid_t uid;
	int known = peer_uid(p->fd, &uid);
	if (known == 1 ? uid == p->d->owner : known == 0 && p->d->owner == geteuid()) {
		p->peer = peer_pid(p->fd);
		return true;
	}
	hang_up(p);
	p->end = R_GONE; /* not a run of the directory's user: not one to talk to */
	return false;
}

static void try_connect(struct probe *p, int64_t now)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) {
		p->err = errno;
		p->end = R_FAILED;
		return;
	}
	int flags = fcntl(fd, F_GETFL);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || flags < 0 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
		p->err = errno;
		p->end = R_FAILED;
		close(fd);
		return;
	}
	if (names_connect(p->d, p->name, fd) == 0) {
		p->fd = fd;
		right_peer(p);
		return;
	}
	if (errno == EINPROGRESS) {
		p->fd = fd;
		p->connecting = true;
		return;
	}
	int err = errno;
	close(fd);
	if (err == ENOENT || err == ECONNREFUSED) {
		no_listener(p, now);
	} else if (err == EAGAIN || err == EWOULDBLOCK) { /* its queue is full */
		p->live = true;
		p->retry_at = now + RETRY;
	} else {
		p->err = err;
		p->end = R_FAILED;
	}
}

/* One whole line from the run, the newline cut off. */
static void take_line(struct probe *p, char *line, int64_t now)
{
	if (!p->greeted) {
		if (strcmp(line, "runlimit") == 0) {
			p->greeted = true;
			if (!p->ask)
				p->end = R_GREETED;
			else if (msg_write(p->fd, p->ask, strlen(p->ask)) != (ssize_t)strlen(p->ask))
				no_listener(p, now);
		} else if (strcmp(line, "busy") == 0) {
			hang_up(p);
			p->busy = true;
			p->retry_at = now + RETRY;
		} else if (strcmp(line, "refused") == 0) {
			hang_up(p);
			p->end = R_REFUSED;
		} else {
			unreadable(p, NOT_UNDERSTOOD);
		}
		return;
	}
	if (strcmp(line, "refused") == 0 && !p->old && p->ask && strcmp(p->ask, "describe\n") == 0) {
		/* A run of runlimit 0.1.0 knows "info" alone: asked again, with that. */
		hang_up(p);
		p->old = true;
		p->ask = "info\n";
		p->retry_at = now;
		return;
	}
	size_t len = strlen(line) + 1;
	memmove(p->line, line, len);
	char *kept = realloc(p->line, len); /* the answer alone is kept */
	if (kept)
		p->line = kept;
	hang_up(p);
	p->end = R_ANSWERED;
	p->answered_at = clock_wall();
}

/* p's connection is readable (or done connecting): take what came. */
static void pump(struct probe *p, int64_t now)
{
	if (p->connecting) {
		int err = 0;
		socklen_t len = sizeof err;
		if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
			err = errno;
		p->connecting = false;
		if (err == ECONNREFUSED || err == ENOENT) {
			no_listener(p, now);
		} else if (err) {
			hang_up(p);
			p->err = err;
			p->end = R_FAILED;
		} else {
			right_peer(p);
		}
		return;
	}
	ssize_t got = read(p->fd, p->line + p->len, REPLY - 1 - p->len);
	if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (got <= 0) { /* the run closed: it is ending (or it never was one) */
		no_listener(p, now);
		return;
	}
	p->len += (size_t)got;
	p->line[p->len] = '\0';
	char *nl;
	while (p->end == R_PENDING && p->fd >= 0 && (nl = memchr(p->line, '\n', p->len))) {
		if (memchr(p->line, '\0', (size_t)(nl - p->line))) {
			unreadable(p, NOT_UNDERSTOOD); /* no line of a run's holds a NUL */
			break;
		}
		*nl = '\0';
		char line[REPLY];
		memcpy(line, p->line, (size_t)(nl - p->line) + 1);
		size_t rest = p->len - (size_t)(nl + 1 - p->line);
		memmove(p->line, nl + 1, rest + 1);
		p->len = rest;
		take_line(p, line, now);
	}
	if (p->end == R_PENDING && p->fd >= 0 && p->len == REPLY - 1)
		unreadable(p, TOO_LONG); /* no line of a run's is this long */
}

/* The time is up for p. */
static void give_up(struct probe *p)
{
	if (p->fd >= 0 && !p->connecting) {
		p->end = R_SILENT; /* fd stays open */
		return;
	}
	hang_up(p);
	p->end = p->live ? R_UNREACHED : p->busy ? R_BUSY : R_GONE;
}

/* Reach the runs of ps[0..n) at once (AT_ONCE at a time), each within PATIENCE of its
 * first try and all within PATIENCE of the start: none is left R_PENDING.  A run not even
 * tried by then (more runs that do not answer than descriptors to ask them) is
 * R_UNREACHED: however many runs are stopped, --list returns within about PATIENCE. */
static void reach(struct probe *ps, size_t n)
{
	int64_t all_by = clock_now() + PATIENCE;
	size_t started = 0, at_once = AT_ONCE;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		at_once = rl.rlim_cur < 48 ? 16 : rl.rlim_cur - 32 < AT_ONCE ? (size_t)(rl.rlim_cur - 32)
		                                                            : AT_ONCE;
	for (;;) {
		int64_t now = clock_now(), wake = CLOCK_NEVER;
		struct pollfd fds[AT_ONCE];
		struct probe *of[AT_ONCE];
		size_t nfds = 0, active = 0;
		for (size_t k = 0; k < started; k++)
			active += ps[k].end == R_PENDING;
		for (; started < n && now >= all_by; started++) {
			ps[started].fd = -1;
			ps[started].line = NULL;
			ps[started].end = R_UNREACHED;
		}
		for (; started < n && active < at_once; started++, active++) {
			struct probe *p = &ps[started];
			p->deadline = now + PATIENCE < all_by ? now + PATIENCE : all_by;
			p->fd = -1;
			p->len = 0;
			if (!(p->line = malloc(REPLY))) {
				p->err = errno;
				p->end = R_FAILED;
			}
		}
		for (size_t k = 0; k < started; k++) {
			struct probe *p = &ps[k];
			if (p->end != R_PENDING)
				continue;
			if (now >= p->deadline) {
				give_up(p);
				continue;
			}
			if (p->fd < 0 && now >= p->retry_at)
				try_connect(p, now);
			if (p->end != R_PENDING)
				continue;
			if (p->fd >= 0 && nfds < AT_ONCE) {
				fds[nfds] = (struct pollfd){.fd = p->fd,
				                            .events = p->connecting ? POLLOUT : POLLIN};
				of[nfds++] = p;
			} else if (p->retry_at < wake) {
				wake = p->retry_at;
			}
			if (p->deadline < wake)
				wake = p->deadline;
		}
		if (wake == CLOCK_NEVER && nfds == 0) {
			if (started == n)
				return;
			continue; /* every probe of this round gave up at once: start the next ones */
		}
		if (poll(fds, (nfds_t)nfds, clock_left_ms(wake)) < 0 && errno != EINTR)
			return; /* cannot be: the deadlines end each probe at the next round */
		now = clock_now();
		for (size_t i = 0; i < nfds; i++)
			if (fds[i].revents && of[i]->end == R_PENDING)
				pump(of[i], now);
		/* Memory for the answers alone: as many runs as a directory holds may be asked. */
		for (size_t k = 0; k < started; k++)
			if (ps[k].end != R_PENDING && ps[k].end != R_ANSWERED && ps[k].line) {
				free(ps[k].line);
				ps[k].line = NULL;
			}
	}
}

/* Why p is not reached (it could not be asked, or what it said cannot be read), as --list
 * and --cancel say it; NULL if it is. */
static const char *not_reached(const struct probe *p)
{
	switch (p->end) {
	case R_REFUSED:
		return "refused";
	case R_FAILED:
		return strerror(p->err);
	case R_UNREADABLE:
		return p->why;
	default:
		return NULL;
	}
}

/* p answered, but not as a run answers: listed as not reached all the same (--list leaves
 * no run out). */
static void not_understood(struct probe *p)
{
	p->end = R_UNREADABLE;
	p->why = NOT_UNDERSTOOD;
}

/* --cancel's exit statuses besides 0 and 125 (named_cancel.h). */
enum {
	CANCEL_MARKED = 1,  /* no run: a marker was left */
	CANCEL_NONE = 2,    /* no run: none was left */
	CANCEL_PENDING = 3, /* the run does not answer, or has not ended in time */
};

/* The next line from fd into buf (without its newline), by until: 1; 0 at end-of-file, -1 on
 * an error (a reset: the run closed before reading what was sent), -2 when the time is up. */
static int read_line(int fd, char *buf, size_t size, int64_t until)
{
	size_t len = 0;
	buf[0] = '\0';
	while (len + 1 < size) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int ready = poll(&pfd, 1, clock_left_ms(until));
		if (ready < 0 && errno != EINTR)
			return -1;
		if (ready == 0)
			return -2;
		if (ready < 0)
			continue;
		ssize_t got = read(fd, buf + len, 1);
		if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (got <= 0) {
			buf[len] = '\0';
			return got == 0 ? 0 : -1;
		}
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	return 1;
}

/* The request, written into the run's socket (a few bytes into an empty buffer: whole). */
static void request(int fd, const struct config *cfg)
{
	char line[64];
	int sig = cfg->signal_given ? cfg->signal : SIGTERM;
	long long grace = cfg->kill_after_given ? (long long)cfg->kill_after : -1;
	int len = snprintf(line, sizeof line, "cancel %d %lld\n", sig, grace);
	/* A write that fails finds a run that is closing: what it said last is read all the
	 * same. */
	(void)!msg_write(fd, line, (size_t)len);
}

static int not_answering(const char *name)
{
	msg("the run named %s does not answer (stopped?): the cancel is left with it, and it "
	    "ends when it is continued", quote(name));
	return CANCEL_PENDING;
}

/* The longest end a run may announce ("ok BOUND") that a cancel waits for: its grace and
 * output grace, which its own user chose.  A run of another user's (root cancels it) is
 * believed no further than the cancel's own grace: its peer could otherwise hold root's
 * cancel for as long as it liked. */
#define LONGEST_END (24 * 3600 * NS)

/* Ask the run that greeted on fd (in d) to end, and wait until it has: within PATIENCE for
 * its "ok", and within the bound it gives (and MARGIN) for its end.  Only the first "ok"
 * counts, and its bound is capped (LONGEST_END). */
static int ask(int fd, const struct names_dir *d, const struct config *cfg, const char *name)
{
	char line[64];
	request(fd, cfg);
	int64_t until = clock_now() + PATIENCE;
	bool taken = false;
	int got;
	while ((got = read_line(fd, line, sizeof line, until)) == 1) {
		if (strcmp(line, "ended") == 0)
			return 0;
		if (strcmp(line, "refused") == 0) {
			msg("the run named %s refused the cancel", quote(name));
			return EXIT_RUNLIMIT_FAILED;
		}
		if (!taken && strncmp(line, "ok", 2) == 0 && (line[2] == '\0' || line[2] == ' ')) {
			char *end;
			long long bound = line[2] ? strtoll(line + 3, &end, 10) : 0;
			int64_t cap = d->owner == getuid() ? LONGEST_END : cfg->kill_after + PATIENCE;
			if (bound < 0)
				bound = 0;
			if (bound > cap)
				bound = cap;
			taken = true;
			until = clock_after(clock_now(), clock_after(bound, MARGIN));
		}
	}
	if (got == -2 && !taken)
		return not_answering(name);
	if (got == -2) {
		msg("the run named %s took the cancel but has not ended within its grace (stopped?): "
		    "it ends when it is continued", quote(name));
		return CANCEL_PENDING;
	}
	if (!taken)
		return 0; /* it ended before it took the request (of itself, or by the marker) */
	msg("the run named %s went away before it had ended its command", quote(name));
	return EXIT_RUNLIMIT_FAILED;
}

/* The cancel of NAME in d, a marker left there or not: its exit status, or -1 if no run of
 * NAME is there. */
static int cancel_in(const struct names_dir *d, const struct config *cfg, const char *name,
                     bool marked)
{
	struct probe p = {.d = d, .name = name, .fd = -1};
	reach(&p, 1);
	/* Once the run has greeted, it listens: it looked for a marker before and never will
	 * again.  Left, the marker would cancel the next run of this name. */
	if (marked && p.end != R_SILENT && p.end != R_GONE && p.end != R_FAILED &&
	    p.end != R_UNREADABLE)
		names_remove(d, name, "cancel");
	int status = EXIT_RUNLIMIT_FAILED;
	switch (p.end) {
	case R_GREETED:
		status = ask(p.fd, d, cfg, name);
		break;
	case R_SILENT:
		/* Left in its socket, the request is read when the run goes on; the marker stays
		 * for a run stopped before it looked for one. */
		request(p.fd, cfg);
		status = not_answering(name);
		break;
	case R_UNREACHED:
		msg("the run named %s does not answer (stopped?), and has no room for another "
		    "request: nothing was left with it", quote(name));
		break;
	case R_BUSY:
		msg("the run named %s has no room for another request now", quote(name));
		break;
	case R_REFUSED:
		msg("the run named %s refused this user's cancel", quote(name));
		break;
	case R_FAILED:
	case R_UNREADABLE:
		msg("cannot reach the run named %s: %s", quote(name), not_reached(&p));
		break;
	default:
		status = -1;
	}
	hang_up(&p);
	free(p.line);
	return status;
}

/* A marker's time, for a message. */
static const char *ttl_text(int64_t ttl, char *buf, size_t size)
{
	if (ttl >= (int64_t)100 * 365 * 24 * 3600 * NS)
		snprintf(buf, size, "ever (it does not expire)");
	else
		snprintf(buf, size, "%gs", (double)ttl / 1e9);
	return buf;
}

/* Directories of runs, each once (names_places). */
struct places {
	struct names_dir dirs[32];
	size_t n;
};

static void close_places(struct places *ps)
{
	for (size_t k = 0; k < ps->n; k++)
		names_close(&ps->dirs[k]);
	ps->n = 0;
}

/* --cancel=UID:NAME: the run NAME of user UID (another user's, for root), looked for in that
 * user's default places; no marker is left. */
static int cancel_qualified(const struct config *cfg, uid_t uid, const char *name)
{
	if (uid != geteuid() && geteuid() != 0) {
		msg("only root may cancel another user's run: %s", quote(cfg->cancel));
		return EXIT_RUNLIMIT_FAILED;
	}
	struct places ps = {.n = 0};
	if (uid == geteuid() && names_open(NAMES_ANY_OWNER, &ps.dirs[0]) && ps.dirs[0].fd >= 0)
		ps.n = 1;
	ps.n = names_places(uid, ps.dirs, ps.n, sizeof ps.dirs / sizeof *ps.dirs);
	int status = -1;
	for (size_t k = 0; k < ps.n && status < 0; k++) {
		names_sweep(&ps.dirs[k], NULL);
		status = cancel_in(&ps.dirs[k], cfg, name, false);
	}
	close_places(&ps);
	if (status >= 0)
		return status;
	msg("no run named %s of user %lu is running: no marker was left (none is, for UID:NAME)",
	    quote(name), (unsigned long)uid);
	return CANCEL_NONE;
}

int cancel_main(const struct config *cfg)
{
	uid_t uid;
	const char *name = cfg->cancel;
	if (names_qualified(cfg->cancel, &uid, &name))
		return cancel_qualified(cfg, uid, name);
	int64_t ttl = cfg->marker_ttl_given ? cfg->marker_ttl : MARKER_TTL_DEFAULT;
	struct names_dir d;
	if (!names_open(ttl > 0 ? NAMES_CREATE | NAMES_ANY_OWNER : NAMES_ANY_OWNER, &d))
		return EXIT_RUNLIMIT_FAILED;
	names_sweep(&d, NULL);
	/* The marker first: a run that starts from here on finds it; one that started before
	 * listens already, and is reached below.  Root leaves none in another user's
	 * directory. */
	bool marked = false;
	int64_t marked_at = clock_now();
	if (ttl > 0 && d.fd >= 0 && d.owner == geteuid()) {
		if (!names_mark(&d, name, cfg->signal_given ? cfg->signal : SIGTERM, ttl)) {
			msg("cannot leave a cancel marker for %s in %s: %s", quote(name), quote(d.path),
			    strerror(errno));
			names_close(&d);
			return EXIT_RUNLIMIT_FAILED;
		}
		marked = true;
	}
	int status = cancel_in(&d, cfg, name, marked);
	if (status < 0 && marked && names_marked(&d, name)) {
		char text[64];
		msg("no run named %s is running: a cancel marker was left, and a run of that name "
		    "that starts within %s will not run its command", quote(name),
		    ttl_text(ttl, text, sizeof text));
		status = CANCEL_MARKED;
	} else if (status < 0 && marked && clock_now() - marked_at < ttl) {
		status = 0; /* a run took the marker meanwhile: it ends without starting its command */
	} else if (status < 0) {
		msg("no run named %s is running: no marker was left%s", quote(name),
		    marked ? " (it expired)" : ttl <= 0 ? " (--marker-ttl=0)"
		                             : " (none is, in another user's directory)");
		status = CANCEL_NONE;
	}
	names_close(&d);
	return status;
}

/* line, as a terminal may show it: a byte that would control it (a C0 or C1 control, in
 * UTF-8 or alone) becomes '?'.  A run quotes such bytes itself; this is for a peer that
 * is not one (root lists other users' sockets). */
static void tame(char *line)
{
	for (unsigned char *p = (unsigned char *)line; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = p[1] = '?';
	}
}

/* text to stdout, whole; false if it could not be written (errno says why). */
static bool write_out(const char *text, size_t len)
{
	if (stdfds_closed(STDOUT_FILENO)) {
		errno = EBADF; /* runlimit was started without it: its placeholder is not it */
		return false;
	}
	ssize_t n = msg_write(STDOUT_FILENO, text, len);
	if (n == (ssize_t)len)
		return true;
	if (n >= 0)
		errno = EIO;
	return false;
}

/* The line of --list for p; false if it could not be written (errno says why). */
static bool list_one(struct probe *p)
{
	char out[REPLY + 128];
	int len = -1;
	long pid;
	long long ns;
	int used = 0;
	const char *why;
	if (p->end == R_ANSWERED && (sscanf(p->line, "%ld %lld %n", &pid, &ns, &used) != 2 ||
	                             used <= 0))
		not_understood(p);
	if (p->end == R_ANSWERED) {
		/* The pid is the system's word where it has one, not the peer's: a tool may
		 * signal what --list shows, and root lists other users' sockets. */
		if (p->peer > 0)
			pid = (long)p->peer;
		tame(p->line + used);
		len = snprintf(out, sizeof out, "%s\t%ld\t%.1fs\t%s\n", p->shown, pid, (double)ns / 1e9,
		               p->line + used);
	} else if (p->end == R_SILENT || p->end == R_UNREACHED || p->end == R_BUSY) {
		len = snprintf(out, sizeof out, "%s\t-\t-\t%s\n", p->shown,
		               p->end == R_BUSY ? "busy" : "not answering");
	} else if ((why = not_reached(p))) {
		/* Never left out without a word (no descriptor, no memory to ask it, an answer that
		 * cannot be read). */
		len = snprintf(out, sizeof out, "%s\t-\t-\tnot reached: %s\n", p->shown, why);
	}
	if (len <= 0)
		return true;
	return write_out(out, (size_t)len < sizeof out ? (size_t)len : sizeof out - 1);
}

/* Does c end a number of a "describe" answer?  A run puts a space there; any white space
 * is taken, as plain --list reads "info" (sscanf), so that the two forms list the same
 * peers: root lists other users' sockets, which need not be runs of this version. */
static bool blank(char c)
{
	return c != '\0' && strchr(" \t\n\v\f\r", c) != NULL;
}

/* A number and the white space after it (or the line's end) at *at, which moves past them. */
static bool number_word(char **at, long long *v)
{
	char *end;
	errno = 0;
	*v = strtoll(*at, &end, 10);
	if (errno || end == *at || (!blank(*end) && *end != '\0'))
		return false;
	*at = *end ? end + 1 : end;
	return true;
}

/* A "describe" answer, "PID ELAPSED-NS STARTED-NS LEFT-NS ARGC ARG..." (named_control.h), that
 * came at the wall clock's now, as the members of --list --json from pid on (the pid the
 * system says listens, peer, where it says one: see list_one); false if it is not one. */
static bool description_members(struct json *j, char *line, int64_t now, pid_t peer)
{
	long long pid, elapsed, started, left = 0, argc;
	char *at = line;
	bool no_deadline = false;
	if (!number_word(&at, &pid) || pid <= 0 || !number_word(&at, &elapsed) ||
	    !number_word(&at, &started))
		return false;
	if (at[0] == '-' && (blank(at[1]) || at[1] == '\0')) {
		no_deadline = true;
		at += at[1] ? 2 : 1;
	} else if (!number_word(&at, &left)) {
		return false;
	}
	bool more = false;
	if (!number_word(&at, &argc) || argc < 0)
		return false;
	more = at > line && blank(at[-1]); /* a word follows, empty or not */
	if (peer > 0)
		pid = (long long)peer;
	json_key(j, "pid");
	json_int(j, pid);
	json_key(j, "started_at");
	json_time(j, started);
	json_key(j, "elapsed");
	json_seconds(j, elapsed);
	json_key(j, "deadline");
	if (no_deadline || (left > 0 && left > INT64_MAX - now))
		json_null(j);
	else
		json_time(j, now + left);
	json_key(j, "argv");
	json_open(j, '[');
	long long sent = 0;
	while (more) {
		char *word = at, *space = strchr(at, ' ');
		more = space != NULL;
		at = space ? space + 1 : at + strlen(at);
		if (space)
			*space = '\0';
		control_decode_arg(word);
		json_string(j, word);
		sent++;
	}
	json_close(j, ']');
	json_key(j, "argc");
	json_int(j, argc > sent ? argc : sent);
	return true;
}

/* The line of --list --json for p (JSON Lines); false if it could not be written. */
static bool list_json(struct probe *p)
{
	struct json j;
	json_init(&j);
	json_open(&j, '{');
	json_key(&j, "name");
	json_string(&j, p->name);
	json_key(&j, "uid");
	json_int(&j, (long long)p->d->owner);
	long pid;
	long long ns;
	int used = 0;
	const char *state = "answering", *error = NULL;
	bool told = false;
	if (p->end == R_ANSWERED && !p->old) {
		told = description_members(&j, p->line, p->answered_at, p->peer);
	} else if (p->end == R_ANSWERED && sscanf(p->line, "%ld %lld %n", &pid, &ns, &used) == 2 &&
	           used > 0) {
		/* runlimit 0.1.0: its pid and elapsed time; its command as text alone. */
		json_key(&j, "pid");
		json_int(&j, p->peer > 0 ? (long)p->peer : pid);
		json_key(&j, "started_at");
		json_time(&j, p->answered_at - ns);
		json_key(&j, "elapsed");
		json_seconds(&j, ns);
		told = true;
		for (const char *k = "deadline\0argv\0argc\0"; *k; k += strlen(k) + 1) {
			json_key(&j, k);
			json_null(&j);
		}
	}
	if (p->end == R_ANSWERED && !told)
		not_understood(p); /* nothing of it was written */
	if (p->end == R_SILENT || p->end == R_UNREACHED || p->end == R_BUSY) {
		state = p->end == R_BUSY ? "busy" : "not answering";
	} else if ((error = not_reached(p))) {
		state = "not reached";
	} else if (!told) {
		json_free(&j);
		return true; /* no run there (any more) */
	}
	if (!told) {
		for (const char *k = "pid\0started_at\0elapsed\0deadline\0argv\0argc\0"; *k;
		     k += strlen(k) + 1) {
			json_key(&j, k);
			json_null(&j);
		}
	}
	json_key(&j, "state");
	json_string(&j, state);
	json_key(&j, "error");
	if (error)
		json_string(&j, error);
	else
		json_null(&j);
	json_close(&j, '}');
	json_raw(&j, "\n");
	bool ok = !j.failed && write_out(j.buf, j.len);
	if (j.failed)
		errno = ENOMEM;
	json_free(&j);
	return ok;
}

/* (Names within one directory share their prefix: the shown names sort as the names.) */
static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct probe *)a)->shown, ((const struct probe *)b)->shown);
}

/* The probes of every socket in d (names shown after prefix), added to *ps (of *n). */
static bool add_runs(const struct names_dir *d, const char *prefix, const char *ask,
                     struct probe **ps, size_t *n, size_t *cap)
{
	if (d->fd < 0)
		return true;
	int fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		msg("cannot read the directory of named runs %s: %s", quote(d->path), strerror(errno));
		return false;
	}
	size_t first = *n;
	struct dirent *e;
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || len - 5 > NAME_MAX_LEN || strcmp(e->d_name + len - 5, ".sock") != 0)
			continue;
		if (*n == *cap) {
			size_t more = *cap ? 2 * *cap : 16;
			struct probe *grown = realloc(*ps, more * sizeof **ps);
			if (!grown)
				break;
			*ps = grown;
			*cap = more;
		}
		struct probe *p = &(*ps)[*n];
		*p = (struct probe){.d = d, .ask = ask, .fd = -1};
		size_t plen = strlen(prefix); /* at most 11 bytes: "UID:" */
		memcpy(p->shown, prefix, plen);
		memcpy(p->shown + plen, e->d_name, len - 5);
		p->shown[plen + len - 5] = '\0';
		p->name = p->shown + plen;
		if (names_valid(p->name))
			++*n;
	}
	closedir(dir);
	if (*n > first)
		qsort(*ps + first, *n - first, sizeof **ps, by_name);
	return true;
}

int list_main(bool json)
{
	struct places ps = {.n = 0};
	if (!names_open(NAMES_ANY_OWNER, &ps.dirs[0]))
		return EXIT_RUNLIMIT_FAILED;
	size_t owned = ps.n = ps.dirs[0].fd >= 0;
	/* Root sees every user's runs in their default places, as "UID:NAME" (--cancel takes
	 * that); with RUNLIMIT_DIR, that directory alone. */
	const char *env = getenv("RUNLIMIT_DIR");
	if (geteuid() == 0 && !(env && *env))
		ps.n = names_places(NAMES_EVERY_USER, ps.dirs, ps.n, sizeof ps.dirs / sizeof *ps.dirs);
	char prefixes[sizeof ps.dirs / sizeof *ps.dirs][16];
	struct probe *probes = NULL;
	size_t n = 0, cap = 0;
	int status = 0;
	for (size_t k = 0; k < ps.n; k++) {
		names_sweep(&ps.dirs[k], NULL);
		prefixes[k][0] = '\0';
		if (k >= owned)
			snprintf(prefixes[k], sizeof prefixes[k], "%lu:", (unsigned long)ps.dirs[k].owner);
		if (!add_runs(&ps.dirs[k], prefixes[k], json ? "describe\n" : "info\n", &probes, &n,
		              &cap))
			status = EXIT_RUNLIMIT_FAILED;
	}
	/* The names point into the probes, which are in place now. */
	for (size_t k = 0; k < n; k++)
		probes[k].name = probes[k].shown + strlen(prefixes[probes[k].d - ps.dirs]);
	reach(probes, n);
	int write_err = 0;
	for (size_t k = 0; k < n; k++) {
		if (!write_err && !(json ? list_json(&probes[k]) : list_one(&probes[k])))
			write_err = errno;
		hang_up(&probes[k]);
		free(probes[k].line);
	}
	free(probes);
	close_places(&ps);
	if (write_err) {
		msg("write error: %s", strerror(write_err));
		return EXIT_RUNLIMIT_FAILED;
	}
	return status;
}

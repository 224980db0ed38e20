#include "named_client.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "msg.h"
#include "named_dir.h"
#include "named_wire.h"
#include "os/os.h"
#include "quote.h"
#include "stdfds.h"
#include "test_hooks.h"

#define NS ((int64_t)1000000000)
/* How long a run has to answer: to greet a connection, and to answer a request.  A run
 * answers at once unless it is stopped (or frozen); --list returns within about this. */
#define PATIENCE (2 * NS)
/* What a cancel waits past the bound the run gave for its end, before it gives up on a
 * run that has stopped since (a loaded machine, a big tree to collect). */
#define MARGIN (5 * NS)
/* Between two tries to reach a run that is busy, starting, or whose queue is full. */
#define RETRY (50 * 1000000)
/* Room for an answer: more than the longest a run sends (WIRE_ANSWER), which fits. */
#define REPLY 4200

/* What reaching a run came to. */
enum reached {
	R_RETRY,     /* not yet: tried again until the time is up */
	R_CONNECTED, /* connected, nothing said yet: fd is open */
	R_ANSWERED,  /* the run greeted (fd is open, for a cancel) and answered --list (answer) */
	R_GONE,      /* no live run there */
	R_SILENT,    /* connected, but no answer in time (stopped?): fd is open, and a request
	              * written now waits for the run in its socket */
	R_UNREACHED, /* a live run is there (its lock is held), but no connection could be made
	              * in time (its queue of connections is full: stopped?), or --list's time
	              * was up before its turn */
	R_BUSY,      /* the run had no room for another connection all that time */
	R_REFUSED,   /* the run refused this user */
	R_FAILED,    /* an error here, or a live run (its lock is held, or it greeted) said what
	              * cannot be read: why */
};

struct probe {
	const struct names_dir *d;
	const char *name;
	enum reached end;
	int fd;              /* -1: none */
	bool live, busy;     /* seen so far: a lock held; a "busy" */
	pid_t looked;        /* a cancel's: the pid of the run it looked at (names_holder), which
	                      * alone it may end; 0: any run (none was live), -1: not named */
	pid_t peer;          /* the listener's pid, as the system tells it (0: it cannot) */
	const char *why;     /* R_FAILED: why, as --list and --cancel say it */
	int64_t answered_at; /* --list: the wall clock when the answer came */
	char line[REPLY];    /* the line heard last */
	struct wire_answer answer;
};

/* Why what a run said cannot be read, as --list shows it. */
static const char NOT_UNDERSTOOD[] = "answer not understood";
static const char TOO_LONG[] = "answer too long";

static enum reached hang_up(struct probe *p, enum reached end)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	return end;
}

/* Is holder, which holds a name's lock now, another run than looked, the one a cancel looked
 * at (0: any)?  Then that one has ended, and this one started since: not the cancel's to end
 * (the manual, NAMED RUNS).  A pid the system does not name (-1) tells nothing. */
static bool another_run(pid_t looked, pid_t holder)
{
	return looked > 0 && holder > 0 && holder != looked;
}

/* Does the run p is after hold its lock? */
static bool holds_lock(const struct probe *p)
{
	pid_t holder = names_holder(p->d, p->name);
	return holder != 0 && !another_run(p->looked, holder);
}

/* No run listens on p's socket: one that is starting or ending holds its lock, and is
 * tried again (where a full queue refuses a connection, so does that run); else none. */
static enum reached no_listener(struct probe *p)
{
	/* The lock says, now: a run seen live before (its lock held as it closed its socket, its
	 * queue full while it was stopped) may have ended since, and is then gone, not a run
	 * that cannot be reached. */
	p->live = holds_lock(p);
	return hang_up(p, p->live ? R_RETRY : R_GONE);
}

/* p's peer said what no run says.  --list leaves no run out (the manual): where a run lives
 * (its lock is held), or the peer greeted as one, it is listed as not reached, with why;
 * otherwise nothing that is a run is there. */
static enum reached unreadable(struct probe *p, const char *why, bool greeted)
{
	p->why = why;
	return hang_up(p, greeted || holds_lock(p) ? R_FAILED : R_GONE);
}

enum line { LINE_OK, LINE_LATE, LINE_END, LINE_LONG, LINE_NUL };

/* The next line from fd, its newline cut off, into buf (size bytes), by until; LINE_END at
 * its end or on an error (a reset: the peer closed before it read what was sent).  Only the
 * line is taken (a peek finds its end): what follows stays for the next call. */
static enum line read_line(int fd, char *buf, size_t size, int64_t until)
{
	size_t len = 0;
	while (len + 1 < size) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int ready = poll(&pfd, 1, clock_left_ms(until));
		if (ready == 0)
			return LINE_LATE;
		ssize_t got = ready < 0 ? -1 : recv(fd, buf + len, size - 1 - len, MSG_PEEK);
		if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (got <= 0)
			return LINE_END;
		char *nl = memchr(buf + len, '\n', (size_t)got);
		size_t take = nl ? (size_t)(nl - (buf + len)) + 1 : (size_t)got;
		if (read(fd, buf + len, take) != (ssize_t)take)
			return LINE_END;
		len += take;
		if (nl) {
			buf[len - 1] = '\0';
			return memchr(buf, '\0', len - 1) ? LINE_NUL : LINE_OK;
		}
	}
	buf[len] = '\0';
	return LINE_LONG;
}

/* A connection to p's socket, made without blocking (close-on-exec), and done by until:
 * R_CONNECTED, or what it came to. */
static enum reached dial(struct probe *p, int64_t until)
{
	int err = 0;
	socklen_t len = sizeof err;
	if (names_at(p->d, p->name, false, &p->fd) != 0)
		err = errno;
	if (err == EINPROGRESS) {
		struct pollfd pfd = {.fd = p->fd, .events = POLLOUT};
		if (poll(&pfd, 1, clock_left_ms(until)) <= 0)
			return hang_up(p, R_RETRY); /* the time is up (or a signal): as a full queue */
		if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
			err = errno;
	}
	if (err == ENOENT || err == ECONNREFUSED)
		return no_listener(p);
	if (err == EAGAIN || err == EWOULDBLOCK) { /* its queue is full */
		p->live = true;
		return hang_up(p, R_RETRY);
	}
	p->why = err ? strerror(err) : NULL;
	return err ? hang_up(p, R_FAILED) : R_CONNECTED;
}

/* Is the listener on p's connection the directory's user?  A socket there may be any
 * socket the user points it at (a symbolic link, swapped in after any check): root must
 * never talk to a daemon of its own through another user's directory.  Where the system
 * cannot tell (the portable build), only a directory of this user's own is trusted. */
static bool right_peer(struct probe *p)
{
	uid_t uid;
	int known = peer_uid(p->fd, &uid);
	p->peer = peer_pid(p->fd);
	return known == 1 ? uid == p->d->owner : known == 0 && p->d->owner == geteuid();
}

/* The next line from p's peer (greeted: after it greeted as a run) into p->line by until:
 * R_CONNECTED, or what having none comes to. */
static enum reached hear(struct probe *p, int64_t until, bool greeted)
{
	enum line got = read_line(p->fd, p->line, sizeof p->line, until);
	if (got == LINE_OK)
		return R_CONNECTED;
	if (got == LINE_LATE || got == LINE_END)
		return got == LINE_LATE ? R_SILENT : no_listener(p);
	return unreadable(p, got == LINE_LONG ? TOO_LONG : NOT_UNDERSTOOD, greeted);
}

/* One try at reaching p's run by until: its greeting, then (ASK_DESCRIBE) its answer to the
 * one question --list asks. */
static enum reached attempt(struct probe *p, enum wire_ask ask, int64_t until)
{
	enum reached end = dial(p, until);
	if (end != R_CONNECTED)
		return end;
	if (!right_peer(p))
		return hang_up(p, R_GONE); /* not a run of the directory's user: not one to talk to */
	if ((end = hear(p, until, false)) != R_CONNECTED)
		return end;
	if (strcmp(p->line, WIRE_BUSY) == 0) {
		p->busy = true;
		return hang_up(p, R_RETRY);
	}
	if (strcmp(p->line, WIRE_REFUSED) == 0)
		return hang_up(p, R_REFUSED);
	if (strcmp(p->line, WIRE_GREETING) != 0)
		return unreadable(p, NOT_UNDERSTOOD, false);
	if (ask == ASK_CANCEL) /* of the run it looked at alone */
		return another_run(p->looked, names_holder(p->d, p->name)) ? hang_up(p, R_GONE)
		                                                           : R_ANSWERED;
	static const char question[] = WIRE_DESCRIBE "\n";
	if (msg_write(p->fd, question, sizeof question - 1) != (ssize_t)sizeof question - 1)
		return no_listener(p);
	if ((end = hear(p, until, true)) != R_CONNECTED)
		return end;
	p->answered_at = clock_wall();
	if (!wire_read(p->line, &p->answer))
		return unreadable(p, NOT_UNDERSTOOD, true);
	return hang_up(p, R_ANSWERED);
}

/* Reach p's run by until (asking ask, but for ASK_CANCEL), trying again while it is starting,
 * ending, busy or its queue is full; one whose turn comes after until is not tried, and the
 * lock alone says whether a run is there (a socket a dead run left is no run to list). */
static void reach(struct probe *p, enum wire_ask ask, int64_t until)
{
	p->fd = -1;
	p->end = R_UNREACHED;
	if (clock_now() >= until)
		p->end = holds_lock(p) ? R_UNREACHED : R_GONE;
	while (clock_now() < until) {
		if ((p->end = attempt(p, ask, until)) != R_RETRY)
			return;
		int64_t now = clock_now(), wake = now + RETRY < until ? now + RETRY : until;
		poll(NULL, 0, clock_left_ms(wake));
		p->end = p->live ? R_UNREACHED : p->busy ? R_BUSY : R_GONE;
	}
}

/* --cancel's exit statuses besides 0 and 125 (named_client.h). */
enum {
	CANCEL_MARKED = 1,  /* no run: a marker was left */
	CANCEL_NONE = 2,    /* no run: none was left */
	CANCEL_PENDING = 3, /* the run does not answer, or has not ended in time */
	CANCEL_ENDED = 4,   /* the run had ended, or ended before it was reached: no marker left */
};

/* The request, written into the run's socket (a few bytes into an empty buffer: whole). */
static void request(int fd, const struct config *cfg)
{
	char line[WIRE_REQUEST];
	int len = snprintf(line, sizeof line, WIRE_CANCEL, cfg->signal_given ? cfg->signal : SIGTERM,
	                   cfg->kill_after_given ? (long long)cfg->kill_after : -1);
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
	char line[WIRE_REQUEST];
	request(fd, cfg);
	int64_t until = clock_now() + PATIENCE, bound;
	bool taken = false;
	enum line got;
	while ((got = read_line(fd, line, sizeof line, until)) != LINE_LATE && got != LINE_END) {
		if (got == LINE_OK && strcmp(line, WIRE_ENDED) == 0)
			return 0;
		if (got == LINE_OK && strcmp(line, WIRE_REFUSED) == 0) {
			msg("the run named %s refused the cancel", quote(name));
			return EXIT_RUNLIMIT_FAILED;
		}
		if (!taken && got == LINE_OK && wire_read_ok(line, &bound)) {
			int64_t cap = d->owner == getuid() ? LONGEST_END : cfg->kill_after + PATIENCE;
			if (bound > cap)
				bound = cap;
			taken = true;
			until = clock_after(clock_now(), clock_after(bound, MARGIN));
		}
	}
	if (got == LINE_LATE && !taken)
		return not_answering(name);
	if (got == LINE_LATE) {
		msg("the run named %s took the cancel but has not ended within its grace (stopped?): "
		    "it ends when it is continued", quote(name));
		return CANCEL_PENDING;
	}
	if (!taken)
		return 0; /* it ended before it took the request (of itself, or by the marker) */
	msg("the run named %s went away before it had ended its command", quote(name));
	return EXIT_RUNLIMIT_FAILED;
}

/* The cancel of NAME in d, a marker left there or not, of the run looked (0: any): its exit
 * status, or -1 if no run of NAME is there (or the one looked at has gone). */
static int cancel_in(const struct names_dir *d, const struct config *cfg, const char *name,
                     bool marked, pid_t looked)
{
	struct probe p = {.d = d, .name = name, .looked = looked};
	reach(&p, ASK_CANCEL, clock_now() + PATIENCE);
	/* Once the run has greeted, it listens: it looked for a marker before and never will
	 * again.  Left, the marker would cancel the next run of this name. */
	if (marked && p.end != R_SILENT && p.end != R_GONE && p.end != R_FAILED)
		names_remove(d, name, "cancel");
	int status = EXIT_RUNLIMIT_FAILED;
	if (p.end == R_ANSWERED) {
		status = ask(p.fd, d, cfg, name);
	} else if (p.end == R_SILENT) {
		/* Left in its socket, the request is read when the run goes on; the marker stays
		 * for a run stopped before it looked for one. */
		request(p.fd, cfg);
		status = not_answering(name);
	} else if (p.end == R_UNREACHED) {
		msg("the run named %s does not answer (stopped?), and has no room for another "
		    "request: nothing was left with it", quote(name));
	} else if (p.end == R_BUSY) {
		msg("the run named %s has no room for another request now", quote(name));
	} else if (p.end == R_REFUSED) {
		msg("the run named %s refused this user's cancel", quote(name));
	} else if (p.end == R_FAILED) {
		msg("cannot reach the run named %s: %s", quote(name), p.why);
	} else {
		status = -1;
	}
	hang_up(&p, p.end);
	return status;
}

/* Directories of runs, each once (names_places). */
#define PLACES 32

/* What a cancel's look found of NAME in a directory, at one moment. */
struct look {
	pid_t live;       /* the pid of the run holding NAME's lock (-1: not named); 0: none */
	bool ended;       /* no run live, and the tombstone of the last one there */
	int64_t ended_at; /* ... its time, wall-clock ns */
	int hold;         /* in the user's own directory, the look (names_hold), kept until the
	                   * marker is left; -1: none */
};

/* NAME in d: in the user's own directory, under the sweep's locks, so that no run starts or
 * ends between the look at the lock and the look at the tombstone, nor before the marker is
 * left (look_done lets go); elsewhere (root in another user's directory, or a look that cannot
 * be held: another holds the name's sweep lock, stopped), the lock, then the tombstone. */
static struct look look_at(const struct names_dir *d, const char *name)
{
	struct look l = {.hold = -1};
	if (d->fd < 0)
		return l;
	if (d->owner == geteuid()) {
		l.hold = names_hold(d, name, &l.live);
		if (l.hold < 0 && errno != EAGAIN)
			l.live = names_holder(d, name);
	} else {
		l.live = names_holder(d, name);
	}
	l.ended = l.live == 0 && names_tombstone(d, name, &l.ended_at);
	return l;
}

static void look_done(const struct names_dir *d, const char *name, struct look *l)
{
	if (l->hold >= 0)
		names_let_go(d, name, l->hold);
	l->hold = -1;
}

/* The run of NAME (whose: of user UID, or "") had ended when the cancel looked, or ended
 * before the cancel reached it: said, with when it ended (at: its tombstone's time, -1 if there
 * is none: it was killed, or a run started since, which the cancel leaves alone), and
 * CANCEL_ENDED. */
static int already_ended(const char *name, const char *whose, int64_t at, bool since)
{
	char when[48] = "";
	time_t secs = (time_t)(at / NS);
	struct tm tm;
	if (at >= 0 && gmtime_r(&secs, &tm))
		strftime(when, sizeof when, " (at %Y-%m-%dT%H:%M:%SZ)", &tm);
	msg("the run named %s%s already ended%s: no marker was left%s", quote(name), whose, when,
	    since ? ", and the run of that name started since goes on" : "");
	return CANCEL_ENDED;
}

/* The run of NAME in d that a cancel looked at (looked: the pid holding its lock then) and did
 * not reach: has it ended (let go of its lock, or another run holds it)?  Then it is said so,
 * with its tombstone's time, and CANCEL_ENDED; else -1: it is there still, and was no run to
 * talk to (root never talks to a listener that is not the directory's user). */
static int ended_since(const struct names_dir *d, const char *name, const char *whose,
                       pid_t looked)
{
	pid_t holder = names_holder(d, name);
	int64_t at;
	if (holder != 0 && !another_run(looked, holder))
		return -1;
	return already_ended(name, whose, names_tombstone(d, name, &at) ? at : -1, holder != 0);
}

static void close_places(struct names_dir *dirs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		names_close(&dirs[k]);
}

/* --cancel=UID:NAME: the run NAME of user UID (another user's, for root), looked for in that
 * user's default places; no marker is left. */
static int cancel_qualified(const struct config *cfg, uid_t uid, const char *name)
{
	if (uid != geteuid() && geteuid() != 0) {
		msg("only root may cancel another user's run: %s", quote(cfg->cancel));
		return EXIT_RUNLIMIT_FAILED;
	}
	struct names_dir dirs[PLACES];
	size_t n = uid == geteuid() && names_open(NAMES_ANY_OWNER, &dirs[0]) && dirs[0].fd >= 0;
	n = names_places(uid, dirs, n, PLACES);
	int status = -1;
	size_t ended = n; /* the place of a tombstone seen, if no run is reached */
	int64_t ended_at = -1;
	char whose[40];
	snprintf(whose, sizeof whose, " of user %lu", (unsigned long)uid);
	/* A live run in any of the places, else a tombstone in any: a run of NAME ended. */
	for (size_t k = 0; k < n && status < 0; k++) {
		names_sweep(&dirs[k], NULL, SWEEP_TOMBSTONES_HOURLY);
		struct look l = look_at(&dirs[k], name);
		look_done(&dirs[k], name, &l);
		if (l.ended && ended == n) {
			ended = k;
			ended_at = l.ended_at;
		}
		if (!l.ended)
			status = cancel_in(&dirs[k], cfg, name, false, l.live);
		if (status < 0 && l.live != 0)
			status = ended_since(&dirs[k], name, whose, l.live);
	}
	close_places(dirs, n);
	if (status >= 0)
		return status;
	if (ended < n)
		return already_ended(name, whose, ended_at, false);
	msg("no run named %s of user %lu is running: no marker was left (none is, for UID:NAME)",
	    quote(name), (unsigned long)uid);
	return CANCEL_NONE;
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

/* The status of a cancel of no run reached, said: the run it looked at ended meanwhile, or
 * else a marker left, taken, or none. */
static int no_run(const struct names_dir *d, const char *name, int64_t ttl, bool marked,
                  int64_t marked_at, pid_t looked)
{
	char text[64];
	int status = looked != 0 ? ended_since(d, name, "", looked) : -1;
	if (status >= 0)
		return status;
	if (marked && names_marked(d, name)) {
		msg("no run named %s is running: a cancel marker was left, and a run of that name "
		    "that starts within %s will not run its command", quote(name),
		    ttl_text(ttl, text, sizeof text));
		return CANCEL_MARKED;
	}
	if (marked && clock_now() - marked_at < ttl)
		return 0; /* a run took the marker meanwhile: it ends without starting its command */
	msg("no run named %s is running: no marker was left%s", quote(name),
	    marked                  ? " (it expired)"
	    : ttl <= 0              ? " (--marker-ttl=0)"
	    : d->owner != geteuid() ? " (none is, in another user's directory)"
	                            : " (its lock is held, by no run this user can talk to)");
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
	names_sweep(&d, NULL, SWEEP_TOMBSTONES_HOURLY);
	/* A look first, at one moment (look_at): a run live then is the one to end, and alone
	 * (one that starts after it has ended is not this cancel's); a tombstone and no run: the
	 * run ended, nothing is to be done, and no marker is left (it would end the name's next
	 * run); neither: no run has started yet, and a marker is left, while the look holds, for
	 * the run that starts from here on.  One that started before listens already, and is
	 * reached below.  Root leaves none in another user's directory. */
	struct look look = look_at(&d, name);
	if (look.ended) {
		look_done(&d, name, &look);
		names_close(&d);
		return already_ended(name, "", look.ended_at, false);
	}
	bool marked = look.live == 0 && ttl > 0 && d.fd >= 0 && d.owner == geteuid();
	int64_t marked_at = clock_now();
	if (marked && !names_mark(&d, name, cfg->signal_given ? cfg->signal : SIGTERM, ttl)) {
		msg("cannot leave a cancel marker for %s in %s: %s", quote(name), quote(d.path),
		    strerror(errno));
		look_done(&d, name, &look);
		names_close(&d);
		return EXIT_RUNLIMIT_FAILED;
	}
	look_done(&d, name, &look);
	test_hook_hold(TEST_CANCEL_LOOKED);
	int status = cancel_in(&d, cfg, name, marked, look.live);
	if (status < 0)
		status = no_run(&d, name, ttl, marked, marked_at, look.live);
	names_close(&d);
	return status;
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

/* What --list says of p: its state, and why it was not reached (it could not be asked, or
 * what it said cannot be read; NULL if it was); NULL if there is no run. */
static const char *state_of(const struct probe *p, const char **why)
{
	*why = p->end == R_REFUSED ? "refused" : p->end == R_FAILED ? p->why : NULL;
	if (p->end == R_SILENT || p->end == R_UNREACHED)
		return "not answering";
	if (p->end == R_ANSWERED || p->end == R_BUSY)
		return p->end == R_BUSY ? "busy" : "answering";
	return *why ? "not reached" : NULL;
}

/* The line of --list for p (its name after prefix); false if it could not be written
 * (errno says why). */
static bool list_line(struct probe *p, const char *prefix)
{
	char out[REPLY + 128];
	const char *why, *state = state_of(p, &why);
	int len = 0;
	if (p->end == R_ANSWERED) {
		/* The pid is the system's word where it has one, not the peer's: a tool may
		 * signal what --list shows, and root lists other users' sockets (whose words
		 * wire_shown quotes where a terminal would act on them). */
		len = snprintf(out, sizeof out, "%s%s\t%lld\t%.1fs\t%s\n", prefix, p->name,
		               p->peer > 0 ? (long long)p->peer : p->answer.pid,
		               (double)p->answer.elapsed / 1e9, p->answer.args);
	} else if (state) {
		/* Never left out without a word (no descriptor, an answer that cannot be read). */
		len = snprintf(out, sizeof out, "%s%s\t-\t-\t%s%s%s\n", prefix, p->name, state,
		               why ? ": " : "", why ? why : "");
	}
	if (len <= 0)
		return true;
	return write_out(out, (size_t)len < sizeof out ? (size_t)len : sizeof out - 1);
}

/* The line of --list --json for p (JSON Lines); false if it could not be written.  Its pid
 * is the system's word where it has one (see list_line). */
static bool list_json(struct probe *p)
{
	const char *why, *state = state_of(p, &why);
	struct wire_answer *w = &p->answer;
	long long sent = 0;
	if (!state)
		return true;
	struct json j;
	json_init(&j);
	json_open(&j, '{');
	json_string_member(&j, "name", p->name);
	json_int_member(&j, "uid", true, (long long)p->d->owner);
	for (const char *k = "pid\0started_at\0elapsed\0deadline\0argv\0argc\0";
	     p->end != R_ANSWERED && *k; k += strlen(k) + 1) {
		json_key(&j, k);
		json_null(&j);
	}
	if (p->end == R_ANSWERED) {
		json_int_member(&j, "pid", true, p->peer > 0 ? (long long)p->peer : w->pid);
		json_key(&j, "started_at");
		json_time(&j, w->started);
		json_seconds_member(&j, "elapsed", true, w->elapsed);
		json_key(&j, "deadline");
		if (!w->deadline || (w->left > 0 && w->left > INT64_MAX - p->answered_at))
			json_null(&j);
		else
			json_time(&j, p->answered_at + w->left);
		json_key(&j, "argv");
		json_open(&j, '[');
		for (char *arg; (arg = wire_next_arg(&w->args)); sent++)
			json_string(&j, arg);
		json_close(&j, ']');
		json_key(&j, "argc");
		json_int(&j, w->argc > sent ? w->argc : sent);
	}
	json_string_member(&j, "state", state);
	json_string_member(&j, "error", why);
	json_close(&j, '}');
	json_raw(&j, "\n");
	bool ok = !j.failed && write_out(j.buf, j.len);
	if (j.failed)
		errno = ENOMEM;
	json_free(&j);
	return ok;
}

typedef char run_name[NAME_MAX_LEN + 1];

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const run_name *)a, *(const run_name *)b);
}

/* The names of the sockets in d, sorted, into *names: how many, or -1 if d cannot be read. */
static long read_names(const struct names_dir *d, run_name **names)
{
	DIR *dir = names_list(d);
	if (!dir) {
		msg("cannot read the directory of named runs %s: %s", quote(d->path), strerror(errno));
		return -1;
	}
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || len - 5 > NAME_MAX_LEN || strcmp(e->d_name + len - 5, ".sock") != 0)
			continue;
		if (n == cap) {
			size_t more = cap ? 2 * cap : 16;
			run_name *grown = realloc(*names, more * sizeof **names);
			if (!grown)
				break;
			*names = grown;
			cap = more;
		}
		memcpy((*names)[n], e->d_name, len - 5);
		(*names)[n][len - 5] = '\0';
		n += names_valid((*names)[n]);
	}
	closedir(dir);
	if (n > 0)
		qsort(*names, n, sizeof **names, by_name);
	return (long)n;
}

/* The runs of d listed, by name, one after another, all by until: false if d cannot be read,
 * with *write_err set by a line that could not be written. */
static bool list_dir(const struct names_dir *d, bool qualified, bool json, int64_t until,
                     int *write_err)
{
	run_name *names = NULL;
	long n = read_names(d, &names);
	char prefix[16] = "", shown[WIRE_ANSWER];
	if (qualified)
		snprintf(prefix, sizeof prefix, "%lu:", (unsigned long)d->owner);
	for (long k = 0; k < n && !*write_err; k++) {
		struct probe p = {.d = d, .name = names[k]};
		reach(&p, ASK_DESCRIBE, until);
		if (!json && p.end == R_ANSWERED)
			p.answer.args = wire_shown(shown, &p.answer);
		if (!(json ? list_json(&p) : list_line(&p, prefix)))
			*write_err = errno;
		hang_up(&p, p.end);
	}
	free(names);
	return n >= 0;
}

int list_main(bool json)
{
	struct names_dir dirs[PLACES];
	if (!names_open(NAMES_ANY_OWNER, &dirs[0]))
		return EXIT_RUNLIMIT_FAILED;
	size_t owned = dirs[0].fd >= 0, n = owned;
	/* Root sees every user's runs in their default places, as "UID:NAME" (--cancel takes
	 * that); with RUNLIMIT_DIR, that directory alone. */
	const char *env = getenv("RUNLIMIT_DIR");
	if (geteuid() == 0 && !(env && *env))
		n = names_places(NAMES_EVERY_USER, dirs, n, PLACES);
	/* The runs are asked one after another, against one deadline: however many do not
	 * answer, --list returns within about PATIENCE, and one whose turn comes after it is
	 * listed as not answering (the manual). */
	int64_t until = clock_now() + PATIENCE;
	int status = 0, write_err = 0;
	for (size_t k = 0; k < n; k++) {
		names_sweep(&dirs[k], NULL, SWEEP_TOMBSTONES_ALL);
		if (!list_dir(&dirs[k], k >= owned, json, until, &write_err))
			status = EXIT_RUNLIMIT_FAILED;
	}
	close_places(dirs, n);
	if (write_err) {
		msg("write error: %s", strerror(write_err));
		return EXIT_RUNLIMIT_FAILED;
	}
	return status;
}

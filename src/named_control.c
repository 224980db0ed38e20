#include "named_control.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "named_dir.h"
#include "named_wire.h"
#include "nested.h"
#include "os/os.h"
#include "quote.h"
#include "signal_in.h"
#include "signal_names.h"
#include "test_hooks.h"

/* Connections at once: a cancel holds its own until the run is over. */
#define CONNS (CONTROL_MAX_FDS - 1)
/* A connection that has made no request within this is dropped: silent ones would hold
 * the slots, and turn cancels away as "busy" (the manual, NAMED RUNS). */
#define IDLE ((int64_t)1000000000)
/* Connections waiting to be accepted: what a stopped run keeps of cancels queued for it. */
#define BACKLOG 8

/* A connection, greeted, is ASKING: its request is read into line, for IDLE at most.  A cancel
 * it asked is TAKEN, owed "ok" and the bound (control_taken), then ENDING, owed "ended" when the
 * run is over; what it says then is not read. */
struct conn {
	int fd; /* -1: free */
	enum { ASKING, TAKEN, ENDING } state;
	int64_t since; /* when it was accepted */
	size_t len;
	char line[WIRE_REQUEST];
};

static const struct config *run_cfg;
static struct names_dir dir = {.fd = -1};
static int lock_fd = -1, listen_fd = -1;
/* A descriptor held in reserve: out of descriptors, accept fails and leaves the connection
 * waiting, so the listening socket stays readable and the loop would spin on it.  With the
 * spare closed, the connection can be taken, told "busy" and closed; then the spare is taken
 * back.  Should even that fail, the socket is not watched for a while (PAUSE), then again. */
#define PAUSE ((int64_t)1000000000)
static int spare_fd = -1;
static int64_t paused_until = CLOCK_NEVER; /* CLOCK_NEVER: not paused */
static int early_signal = SIGTERM; /* the signal of a cancel that came before the run */
static struct conn conns[CONNS];

/* Listen on NAME.sock; one left there is a dead run's (this run holds the lock). */
static bool listen_on(void)
{
	names_remove(&dir, run_cfg->name, "sock");
	/* The socket's file for its user alone, whatever the umask (runlimit has one thread). */
	mode_t mask = umask(077);
	bool bound = names_at(&dir, run_cfg->name, true, &listen_fd) == 0;
	umask(mask);
	return bound && listen(listen_fd, BACKLOG) == 0;
}

/* "DIR/NAME.ext", for a message. */
static const char *shown(const char *ext)
{
	char path[NAMES_PATH + NAME_MAX_LEN + 16];
	snprintf(path, sizeof path, "%s/%s.%s", dir.path, run_cfg->name, ext);
	return quote(path); /* quote() copies it */
}

static void drop(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	*c = (struct conn){.fd = -1};
}

static void say(int fd, const char *text)
{
	/* A line of a few bytes into an empty socket buffer: never short. */
	if (fd >= 0)
		(void)!msg_write(fd, text, strlen(text));
}

static void take_spare(void)
{
	if (spare_fd < 0)
		spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* accept failed for want of a descriptor: turn the waiting connection away with the spare's
 * room.  True if one was; false if none was waiting (accept fails for want of a descriptor
 * before it looks), or none could be taken even so: then the socket is paused. */
static bool turn_away(void)
{
	int fd = -1, err = EMFILE;
	if (spare_fd >= 0) {
		close(spare_fd);
		spare_fd = -1;
		fd = accept(listen_fd, NULL, NULL);
		err = errno;
		if (fd >= 0) {
			say(fd, WIRE_BUSY "\n");
			close(fd);
		}
		take_spare();
	}
	if (fd < 0 && err != EAGAIN && err != EWOULDBLOCK && err != ECONNABORTED && err != EINTR)
		paused_until = clock_after(clock_now(), PAUSE);
	return fd >= 0;
}

int64_t control_next_wake(void)
{
	int64_t wake = paused_until;
	for (size_t k = 0; k < CONNS; k++)
		if (conns[k].fd >= 0 && conns[k].state == ASKING && conns[k].since + IDLE < wake)
			wake = conns[k].since + IDLE;
	return wake;
}

/* Whether the peer of a connection may talk to this run: its own user or root.  Where the
 * system cannot tell who it is, the directory of named runs (only its user and root can
 * enter) is all; an error refuses.  The uid is read only where peer_uid gave one. */
static bool peer_allowed(int fd)
{
	uid_t uid;
	int known = peer_uid(fd, &uid);
	return known == 0 || (known == 1 && (uid == geteuid() || uid == 0));
}

/* Take every connection waiting to be accepted, into a free slot (or refused if none). */
static void take_connections(void)
{
	int fd;
	/* A bounded number per wake: a flood of connections cannot hold the loop. */
	for (int taken = 0; taken < 2 * CONNS; taken++) {
		if ((fd = accept(listen_fd, NULL, NULL)) < 0) {
			if ((errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) &&
			    turn_away())
				continue;
			break;
		}
		struct conn *free_slot = NULL;
		for (size_t k = 0; k < CONNS && !free_slot; k++)
			if (conns[k].fd < 0)
				free_slot = &conns[k];
		/* Each connection is greeted before it says anything, so that one refused is told
		 * so and closed with nothing unread (which would reset it, and lose the word). */
		bool allowed = names_own(fd) && peer_allowed(fd);
		if (!allowed || !free_slot) {
			say(fd, allowed ? WIRE_BUSY "\n" : WIRE_REFUSED "\n");
			close(fd);
			continue;
		}
		*free_slot = (struct conn){.fd = fd, .since = clock_now()};
		say(fd, WIRE_GREETING "\n");
	}
}

/* The signal of a marker (named_client.c leaves it), for the run to die of: TERM if it says none
 * that would end a process. */
static int marker_signal(int sig)
{
	bool ends = sig == SIGKILL || (sig > 0 && sig <= sig_max() && disp_is_forwarded(sig));
	return ends ? sig : SIGTERM;
}

int control_early_signal(void)
{
	return early_signal;
}

enum control_state control_open(const struct config *cfg)
{
	for (size_t k = 0; k < CONNS; k++)
		conns[k] = (struct conn){.fd = -1};
	run_cfg = cfg;
	if (!names_open(NAMES_CREATE, &dir))
		return CONTROL_FAILED;
	/* What dead runs and expired cancels left goes first (this name's own: below). */
	names_sweep(&dir, cfg->name, SWEEP_TOMBSTONES_HOURLY);
	lock_fd = names_lock(&dir, cfg->name);
	if (lock_fd < 0) {
		if (errno == EAGAIN)
			msg("a run named %s is already running", quote(cfg->name));
		else if (errno == EBUSY)
			msg("cannot lock %s: another runlimit holds it and does not let go (stopped?)",
			    shown("lock"));
		else
			msg("cannot lock %s: %s", shown("lock"), strerror(errno));
		control_close();
		return CONTROL_FAILED;
	}
	/* The run has started: the tombstone of the name's last run goes.  Only now, with the
	 * lock held (a run refused as a second one leaves it), and before the socket is there (a
	 * run a cancel can reach has none).  A cancel's look (names_hold) kept this run from
	 * locking while it looked: one that found the tombstone left no marker, and this run
	 * runs its command. */
	names_remove(&dir, cfg->name, "ended");
	if (!listen_on()) {
		msg("cannot listen on %s: %s", shown("sock"), strerror(errno));
		control_close();
		return CONTROL_FAILED;
	}
	take_spare();
	/* Only now, with the socket there for a cancel that comes from here on: one that came
	 * before left its marker (an expired one is removed, and the command runs). */
	int sig;
	if (names_take_mark(&dir, cfg->name, &sig)) {
		early_signal = marker_signal(sig);
		take_connections();
		for (size_t k = 0; k < CONNS; k++)
			conns[k].state = conns[k].fd >= 0 ? ENDING : ASKING; /* unread: the run ends now */
		return CONTROL_CANCELLED;
	}
	return CONTROL_READY;
}

/* Drop the connections that have made no request within IDLE of their coming. */
static void drop_idle(int64_t now)
{
	for (size_t k = 0; k < CONNS; k++)
		if (conns[k].fd >= 0 && conns[k].state == ASKING && now - conns[k].since >= IDLE)
			drop(&conns[k]);
}

size_t control_fds(struct pollfd *fds)
{
	if (listen_fd < 0)
		return 0;
	size_t n = 0;
	int64_t now = clock_now();
	drop_idle(now);
	if (paused_until != CLOCK_NEVER && now >= paused_until) {
		paused_until = CLOCK_NEVER;
		take_spare(); /* the pause may have freed one */
	}
	if (paused_until == CLOCK_NEVER)
		fds[n++] = (struct pollfd){.fd = listen_fd, .events = POLLIN};
	for (size_t k = 0; k < CONNS; k++) /* a waiting cancel too: its going away frees its slot */
		if (conns[k].fd >= 0)
			fds[n++] = (struct pollfd){.fd = conns[k].fd, .events = POLLIN};
	return n;
}

/* A cancel waiting for the run's end said more, or went away: what it says is not read, and
 * gone, it no longer holds its slot. */
static void discard(struct conn *c)
{
	char junk[64];
	ssize_t got = read(c->fd, junk, sizeof junk);
	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
		drop(c);
}

/* Read what came on c; a request whole: a question is answered, a cancel taken (true, with
 * *req). */
static bool read_request(struct conn *c, struct control_request *req)
{
	ssize_t got = read(c->fd, c->line + c->len, sizeof c->line - 1 - c->len);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (got <= 0) {
		drop(c);
		return false;
	}
	c->len += (size_t)got;
	c->line[c->len] = '\0';
	char *nl = strchr(c->line, '\n');
	if (!nl) {
		if (c->len == sizeof c->line - 1)
			drop(c); /* no request is this long */
		return false;
	}
	*nl = '\0';
	enum wire_ask ask = wire_request(c->line, &req->sig, &req->grace);
	if (ask == ASK_CANCEL) {
		names_remove(&dir, run_cfg->name, "cancel"); /* a marker this cancel left goes too */
		c->state = TAKEN;
		return true;
	}
	char text[WIRE_ANSWER] = WIRE_REFUSED "\n";
	int64_t now = clock_now(), deadline = nested_run_deadline(); /* RUNLIMIT_DEADLINE's too */
	if (ask != ASK_UNKNOWN)
		wire_answer(text, ask, (long)getpid(), now - run_cfg->started, run_cfg->started_wall,
		            deadline < CLOCK_NEVER - 1 ? deadline - now : INT64_MAX, run_cfg->command);
	say(c->fd, text);
	drop(c);
	return false;
}

bool control_pump(const struct pollfd *fds, size_t n, struct control_request *req)
{
	bool cancel = false;
	for (size_t i = 0; i < n; i++) {
		if (!fds[i].revents)
			continue;
		if (fds[i].fd == listen_fd) {
			take_connections();
			continue;
		}
		for (size_t k = 0; k < CONNS; k++) {
			if (conns[k].fd != fds[i].fd)
				continue;
			if (conns[k].state != ASKING)
				discard(&conns[k]);
			else
				cancel = read_request(&conns[k], req) || cancel;
		}
	}
	return cancel;
}

void control_taken(int64_t bound)
{
	char text[WIRE_REQUEST];
	snprintf(text, sizeof text, WIRE_OK, (long long)(bound > 0 ? bound : 0));
	for (size_t k = 0; k < CONNS; k++) {
		if (conns[k].state == TAKEN) {
			say(conns[k].fd, text);
			conns[k].state = ENDING;
		}
	}
}

void control_close(void)
{
	if (!run_cfg)
		return; /* never opened: conns[] is all zeros, and descriptor 0 is not ours */
	/* The tombstone first, while the lock and the socket are held: a cancel that then finds
	 * the lock free (or this run gone from it) finds the tombstone, and is told the run has
	 * ended, leaving no marker for the name's next run. */
	if (lock_fd >= 0 && !names_leave_tombstone(&dir, run_cfg->name))
		msg("cannot leave %s: %s", shown("ended"), strerror(errno));
	if (listen_fd >= 0) {
		names_remove(&dir, run_cfg->name, "sock");
		close(listen_fd);
		listen_fd = -1;
	}
	for (size_t k = 0; k < CONNS; k++) {
		if (conns[k].state != ASKING)
			say(conns[k].fd, WIRE_ENDED "\n");
		drop(&conns[k]);
	}
	if (spare_fd >= 0) {
		close(spare_fd);
		spare_fd = -1;
	}
	/* Test builds only: the socket gone, the lock still held a while. */
	int late = test_hook_number(TEST_CLOSE_LATE_MS);
	if (late > 0)
		nanosleep(&(struct timespec){late / 1000, late % 1000 * 1000000L}, NULL);
	if (lock_fd >= 0) {
		names_remove(&dir, run_cfg->name, "lock"); /* while it is held: a run that opened it
		                                            * before finds it gone */
		close(lock_fd);
		lock_fd = -1;
	}
	names_close(&dir);
}

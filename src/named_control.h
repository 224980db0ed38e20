/* A named run's registration and control socket (--name; named_dir.h for the directory).
 * Before the command starts, the run sweeps the directory (expired markers, dead runs'
 * files), takes NAME.lock (a second live run of NAME is refused; a lock file or socket left
 * by a run that was SIGKILLed is recognised by its lock being free), removes the tombstone
 * NAME.ended of the name's last run, listens on NAME.sock, and only then looks for
 * NAME.cancel: a cancel (named_client.h) that finds no run leaves that marker before it
 * tries to connect, so whichever comes first, a cancel is never lost (a marker past its time
 * is removed and ignored).  However it ends (short of a SIGKILL), the run leaves NAME.ended
 * before it lets go of its socket and lock.  The socket is one more source of the run's event
 * wait; a peer that is neither the run's user nor root is refused, and one that makes no
 * request within a second is dropped.  What is said on it: named_wire.h.  Without --name
 * nothing here runs. */
#ifndef RUNLIMIT_NAMED_CONTROL_H
#define RUNLIMIT_NAMED_CONTROL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

#define CONTROL_MAX_FDS 5

enum control_state {
	CONTROL_READY,     /* registered: the command may start */
	CONTROL_CANCELLED, /* a cancel came first: the command must not start */
	CONTROL_FAILED,    /* runlimit cannot register the run (said why) */
};

/* What a cancel asks. */
struct control_request {
	int sig;       /* the signal for the tree */
	int64_t grace; /* ns before the final KILL; -1: the run's own */
};

enum control_state control_open(const struct config *cfg);

/* After CONTROL_CANCELLED: the signal of the cancel that came first (its -s, if that would
 * end a process; else TERM), which the run then dies of. */
int control_early_signal(void);

/* When the socket, paused for want of descriptors, is to be watched again (CLOCK_NEVER: it
 * is not paused): the run's wait must end by then. */
int64_t control_next_wake(void);

/* The descriptors the run's wait watches for the socket now (at most CONTROL_MAX_FDS). */
size_t control_fds(struct pollfd *fds);

/* After a wait: take the connections and requests that came; true with *req when a cancel
 * came (then control_taken must follow). */
bool control_pump(const struct pollfd *fds, size_t n, struct control_request *req);

/* The cancels control_pump gave are handled: tell them so, and that the run ends within
 * bound ns (their wait for "ended" is bounded by it). */
void control_taken(int64_t bound);

/* The run is over: leave the tombstone (if the run held the lock), tell every cancel waiting
 * that it has ended, and remove NAME's socket and lock.  Safe to call when nothing was
 * registered, and more than once. */
void control_close(void);

#endif

/* The self-pipe of the clocks whose wait cannot swap the signal mask atomically
 * (posix.c, darwin.c): the handlers write a byte, the wait watches the read end. */
#ifndef RUNLIMIT_SELFPIPE_H
#define RUNLIMIT_SELFPIPE_H

#include <signal.h>

/* Create the pipe (non-blocking, close-on-exec, off the standard descriptors); on failure
 * the read end stays -1 and waits rely on the signal interrupting them. */
void selfpipe_init(void);
void selfpipe_wake(void);
/* The read end, drained of what was written so far; -1 if there is no pipe. */
int selfpipe_drain(void);
/* Unblock waitmask around a wait that the pipe makes race-free; restores the mask. */
void selfpipe_unblock(const sigset_t *waitmask, sigset_t *saved);

#endif

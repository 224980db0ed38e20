/* The self-pipe of the clocks whose wait cannot swap the signal mask atomically
 * (clock_poll.c, clock_darwin.c): the handlers write a byte, the wait watches the read end. */
#ifndef RUNLIMIT_CLOCK_PIPE_H
#define RUNLIMIT_CLOCK_PIPE_H

#include <signal.h>

/* Create the pipe (non-blocking, close-on-exec, off the standard descriptors); on failure
 * the read end stays -1 and waits rely on the signal interrupting them. */
void clock_pipe_init(void);
void clock_pipe_wake(void);
/* The read end, drained of what was written so far; -1 if there is no pipe. */
int clock_pipe_drain(void);
/* Unblock waitmask around a wait that the pipe makes race-free; restores the mask. */
void clock_pipe_unblock(const sigset_t *waitmask, sigset_t *saved);

#endif

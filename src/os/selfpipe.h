/* The self-pipe of the clocks whose wait cannot swap the signal mask atomically
 * (posix.c, darwin.c): the handlers write a byte, the wait watches the read end. */
#ifndef RUNLIMIT_SELFPIPE_H
#define RUNLIMIT_SELFPIPE_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

/* os.h's clock_init makes the pipe (non-blocking, close-on-exec, off the standard
 * descriptors; on failure the read end stays -1 and the waits are selfpipe_pselect's), and
 * its clock_wake writes to it. */
/* Was the pipe made? */
bool selfpipe_there(void);
/* The read end, drained of what was written so far; -1 if there is no pipe. */
int selfpipe_drain(void);
/* Unblock waitmask around a wait that the pipe makes race-free; restores the mask. */
void selfpipe_unblock(const sigset_t *waitmask, sigset_t *saved);
/* The wait where there is no pipe: pselect unblocks waitmask in the kernel, with the wait
 * itself, so that a signal coming in between is not lost until the timeout (ts; NULL: none).
 * Sets the revents of fds (all n: no array bounds them) as poll would (POLLIN, POLLOUT;
 * select has no POLLHUP).  Returns
 * after at most 30 days.  False, having waited for nothing, where a descriptor is too high
 * for select (FD_SETSIZE) or pselect refuses the wait. */
bool selfpipe_pselect(const sigset_t *waitmask, struct pollfd *fds, size_t n,
                      const struct timespec *ts);

#endif

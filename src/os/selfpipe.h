/* The self-pipe of the clocks whose wait cannot swap the signal mask atomically (posix.c,
 * darwin.c): os.h's clock_init makes it, clock_wake writes a byte to it from a handler, and
 * clock_wait and clock_wait_fd, which selfpipe.c defines, sleep on its read end by the
 * system's own selfpipe_sleep. */
#ifndef RUNLIMIT_SELFPIPE_H
#define RUNLIMIT_SELFPIPE_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Was the pipe made? */
bool selfpipe_there(void);

/* The system's sleep, its signals unblocked: until the pipe (or -1: none) is readable, one of
 * fds[0..n) is ready (revents set as poll(2) sets them), or clock_now() reaches deadline. */
void selfpipe_sleep(int pipe, struct pollfd *fds, size_t n, int64_t deadline);

/* That sleep by poll(2), for the first CLOCK_MAX_FDS of fds (the rest: revents 0). */
void selfpipe_poll(int pipe, struct pollfd *fds, size_t n, int64_t deadline);

#endif

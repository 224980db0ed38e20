/* Moving bytes from one pipe to another inside the kernel, never copied through runlimit
 * (the output relay, relay.h).  One implementation per platform: pipemove_linux.c
 * (splice(2), tee(2)); pipemove_posix.c (none: the relay then copies through its buffer).
 * Both keep the pipe's own buffers, so a write of at most PIPE_BUF bytes, which the kernel
 * puts whole in one of them, stays whole in the caller's pipe. */
#ifndef RUNLIMIT_PIPEMOVE_H
#define RUNLIMIT_PIPEMOVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Can pipe_move move bytes from the pipe `in` to out (a pipe too)? */
bool pipe_can_move(int in, int out);

/* Move up to max bytes from in to out, waiting on neither (whatever out's own flags are).
 * As read(2): how many were moved, 0 at end-of-file, -1 with errno: EAGAIN when in has
 * nothing or out has no room, EPIPE when out has no reader (SIGPIPE is raised as by a
 * write), another error when these bytes cannot be moved and must be copied. */
ssize_t pipe_move(int in, int out, size_t max);

/* The same, but the bytes stay in `in` too (to be read from it after: --report-tail keeps
 * them), and as pipe_move otherwise. */
ssize_t pipe_tee(int in, int out, size_t max);

#endif

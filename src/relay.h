/* The output relay (--output-grace): the command's stdout and stderr, where they are pipes,
 * FIFOs or sockets, become pipes of runlimit's, which copies what comes out of them to the
 * caller's descriptors.  Once the command has exited, the copying goes on until every relayed
 * stream reaches end-of-file or the output grace has passed; then runlimit closes its ends, so
 * that a leftover still holding them never keeps the caller waiting for end-of-file.  What
 * the command wrote before it exited is relayed in full, however slow the reader.  A terminal,
 * a regular file or a device is never interposed (none of them holds a caller back).  Stdin is
 * never touched.  Without --output-grace nothing here runs. */
#ifndef RUNLIMIT_RELAY_H
#define RUNLIMIT_RELAY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most descriptors the relay watches in one wait. */
#define RELAY_MAX_FDS 4

/* After the guard, before the command is forked: make the pipes for the streams that are
 * relayed.  False with errno if they cannot be made (the run then fails, 125). */
bool relay_prepare(void);

/* In the command's child, before exec: its stdout and stderr become the pipes' write ends. */
void relay_child(void);

/* In runlimit, once the command is forked (or could not be): close the write ends. */
void relay_started(void);

/* Is anything relayed? */
bool relay_active(void);

/* The descriptors to wait for now (at most RELAY_MAX_FDS), into fds; how many. */
size_t relay_fds(struct pollfd *fds);

/* After a wait: copy what fds say can be copied now, without blocking. */
void relay_pump(const struct pollfd *fds, size_t n);

/* The command has exited, at now: from here on the grace counts (CLOCK_NEVER-safe). */
void relay_command_exited(int64_t now, int64_t grace);

/* The grace's end (CLOCK_NEVER while the command runs, or once nothing is owed). */
int64_t relay_deadline(void);

/* Is the relay done: every stream at end-of-file and written out, or the grace over and
 * what the command wrote before its exit written out?  Then its read ends are closed. */
bool relay_finished(int64_t now);

/* Stop at once (runlimit was asked to end): close every read end. */
void relay_close(void);

#endif

/* The output relay (--output-grace, --no-output-timeout, --report-tail): the command's
 * stdout and stderr, where they are pipes, FIFOs or sockets, become pipes of runlimit's,
 * which copies what comes out of them to the caller's descriptors.  Once the command has
 * exited, the copying goes on until every relayed stream reaches end-of-file or the output
 * grace has passed; then runlimit closes its ends, so that a leftover still holding them never
 * keeps the caller waiting for end-of-file.  What the command wrote before it exited is
 * relayed in full, however slow the reader, unless a limit ran out or a request to end came
 * (or the deadline passed): then it too gets the grace, and what is still unrelayed after it
 * is dropped, and counted.  A terminal is never interposed, under any of the three options
 * (it is the command's to read keys from, set modes on and stop on), and neither is a
 * regular file or a device (none of them holds a caller back): what goes to a terminal is
 * not seen.  Stdin is never touched.  Without any of the three options nothing here runs. */
#ifndef RUNLIMIT_RELAY_H
#define RUNLIMIT_RELAY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "relay_tail.h"
#include "start_exec.h"

/* The most descriptors the relay watches in one wait: two streams, each its pipe and the
 * caller's end. */
#define RELAY_MAX_FDS 4

/* After the guard, before the command is forked: make the pipes for the streams that are
 * relayed.  A regular file on stdout or stderr is watched by its size.  silence > 0
 * (--no-output-timeout): output is timed, unless no output can be seen and a terminal is
 * why (relay_silence_off).  tail > 0 (--report-tail): the last tail bytes of stderr are
 * kept.  False with errno if the pipes cannot be made (the run then fails, 125). */
bool relay_prepare(int64_t silence, size_t tail);

/* What the command's child does before exec (start_exec.h): its stdout and stderr become the
 * pipes' write ends.  Into dup (room for max); returns how many. */
size_t relay_child_dups(struct spawn_dup *dup, size_t max);

/* In runlimit, once the command is forked (or could not be): close the write ends; the
 * silence counts from here. */
void relay_started(void);

/* Is anything relayed? */
bool relay_active(void);

/* The descriptors to wait for now (at most RELAY_MAX_FDS), into fds; how many. */
size_t relay_fds(struct pollfd *fds);

/* After a wait: copy what fds say can be copied now, without blocking. */
void relay_pump(const struct pollfd *fds, size_t n);

/* The command has exited, at now: from here on the grace counts (CLOCK_NEVER-safe).  At
 * cut (CLOCK_NEVER: never) whatever is still unrelayed is dropped, even what the command
 * wrote before its exit: the grace's end after a limit or a request, else the deadline's
 * plus the grace. */
void relay_command_exited(int64_t now, int64_t grace, int64_t cut);

/* What the relay has come to, for the supervisor's one look at it.  The no-output limit
 * (--no-output-timeout) is the relay's: it runs from relay_started until relay_stop_timing,
 * counted from the last output seen (or the command's start; see relay_silence_end).  Once
 * the command has exited, the relay owes its output, for the output grace at most. */
enum relay_due {
	RELAY_NOTHING,
	/* The command runs and its output was silent for the no-output limit. */
	RELAY_SILENT,
	/* The command has exited, and every stream is at end-of-file and written out, or the
	 * grace is over and what the command wrote before its exit is written out, or the cut
	 * came (what is left is then dropped): the read ends are closed. */
	RELAY_FINISHED,
};

/* What is due at now.  Looks at the watched files' sizes, if it is time to. */
enum relay_due relay_due(int64_t now);

/* When relay_due may next have something new to say: the silence's end, the next look at
 * the watched files, the grace's end or the cut (CLOCK_NEVER: nothing is timed or owed). */
int64_t relay_next_wake(void);

/* When the no-output limit runs out if no output comes meanwhile (CLOCK_NEVER: it is not
 * timed, or output waits for a slow caller). */
int64_t relay_silence_end(void);

/* The no-output limit stops: a limit ran out (one does, once), or the command exited. */
void relay_stop_timing(void);

/* Stop at once (runlimit was asked to end): drop what is held, close every read end. */
void relay_close(void);

/* --no-output-timeout is off: stdout or stderr is a terminal, and no output can be seen
 * (timing it would end a busy interactive program for want of seeing its output). */
bool relay_silence_off(void);

/* A descriptor for the --on-timeout hook's output (hook.h), so that it goes where the
 * command's stderr goes, in order, and into the --report-tail: a new write end of the pipe of
 * the stream that carries stderr, where the system can reopen one (reopen_fd: Linux).
 * Close-on-exec and blocking; -1 where there is none (stderr is not relayed, or cannot be
 * reopened): the hook then writes to runlimit's stderr itself. */
int relay_stderr_writer(void);

/* -v: one line for each stream that dropped output, saying how much. */
void relay_tell_dropped(void);

/* What the relay saw, for the run report, as it stands now (the relay's own, until the next
 * call).  bytes is -1 for a stream neither relayed nor watched; a watched file's is how much
 * it grew. */
struct relay_stats {
	long long bytes[2];  /* stdout, stderr */
	long long dropped[2]; /* of those, never written out (-1 as bytes, and for a file) */
	bool stderr_shared;  /* 2>&1: bytes[0] counts both, bytes[1] is -1 */
	int64_t last_output; /* clock_now() when output was last read, or seen in a watched
	                        file's size (CLOCK_NEVER: never) */
	const struct tail *tail; /* --report-tail: the end of stderr (NULL: none was kept) */
	const char *tail_missing; /* tail NULL: why, where known ("terminal") */
};
const struct relay_stats *relay_get_stats(void);

#endif

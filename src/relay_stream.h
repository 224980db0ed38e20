/* One stream of the output relay (relay.h): the command's stdout or stderr (or both, 2>&1),
 * read from runlimit's pipe and written to the caller's descriptor, without ever
 * waiting on either.  Where both ends are pipes the bytes are moved in the kernel
 * (pipemove.h); elsewhere they go through the stream's fixed buffer.  The stream that
 * carries stderr also takes runlimit's own lines (lines.h) and writes each in its place. */
#ifndef RUNLIMIT_RELAY_STREAM_H
#define RUNLIMIT_RELAY_STREAM_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lines.h"
#include "tail.h"

#define STREAM_BUFFER 65536

struct stream {
	int in;          /* the read end of runlimit's pipe (-1: closed) */
	int write_end;   /* the command's end, until it is forked */
	int std;         /* the command's descriptor: 1, or 2 */
	int out;         /* where it goes: the caller's (std) */
	bool both;       /* stdout and stderr are the same file (2>&1): one pipe for both */
	bool broken;     /* the caller's end is gone */
	bool moved;      /* pipe to pipe: moved in the kernel (pipemove.h), never copied */
	bool stalled;    /* moved, and the caller's pipe had no room: wait until it has */
	uint64_t owed;   /* written before the command's exit and not yet relayed */
	uint64_t bytes;  /* read from the command */
	uint64_t sent;   /* of those, written out */
	struct tail *tail;   /* the end of stderr kept for the report (NULL: not this stream) */
	struct lines *lines; /* runlimit's own lines (NULL: this stream does not carry stderr) */
	size_t len, off; /* buf[off..len) is still to be written */
	char buf[STREAM_BUFFER];
};

/* What the wait is to watch for s (into *p); false if nothing. */
bool stream_wants(const struct stream *s, struct pollfd *p);

/* What stream_pump did. */
enum {
	STREAM_READ = 1,      /* bytes came from the command */
	STREAM_CAUGHT_UP = 2, /* everything read so far is written out */
};

/* After a wait said p (from stream_wants) is ready: copy what can be copied now. */
int stream_pump(struct stream *s, const struct pollfd *p);

/* Does s hold bytes the caller has not taken (the silence's clock waits for them)? */
bool stream_pending(const struct stream *s);

/* Bytes in s's pipe, not yet read (0 where the system cannot say). */
uint64_t stream_waiting(const struct stream *s);

/* Read no more (end-of-file, the grace is over, or runlimit is ending). */
void stream_stop_reading(struct stream *s);

/* Queue one of runlimit's lines behind what the command has written to s so far; false if
 * it is to be written at once (nothing of the command's is behind, or no room). */
bool stream_queue_line(struct stream *s, const char *text, size_t len);

/* Write the queued lines at once, waiting if need be (runlimit is ending), and forget them. */
void stream_flush_lines(struct stream *s);

#endif

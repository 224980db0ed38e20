/* One stream of the output relay (relay.h): the command's stdout or stderr (or both, 2>&1),
 * read from runlimit's pipe and written to the caller's descriptor, without ever
 * waiting on either.  Where both ends are pipes the bytes are moved in the kernel
 * (os/os.h: pipe_move); elsewhere they go through the stream's fixed buffer.  The stream that
 * carries stderr also takes runlimit's own lines (relay_lines.h) and writes each in its place.
 *
 * A write of at most PIPE_BUF bytes by the command reaches the caller whole, even when
 * other processes write to the caller's pipe too (make -j, several runs into one log): the
 * kernel's move keeps whole writes, and a copy cuts where a write or a line ended (see
 * next_piece in relay_stream.c). */
#ifndef RUNLIMIT_RELAY_STREAM_H
#define RUNLIMIT_RELAY_STREAM_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "os/os.h"
#include "relay_lines.h"
#include "relay_tail.h"

#define STREAM_BUFFER PIPE_WIDEST

struct stream {
	int in;          /* the read end of runlimit's pipe (-1: closed) */
	int write_end;   /* the command's end, until it is forked */
	int std;         /* the command's descriptor: 1, or 2 */
	int out;         /* where it goes: the caller's (std) */
	mode_t out_mode; /* its file type (fstat's st_mode; a regular file's if fstat fails) */
	bool both;       /* stdout and stderr are the same file (2>&1): one pipe for both */
	bool broken;     /* the caller's end is gone */
	bool moved;      /* pipe to pipe: moved in the kernel (pipe_move), never copied */
	bool stalled;    /* moved, and the caller's pipe had no room: wait until it has */
	bool wide;       /* moved, and its pipe widened (pipe_widen) */
	uint64_t owed;   /* written before the command's exit and not yet relayed */
	uint64_t bytes;  /* written by the command (read, moved, or dropped from the pipe) */
	uint64_t sent;   /* of those, written out */
	uint64_t dropped; /* of those, never written out: the grace ended, or the reader went */
	struct tail *tail;   /* the end of stderr kept for the report (NULL: not this stream) */
	struct lines *lines; /* runlimit's own lines (NULL: this stream does not carry stderr) */
	size_t len, off; /* buf[off..len) is still to be written */
	char *buf;       /* STREAM_BUFFER bytes, apart from the rest: setting up a stream
	                    touches none of them, and a read only as many as the pipe holds */
};

/* The most pollfds stream_wants asks for. */
#define STREAM_MAX_FDS 2

/* What the wait is to watch for s (into p[0..STREAM_MAX_FDS)); how many. */
size_t stream_wants(const struct stream *s, struct pollfd *p);

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

/* Give up on what s holds: read no more, and count what was still in its buffer and its
 * pipe as dropped (never written out). */
void stream_drop(struct stream *s);

/* Queue one of runlimit's lines behind what the command has written to s so far; false if
 * it is to be written at once (nothing of the command's is behind, or no room). */
bool stream_queue_line(struct stream *s, const char *text, size_t len);

/* Write the queued lines at once and forget them (runlimit is ending): waiting if need be,
 * unless s has dropped output (then the caller is not reading: only what its end takes
 * without waiting is written). */
void stream_flush_lines(struct stream *s);

/* One of runlimit's lines once s is done with: true if it was dealt with here, written
 * where the caller's end takes it without waiting, or left out (the reader has gone, or
 * s dropped output, so the caller is not reading: a write could wait for good); false if
 * it is to be written as without the relay. */
bool stream_late_line(struct stream *s, const char *text, size_t len);

#endif

/* runlimit's own lines (-v, warnings) waiting for their place in a relayed stderr: each line
 * is written once the stream has written out as many of the command's bytes as it had
 * received when runlimit printed the line, so that the caller sees both in the order they
 * happened, while runlimit itself never waits for a slow reader (relay.h).  A fixed room:
 * a line that does not fit is not queued (it is written at once, out of place). */
#ifndef RUNLIMIT_RELAY_LINES_H
#define RUNLIMIT_RELAY_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINES_ROOM 4096
#define LINES_MAX 16

struct lines {
	char text[LINES_ROOM]; /* the queued lines, oldest first, from head */
	size_t head, used;     /* text[head..used) is still to be written */
	struct {
		size_t end;     /* where the line ends in text */
		uint64_t after; /* how many of the command's bytes go before it */
	} line[LINES_MAX];
	size_t first, n; /* line[first..first+n) are queued */
};

/* Queue a line (len bytes) to go after the command's first `after` bytes; false if there is
 * no room for it (nothing is then queued). */
bool lines_add(struct lines *q, const char *text, size_t len, uint64_t after);

/* Is a line queued? */
bool lines_waiting(const struct lines *q);

/* How many of the command's bytes go before the first queued line (UINT64_MAX: none). */
uint64_t lines_after(const struct lines *q);

/* The rest of the first line, if the command's first `sent` bytes are written out; else
 * NULL.  Its length into *len. */
const char *lines_due(const struct lines *q, uint64_t sent, size_t *len);

/* n bytes of the first line (at most what is left of it) are written out. */
void lines_done(struct lines *q, size_t n);

/* Forget every queued line. */
void lines_clear(struct lines *q);

#endif

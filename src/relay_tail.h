/* The last bytes of a stream (--report-tail): a ring of a fixed size, whatever the volume,
 * and the count of everything that went through it. */
#ifndef RUNLIMIT_RELAY_TAIL_H
#define RUNLIMIT_RELAY_TAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tail {
	char *buf;      /* NULL: there was no memory for the ring, and nothing is kept */
	size_t size;    /* what is kept at most */
	size_t start;   /* where the oldest kept byte is, once the ring is full */
	size_t len;     /* how many are kept */
	uint64_t total; /* how many went through */
	int error;      /* why nothing is kept (the ring's allocation failed), or 0 */
};

/* A ring of size bytes (size > 0).  Without memory for it, the tail only counts what goes
 * through, and error says why it keeps nothing (the run goes on, and its report says so). */
void tail_init(struct tail *t, size_t size);

/* Keep the end of what went through: the last size bytes of everything added so far. */
void tail_add(struct tail *t, const char *bytes, size_t n);

/* The kept bytes, oldest first, as the ring holds them: a first piece and a second (the
 * second empty unless the ring has wrapped); together t->len bytes. */
void tail_pieces(const struct tail *t, const char **first, size_t *first_len,
                 const char **second, size_t *second_len);

#endif

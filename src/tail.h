/* The last bytes of a stream (--report-tail): a ring of a fixed size, whatever the volume,
 * and the count of everything that went through it. */
#ifndef RUNLIMIT_TAIL_H
#define RUNLIMIT_TAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tail {
	char *buf;
	size_t size;    /* what is kept at most */
	size_t start;   /* where the oldest kept byte is, once the ring is full */
	size_t len;     /* how many are kept */
	uint64_t total; /* how many went through */
};

/* A ring of size bytes (size > 0); false if there is no memory for it. */
bool tail_init(struct tail *t, size_t size);

/* Keep the end of what went through: the last size bytes of everything added so far. */
void tail_add(struct tail *t, const char *bytes, size_t n);

/* The kept bytes, oldest first, copied into out (t->len bytes). */
void tail_copy(const struct tail *t, char *out);

#endif

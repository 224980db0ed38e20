/* A map from pid to a number (an index into the caller's array), for the tree walks: every
 * look-up in O(1), so that walking and freezing thousands of processes stays linear. */
#ifndef RUNLIMIT_PIDMAP_H
#define RUNLIMIT_PIDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pidmap {
	struct pidmap_slot *slots; /* open addressing; pid 0 marks a free slot */
	size_t cap, n;
};

/* The number stored for pid, or -1. */
long pidmap_get(const struct pidmap *m, pid_t pid);

/* Store value for pid (pid > 0), replacing any earlier one.  False if memory ran out. */
bool pidmap_put(struct pidmap *m, pid_t pid, long value);

void pidmap_free(struct pidmap *m);

#endif

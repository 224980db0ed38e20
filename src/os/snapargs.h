/* The snapshot's command lines (os.h, the snapshot), cut the same way on every system that
 * takes one: each argument at SNAP_ARG_MAX bytes, all of them at SNAP_ARGS_MAX with the NUL
 * that ends each.  Fed the NUL-separated arguments in pieces, as read; allocates nothing. */
#ifndef RUNLIMIT_OS_SNAPARGS_H
#define RUNLIMIT_OS_SNAPARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "os.h"

struct snap_cut {
	size_t arg;    /* bytes of the argument under way, read */
	size_t stored; /* and kept */
	bool full;     /* no room for more */
};

/* Begin s's arguments (none yet). */
void snap_args_begin(struct snap_proc *s, struct snap_cut *c);

/* Add the next n bytes; false once there is no room for more (the rest is left out). */
bool snap_args_add(struct snap_proc *s, struct snap_cut *c, const char *buf, size_t n);

/* The end: an argument under way that no NUL ended is ended. */
void snap_args_end(struct snap_proc *s, struct snap_cut *c);

#endif

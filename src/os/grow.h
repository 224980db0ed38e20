/* Room for one more element in a growable array, doubling from 64 (the platform's lists). */
#ifndef RUNLIMIT_GROW_H
#define RUNLIMIT_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* items is the address of the array's pointer (a struct x **, say), which holds n elements
 * of size bytes in room for *cap.  Makes room for one more; false, with nothing changed, if
 * memory ran out. */
bool grow(void *items, size_t n, size_t *cap, size_t size);

#endif

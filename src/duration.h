/* DURATION operands: GNU timeout's grammar, converted to whole nanoseconds. */
#ifndef RUNLIMIT_DURATION_H
#define RUNLIMIT_DURATION_H

#include <stdbool.h>
#include <stdint.h>

/* The largest representable duration: a deadline this far away never fires. */
#define DURATION_MAX INT64_MAX

/* Parse a floating-point number (C locale or the user's LC_NUMERIC, whichever reads further)
 * with an optional s/m/h/d suffix.  On success stores nanoseconds, rounded up (a positive
 * value never becomes 0), clamped to DURATION_MAX, and returns true. */
bool duration_parse(const char *s, int64_t *ns);

#endif

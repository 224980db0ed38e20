/* Sizes in bytes as --memory reads them and -v and the report say them: a number with K, M,
 * G or T after it, in powers of 1024. */
#ifndef RUNLIMIT_SIZE_H
#define RUNLIMIT_SIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "4096", "512K", "1.5G": bytes into *bytes (a fraction rounds up to a whole byte).  A bare
 * number is bytes; K, M, G, T (or k, m, g, t) multiply by 1024 to the power 1 to 4, with
 * an optional "B" or "iB" after them (MB, MiB: both 1048576).  False for anything else, for
 * 0 and for more than SIZE_LIMIT. */
/* The largest size taken: what a signed 64-bit count holds (the report's, and what the
 * kernel's own counters are compared with), some 8 EiB. */
#define SIZE_LIMIT ((uint64_t)INT64_MAX)

bool size_parse(const char *s, uint64_t *bytes);

/* bytes as people read them: "512", "64K", "2.3G" (at most one decimal, rounded up so that
 * a size over a limit never reads as the limit itself).  Into buf (16 bytes are enough). */
void size_format(uint64_t bytes, char *buf, size_t size);

#endif

#include "relay_tail.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void tail_init(struct tail *t, size_t size)
{
	*t = (struct tail){.buf = malloc(size), .size = size};
	if (!t->buf)
		t->error = errno ? errno : ENOMEM;
}

void tail_add(struct tail *t, const char *bytes, size_t n)
{
	t->total += n;
	if (!t->buf)
		return;
	if (n >= t->size) { /* only its end is kept */
		memcpy(t->buf, bytes + (n - t->size), t->size);
		t->start = 0;
		t->len = t->size;
		return;
	}
	size_t at = (t->start + t->len) % t->size; /* where the next byte goes */
	size_t first = n < t->size - at ? n : t->size - at;
	memcpy(t->buf + at, bytes, first);
	memcpy(t->buf, bytes + first, n - first);
	if (t->len + n <= t->size) {
		t->len += n;
	} else {
		t->start = (t->start + t->len + n) % t->size; /* the oldest were written over */
		t->len = t->size;
	}
}

void tail_pieces(const struct tail *t, const char **first, size_t *first_len,
                 const char **second, size_t *second_len)
{
	size_t n = t->len < t->size - t->start ? t->len : t->size - t->start;
	*first = t->buf ? t->buf + t->start : "";
	*first_len = t->buf ? n : 0;
	*second = t->buf ? t->buf : "";
	*second_len = t->buf ? t->len - n : 0;
}

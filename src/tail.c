#include "tail.h"

#include <stdlib.h>
#include <string.h>

bool tail_init(struct tail *t, size_t size)
{
	*t = (struct tail){.buf = malloc(size), .size = size};
	return t->buf != NULL;
}

void tail_add(struct tail *t, const char *bytes, size_t n)
{
	t->total += n;
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

void tail_copy(const struct tail *t, char *out)
{
	size_t first = t->len < t->size - t->start ? t->len : t->size - t->start;
	memcpy(out, t->buf + t->start, first);
	memcpy(out + first, t->buf, t->len - first);
}

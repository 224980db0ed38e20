#include "relay_lines.h"

#include <string.h>

bool lines_add(struct lines *q, const char *text, size_t len, uint64_t after)
{
	if (q->n == 0)
		q->head = q->used = q->first = 0;
	if (q->n == LINES_MAX || len > LINES_ROOM - q->used)
		return false;
	/* The lines are kept in order of their places (a place is never before the last's). */
	if (q->n && after < q->line[(q->first + q->n - 1) % LINES_MAX].after)
		after = q->line[(q->first + q->n - 1) % LINES_MAX].after;
	memcpy(q->text + q->used, text, len);
	q->used += len;
	q->line[(q->first + q->n) % LINES_MAX].end = q->used;
	q->line[(q->first + q->n) % LINES_MAX].after = after;
	q->n++;
	return true;
}

bool lines_waiting(const struct lines *q)
{
	return q->n > 0;
}

uint64_t lines_after(const struct lines *q)
{
	return q->n ? q->line[q->first].after : UINT64_MAX;
}

const char *lines_due(const struct lines *q, uint64_t sent, size_t *len)
{
	if (q->n == 0 || sent < q->line[q->first].after)
		return NULL;
	*len = q->line[q->first].end - q->head;
	return q->text + q->head;
}

void lines_done(struct lines *q, size_t n)
{
	if (q->n == 0)
		return;
	size_t end = q->line[q->first].end;
	q->head = n < end - q->head ? q->head + n : end;
	if (q->head == end) {
		q->first = (q->first + 1) % LINES_MAX;
		q->n--;
	}
}

void lines_clear(struct lines *q)
{
	q->n = q->head = q->used = q->first = 0;
}

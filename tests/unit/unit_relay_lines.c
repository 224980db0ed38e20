/* The queue of runlimit's own lines (relay_lines.h): each comes out whole, in order, and only
 * once the command's bytes before it are written out; a full queue refuses, never cuts. */
#include <string.h>

#include "relay_lines.h"
#include "unit.h"

static int due_is(const struct lines *q, uint64_t sent, const char *want)
{
	size_t len = 0;
	const char *got = lines_due(q, sent, &len);
	if (!want)
		return got == NULL;
	return got && len == strlen(want) && memcmp(got, want, len) == 0;
}

void test_lines(void)
{
	static struct lines q;
	lines_clear(&q);
	check(!lines_waiting(&q) && lines_after(&q) == UINT64_MAX, "lines: empty", "");
	check(lines_add(&q, "one\n", 4, 10) && lines_add(&q, "two\n", 4, 25), "lines: add", "");
	check(lines_after(&q) == 10, "lines: the first place", "");
	check(due_is(&q, 9, NULL), "lines: not before its place", "a line came out early");
	check(due_is(&q, 10, "one\n"), "lines: at its place", "");
	lines_done(&q, 2);
	check(due_is(&q, 10, "e\n"), "lines: a part written, the rest due", "");
	lines_done(&q, 2);
	check(due_is(&q, 24, NULL) && due_is(&q, 25, "two\n"), "lines: the second at its place", "");
	lines_done(&q, 100);
	check(!lines_waiting(&q), "lines: all written", "");
	/* A place before the last line's is moved up: the order of the lines is kept. */
	lines_add(&q, "a\n", 2, 50);
	lines_add(&q, "b\n", 2, 40);
	check(lines_after(&q) == 50, "lines: first", "");
	lines_done(&q, 2);
	check(lines_after(&q) == 50, "lines: order kept", "a later line got an earlier place");
	lines_clear(&q);
	/* Full: by room, and by count; what was queued stays whole. */
	char big[LINES_ROOM];
	memset(big, 'x', sizeof big);
	check(lines_add(&q, big, LINES_ROOM - 1, 0) && !lines_add(&q, "yz", 2, 0),
	      "lines: no room", "a line that does not fit was queued");
	lines_clear(&q);
	int added = 0;
	while (lines_add(&q, "l\n", 2, 0))
		added++;
	check(added == LINES_MAX, "lines: at most LINES_MAX lines", "");
	/* Emptied, the room is whole again. */
	while (lines_waiting(&q))
		lines_done(&q, 2);
	check(lines_add(&q, big, LINES_ROOM, 0), "lines: room back once empty", "");
}

#include "nested_deadline.h"

#include <stdio.h>

#define NS ((int64_t)1000000000)

bool deadline_parse(const char *s, int64_t *wall)
{
	const char *p = s;
	int64_t secs = 0;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (secs > INT64_MAX / NS)
			return false;
		secs = secs * 10 + (*p - '0');
	}
	if (secs > INT64_MAX / NS)
		return false;
	int64_t frac = 0, unit = NS;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (unit > 1) {
				unit /= 10;
				frac += (*p - '0') * unit;
			}
	if (*p != '\0' || frac > INT64_MAX - secs * NS)
		return false;
	*wall = secs * NS + frac;
	return true;
}

void deadline_format(int64_t wall, char *buf, size_t size)
{
	if (wall < 0)
		wall = 0;
	snprintf(buf, size, "%lld.%03d", (long long)(wall / NS), (int)(wall % NS / 1000000));
}

/* a + b, saturating at both ends. */
static int64_t add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/* a - b for b >= 0, or a difference of two times of one clock, saturating. */
static int64_t sub(int64_t a, int64_t b)
{
	if (b < 0)
		return add(a, b == INT64_MIN ? INT64_MAX : -b);
	return a < INT64_MIN + b ? INT64_MIN : a - b;
}

int64_t deadline_on_clock(int64_t wall, int64_t lead, int64_t wall_now, int64_t now)
{
	int64_t at = sub(add(now, sub(wall, wall_now)), lead);
	return at == INT64_MAX ? INT64_MAX - 1 : at;
}

int64_t deadline_on_wall(int64_t at, int64_t now, int64_t wall_now)
{
	int64_t wall = add(wall_now, sub(at, now));
	return wall < 0 ? 0 : wall;
}

bool deadline_left_text(int64_t left, char *buf, size_t size)
{
	int64_t tenths = left / (NS / 10);
	if (tenths <= 0)
		return false;
	snprintf(buf, size, "%lld.%d", (long long)(tenths / 10), (int)(tenths % 10));
	return true;
}

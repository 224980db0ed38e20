#include "size.h"

#include <stdio.h>
#include <string.h>

/* The unit a suffix letter names, as a power of 1024 (0: not one). */
static int power_of(char c)
{
	switch (c) {
	case 'K': case 'k': return 1;
	case 'M': case 'm': return 2;
	case 'G': case 'g': return 3;
	case 'T': case 't': return 4;
	default: return 0;
	}
}

bool size_parse(const char *s, uint64_t *bytes)
{
	/* In integers throughout: a double cannot hold every byte count up to 2^64, and the
	 * locale's decimal point is no business of a size. */
	uint64_t whole = 0, num = 0, den = 1;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		/* Up to 9 digits of fraction count (a nanobyte is fine enough); more are read and
		 * taken as rounding up, if any is not 0. */
		bool more = false;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (den < 1000000000) {
				num = num * 10 + (uint64_t)(*p - '0');
				den *= 10;
			} else if (*p != '0') {
				more = true;
			}
		}
		if (more)
			num++;
	}
	int power = power_of(*p);
	if (power) {
		p++;
		if (strcmp(p, "B") == 0)
			p++;
		else if (strcmp(p, "iB") == 0)
			p += 2;
	}
	if (*p)
		return false;
	uint64_t unit = (uint64_t)1 << (10 * power);
	if (whole > UINT64_MAX / unit)
		return false;
	uint64_t total = whole * unit;
	/* The fraction of a unit: num/den of unit, rounded up.  den <= 1e9 and unit <= 2^40: the
	 * product could overflow, so in two steps. */
	uint64_t part = num ? unit / den * num + (unit % den * num + den - 1) / den : 0;
	if (total > UINT64_MAX - part)
		return false;
	total += part;
	if (total == 0 || total > SIZE_LIMIT)
		return false;
	*bytes = total;
	return true;
}

void size_format(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	int power = 0;
	while (power < 4 && bytes >= (uint64_t)1 << (10 * (power + 1)))
		power++;
	if (power == 0) {
		snprintf(buf, size, "%llu", (unsigned long long)bytes);
		return;
	}
	uint64_t unit = (uint64_t)1 << (10 * power);
	uint64_t whole = bytes / unit, rest = bytes % unit;
	/* Tenths, rounded up; none where the count is large or whole. */
	uint64_t tenths = (rest / (unit / 1024) * 10 + 1023) / 1024;
	if (rest && tenths == 0)
		tenths = 1;
	if (tenths >= 10) {
		whole++;
		tenths = 0;
	}
	if (tenths && whole < 100)
		snprintf(buf, size, "%llu.%llu%c", (unsigned long long)whole,
		         (unsigned long long)tenths, units[power - 1]);
	else
		snprintf(buf, size, "%llu%c", (unsigned long long)(whole + (tenths ? 1 : 0)),
		         units[power - 1]);
}

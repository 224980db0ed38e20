#include "duration.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A unit letter, alone at the end of a duration. */
static bool is_unit(const char *s)
{
	return s[0] != '\0' && strchr("smhd", s[0]) != NULL && s[1] == '\0';
}

/* strtod in the C locale (runlimit never calls setlocale for anything else), and, only when
 * that stops short of the end or of a unit, in the user's LC_NUMERIC too, keeping the longer
 * reading: "0,5" works in a German locale and "0.5" works everywhere.  The locale is loaded
 * only on that path, so that "5m" never pays for it (docs/performance.md, Start-up). */
static double parse_number(const char *s, char **end, int *err)
{
	errno = 0;
	double d = strtod(s, end);
	*err = errno;
	if (**end == '\0' || (*end > s && is_unit(*end)))
		return d;

	const char *saved = setlocale(LC_NUMERIC, NULL);
	char c_name[64] = "C";
	if (saved && strlen(saved) < sizeof c_name)
		strcpy(c_name, saved);
	if (setlocale(LC_NUMERIC, "") != NULL) {
		char *lend;
		errno = 0;
		double ld = strtod(s, &lend);
		int lerr = errno;
		if (lend > *end) {
			d = ld;
			*end = lend;
			*err = lerr;
		}
		setlocale(LC_NUMERIC, c_name);
	}
	return d;
}

bool duration_parse(const char *s, int64_t *ns)
{
	char *end;
	int err;
	double d = parse_number(s, &end, &err);
	if (end == s)
		return false;
	/* An underflow to zero is still a positive (or negative) request: keep its sign and make
	 * it the smallest value, so "1e-10000" times out and " -1e-10000" is rejected. */
	if (err == ERANGE && d == 0)
		d = signbit(d) ? -DBL_TRUE_MIN : DBL_TRUE_MIN;
	if (!(d >= 0)) /* negative, or NaN */
		return false;

	double mult = 1;
	if (*end) {
		if (end[1])
			return false;
		switch (*end) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: return false;
		}
	}
	double secs = d * mult;
	if (secs == 0) {
		*ns = 0;
		return true;
	}
	/* 2^63 ns is about 292 years: anything at or past it is "never". */
	if (!(secs < 9223372035.0)) {
		*ns = DURATION_MAX;
		return true;
	}
	double whole = floor(secs);
	double frac = ceil((secs - whole) * 1e9);
	int64_t total = (int64_t)whole * 1000000000 + (int64_t)frac;
	*ns = total > 0 ? total : 1;
	return true;
}

/* The nproc policy (nproc.h): OpenMP variables, --ignore numbers, and how the probes combine,
 * with made-up probes so that every case is the same on any machine. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nproc.h"
#include "unit.h"

static void omp_is(const char *s, unsigned long want)
{
	char what[128], detail[96];
	unsigned long got = omp_parse(s);
	snprintf(what, sizeof what, "omp_parse(\"%s\")", s ? s : "(null)");
	snprintf(detail, sizeof detail, "got %lu, want %lu", got, want);
	check(got == want, what, detail);
}

static void ignore_is(const char *s, int ok, unsigned long want)
{
	char what[128], detail[96];
	unsigned long got = 12345;
	int parsed = ignore_parse(s, &got);
	snprintf(what, sizeof what, "ignore_parse(\"%s\")", s);
	snprintf(detail, sizeof detail, "parsed %d (want %d), got %lu, want %lu", parsed, ok,
		got, want);
	check(parsed == ok && (!ok || got == want), what, detail);
}

/* Made-up probes, counting their calls. */
static unsigned long fake_available_n = 8, fake_installed_n = 16, fake_quota_n = ULONG_MAX;
static int quota_calls, available_calls, installed_calls;
static unsigned long fake_available(void) { available_calls++; return fake_available_n; }
static unsigned long fake_installed(void) { installed_calls++; return fake_installed_n; }
static unsigned long fake_quota(void) { quota_calls++; return fake_quota_n; }
static const struct ncpu_probes fake = {fake_available, fake_installed, fake_quota};

static void count_is(bool all, const char *threads, const char *limit, unsigned long want)
{
	char what[160], detail[96];
	unsigned long got = nproc_count(all, threads, limit, &fake);
	snprintf(what, sizeof what, "nproc_count(%s, OMP_NUM_THREADS=%s, OMP_THREAD_LIMIT=%s) "
		"with available %lu, installed %lu, quota %lu", all ? "--all" : "current",
		threads ? threads : "unset", limit ? limit : "unset", fake_available_n,
		fake_installed_n, fake_quota_n);
	snprintf(detail, sizeof detail, "got %lu, want %lu", got, want);
	check(got == want, what, detail);
}

void test_nproc(void)
{
	/* GNU's parse_omp rules: the first value of a list, digits first, blanks around. */
	omp_is(NULL, 0);
	omp_is("", 0);
	omp_is("5", 5);
	omp_is("  5  ", 5);
	omp_is("\t7\n", 7);
	omp_is("5,2", 5);
	omp_is("2,2,1", 2);
	omp_is("5 ,2", 5);
	omp_is("2bad", 0);
	omp_is("5x", 0);
	omp_is("+3", 0);
	omp_is("-3", 0);
	omp_is("0", 0);
	omp_is(",3", 0);
	omp_is("007", 7);
	omp_is("18446744073709551615", ULONG_MAX);
	omp_is("99999999999999999999999", ULONG_MAX);

	/* --ignore=N, as GNU nproc 9.6+: huge values clamp, no minus, nothing after. */
	ignore_is("0", 1, 0);
	ignore_is("1", 1, 1);
	ignore_is(" 1", 1, 1);
	ignore_is("+1", 1, 1);
	ignore_is("01", 1, 1);
	ignore_is("99999999999999999999999", 1, ULONG_MAX);
	ignore_is("", 0, 0);
	ignore_is("-1", 0, 0);
	ignore_is("-0", 0, 0);
	ignore_is("1 ", 0, 0);
	ignore_is("0x1", 0, 0);
	ignore_is("1k", 0, 0);
	ignore_is("+", 0, 0);
	ignore_is("abc", 0, 0);

	/* GNU's table: OMP_NUM_THREADS overrides the processors (even upwards), capped by the
	 * limit; a bad or zero value falls through to the processors; --all ignores both. */
	count_is(false, NULL, NULL, 8);
	count_is(false, "2,2,1", NULL, 2);
	count_is(false, "2bad", NULL, 8);
	count_is(false, "1000", NULL, 1000);
	count_is(false, "2,2,1", "1", 1);
	count_is(false, "7", "3", 3);
	count_is(false, NULL, "1", 1);
	count_is(false, NULL, "3", 3);
	count_is(false, NULL, "0", 8);
	count_is(false, "0", NULL, 8);
	count_is(false, "99999999999999999999999", NULL, ULONG_MAX);
	count_is(false, "99999999999999999999999", "99999999999999999999999", ULONG_MAX);
	count_is(true, "7", "3", 16);
	count_is(true, NULL, "1", 16);

	/* The quota narrows the current count only, and never below 1. */
	fake_quota_n = 2;
	count_is(false, NULL, NULL, 2);
	count_is(false, NULL, "1", 1);
	count_is(false, "6", NULL, 6);
	count_is(true, NULL, NULL, 16);
	fake_quota_n = 1;
	count_is(false, NULL, NULL, 1);
	fake_quota_n = 50;
	count_is(false, NULL, NULL, 8);

	/* Unknown counts (0) mean 1, never 0. */
	fake_quota_n = ULONG_MAX;
	fake_available_n = 0;
	fake_installed_n = 0;
	count_is(false, NULL, NULL, 1);
	count_is(true, NULL, NULL, 1);
	fake_available_n = 8;
	fake_installed_n = 16;

	/* No probe is consulted when its answer cannot matter. */
	quota_calls = available_calls = installed_calls = 0;
	(void)nproc_count(false, "4", NULL, &fake);
	check(quota_calls == 0 && available_calls == 0 && installed_calls == 0,
		"OMP_NUM_THREADS set: no probe read", NULL);
	(void)nproc_count(true, NULL, NULL, &fake);
	check(quota_calls == 0 && available_calls == 0 && installed_calls == 1,
		"--all: only the installed count read", NULL);
	(void)nproc_count(false, NULL, "1", &fake);
	check(quota_calls == 0 && available_calls == 0, "OMP_THREAD_LIMIT=1: no probe read",
		NULL);
}

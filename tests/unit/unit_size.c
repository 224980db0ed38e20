/* Sizes as --memory reads them and -v says them (size.h): what is read, what is refused, and
 * that a size written never reads as less than it is. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "size.h"
#include "unit.h"

static void parse_ok(const char *s, uint64_t want)
{
	char what[96], detail[128];
	uint64_t got = 42;
	bool ok = size_parse(s, &got);
	snprintf(what, sizeof what, "size_parse(\"%s\")", s);
	snprintf(detail, sizeof detail, "%s, got %" PRIu64 ", want %" PRIu64,
	         ok ? "accepted" : "rejected", got, want);
	check(ok && got == want, what, detail);
}

static void parse_bad(const char *s)
{
	char what[96];
	uint64_t got = 42;
	snprintf(what, sizeof what, "size_parse(\"%s\") is refused", s);
	check(!size_parse(s, &got) && got == 42, what, NULL);
}

static void format_is(uint64_t bytes, const char *want)
{
	char buf[16], what[96];
	size_format(bytes, buf, sizeof buf);
	snprintf(what, sizeof what, "size_format(%" PRIu64 ")", bytes);
	check(strcmp(buf, want) == 0, what, buf);
}

void test_size(void)
{
	const uint64_t K = 1024, M = K * K, G = M * K, T = G * K;
	parse_ok("1", 1);
	parse_ok("4096", 4096);
	parse_ok("64K", 64 * K);
	parse_ok("64k", 64 * K);
	parse_ok("150M", 150 * M);
	parse_ok("2G", 2 * G);
	parse_ok("2GiB", 2 * G);
	parse_ok("2GB", 2 * G);
	parse_ok("1T", T);
	parse_ok("1.5G", G + G / 2);
	parse_ok("0.5K", 512);
	parse_ok("0.1", 1);            /* a fraction of a byte rounds up */
	parse_ok("1.0000000001K", 1025); /* digits past the ninth still round up */
	parse_ok("8388607T", 8388607 * T);
	parse_ok("9223372036854775807", (uint64_t)INT64_MAX);
	parse_bad("");
	parse_bad("0");
	parse_bad("0.0M");
	parse_bad("K");
	parse_bad("-1");
	parse_bad("+1");
	parse_bad(" 1");
	parse_bad("1 ");
	parse_bad("1.");
	parse_bad(".5");
	parse_bad("1.5.0");
	parse_bad("12X");
	parse_bad("1KK");
	parse_bad("1Ki");
	parse_bad("1e6");
	parse_bad("8388608T");            /* 2^63: past SIZE_LIMIT */
	parse_bad("9223372036854775808");
	parse_bad("99999999999999999999");
	parse_bad("99999999T");
	format_is(0, "0");
	format_is(1023, "1023");
	format_is(K, "1K");
	format_is(K + 1, "1.1K");     /* up, never down to the limit */
	format_is(150 * M, "150M");
	format_is(150 * M + 1, "151M");
	format_is(2 * G, "2G");
	format_is(2 * G + 300 * M, "2.3G");
	format_is(2 * G - 1, "2G");   /* 1.99999... up to 2.0 */
	format_is(T, "1T");
	format_is(1024 * T, "1024T");
}

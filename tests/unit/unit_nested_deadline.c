/* RUNLIMIT_DEADLINE's text and arithmetic (nested_deadline.h): what is read, what is refused, what
 * is written, and the conversions between the wall clock and the deadline clock at their
 * limits. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nested_deadline.h"
#include "unit.h"

#define NS INT64_C(1000000000)

static void parse_ok(const char *s, int64_t want)
{
	char what[128], detail[128];
	int64_t got = -42;
	bool ok = deadline_parse(s, &got);
	snprintf(what, sizeof what, "deadline_parse(\"%s\")", s);
	snprintf(detail, sizeof detail, "%s, got %" PRId64 ", want %" PRId64,
	         ok ? "accepted" : "rejected", got, want);
	check(ok && got == want, what, detail);
}

static void parse_bad(const char *s)
{
	char what[128];
	int64_t got = -42;
	snprintf(what, sizeof what, "deadline_parse(\"%s\") is refused", s);
	check(!deadline_parse(s, &got) && got == -42, what, NULL);
}

static void format_is(int64_t wall, const char *want)
{
	char buf[DEADLINE_TEXT], what[96];
	deadline_format(wall, buf, sizeof buf);
	snprintf(what, sizeof what, "deadline_format(%" PRId64 ")", wall);
	check(strcmp(buf, want) == 0, what, buf);
}

static void left_is(int64_t left, const char *want) /* NULL: none */
{
	char buf[DEADLINE_TEXT] = "", what[96];
	bool ok = deadline_left_text(left, buf, sizeof buf);
	snprintf(what, sizeof what, "deadline_left_text(%" PRId64 ")", left);
	check(want ? ok && strcmp(buf, want) == 0 : !ok, what, ok ? buf : "none");
}

static void int_is(int64_t got, int64_t want, const char *what)
{
	char detail[96];
	snprintf(detail, sizeof detail, "got %" PRId64 ", want %" PRId64, got, want);
	check(got == want, what, detail);
}

void test_deadline(void)
{
	parse_ok("1764662400.250", 1764662400 * NS + 250000000);
	parse_ok("1764662400", 1764662400 * NS);
	parse_ok("1764662400.", 1764662400 * NS);
	parse_ok("0", 0);
	parse_ok("0.000000001", 1);
	parse_ok("1.1234567899", NS + 123456789); /* past the ninth decimal: dropped */
	parse_ok("0001.5", NS + 500000000);
	parse_ok("9223372036.854775807", INT64_MAX);
	parse_bad("9223372036.854775808");
	parse_bad("9223372037");
	parse_bad("99999999999999999999999");
	parse_bad("");
	parse_bad(".5");
	parse_bad("-1");
	parse_bad("+1");
	parse_bad(" 1");
	parse_bad("1 ");
	parse_bad("1e9");
	parse_bad("1,5");
	parse_bad("0x10");
	parse_bad("1.2.3");
	parse_bad("soon");

	format_is(1764662400 * NS + 250999999, "1764662400.250");
	format_is(0, "0.000");
	format_is(-5, "0.000");
	format_is(INT64_MAX, "9223372036.854");
	/* What is written is read back as the same time, to the millisecond. */
	char buf[DEADLINE_TEXT];
	int64_t back = 0;
	deadline_format(1764662400 * NS + 7000000, buf, sizeof buf);
	check(deadline_parse(buf, &back) && back == 1764662400 * NS + 7000000,
	      "deadline_format is read back by deadline_parse", buf);

	/* wall 1000 s, clock 50 s: a wall deadline of 1010 s less 3 s is 57 s on the clock. */
	int_is(deadline_on_clock(1010 * NS, 3 * NS, 1000 * NS, 50 * NS), 57 * NS,
	       "deadline_on_clock: now + (wall - wall_now) - lead");
	int_is(deadline_on_clock(990 * NS, 0, 1000 * NS, 50 * NS), 40 * NS,
	       "deadline_on_clock: a deadline that has passed is in the clock's past");
	int_is(deadline_on_clock(INT64_MAX, 0, 0, INT64_MAX / 2), INT64_MAX - 1,
	       "deadline_on_clock saturates below INT64_MAX");
	int_is(deadline_on_clock(0, INT64_MAX, INT64_MAX, 0), INT64_MIN,
	       "deadline_on_clock saturates at INT64_MIN");
	int_is(deadline_on_wall(57 * NS, 50 * NS, 1000 * NS), 1007 * NS,
	       "deadline_on_wall: wall_now + (at - now)");
	int_is(deadline_on_wall(INT64_MAX - 1, 0, 1000 * NS), INT64_MAX,
	       "deadline_on_wall saturates at INT64_MAX");
	int_is(deadline_on_wall(0, 50 * NS, 10 * NS), 0, "deadline_on_wall stays at 0 or after");
	/* There and back is the same time. */
	int64_t at = deadline_on_clock(1764662400 * NS, 0, 1764662000 * NS, 123 * NS);
	int_is(deadline_on_wall(at, 123 * NS, 1764662000 * NS), 1764662400 * NS,
	       "deadline_on_wall undoes deadline_on_clock");

	left_is(57 * NS + 399999999, "57.3");
	left_is(NS / 10, "0.1");
	left_is(NS / 10 - 1, NULL);
	left_is(0, NULL);
	left_is(-NS, NULL);
	left_is(INT64_MAX, "9223372036.8");
}

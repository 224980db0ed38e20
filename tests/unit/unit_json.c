/* The run report's JSON writer (json.h): escapes, UTF-8 validation at every boundary,
 * numbers, and the commas of nested objects and arrays.  The bats tests parse whole reports
 * with a real JSON parser; these pin the exact text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "unit.h"

/* len bytes at s as a JSON string (NUL bytes included), and its text between the quotes,
 * copied into got; whether the writer says it is exactly the bytes. */
static bool escape(const char *s, size_t len, char *got, size_t size, bool *failed)
{
	struct json j;
	json_init(&j);
	bool exact = json_bytes(&j, s, len);
	*failed = j.failed || !j.buf || j.len < 2 || j.buf[0] != '"' || j.buf[j.len - 1] != '"';
	snprintf(got, size, "%.*s", *failed ? 0 : (int)j.len - 2, *failed ? "" : j.buf + 1);
	json_free(&j);
	return exact;
}

/* The escaped form of s (without quotes). */
static void escaped(const char *s, const char *want, const char *what)
{
	char got[512], detail[1200];
	bool failed;
	escape(s, strlen(s), got, sizeof got, &failed);
	snprintf(detail, sizeof detail, "got [%s], want [%s]", got, want);
	check(!failed && strcmp(got, want) == 0, what, detail);
}

/* Is the text valid UTF-8 with no raw control character (what any JSON parser accepts
 * inside a string)? */
static int clean(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c < 0x20 || c == 0x7F)
			return 0;
		size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
		           : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
		if (len == 0 || i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++)
			if ((p[i + k] & 0xC0) != 0x80)
				return 0;
		i += len;
	}
	return 1;
}

/* The escaped form of len bytes at s, NUL bytes included. */
static void escaped_bytes(const char *s, size_t len, const char *want, const char *what)
{
	char got[512], detail[1200];
	bool failed;
	escape(s, len, got, sizeof got, &failed);
	snprintf(detail, sizeof detail, "got [%s], want [%s]", got, want);
	check(!failed && strcmp(got, want) == 0, what, detail);
}

/* The replacement character, as a C string. */
#define R "\xef\xbf\xbd"

/* The escaped form of s, and whether the writer says it is exactly the bytes. */
static void replaced(const char *s, size_t len, const char *want, bool exact, const char *what)
{
	char got[512], detail[1200];
	bool failed;
	bool got_exact = escape(s, len, got, sizeof got, &failed);
	snprintf(detail, sizeof detail, "got [%s] exact %d, want [%s] exact %d", got, got_exact,
	         want, exact);
	check(!failed && strcmp(got, want) == 0 && got_exact == exact, what, detail);
}

/* s given in two pieces, split at every point, and in three around each middle byte: the
 * same string as s whole (cut: as the end of a longer text). */
static void pieces_agree(const char *s, size_t len, bool cut, const char *what)
{
	struct json whole;
	json_init(&whole);
	struct json_text t;
	json_text_open(&whole, &t, cut);
	json_text_add(&whole, &t, s, len);
	bool exact = json_text_close(&whole, &t);
	int ok = !whole.failed;
	for (size_t a = 0; a <= len && ok; a++) {
		for (size_t b = a; b <= len && ok; b++) {
			struct json j;
			json_init(&j);
			json_text_open(&j, &t, cut);
			json_text_add(&j, &t, s, a);
			json_text_add(&j, &t, s + a, b - a);
			json_text_add(&j, &t, s + b, len - b);
			ok = json_text_close(&j, &t) == exact && !j.failed && j.len == whole.len &&
			     memcmp(j.buf, whole.buf, j.len) == 0;
			json_free(&j);
		}
	}
	check(ok, what, whole.buf);
	json_free(&whole);
}

/* The base64 of len bytes at s, given whole and in pieces split at every point. */
static void base64_is(const char *s, size_t len, const char *want, const char *what)
{
	char quoted[256];
	snprintf(quoted, sizeof quoted, "\"%s\"", want);
	int ok = 1;
	for (size_t a = 0; a <= len && ok; a++) {
		for (size_t b = a; b <= len && ok; b++) {
			struct json j;
			struct json_base64 b64;
			json_init(&j);
			json_base64_open(&j, &b64);
			json_base64_add(&j, &b64, s, a);
			json_base64_add(&j, &b64, s + a, b - a);
			json_base64_add(&j, &b64, s + b, len - b);
			json_base64_close(&j, &b64);
			ok = !j.failed && j.buf && strcmp(j.buf, quoted) == 0;
			json_free(&j);
		}
	}
	check(ok, what, want);
}

/* A sink that keeps what it is given, and counts the pieces. */
struct kept {
	char *text;
	size_t len, pieces, fail_after;
};

static bool keep(void *ctx, const char *text, size_t len)
{
	struct kept *k = ctx;
	if (k->fail_after && k->pieces == k->fail_after)
		return false;
	char *grown = realloc(k->text, k->len + len + 1);
	if (!grown)
		return false;
	memcpy(grown + k->len, text, len);
	k->text = grown;
	k->len += len;
	k->text[k->len] = '\0';
	k->pieces++;
	return true;
}

/* A report-like text of n bytes of string through a sink (storage of 16 bytes, hold): the
 * same text as in memory; how many pieces it took. */
static size_t through_sink(size_t n, size_t hold, size_t fail_after, bool *ok)
{
	char *s = malloc(n + 1);
	if (!s) {
		*ok = false;
		return 0;
	}
	for (size_t k = 0; k < n; k++)
		s[k] = k % 7 == 3 ? '\n' : (char)('a' + k % 26); /* escapes: the text grows */
	char storage[16];
	struct kept k = {NULL, 0, 0, fail_after};
	struct json j, mem;
	json_init_sink(&j, keep, &k, storage, sizeof storage, hold);
	json_init(&mem);
	struct json *both[2] = {&j, &mem};
	for (int w = 0; w < 2; w++) {
		json_open(both[w], '{');
		json_key(both[w], "text");
		json_bytes(both[w], s, n);
		json_close(both[w], '}');
		json_raw(both[w], "\n");
	}
	bool finished = json_finish(&j);
	*ok = fail_after ? !finished && k.len < mem.len
	                 : finished && !mem.failed && k.len == mem.len && memcmp(k.text, mem.buf, k.len) == 0;
	json_free(&j);
	json_free(&mem);
	free(k.text);
	free(s);
	return k.pieces;
}

void test_json(void)
{
	escaped_bytes("a\0b", 3, "a\\u0000b", "json: bytes: a NUL inside is escaped, not an end");
	escaped_bytes("ab\xe2\x82", 4, "ab" R,
	              "json: bytes: a sequence cut by the end is one U+FFFD, not read past");
	escaped_bytes("\xe2\x82\xac", 3, "\xe2\x82\xac", "json: bytes: a whole one at the end kept");
	escaped("plain text", "plain text", "json: plain ASCII as is");
	escaped("", "", "json: empty string");
	escaped("a\"b\\c", "a\\\"b\\\\c", "json: quote and backslash escaped");
	escaped("\b\f\n\r\t", "\\b\\f\\n\\r\\t", "json: the short escapes");
	escaped("\x01\x1f\x7f", "\\u0001\\u001f\\u007f", "json: other controls and DEL as \\u00XX");
	escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	        "json: valid 2-, 3- and 4-byte UTF-8 kept raw");
	escaped("\xc2\x80\xdf\xbf", "\xc2\x80\xdf\xbf", "json: the 2-byte range ends");
	escaped("\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\xef\xbf\xbf\xf4\x8f\xbf\xbf",
	        "json: U+FFFF and U+10FFFF kept");
	/* What is not UTF-8: one U+FFFD per maximal subpart (what Python's errors="replace"
	 * gives), never a lone surrogate escape. */
	escaped("a\xffz", "a" R "z", "json: a stray byte as U+FFFD");
	escaped("\x80", R, "json: a lone continuation byte");
	escaped("\xc0\x80", R R, "json: overlong NUL refused byte by byte");
	escaped("\xc1\xbf", R R, "json: overlong 2-byte refused");
	escaped("\xe0\x80\x80", R R R, "json: overlong 3-byte refused");
	escaped("\xf0\x80\x80\x80", R R R R, "json: overlong 4-byte refused");
	escaped("\xed\xa0\x80", R R R, "json: an encoded surrogate refused");
	escaped("\xf4\x90\x80\x80", R R R R, "json: above U+10FFFF refused");
	escaped("\xf5\x80", R R, "json: F5 never starts a sequence");
	escaped("x\xe2\x82", "x" R, "json: a sequence cut short at the end: one U+FFFD");
	escaped("\xe2\x82z", R "z", "json: a sequence cut short by ASCII: one U+FFFD");
	escaped("\xf0\x9f\x98z\xf0\x9f", R "z" R, "json: 4-byte subparts, one U+FFFD each");
	escaped("\xe2\xe2\x82\xac", R "\xe2\x82\xac", "json: a new lead byte ends a subpart");
	escaped("\xc3\xa9\xc3", "\xc3\xa9" R, "json: valid, then a truncated one");
	replaced("caf\xc3\xa9\n\x01", 7, "caf\xc3\xa9\\n\\u0001", true,
	         "json: escapes keep the text exact");
	replaced("a\xff", 2, "a" R, false, "json: a replacement makes it inexact");
	replaced("a\xe2\x82", 3, "a" R, false, "json: a cut end makes it inexact");

	/* The end of a longer text: a character whose start was cut off is left out. */
	struct json cutj;
	struct json_text t;
	json_init(&cutj);
	json_text_open(&cutj, &t, true);
	json_text_add(&cutj, &t, "\x82\xac rest \xe2\x82\xac", 11);
	bool exact = json_text_close(&cutj, &t);
	check(!cutj.failed && strcmp(cutj.buf, "\" rest \xe2\x82\xac\"") == 0 && !exact,
	      "json: cut: the rest of a character cut off is left out", cutj.buf);
	json_free(&cutj);
	json_init(&cutj);
	json_text_open(&cutj, &t, true);
	json_text_add(&cutj, &t, "\x80\x80\x80\x80z", 5);
	json_text_close(&cutj, &t);
	check(!cutj.failed && strcmp(cutj.buf, "\"" R "z\"") == 0,
	      "json: cut: at most three bytes are left out, a fourth is U+FFFD", cutj.buf);
	json_free(&cutj);
	json_init(&cutj);
	json_text_open(&cutj, &t, true);
	json_text_add(&cutj, &t, "ok\x80", 3);
	exact = json_text_close(&cutj, &t);
	check(!cutj.failed && strcmp(cutj.buf, "\"ok" R "\"") == 0 && !exact,
	      "json: cut: only at the start", cutj.buf);
	json_free(&cutj);
	json_init(&cutj);
	json_text_open(&cutj, &t, true);
	json_text_add(&cutj, &t, "whole", 5);
	exact = json_text_close(&cutj, &t);
	check(!cutj.failed && strcmp(cutj.buf, "\"whole\"") == 0 && exact,
	      "json: cut: nothing to leave out, exact", cutj.buf);
	json_free(&cutj);

	/* Pieces cut anywhere, inside a character too: the same text. */
	static const char mixed[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff\xe2\x82z\n\"\xed\xa0\x80";
	pieces_agree(mixed, sizeof mixed - 1, false, "json: pieces: split anywhere, the same text");
	static const char cutoff[] = "\x98\x80\xc3\xa9 x \xf0\x9f";
	pieces_agree(cutoff, sizeof cutoff - 1, true, "json: pieces: cut, split anywhere, the same");

	base64_is("", 0, "", "json: base64: nothing");
	base64_is("f", 1, "Zg==", "json: base64: f");
	base64_is("fo", 2, "Zm8=", "json: base64: fo");
	base64_is("foo", 3, "Zm9v", "json: base64: foo");
	base64_is("foobar", 6, "Zm9vYmFy", "json: base64: foobar, in every split");
	base64_is("\0\xff\xfe\x80\x01", 5, "AP/+gAE=", "json: base64: NUL and high bytes");

	/* Through a sink: a text within the hold in one piece; a larger one in several, the
	 * same text; a sink that fails stops the writer, which says so. */
	bool ok;
	size_t n = through_sink(100, 4096, 0, &ok);
	check(ok && n == 1, "json: sink: a text within the hold goes in one piece", NULL);
	n = through_sink(100000, 4096, 0, &ok);
	check(ok && n > 10, "json: sink: a larger text in pieces, the same text", NULL);
	n = through_sink(100000, 0, 0, &ok);
	check(ok && n > 1000, "json: sink: no hold, a storage's worth at a time", NULL);
	through_sink(100000, 4096, 3, &ok);
	check(ok, "json: sink: a failing sink fails the writer", NULL);

	/* Every byte after every byte: the output is always clean for a parser. */
	int all_clean = 1;
	for (int a = 1; a < 256 && all_clean; a++) {
		for (int b = 1; b < 256 && all_clean; b++) {
			char in[4] = {(char)a, (char)b, 'z', 0};
			struct json j;
			json_init(&j);
			json_string(&j, in);
			all_clean = !j.failed && clean((const unsigned char *)j.buf, j.len);
			json_free(&j);
		}
	}
	check(all_clean, "json: every two-byte input escapes to clean UTF-8", NULL);

	/* Nor any surrogate escape, for any three bytes (a parser would read one back). */
	int no_surrogate = 1;
	for (int a = 0; a < 256 && no_surrogate; a++) {
		for (int b = 0; b < 256 && no_surrogate; b++) {
			for (int c = 0x80; c < 0xC0 && no_surrogate; c += 0x1F) {
				char in[3] = {(char)a, (char)b, (char)c};
				struct json j;
				json_init(&j);
				json_bytes(&j, in, 3);
				no_surrogate = !j.failed && (!j.buf || !strstr(j.buf, "\\ud"));
				json_free(&j);
			}
		}
	}
	check(no_surrogate, "json: no input gives a \\udXXX escape", NULL);

	struct json j;
	json_init(&j);
	json_open(&j, '{');
	json_key(&j, "a");
	json_int(&j, -5);
	json_key(&j, "list");
	json_open(&j, '[');
	json_string(&j, "x");
	json_null(&j);
	json_bool(&j, true);
	json_open(&j, '{');
	json_key(&j, "t");
	json_seconds(&j, 1250000000);
	json_close(&j, '}');
	json_open(&j, '[');
	json_close(&j, ']');
	json_close(&j, ']');
	json_key(&j, "b");
	json_seconds(&j, 999999);
	json_key(&j, "c");
	json_seconds(&j, -3);
	json_key(&j, "d");
	json_bool(&j, false);
	json_close(&j, '}');
	const char *want = "{\"a\":-5,\"list\":[\"x\",null,true,{\"t\":1.250000},[]],\"b\":0.001000,"
	                   "\"c\":0.000000,\"d\":false}";
	char detail[512];
	snprintf(detail, sizeof detail, "got %s", j.buf ? j.buf : "(nothing)");
	check(!j.failed && j.buf && strcmp(j.buf, want) == 0, "json: nested commas and numbers",
	      detail);
	json_free(&j);

	/* The members: null where the value is not had, never 0 or "". */
	json_init(&j);
	json_open(&j, '{');
	json_int_member(&j, "i", true, 7);
	json_int_member(&j, "j", false, 7);
	json_seconds_member(&j, "s", true, 500000);
	json_seconds_member(&j, "t", false, 1);
	json_string_member(&j, "u", "x");
	json_string_member(&j, "v", NULL);
	json_bool_member(&j, "w", false);
	static const char *const text[] = {"a", NULL}, *const bytes[] = {"a", "\xff", NULL};
	json_strings_member(&j, "x", "x64", text);
	json_strings_member(&j, "y", "y64", bytes);
	if (json_object_member(&j, "o", true)) {
		json_object_member(&j, "p", false);
		json_close(&j, '}');
	}
	json_close(&j, '}');
	want = "{\"i\":7,\"j\":null,\"s\":0.000500,\"t\":null,\"u\":\"x\",\"v\":null,"
	       "\"w\":false,\"x\":[\"a\"],\"x64\":null,\"y\":[\"a\",\"" R "\"],"
	       "\"y64\":[\"YQ==\",\"/w==\"],\"o\":{\"p\":null}}";
	snprintf(detail, sizeof detail, "got %s", j.buf ? j.buf : "(nothing)");
	check(!j.failed && j.buf && strcmp(j.buf, want) == 0, "json: members, null where not had",
	      detail);
	json_free(&j);

	/* "inf" parses to INT64_MAX nanoseconds: rounded without overflowing. */
	json_init(&j);
	json_seconds(&j, INT64_MAX);
	json_seconds(&j, 1499);
	json_seconds(&j, 1500);
	snprintf(detail, sizeof detail, "got %s", j.buf ? j.buf : "(nothing)");
	check(!j.failed && j.buf && strcmp(j.buf, "9223372036.854776,0.000001,0.000002") == 0,
	      "json: seconds round half up, INT64_MAX included", detail);
	json_free(&j);

	/* Wall-clock times: RFC 3339 in UTC, milliseconds truncated. */
	json_init(&j);
	json_time(&j, 0);
	json_time(&j, (int64_t)1796194862 * 1000000000 + 345999999);
	json_time(&j, (int64_t)951782400 * 1000000000 - 1); /* 2000-02-29 less 1 ns */
	json_time(&j, -5);
	snprintf(detail, sizeof detail, "got %s", j.buf ? j.buf : "(nothing)");
	check(!j.failed && j.buf && strcmp(j.buf, "\"1970-01-01T00:00:00.000Z\","
	      "\"2026-12-02T07:01:02.345Z\",\"2000-02-28T23:59:59.999Z\","
	      "\"1970-01-01T00:00:00.000Z\"") == 0, "json: times in RFC 3339, UTC, milliseconds",
	      detail);
	json_free(&j);

	/* Long text grows the buffer. */
	char *big = malloc(100001);
	if (big) {
		memset(big, 'q', 100000);
		big[100000] = '\0';
		json_init(&j);
		json_string(&j, big);
		check(!j.failed && j.len == 100002, "json: a 100,000-byte string", NULL);
		json_free(&j);
		free(big);
	}
}

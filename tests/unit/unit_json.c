/* The run report's JSON writer (json.h): escapes, UTF-8 validation at every boundary,
 * numbers, and the commas of nested objects and arrays.  The bats tests parse whole reports
 * with a real JSON parser; these pin the exact text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "unit.h"

/* The escaped form of s (without quotes). */
static void escaped(const char *s, const char *want, const char *what)
{
	struct json j;
	json_init(&j);
	json_escape(&j, s);
	const char *got = j.buf ? j.buf : "";
	char detail[512];
	snprintf(detail, sizeof detail, "got [%s], want [%s]", got, want);
	check(!j.failed && strcmp(got, want) == 0, what, detail);
	json_free(&j);
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
	struct json j;
	json_init(&j);
	json_escape_bytes(&j, s, len);
	const char *got = j.buf ? j.buf : "";
	char detail[512];
	snprintf(detail, sizeof detail, "got [%s], want [%s]", got, want);
	check(!j.failed && strcmp(got, want) == 0, what, detail);
	json_free(&j);
}

void test_json(void)
{
	escaped_bytes("a\0b", 3, "a\\u0000b", "json: bytes: a NUL inside is escaped, not an end");
	escaped_bytes("ab\xe2\x82", 4, "ab\\udce2\\udc82",
	              "json: bytes: a sequence cut by the end is stray bytes, not read past");
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
	escaped("a\xffz", "a\\udcffz", "json: a stray byte as a lone surrogate");
	escaped("\x80", "\\udc80", "json: a lone continuation byte");
	escaped("\xc0\x80", "\\udcc0\\udc80", "json: overlong NUL refused byte by byte");
	escaped("\xc1\xbf", "\\udcc1\\udcbf", "json: overlong 2-byte refused");
	escaped("\xe0\x80\x80", "\\udce0\\udc80\\udc80", "json: overlong 3-byte refused");
	escaped("\xf0\x80\x80\x80", "\\udcf0\\udc80\\udc80\\udc80", "json: overlong 4-byte refused");
	escaped("\xed\xa0\x80", "\\udced\\udca0\\udc80", "json: an encoded surrogate refused");
	escaped("\xf4\x90\x80\x80", "\\udcf4\\udc90\\udc80\\udc80", "json: above U+10FFFF refused");
	escaped("\xf5\x80", "\\udcf5\\udc80", "json: F5 never starts a sequence");
	escaped("x\xe2\x82", "x\\udce2\\udc82", "json: a sequence cut short at the end");
	escaped("\xe2\x82z", "\\udce2\\udc82z", "json: a sequence cut short by ASCII");
	escaped("\xc3\xa9\xc3", "\xc3\xa9\\udcc3", "json: valid, then a truncated one");

	/* Every byte after every byte: the output is always clean for a parser. */
	int all_clean = 1;
	for (int a = 1; a < 256 && all_clean; a++) {
		for (int b = 1; b < 256 && all_clean; b++) {
			char in[4] = {(char)a, (char)b, 'z', 0};
			struct json j;
			json_init(&j);
			json_escape(&j, in);
			all_clean = !j.failed && clean((const unsigned char *)j.buf, j.len);
			json_free(&j);
		}
	}
	check(all_clean, "json: every two-byte input escapes to clean UTF-8", NULL);

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

	/* "inf" parses to INT64_MAX nanoseconds: rounded without overflowing. */
	json_init(&j);
	json_seconds(&j, INT64_MAX);
	json_seconds(&j, 1499);
	json_seconds(&j, 1500);
	snprintf(detail, sizeof detail, "got %s", j.buf ? j.buf : "(nothing)");
	check(!j.failed && j.buf && strcmp(j.buf, "9223372036.854776,0.000001,0.000002") == 0,
	      "json: seconds round half up, INT64_MAX included", detail);
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

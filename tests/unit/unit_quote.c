/* Message quoting (quote.h) against what GNU coreutils 9.1 prints, e.g. for
 * `LC_ALL=C timeout "$(printf 'a\nb')" true`, in the C locale and in C.UTF-8.  The
 * UTF-8 cases are skipped, with a note, where that locale is missing. */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "quote.h"
#include "unit.h"

#define LQ "\xe2\x80\x98" /* U+2018 */
#define RQ "\xe2\x80\x99" /* U+2019 */

/* s for a report line: printable ASCII as is, anything else as \xHH, cut to fit. */
static const char *shown(const char *s, char *out, size_t size)
{
	size_t n = 0;
	if (!s)
		s = "(NULL)";
	for (; *s && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[n++] = (char)c;
		else
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
	}
	out[n] = '\0';
	return out;
}

static void quote_is(const char *where, const char *s, const char *want)
{
	char a[160], b[400], c[400], what[256], detail[900];
	const char *got = quote(s);
	snprintf(what, sizeof what, "%s: quote(\"%s\")", where, shown(s, a, sizeof a));
	snprintf(detail, sizeof detail, "got \"%s\", want \"%s\"", shown(got, b, sizeof b),
		shown(want, c, sizeof c));
	check(strcmp(got, want) == 0, what, detail);
}

static void quote_buf_is(const char *where, const char *s, size_t size, const char *want,
	size_t want_len)
{
	char buf[64], a[160], b[200], c[200], what[256], detail[600];
	memset(buf, 'X', sizeof buf);
	size_t len = quote_buf(buf, size, s);
	snprintf(what, sizeof what, "%s: quote_buf(size %zu, \"%s\")", where, size,
		shown(s, a, sizeof a));
	snprintf(detail, sizeof detail, "got \"%s\" (%zu), want \"%s\" (%zu)",
		shown(buf, b, sizeof b), len, shown(want, c, sizeof c), want_len);
	check(len == want_len && strcmp(buf, want) == 0 && buf[size] == 'X', what, detail);
}

static bool ctype_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

static bool set_utf8_locale(void)
{
	return (setlocale(LC_ALL, "C.UTF-8") || setlocale(LC_ALL, "C.utf8")) && ctype_is_utf8();
}

/* The first quote_locale_init takes the environment's locale and pins LC_NUMERIC to C; the
 * next ones do nothing.  Runs first, before anything calls quote(). */
static void test_init(void)
{
	bool have_utf8 = set_utf8_locale();
	setlocale(LC_ALL, "C");
	if (!have_utf8) {
		printf("note: no C.UTF-8 locale: quote_locale_init tested in C only\n");
		quote_locale_init();
		quote_is("init", "x", "'x'");
		return;
	}
	const char *env = getenv("LC_ALL");
	char saved_env[64];
	snprintf(saved_env, sizeof saved_env, "%s", env ? env : "");
	setenv("LC_ALL", "C.UTF-8", 1);

	errno = ERANGE;
	quote_locale_init();
	check(errno == ERANGE, "quote_locale_init keeps errno", NULL);
	check(ctype_is_utf8(), "quote_locale_init loads LC_ALL from the environment",
		setlocale(LC_CTYPE, NULL));
	const char *num = setlocale(LC_NUMERIC, NULL);
	check(num && strcmp(num, "C") == 0, "quote_locale_init leaves LC_NUMERIC at C", num);
	quote_is("init, LC_ALL=C.UTF-8", "x", LQ "x" RQ);

	/* duration_parse still reads the C locale's numbers after the locale is loaded. */
	int64_t ns = 0;
	check(duration_parse("1.5", &ns) && ns == 1500000000,
		"duration_parse(\"1.5\") after quote_locale_init", NULL);
	check(!duration_parse("1,5", &ns), "duration_parse(\"1,5\") after quote_locale_init",
		"accepted");
	num = setlocale(LC_NUMERIC, NULL);
	check(num && strcmp(num, "C") == 0, "LC_NUMERIC still C after duration_parse", num);

	/* Once only: a second call does not reload the environment's locale. */
	setlocale(LC_ALL, "C");
	quote_locale_init();
	check(!ctype_is_utf8(), "quote_locale_init runs setlocale only once",
		setlocale(LC_CTYPE, NULL));
	quote_is("init, second call", "x", "'x'");

	if (env)
		setenv("LC_ALL", saved_env, 1);
	else
		unsetenv("LC_ALL");
}

/* Rules that read the same in every locale, with the locale's quotes around them. */
static void test_common(const char *where, const char *lq, const char *rq)
{
	static const char *const same[] = {"", "1x", "a b", "abc", "?@{}#~", "$HOME;|&\"`<>()*[]^=!",
		"%+,-./:_", "{", "}", "#x", "~x", "0123456789", "ABCXYZabcxyz"};
	char want[256];
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		snprintf(want, sizeof want, "%s%s%s", lq, same[i], rq);
		quote_is(where, same[i], want);
	}
	/* Every printable ASCII character but the backslash (and, in C, the apostrophe). */
	char all[100];
	size_t n = 0;
	for (int c = 0x20; c < 0x7f; c++)
		if (c != '\\' && (c != '\'' || strcmp(rq, "'") != 0))
			all[n++] = (char)c;
	all[n] = '\0';
	snprintf(want, sizeof want, "%s%s%s", lq, all, rq);
	quote_is(where, all, want);

	static const char *const escaped[][2] = {
		{"a\nb", "a\\nb"},
		{"\a\b\f\n\r\t\v", "\\a\\b\\f\\n\\r\\t\\v"},
		{"a\\b", "a\\\\b"},
		{"\\", "\\\\"},
		{"\\n", "\\\\n"},
		{"\033[31mred", "\\033[31mred"},
		{"\377\376", "\\377\\376"},
		{"\001", "\\001"},
		{"\037", "\\037"},
		{"\177", "\\177"},
		{"\200", "\\200"},
		{"x\033", "x\\033"},
		{"\t\n", "\\t\\n"},
	};
	for (size_t i = 0; i < sizeof escaped / sizeof escaped[0]; i++) {
		snprintf(want, sizeof want, "%s%s%s", lq, escaped[i][1], rq);
		quote_is(where, escaped[i][0], want);
	}

	/* Long texts leave the fixed buffers for the heap, whole and exact. */
	{
		size_t len = 3000;
		char *s = malloc(len + 1), *w = malloc(4 * len + 16);
		if (!s || !w) {
			check(0, where, "out of memory in the test");
			free(s);
			free(w);
			return;
		}
		size_t m = (size_t)snprintf(w, 16, "%s", lq);
		for (size_t i = 0; i < len; i++) {
			s[i] = i % 3 == 2 ? '\n' : (char)('a' + i % 26);
			if (s[i] == '\n') {
				w[m++] = '\\';
				w[m++] = 'n';
			} else {
				w[m++] = s[i];
			}
		}
		s[len] = '\0';
		snprintf(w + m, 16, "%s", rq);
		const char *got = quote(s);
		check(strcmp(got, w) == 0, where, "3000-byte text quoted whole");
		check(quote_buf(NULL, 0, s) == strlen(w), where, "quote_buf measures a long text");
		snprintf(want, sizeof want, "%sshort again%s", lq, rq);
		quote_is(where, "short again", want);
		free(s);
		free(w);
	}
}

static void test_c_locale(void)
{
	const char *w = "C";
	setlocale(LC_ALL, "C");
	/* The examples. */
	quote_is(w, "a\nb", "'a\\nb'");
	quote_is(w, "\033[31mred", "'\\033[31mred'");
	quote_is(w, "\377\376", "'\\377\\376'");
	quote_is(w, "it's", "'it\\'s'");

	quote_is(w, "'", "'\\''");
	quote_is(w, "''", "'\\'\\''");
	quote_is(w, "'a'", "'\\'a\\''");
	/* Unibyte: every byte of a UTF-8 character is a non-printable byte. */
	quote_is(w, "\xc3\xa9", "'\\303\\251'");
	quote_is(w, "x" RQ "y", "'x\\342\\200\\231y'");
	quote_is(w, "x" LQ "y", "'x\\342\\200\\230y'");
	quote_is(w, "\xe2\x80", "'\\342\\200'");
	test_common(w, "'", "'");
}

static void test_utf8_locale(void)
{
	const char *w = "C.UTF-8";
	if (!set_utf8_locale()) {
		printf("note: no C.UTF-8 locale: the UTF-8 quoting tests are skipped\n");
		setlocale(LC_ALL, "C");
		return;
	}
	/* The examples, and the one it gives for UTF-8. */
	quote_is(w, "1x", LQ "1x" RQ);
	quote_is(w, "a\nb", LQ "a\\nb" RQ);
	quote_is(w, "\033[31mred", LQ "\\033[31mred" RQ);
	quote_is(w, "\377\376", LQ "\\377\\376" RQ);
	quote_is(w, "it's", LQ "it's" RQ);

	/* The closing quote gets a backslash; the opening one and ' do not. */
	quote_is(w, "x" RQ "y", LQ "x\\" RQ "y" RQ);
	quote_is(w, RQ, LQ "\\" RQ RQ);
	quote_is(w, "a" RQ, LQ "a\\" RQ RQ);
	quote_is(w, LQ RQ, LQ LQ "\\" RQ RQ);
	quote_is(w, "x" LQ "y", LQ "x" LQ "y" RQ);
	quote_is(w, "'", LQ "'" RQ);
	quote_is(w, "\t" RQ "\n", LQ "\\t\\" RQ "\\n" RQ);

	/* Printable characters pass through. */
	quote_is(w, "\xc3\xa9", LQ "\xc3\xa9" RQ);                     /* U+00E9 */
	quote_is(w, "\xe6\x97\xa5\xe6\x9c\xac", LQ "\xe6\x97\xa5\xe6\x9c\xac" RQ); /* two CJK */
	quote_is(w, "\xf0\x9f\x98\x80", LQ "\xf0\x9f\x98\x80" RQ);     /* U+1F600 */
	quote_is(w, "\xc2\xa0", LQ "\xc2\xa0" RQ);                     /* U+00A0 */
	quote_is(w, "\xe2\x80\x8b", LQ "\xe2\x80\x8b" RQ);             /* U+200B */

	/* Non-printable characters, byte by byte. */
	quote_is(w, "\xc2\x85", LQ "\\302\\205" RQ);             /* U+0085 NEL */
	quote_is(w, "\xe2\x80\xa8", LQ "\\342\\200\\250" RQ);     /* U+2028 */
	quote_is(w, "\xef\xbf\xbe", LQ "\\357\\277\\276" RQ);     /* U+FFFE */

	/* Invalid or incomplete sequences, byte by byte, the rest untouched. */
	quote_is(w, "\xe2\x80", LQ "\\342\\200" RQ);            /* cut at the end */
	quote_is(w, "x\xc2", LQ "x\\302" RQ);
	quote_is(w, "\xe2\x80" "a", LQ "\\342\\200a" RQ);       /* cut by an ASCII byte */
	quote_is(w, "\xe2\x80\xe2\x80\x99", LQ "\\342\\200\\" RQ RQ);
	quote_is(w, "\x80", LQ "\\200" RQ);                     /* lone continuation */
	quote_is(w, "\xc0\x80", LQ "\\300\\200" RQ);            /* overlong */
	quote_is(w, "\xed\xa0\x80", LQ "\\355\\240\\200" RQ);   /* surrogate */
	quote_is(w, "\xf4\x90\x80\x80", LQ "\\364\\220\\200\\200" RQ); /* past U+10FFFF */
	quote_is(w, "\xc3\xa9\xff\xc3\xa9", LQ "\xc3\xa9\\377\xc3\xa9" RQ);

	test_common(w, LQ, RQ);
	setlocale(LC_ALL, "C");
}

/* quote_buf's snprintf contract, and the shortened text quote() falls back to. */
static void test_quote_buf(void)
{
	setlocale(LC_ALL, "C");
	const char *w = "C";
	quote_buf_is(w, "abc", 6, "'abc'", 5);
	quote_buf_is(w, "abc", 5, "", 5);        /* one byte short, and no room for '...' */
	quote_buf_is(w, "abcd", 6, "'...'", 6);
	quote_buf_is(w, "abcdef", 9, "'abcdef'", 8);
	quote_buf_is(w, "abcdefg", 9, "'abc...'", 9);
	quote_buf_is(w, "abcdefgh", 9, "'abc...'", 10);
	quote_buf_is(w, "a\nbcdefgh", 9, "'a\\n...'", 12);
	quote_buf_is(w, "ab\ncdefgh", 9, "'ab...'", 12); /* \n is not cut in two */
	quote_buf_is(w, "\033\033\033", 12, "'\\033...'", 14);
	quote_buf_is(w, "it's a test", 9, "'it...'", 14);  /* nor is \' */
	quote_buf_is(w, "abcdef", 4, "", 8);      /* too small for '...' */
	quote_buf_is(w, "abcdef", 1, "", 8);
	check(quote_buf(NULL, 0, "a\nb") == 6, "quote_buf(NULL, 0) measures", NULL);

	if (!set_utf8_locale())
		return;
	w = "C.UTF-8";
	quote_buf_is(w, "abc", 10, LQ "abc" RQ, 9);
	quote_buf_is(w, "abcdefghijk", 13, LQ "abc..." RQ, 17);
	/* A multibyte character is never cut; neither is \’. */
	quote_buf_is(w, "a\xc3\xa9" "bcdefgh", 12, LQ "a..." RQ, 16);
	quote_buf_is(w, "a\xc3\xa9" "bcdefgh", 13, LQ "a\xc3\xa9..." RQ, 16);
	quote_buf_is(w, "a" RQ "bcdefgh", 14, LQ "a..." RQ, 18);
	quote_buf_is(w, "a" RQ "bcdefgh", 15, LQ "a\\" RQ "..." RQ, 18);
	quote_buf_is(w, "abc", 9, "", 9);          /* too small for ‘...’ */
	setlocale(LC_ALL, "C");
}

/* Four slots in turn, errno kept, NULL survived. */
static void test_slots(void)
{
	setlocale(LC_ALL, "C");
	const char *a = quote("one"), *b = quote("two"), *c = quote("three"), *d = quote("four");
	check(strcmp(a, "'one'") == 0 && strcmp(b, "'two'") == 0 && strcmp(c, "'three'") == 0 &&
		strcmp(d, "'four'") == 0, "quote: four results valid together", NULL);
	check(a != b && a != c && a != d && b != c && b != d && c != d,
		"quote: four results in four buffers", NULL);
	const char *e = quote("five");
	check(strcmp(b, "'two'") == 0 && strcmp(e, "'five'") == 0,
		"quote: the fifth call reuses the first slot only", NULL);

	/* quote(quote(s)): the argument is another slot. */
	const char *inner = quote("a\nb");
	quote_is("C", inner, "'\\'a\\\\nb\\''");

	/* A slot grown for a long text serves short ones after it. */
	char big[1000];
	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	for (int i = 0; i < 4; i++)
		check(strlen(quote(big)) == sizeof big + 1, "quote: 999 bytes quoted", NULL);
	for (int i = 0; i < 4; i++)
		quote_is("C", "short", "'short'");

	/* mbrtowc sets errno on "\377" in UTF-8; quote must not pass that on. */
	errno = ERANGE;
	quote("\377");
	quote(big);
	check(errno == ERANGE, "quote keeps errno in C", NULL);
	if (set_utf8_locale()) {
		errno = ERANGE;
		quote("\377");
		check(errno == ERANGE, "quote keeps errno in UTF-8", NULL);
		setlocale(LC_ALL, "C");
	}

	quote_is("C", NULL, "'(null)'");
}

void test_quote(void)
{
	test_init();
	test_c_locale();
	test_utf8_locale();
	test_quote_buf();
	test_slots();
	setlocale(LC_ALL, "C");
}

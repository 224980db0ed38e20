/* Quoting for messages: see quote.h.  The rules are those of gnulib's quotearg with
 * locale_quoting_style as GNU coreutils 9.1 shows them; the code is runlimit's own. */
#include "quote.h"

#include <ctype.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

void quote_locale_init(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	int saved = errno;
	setlocale(LC_ALL, "");
	/* duration_parse reads a number in the C locale first and in the user's LC_NUMERIC only
	 * as a second try: left at the user's, both tries would be the user's, and "0.5" would
	 * fail in a locale whose decimal point is ','.  Quoting needs only LC_CTYPE. */
	setlocale(LC_NUMERIC, "C");
	errno = saved;
}

/* Is the character set of the current LC_CTYPE UTF-8 ("UTF-8", or "utf8" on some systems)? */
static bool charset_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	const char *want = "utf8";
	if (!cs)
		return false;
	for (; *cs; cs++) {
		char c = *cs;
		if (c == '-')
			continue;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != *want)
			return false;
		want++;
	}
	return *want == '\0';
}

/* GNU's quotes when no translation of them is installed, which runlimit never has:
 * U+2018 and U+2019 in UTF-8, ASCII apostrophes in any other character set. */
struct quotes {
	const char *open, *close;
};

static struct quotes current_quotes(void)
{
	if (charset_is_utf8())
		return (struct quotes){"\xe2\x80\x98", "\xe2\x80\x99"};
	return (struct quotes){"'", "'"};
}

/* Output with a measure: need counts the whole text (saturating); buf, while not NULL,
 * takes whole units (an escape, a character) until the first that does not fit. */
struct sink {
	char *buf;
	size_t room;
	size_t need;
	bool cut;
};

/* One unit: the byte pre (none if 0), then n bytes of p. */
static void put_unit(struct sink *o, char pre, const char *p, size_t n)
{
	size_t total = n + (pre != 0);
	o->need = total > SIZE_MAX - o->need ? SIZE_MAX : o->need + total;
	if (!o->buf || o->cut)
		return;
	if (total > o->room) {
		o->cut = true;
		return;
	}
	if (pre)
		*o->buf++ = pre;
	memcpy(o->buf, p, n);
	o->buf += n;
	o->room -= total;
}

static void put_octal(struct sink *o, unsigned char c)
{
	char digits[3] = {(char)('0' + (c >> 6)), (char)('0' + ((c >> 3) & 7)),
		(char)('0' + (c & 7))};
	put_unit(o, '\\', digits, 3);
}

/* The letter that follows the backslash for c, or 0: C's escapes, and \\ itself. */
static char escape_letter(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '\v': return 'v';
	case '\\': return '\\';
	default: return 0;
	}
}

/* The multibyte character at s, of avail bytes (at least 1): its length, and whether it is
 * printable.  Bytes that start no valid character are taken one at a time; an incomplete
 * character at the end of the text takes all the bytes left; neither is printable.  The
 * loop to the initial shift state is for stateful encodings: UTF-8 stops at one. */
static size_t mb_char(const char *s, size_t avail, bool *printable)
{
	mbstate_t st;
	size_t n = 0;
	memset(&st, 0, sizeof st);
	*printable = true;
	do {
		wchar_t w;
		size_t r = mbrtowc(&w, s + n, avail - n, &st);
		if (r == (size_t)-1) {
			*printable = false;
			break;
		}
		if (r == (size_t)-2) {
			*printable = false;
			n = avail;
			break;
		}
		if (r == 0)
			break;
		if (!iswprint((wint_t)w))
			*printable = false;
		n += r;
	} while (!mbsinit(&st));
	return n ? n : 1;
}

/* The text between the quotes. */
static void put_body(struct sink *o, const char *s, const char *close)
{
	size_t len = strlen(s), close_len = strlen(close);
	bool multibyte = MB_CUR_MAX > 1;
	size_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		char letter = escape_letter(c);
		if (letter) {
			put_unit(o, '\\', &letter, 1);
			i++;
			continue;
		}
		size_t n = 1;
		bool printable;
		if (c >= 0x20 && c < 0x7f)
			printable = true; /* printable ASCII: never part of a longer character */
		else if (!multibyte)
			printable = isprint(c) != 0;
		else
			n = mb_char(s + i, len - i, &printable);
		if (printable) {
			bool at_close = len - i >= close_len && memcmp(s + i, close, close_len) == 0;
			put_unit(o, at_close ? '\\' : 0, s + i, n);
		} else {
			for (size_t k = 0; k < n; k++)
				put_octal(o, (unsigned char)s[i + k]);
		}
		i += n;
	}
}

size_t quote_buf(char *buf, size_t size, const char *s)
{
	quote_locale_init();
	if (!s)
		s = "(null)";
	struct quotes q = current_quotes();
	size_t open_len = strlen(q.open), close_len = strlen(q.close);

	struct sink measure = {NULL, 0, 0, false};
	put_unit(&measure, 0, q.open, open_len);
	put_body(&measure, s, q.close);
	put_unit(&measure, 0, q.close, close_len);
	size_t need = measure.need;
	if (size == 0)
		return need;

	static const char more[] = "...";
	bool fits = need < size;
	size_t tail = (fits ? 0 : sizeof more - 1) + close_len;
	if (size - 1 < open_len + tail) {
		buf[0] = '\0';
		return need;
	}
	struct sink out = {buf, size - 1 - tail, 0, false};
	put_unit(&out, 0, q.open, open_len);
	put_body(&out, s, q.close);
	char *end = out.buf;
	if (!fits) {
		memcpy(end, more, sizeof more - 1);
		end += sizeof more - 1;
	}
	memcpy(end, q.close, close_len);
	end[close_len] = '\0';
	return need;
}

/* quote()'s slots: each starts on a fixed buffer and moves to the heap for a longer text. */
enum { NSLOTS = 4, SLOT_FIXED = 256 };
static char slot_fixed[NSLOTS][SLOT_FIXED];
static struct {
	char *buf;
	size_t size;
} slots[NSLOTS];
static unsigned next_slot;

const char *quote(const char *s)
{
	int saved = errno;
	unsigned k = next_slot;
	next_slot = (next_slot + 1) % NSLOTS;
	if (!slots[k].buf) {
		slots[k].buf = slot_fixed[k];
		slots[k].size = SLOT_FIXED;
	}
	size_t need = quote_buf(slots[k].buf, slots[k].size, s);
	if (need >= slots[k].size && need < SIZE_MAX) {
		/* Without memory the slot keeps the shortened text quote_buf just wrote. */
		char *big = malloc(need + 1);
		if (big) {
			quote_buf(big, need + 1, s);
			if (slots[k].buf != slot_fixed[k])
				free(slots[k].buf);
			slots[k].buf = big;
			slots[k].size = need + 1;
		}
	}
	errno = saved;
	return slots[k].buf;
}

#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void json_init(struct json *j)
{
	*j = (struct json){NULL, 0, 0, false, false, NULL, NULL, NULL, 0};
}

void json_init_sink(struct json *j, json_sink sink, void *ctx, char *storage, size_t size,
                    size_t hold)
{
	*j = (struct json){storage, 0, size, false, false, sink, ctx, storage, hold};
}

void json_free(struct json *j)
{
	if (j->buf != j->storage)
		free(j->buf);
	json_init(j);
}

/* Without a sink: the text grows in memory, with a byte spare for its terminating NUL. */
static void append_memory(struct json *j, const char *s, size_t n)
{
	if (j->cap - j->len <= n) {
		size_t bigger = j->cap ? j->cap : 256;
		while (bigger - j->len <= n)
			bigger *= 2;
		char *grown = realloc(j->buf, bigger);
		if (!grown) {
			j->failed = true;
			return;
		}
		j->buf = grown;
		j->cap = bigger;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

/* What has collected goes to the sink. */
static void flush(struct json *j)
{
	if (j->len > 0 && !j->failed && !j->sink(j->ctx, j->buf, j->len))
		j->failed = true;
	j->len = 0;
}

/* buf is full: grow it toward hold, if it may and there is memory (else, from here on, the
 * text goes out a buffer at a time).  True if it grew. */
static bool grow_held(struct json *j, size_t n)
{
	if (j->cap >= j->hold)
		return false;
	size_t bigger = j->cap;
	while (bigger < j->hold && bigger - j->len < n)
		bigger = bigger > j->hold / 2 ? j->hold : bigger * 2;
	char *grown = j->buf == j->storage ? malloc(bigger) : realloc(j->buf, bigger);
	if (!grown) {
		j->hold = j->cap;
		return false;
	}
	if (j->buf == j->storage)
		memcpy(grown, j->buf, j->len);
	j->buf = grown;
	j->cap = bigger;
	return true;
}

static void append(struct json *j, const char *s, size_t n)
{
	if (j->failed)
		return;
	if (!j->sink) {
		append_memory(j, s, n);
		return;
	}
	while (n > 0 && !j->failed) {
		if (j->len == j->cap && !grow_held(j, n))
			flush(j);
		size_t k = n < j->cap - j->len ? n : j->cap - j->len;
		memcpy(j->buf + j->len, s, k);
		j->len += k;
		s += k;
		n -= k;
	}
}

bool json_finish(struct json *j)
{
	if (j->sink)
		flush(j);
	return !j->failed;
}

static void put(struct json *j, const char *s)
{
	append(j, s, strlen(s));
}

void json_raw(struct json *j, const char *text)
{
	put(j, text);
}

/* Before a value or a key: the comma, if something came before it at this level. */
static void separate(struct json *j)
{
	if (j->need_comma)
		append(j, ",", 1);
	j->need_comma = true;
}

void json_open(struct json *j, char bracket)
{
	separate(j);
	append(j, &bracket, 1);
	j->need_comma = false;
}

void json_close(struct json *j, char bracket)
{
	append(j, &bracket, 1);
	j->need_comma = true;
}

void json_key(struct json *j, const char *key)
{
	json_string(j, key);
	append(j, ":", 1);
	j->need_comma = false; /* the value follows the colon */
}

/* Can c start a sequence of UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF)?  Its length and the range of its second byte, then. */
static bool lead_byte(unsigned char c, unsigned char *need, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF) {
		*need = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		*need = 3;
		if (c == 0xE0)
			*lo = 0xA0;
		else if (c == 0xED)
			*hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		*need = 4;
		if (c == 0xF0)
			*lo = 0x90;
		else if (c == 0xF4)
			*hi = 0x8F;
	} else {
		return false;
	}
	return true;
}

/* The length of the valid UTF-8 sequence at s, whole within left bytes, or 0. */
static size_t utf8_length(const unsigned char *s, size_t left)
{
	unsigned char need, lo, hi;
	if (s[0] < 0x80)
		return 1;
	if (!lead_byte(s[0], &need, &lo, &hi) || need > left)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < need; k++)
		if (s[k] < 0x80 || s[k] > 0xBF)
			return 0;
	return need;
}

/* U+FFFD REPLACEMENT CHARACTER, for what is not UTF-8. */
static void replacement(struct json *j, struct json_text *t)
{
	append(j, "\xef\xbf\xbd", 3);
	t->exact = false;
}

/* An ASCII byte that a JSON string cannot hold as it is. */
static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c == 0x7F;
}

static void escape_ascii(struct json *j, unsigned char c)
{
	char esc[8];
	switch (c) {
	case '"': put(j, "\\\""); break;
	case '\\': put(j, "\\\\"); break;
	case '\b': put(j, "\\b"); break;
	case '\f': put(j, "\\f"); break;
	case '\n': put(j, "\\n"); break;
	case '\r': put(j, "\\r"); break;
	case '\t': put(j, "\\t"); break;
	default: /* another control character, or DEL */
		snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
		put(j, esc);
	}
}

void json_text_add(struct json *j, struct json_text *t, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	const unsigned char *run = p; /* bytes to copy as they are, from here to p */
	while (p < end) {
		unsigned char c = *p;
		if (t->skip) {
			/* The rest of a character whose start was cut off: left out. */
			if (c >= 0x80 && c <= 0xBF) {
				t->skip--;
				t->exact = false;
				run = ++p;
				continue;
			}
			t->skip = 0;
		}
		if (t->npend > 0) {
			/* A sequence begun (in an earlier piece, or cut short here): its next byte. */
			unsigned char lo = t->npend == 1 ? t->lo : 0x80, hi = t->npend == 1 ? t->hi : 0xBF;
			if (c < lo || c > hi) {
				/* What came of it is a maximal subpart: one U+FFFD, and c starts afresh. */
				t->npend = 0;
				replacement(j, t);
				continue;
			}
			t->pend[t->npend++] = c;
			run = ++p;
			if (t->npend == t->need) {
				append(j, (const char *)t->pend, t->npend);
				t->npend = 0;
			}
			continue;
		}
		if (c < 0x80) {
			if (!needs_escape(c)) {
				p++;
				continue;
			}
			append(j, (const char *)run, (size_t)(p - run));
			escape_ascii(j, c);
			run = ++p;
			continue;
		}
		size_t len = utf8_length(p, (size_t)(end - p));
		if (len > 0) {
			p += len; /* whole and valid: copied with the run */
			continue;
		}
		append(j, (const char *)run, (size_t)(p - run));
		if (lead_byte(c, &t->need, &t->lo, &t->hi)) {
			/* Cut by the piece's end, or invalid further on: byte by byte. */
			t->pend[0] = c;
			t->npend = 1;
		} else {
			replacement(j, t);
		}
		run = ++p;
	}
	append(j, (const char *)run, (size_t)(p - run));
}

void json_text_open(struct json *j, struct json_text *t, bool cut)
{
	separate(j);
	append(j, "\"", 1);
	*t = (struct json_text){.skip = cut ? 3 : 0, .exact = true};
}

bool json_text_close(struct json *j, struct json_text *t)
{
	if (t->npend > 0) {
		t->npend = 0; /* the end of the bytes: a sequence still begun was cut short */
		replacement(j, t);
	}
	append(j, "\"", 1);
	return t->exact;
}

bool json_string(struct json *j, const char *s)
{
	return json_bytes(j, s, strlen(s));
}

bool json_bytes(struct json *j, const char *s, size_t len)
{
	struct json_text t;
	json_text_open(j, &t, false);
	json_text_add(j, &t, s, len);
	return json_text_close(j, &t);
}

static const char base64_digits[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* n (1 to 3) bytes as four digits, padded with '='. */
static void base64_group(const unsigned char *in, size_t n, char *out)
{
	unsigned long v = (unsigned long)in[0] << 16 | (n > 1 ? (unsigned long)in[1] << 8 : 0) |
	                  (n > 2 ? in[2] : 0);
	out[0] = base64_digits[v >> 18 & 63];
	out[1] = base64_digits[v >> 12 & 63];
	out[2] = n > 1 ? base64_digits[v >> 6 & 63] : '=';
	out[3] = n > 2 ? base64_digits[v & 63] : '=';
}

void json_base64_open(struct json *j, struct json_base64 *b)
{
	separate(j);
	append(j, "\"", 1);
	b->ncarry = 0;
}

void json_base64_add(struct json *j, struct json_base64 *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	char out[256];
	size_t len = 0;
	if (b->ncarry > 0) {
		unsigned char group[3] = {b->carry[0], b->carry[1], 0};
		size_t have = b->ncarry;
		while (have < 3 && p < end)
			group[have++] = *p++;
		if (have < 3) {
			b->carry[0] = group[0];
			b->carry[1] = group[1];
			b->ncarry = (unsigned char)have;
			return;
		}
		base64_group(group, 3, out);
		len = 4;
		b->ncarry = 0;
	}
	for (; end - p >= 3; p += 3) {
		if (len == sizeof out) {
			append(j, out, len);
			len = 0;
		}
		base64_group(p, 3, out + len);
		len += 4;
	}
	append(j, out, len);
	while (p < end)
		b->carry[b->ncarry++] = *p++;
}

void json_base64_close(struct json *j, struct json_base64 *b)
{
	if (b->ncarry > 0) {
		char out[4];
		base64_group(b->carry, b->ncarry, out);
		append(j, out, 4);
		b->ncarry = 0;
	}
	append(j, "\"", 1);
}

void json_base64(struct json *j, const char *s, size_t len)
{
	struct json_base64 b;
	json_base64_open(j, &b);
	json_base64_add(j, &b, s, len);
	json_base64_close(j, &b);
}

void json_int(struct json *j, long long v)
{
	char text[32];
	snprintf(text, sizeof text, "%lld", v);
	separate(j);
	put(j, text);
}

void json_null(struct json *j)
{
	separate(j);
	put(j, "null");
}

void json_bool(struct json *j, bool v)
{
	separate(j);
	put(j, v ? "true" : "false");
}

void json_seconds(struct json *j, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	int64_t us = ns / 1000 + (ns % 1000 >= 500); /* rounded, without overflow at INT64_MAX */
	char text[48];
	snprintf(text, sizeof text, "%lld.%06lld", (long long)(us / 1000000),
	         (long long)(us % 1000000));
	separate(j);
	put(j, text);
}

void json_time(struct json *j, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	time_t secs = (time_t)(ns / 1000000000);
	struct tm tm;
	char text[64] = "1970-01-01T00:00:00";
	if (gmtime_r(&secs, &tm))
		strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
	size_t len = strlen(text);
	snprintf(text + len, sizeof text - len, ".%03dZ", (int)(ns / 1000000 % 1000));
	json_string(j, text);
}

void json_int_member(struct json *j, const char *key, bool have, long long v)
{
	json_key(j, key);
	if (have)
		json_int(j, v);
	else
		json_null(j);
}

void json_seconds_member(struct json *j, const char *key, bool have, int64_t ns)
{
	json_key(j, key);
	if (have)
		json_seconds(j, ns);
	else
		json_null(j);
}

void json_string_member(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	if (s)
		json_string(j, s);
	else
		json_null(j);
}

void json_bool_member(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_strings_member(struct json *j, const char *key, const char *key_base64,
                         const char *const *argv)
{
	bool exact = true;
	json_key(j, key);
	json_open(j, '[');
	for (const char *const *s = argv; *s; s++)
		exact &= json_string(j, *s);
	json_close(j, ']');
	json_key(j, key_base64);
	if (exact) {
		json_null(j);
		return;
	}
	json_open(j, '[');
	for (const char *const *s = argv; *s; s++)
		json_base64(j, *s, strlen(*s));
	json_close(j, ']');
}

bool json_object_member(struct json *j, const char *key, bool have)
{
	json_key(j, key);
	if (have)
		json_open(j, '{');
	else
		json_null(j);
	return have;
}

#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json *j)
{
	*j = (struct json){NULL, 0, 0, false, false};
}

void json_free(struct json *j)
{
	free(j->buf);
	json_init(j);
}

static void append(struct json *j, const char *s, size_t n)
{
	if (j->failed)
		return;
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

static void put(struct json *j, const char *s)
{
	append(j, s, strlen(s));
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
	separate(j);
	append(j, "\"", 1);
	json_escape(j, key);
	append(j, "\":", 2);
	j->need_comma = false; /* the value follows the colon */
}

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF), or 0 if the byte at s does not start one. */
static size_t utf8_length(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	/* The second byte has the narrowed range; the rest are plain continuation bytes. */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if (s[k] < 0x80 || s[k] > 0xBF)
			return 0;
	return n;
}

void json_escape(struct json *j, const char *s)
{
	json_escape_bytes(j, s, strlen(s));
}

void json_escape_bytes(struct json *j, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		/* The longest run that needs no escape, copied at once. */
		const unsigned char *run = p;
		size_t n;
		while (p < end && *p >= 0x20 && *p != '"' && *p != '\\' && *p != 0x7F &&
		       (n = utf8_length(p, (size_t)(end - p))) > 0)
			p += n;
		append(j, (const char *)run, (size_t)(p - run));
		if (p == end)
			break;
		char esc[8];
		switch (*p) {
		case '"': put(j, "\\\""); break;
		case '\\': put(j, "\\\\"); break;
		case '\b': put(j, "\\b"); break;
		case '\f': put(j, "\\f"); break;
		case '\n': put(j, "\\n"); break;
		case '\r': put(j, "\\r"); break;
		case '\t': put(j, "\\t"); break;
		default:
			/* Another control character (or DEL): \u00XX.  A byte of no valid UTF-8
			 * sequence: the lone surrogate \udcXX that surrogateescape maps it to. */
			snprintf(esc, sizeof esc, *p < 0x80 ? "\\u%04x" : "\\udc%02x", (unsigned)*p);
			put(j, esc);
		}
		p++;
	}
}

void json_string(struct json *j, const char *s)
{
	separate(j);
	append(j, "\"", 1);
	json_escape(j, s);
	append(j, "\"", 1);
}

void json_bytes(struct json *j, const char *s, size_t len)
{
	separate(j);
	append(j, "\"", 1);
	json_escape_bytes(j, s, len);
	append(j, "\"", 1);
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

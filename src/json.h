/* A small JSON writer for the run report: one object on one line, written out in pieces as
 * it is made (a sink), or built whole in memory (no sink: the unit tests).
 *
 * Every string is valid UTF-8, as RFC 8259 asks and as a consumer that stores text needs:
 * valid UTF-8 is copied as is; quotes, backslashes, control characters and DEL are escaped;
 * what is not valid UTF-8 becomes U+FFFD, one for each maximal subpart of an invalid
 * sequence (Unicode's "best practice", as Python's errors="replace" and WHATWG decode). Such
 * a string is no longer its bytes: the writers say so (their "exact"), so that the caller
 * can give the bytes as well, in base64.  No lone surrogate escape is ever written. */
#ifndef RUNLIMIT_JSON_H
#define RUNLIMIT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the text goes, a piece at a time; false on failure (the writer then stops). */
typedef bool (*json_sink)(void *ctx, const char *text, size_t len);

struct json {
	char *buf;       /* the text not yet given to the sink (without one: all of it) */
	size_t len, cap;
	bool failed;     /* out of memory, or the sink failed: the text is incomplete */
	bool need_comma; /* the next key or array element follows another */
	json_sink sink;  /* NULL: the whole text stays in buf, NUL-terminated */
	void *ctx;
	char *storage;   /* with a sink: the caller's buffer, where buf starts (never freed) */
	size_t hold;     /* with a sink: buf may grow to this much before it is written out */
};

/* In memory: buf holds the text, and grows as it must. */
void json_init(struct json *j);

/* Written to sink: the text collects in storage (size bytes) and, up to hold bytes, in a
 * buffer grown from it; when that is full it goes to the sink, and the next piece collects.
 * A text of at most hold bytes thus reaches the sink in one piece, at json_finish. */
void json_init_sink(struct json *j, json_sink sink, void *ctx, char *storage, size_t size,
                    size_t hold);

/* With a sink: give it the rest.  True if every piece was written (and nothing failed). */
bool json_finish(struct json *j);

void json_free(struct json *j);

/* Open and close an object ('{' '}') or an array ('[' ']'), as a value. */
void json_open(struct json *j, char bracket);
void json_close(struct json *j, char bracket);

/* The key of the next member of an object (a plain ASCII name). */
void json_key(struct json *j, const char *key);

/* Literal text, as it is (a newline after the object). */
void json_raw(struct json *j, const char *text);

/* A string value made of bytes given in pieces, cut anywhere (the two halves of a ring):
 * json_text_open, any number of json_text_add, json_text_close.  cut: the bytes are the end
 * of a longer text, so a character at their start whose first bytes are not among them
 * (up to three continuation bytes) is left out of the text. */
struct json_text {
	unsigned char pend[4]; /* a sequence begun and not yet whole */
	unsigned char npend;   /* its bytes so far */
	unsigned char need;    /* its length */
	unsigned char lo, hi;  /* the range of its second byte */
	unsigned char skip;    /* continuation bytes at the start that may still be left out */
	bool exact;            /* so far the text is the bytes */
};
void json_text_open(struct json *j, struct json_text *t, bool cut);
void json_text_add(struct json *j, struct json_text *t, const char *s, size_t n);
/* True if the text is exactly the bytes (nothing replaced nor left out). */
bool json_text_close(struct json *j, struct json_text *t);

/* A string value holding bytes given in pieces in base64 (RFC 4648, with padding). */
struct json_base64 {
	unsigned char carry[2];
	unsigned char ncarry;
};
void json_base64_open(struct json *j, struct json_base64 *b);
void json_base64_add(struct json *j, struct json_base64 *b, const char *s, size_t n);
void json_base64_close(struct json *j, struct json_base64 *b);

/* Values.  The string writers return true if the text is exactly the bytes. */
bool json_string(struct json *j, const char *s);
bool json_bytes(struct json *j, const char *s, size_t len); /* NUL bytes included */
void json_base64(struct json *j, const char *s, size_t len);
void json_int(struct json *j, long long v);
void json_null(struct json *j);
void json_bool(struct json *j, bool v);
/* Nanoseconds as seconds with six decimals ("1.250000"); negative counts as 0. */
void json_seconds(struct json *j, int64_t ns);
/* A wall-clock time, nanoseconds since the epoch, as an RFC 3339 string in UTC with
 * milliseconds ("2026-12-02T07:01:02.345Z"; truncated, never rounded up into the next
 * second).  Before the epoch counts as the epoch. */
void json_time(struct json *j, int64_t ns);

/* Members: the key, then the value, or null where have is false (a string: where it is
 * NULL).  The report's fields may be unknown or absent; null says so, never 0. */
void json_int_member(struct json *j, const char *key, bool have, long long v);
void json_seconds_member(struct json *j, const char *key, bool have, int64_t ns);
void json_string_member(struct json *j, const char *key, const char *s);
void json_bool_member(struct json *j, const char *key, bool v);
/* key: the strings of argv (NULL-terminated) as text; and key_base64: null, or, where the
 * text of one is not its bytes (not UTF-8), all of them as they are, in base64. */
void json_strings_member(struct json *j, const char *key, const char *key_base64,
                         const char *const *argv);
/* The key, then an object opened where have is true (true then), or null. */
bool json_object_member(struct json *j, const char *key, bool have);

#endif

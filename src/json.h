/* A small JSON writer for the run report: one object on one line, built in memory.
 * Strings are bytes: valid UTF-8 is copied as is, control characters, quotes and
 * backslashes are escaped, and every byte that is not part of valid UTF-8 is written as a
 * lone surrogate \udcXX (XX the byte), the escape Python's "surrogateescape" reads back into
 * the same bytes.  Nothing is ever written raw that a JSON parser would reject. */
#ifndef RUNLIMIT_JSON_H
#define RUNLIMIT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json {
	char *buf;
	size_t len, cap;
	bool failed;     /* out of memory: the text is incomplete */
	bool need_comma; /* the next key or array element follows another */
};

void json_init(struct json *j);
void json_free(struct json *j);

/* Open and close an object ('{' '}') or an array ('[' ']'), as a value. */
void json_open(struct json *j, char bracket);
void json_close(struct json *j, char bracket);

/* The key of the next member of an object (a plain ASCII name). */
void json_key(struct json *j, const char *key);

/* Values. */
void json_string(struct json *j, const char *s);
void json_bytes(struct json *j, const char *s, size_t len); /* NUL bytes included */
void json_int(struct json *j, long long v);
void json_null(struct json *j);
void json_bool(struct json *j, bool v);
/* Nanoseconds as seconds with six decimals ("1.250000"); negative counts as 0. */
void json_seconds(struct json *j, int64_t ns);

/* Append the escaped form of s, without quotes, to j (the string writer's core). */
void json_escape(struct json *j, const char *s);
void json_escape_bytes(struct json *j, const char *s, size_t len);

#endif

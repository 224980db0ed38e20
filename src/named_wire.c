#include "named_wire.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "signal_names.h"

/* "info", runlimit 0.1.0's --list's only question, is answered for it: compatibility only. */
enum wire_ask wire_request(const char *line, int *sig, int64_t *grace)
{
	if (strcmp(line, WIRE_DESCRIBE) == 0 || strcmp(line, WIRE_INFO) == 0)
		return line[0] == 'd' ? ASK_DESCRIBE : ASK_INFO;
	if (strncmp(line, "cancel ", 7) != 0)
		return ASK_UNKNOWN;
	char *end;
	errno = 0;
	long s = strtol(line + 7, &end, 10);
	long long g = *end == ' ' ? strtoll(end + 1, &end, 10) : -2;
	if (errno || *end || s < 0 || s > sig_max() || g < -1)
		return ASK_UNKNOWN;
	*sig = (int)s;
	*grace = (int64_t)g;
	return ASK_CANCEL;
}

/* Can arg be shown as it is (no quoting needed, nothing a terminal would act on: no C0 or C1
 * control, in UTF-8, nor DEL)?  Plain --list shows a peer's words so (root lists other users'
 * sockets): what a terminal would act on is quoted, never written as it is. */
static bool plain(const char *arg)
{
	for (const unsigned char *p = (const unsigned char *)arg; *p; p++)
		if (*p < 0x20 || *p == 0x7f || strchr(" '\"\\$`", *p) ||
		    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return false;
	return *arg != '\0';
}

/* The numbers, then each argument after a space while the line holds it (most bytes, the
 * command's keeping room for "..."): a description's as one word, each byte that would end it
 * as %XX, left out whole where it does not fit; the command's as it is or quoted, cut there and
 * "..." after it. */
void wire_answer(char *text, enum wire_ask ask, long pid, int64_t elapsed, int64_t started_wall,
                 int64_t left, char *const *argv)
{
	char left_text[24] = "-";
	bool info = ask == ASK_INFO;
	size_t argc = 0, most = WIRE_ANSWER - (info ? 6 : 2);
	while (argv[argc])
		argc++;
	if (left != INT64_MAX)
		snprintf(left_text, sizeof left_text, "%lld", (long long)left);
	int len = info ? snprintf(text, most, "%ld %lld", pid, (long long)elapsed)
	               : snprintf(text, most, "%ld %lld %lld %s %zu", pid, (long long)elapsed,
	                          (long long)started_wall, left_text, argc);
	size_t used = len > 0 ? (size_t)len : 0;
	for (char *const *arg = argv; *arg; arg++) {
		const char *c = info && !plain(*arg) ? quote(*arg) : *arg;
		size_t at = used;
		for (text[at++] = ' '; *c && at <= most; c++) {
			unsigned char b = (unsigned char)*c;
			if (!info && (b <= ' ' || b == '%' || b == 0x7f))
				at += (size_t)snprintf(text + at, WIRE_ANSWER - at, "%%%02X", b);
			else
				text[at++] = *c;
		}
		if (at > most) {
			if (info)
				used = most + (size_t)snprintf(text + most, 4, "...");
			break;
		}
		used = at;
	}
	memcpy(text + used, "\n", 2);
}

bool wire_read_ok(const char *line, int64_t *bound)
{
	if (strncmp(line, "ok", 2) != 0 || (line[2] != '\0' && line[2] != ' '))
		return false;
	*bound = line[2] ? (int64_t)strtoll(line + 3, NULL, 10) : 0;
	*bound = *bound > 0 ? *bound : 0;
	return true;
}

/* Does c end a number of an answer (white space)? */
static bool blank(char c)
{
	return c != '\0' && strchr(" \t\n\v\f\r", c) != NULL;
}

/* A number and the white space after it (or the line's end) at *at, which moves past them. */
static bool number_word(char **at, long long *v)
{
	char *end;
	errno = 0;
	*v = strtoll(*at, &end, 10);
	if (errno || end == *at || (!blank(*end) && *end != '\0'))
		return false;
	*at = *end ? end + 1 : end;
	return true;
}

bool wire_read(char *line, struct wire_answer *a)
{
	char *at = line;
	*a = (struct wire_answer){0};
	if (!number_word(&at, &a->pid) || a->pid <= 0 || !number_word(&at, &a->elapsed) ||
	    !number_word(&at, &a->started))
		return false;
	a->deadline = !(at[0] == '-' && (blank(at[1]) || at[1] == '\0'));
	if (!a->deadline)
		at += at[1] ? 2 : 1;
	else if (!number_word(&at, &a->left))
		return false;
	if (!number_word(&at, &a->argc) || a->argc < 0)
		return false;
	/* a word follows, empty or not, where white space ended the count */
	a->args = at > line && blank(at[-1]) ? at : NULL;
	return true;
}

char *wire_next_arg(char **args)
{
	char *word = *args, *out = word, *space = word ? strchr(word, ' ') : NULL;
	if (!word)
		return NULL;
	*args = space ? space + 1 : NULL;
	if (space)
		*space = '\0';
	for (char *in = word; *in; in++) {
		char hex[3] = {in[0] == '%' ? in[1] : '\0', in[0] == '%' && in[1] ? in[2] : '\0', '\0'};
		if (isxdigit((unsigned char)hex[0]) && isxdigit((unsigned char)hex[1]) &&
		    strcmp(hex, "00") != 0) {
			*out++ = (char)strtol(hex, NULL, 16);
			in += 2;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
	return word;
}

char *wire_shown(char *text, struct wire_answer *a)
{
	static char more[] = "...";
	char *argv[WIRE_ANSWER / 2 + 2]; /* each shown takes 2 bytes at least: more would be cut */
	long long n = 0;
	while (n < WIRE_ANSWER / 2 && (argv[n] = wire_next_arg(&a->args)))
		n++;
	if (a->args || n < a->argc)
		argv[n++] = more;
	argv[n] = NULL;
	wire_answer(text, ASK_INFO, (long)a->pid, a->elapsed, 0, INT64_MAX, argv);
	text[strlen(text) - 1] = '\0';
	int numbers = snprintf(NULL, 0, "%ld %lld", (long)a->pid, a->elapsed);
	return text + numbers + (text[numbers] == ' ');
}

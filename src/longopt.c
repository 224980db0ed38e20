#include "longopt.h"

#include <stdio.h>
#include <string.h>

#include "msg.h"

static const struct longopt *entry(const void *table, size_t stride, size_t k)
{
	return (const struct longopt *)(const void *)((const char *)table + k * stride);
}

/* Does option o match the first len characters of name?  Extensions match only where no
 * GNU option does, so every abbreviation GNU accepts ("--kill=1") means what it means there. */
static bool matches_prefix(const struct longopt *o, const char *name, size_t len,
                           bool gnu_matched)
{
	return strncmp(o->name, name, len) == 0 && !(o->extension && gnu_matched);
}

/* Does a GNU option match the first len characters of name? */
static bool gnu_matches(const void *table, size_t n, size_t stride, const char *name,
                        size_t len)
{
	for (size_t k = 0; k < n; k++)
		if (!entry(table, stride, k)->extension &&
		    strncmp(entry(table, stride, k)->name, name, len) == 0)
			return true;
	return false;
}

/* The option name names: an exact match first, then every prefix match (*matches). */
static long find(const void *table, size_t n, size_t stride, const char *name, size_t len,
                 int *matches)
{
	bool gnu_matched = gnu_matches(table, n, stride, name, len);
	long found = -1;
	*matches = 0;
	for (size_t k = 0; k < n; k++) {
		const struct longopt *o = entry(table, stride, k);
		if (strncmp(o->name, name, len) == 0 && strlen(o->name) == len) {
			*matches = 1;
			return (long)k;
		}
		if (matches_prefix(o, name, len, gnu_matched)) {
			found = (long)k;
			++*matches;
		}
	}
	return found;
}

static void say_ambiguous(const void *table, size_t n, size_t stride, const char *arg,
                          size_t len)
{
	const char *name = arg + 2;
	bool gnu_matched = gnu_matches(table, n, stride, name, len);
	char list[512] = "";
	size_t used = 0;
	for (size_t k = 0; k < n && used < sizeof list; k++)
		if (matches_prefix(entry(table, stride, k), name, len, gnu_matched))
			used += (size_t)snprintf(list + used, sizeof list - used, " '--%s'",
			                         entry(table, stride, k)->name);
	msg("option '%s' is ambiguous; possibilities:%s", arg, list);
}

int longopt_match(const void *table, size_t n, size_t stride, int argc, char **argv, int *i,
                  const char **value, bool *next)
{
	const char *arg = argv[*i], *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int matches;
	long k = find(table, n, stride, name, len, &matches);
	if (matches == 0) {
		msg("unrecognized option '%s'", arg);
		return -1;
	}
	if (matches > 1) {
		say_ambiguous(table, n, stride, arg, len);
		return -1;
	}
	const struct longopt *o = entry(table, stride, (size_t)k);
	*value = "";
	*next = false;
	if (o->has_arg && eq) {
		*value = eq + 1;
	} else if (o->has_arg && *i + 1 < argc) {
		*value = argv[++*i];
		*next = true;
	} else if (o->has_arg) {
		msg("option '--%s' requires an argument", o->name);
		return -1;
	} else if (eq) {
		msg("option '--%s' doesn't allow an argument", o->name);
		return -1;
	}
	return (int)k;
}

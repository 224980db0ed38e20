/* Long options as GNU's getopt_long reads them, for runlimit's and nproc's command lines:
 * "--name", "--name=value" or "--name value", and any unambiguous abbreviation. */
#ifndef RUNLIMIT_LONGOPT_H
#define RUNLIMIT_LONGOPT_H

#include <stdbool.h>
#include <stddef.h>

struct longopt {
	const char *name; /* without "--" */
	bool has_arg;
	bool extension;   /* not GNU's: never makes an abbreviation of GNU's ambiguous */
};

/* argv[*i] starts with "--": which of the n options (each the first member of an entry
 * stride bytes long in table) it names, exactly or by a unique prefix.  Returns its index
 * with *value (its argument, or "" for an option without one; an argument not attached
 * with "=" is the next word, and *i moves to it, *next set), or -1 after saying on stderr
 * what is wrong: unrecognized, ambiguous (with the possibilities), an argument missing or
 * not allowed. */
int longopt_match(const void *table, size_t n, size_t stride, int argc, char **argv, int *i,
                  const char **value, bool *next);

#endif

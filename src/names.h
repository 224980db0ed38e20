/* The directory of named runs (--name, --cancel, --list): $RUNLIMIT_DIR, else
 * $XDG_RUNTIME_DIR/runlimit, else ${TMPDIR:-/tmp}/runlimit-UID.  It must be a directory of
 * runlimit's user that nobody else can write to (a socket or a marker there is reached by no
 * one else, and no one else can put one there), in a parent that nobody else can replace it
 * in.  Each run NAME has three files there: NAME.lock (locked while the run lives),
 * NAME.sock (its control socket) and NAME.cancel (a cancel that came before the run). */
#ifndef RUNLIMIT_NAMES_H
#define RUNLIMIT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define NAME_MAX_LEN 64

/* Room for a path of the directory: a socket's address (sun_path) is shorter. */
#define NAME_PATH 128

/* Is name a run name: 1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot? */
bool names_valid(const char *name);

/* The directory, made (mode 0700) if it is missing and create is set; its path into dir (of
 * size bytes).  False after a message naming the problem (not the user's, writable by
 * others, a symbolic link, missing, too long). */
bool names_dir(bool create, char *dir, size_t size);

/* dir/NAME.ext into path (of size bytes), a path short enough for a UNIX socket's address;
 * false after a message if it is not. */
bool names_path(const char *dir, const char *name, const char *ext, char *path, size_t size);

#endif

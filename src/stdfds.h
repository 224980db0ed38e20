/* The standard descriptors (0, 1, 2) runlimit was started without.  Each is held by a
 * placeholder, /dev/null opened close-on-exec, so that nothing runlimit opens afterwards (a
 * lock, a socket, a pipe, a report's temporary file, an accepted connection) lands there and
 * is taken for standard input, output or error: by the relay, by a message, by a --list
 * line.  The command still finds them closed (close-on-exec), and a write meant for one of
 * them fails as it would have (stdfds_closed). */
#ifndef RUNLIMIT_STDFDS_H
#define RUNLIMIT_STDFDS_H

#include <stdbool.h>

/* Hold every closed standard descriptor.  Where /dev/null cannot be opened the slot stays
 * empty, and each opener's own care (selfpipe.c, relay.c) keeps off it. */
void stdfds_hold(void);

/* Was fd (0, 1 or 2) closed when runlimit started?  Then writing to it is EBADF. */
bool stdfds_closed(int fd);

#endif

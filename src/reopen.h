/* Reading back a file the command writes to (--report-tail with stderr a regular file): a
 * description of its own for reading, of the very file a descriptor of runlimit's is open on
 * (which may be open for writing only).  One implementation per platform: reopen_proc.c
 * (Linux: /proc/self/fd), reopen_darwin.c (fcntl F_GETPATH, checked against the file's
 * identity), reopen_posix.c (none: FreeBSD, the portable build). */
#ifndef RUNLIMIT_REOPEN_H
#define RUNLIMIT_REOPEN_H

/* A read-only, close-on-exec descriptor of the file fd is open on, with the permissions of
 * runlimit's user; -1 if there is none to be had. */
int reopen_for_reading(int fd);

#endif

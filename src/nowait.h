#ifndef RUNLIMIT_NOWAIT_H
#define RUNLIMIT_NOWAIT_H

#include <stddef.h>
#include <sys/types.h>

/* A write to a descriptor the caller shares (its stdout, stderr, a report's pipe), which
 * runlimit may not make non-blocking, that never waits for room: poll(2) saying there is
 * room is not enough, since another writer of the same pipe (make -j, several runs into one
 * log) may fill it in between, and a reader that then takes nothing would hold runlimit
 * past the bound.  A socket is sent to with MSG_DONTWAIT; a pipe, FIFO or terminal is
 * written through a non-blocking description of runlimit's own (os/os.h: reopen_fd) where
 * the system gives one (Linux; macOS for FIFOs and terminals with a path); a regular file
 * never waits for a reader.  Elsewhere (an anonymous pipe on macOS or FreeBSD, the portable
 * build), the write follows poll at once and that gap remains (the manual, BUGS).
 * Returns as write(2) does; -1 with EAGAIN where there is no room now. */
ssize_t nowait_write(int fd, const void *buf, size_t len);

/* The same for a descriptor whose file type (st_mode, from fstat) the caller knows and that
 * cannot change under it (the relay's stdout and stderr): one fstat a run, not one a write. */
ssize_t nowait_write_mode(int fd, mode_t mode, const void *buf, size_t len);

#endif

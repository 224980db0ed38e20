/* Who is at the other end of a connected UNIX socket (the control socket of a named run).
 * One implementation per platform: peer_linux.c (SO_PEERCRED), peer_bsd.c (getpeereid:
 * macOS, FreeBSD), peer_posix.c (POSIX has no way: the portable build then relies on the
 * directory of named runs alone, which only its user and root can enter). */
#ifndef RUNLIMIT_PEER_H
#define RUNLIMIT_PEER_H

#include <sys/types.h>

/* 1 with the peer's effective uid in *uid; 0 where the system cannot tell; -1 on error. */
int peer_uid(int fd, uid_t *uid);

#endif

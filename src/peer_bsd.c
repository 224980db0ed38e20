/* getpeereid is a BSD call, hidden by a strict POSIX namespace on macOS. */
#define _DARWIN_C_SOURCE
#include "peer.h"

#include <sys/socket.h>
#include <unistd.h>

int peer_uid(int fd, uid_t *uid)
{
	gid_t gid;
	return getpeereid(fd, uid, &gid) == 0 ? 1 : -1;
}

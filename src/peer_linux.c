/* struct ucred is a GNU name. */
#define _GNU_SOURCE
#include "peer.h"

#include <sys/socket.h>

int peer_uid(int fd, uid_t *uid)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
		return -1;
	*uid = cred.uid;
	return 1;
}

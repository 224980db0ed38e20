#include "peer.h"

int peer_uid(int fd, uid_t *uid)
{
	(void)fd;
	(void)uid;
	return 0;
}

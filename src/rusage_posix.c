/* ru_maxrss where it counts KiB: Linux, FreeBSD, and the systems not known otherwise. */
#include "os.h"

long os_maxrss_kib(long ru_maxrss)
{
	return ru_maxrss;
}

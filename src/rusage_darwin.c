/* ru_maxrss on macOS counts bytes. */
#include "os.h"

long os_maxrss_kib(long ru_maxrss)
{
	return ru_maxrss / 1024;
}

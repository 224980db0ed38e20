/* Other systems: what POSIX sysconf reports. */
#define _DARWIN_C_SOURCE /* _SC_NPROCESSORS_* are not POSIX names: macOS hides them */
#include "ncpu.h"

#include <limits.h>
#include <unistd.h>

static unsigned long count(int name)
{
	long n = sysconf(name);
	return n > 0 ? (unsigned long)n : 0;
}

unsigned long ncpu_available(void)
{
	return count(_SC_NPROCESSORS_ONLN);
}

unsigned long ncpu_installed(void)
{
	unsigned long n = count(_SC_NPROCESSORS_CONF), available = ncpu_available();
	return n > available ? n : available;
}

unsigned long ncpu_quota(void)
{
	return ULONG_MAX;
}

/* macOS: the kernel's processor counts.  No affinity masks and no CPU quotas here. */
#define _DARWIN_C_SOURCE
#include "ncpu.h"

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/sysctl.h>

static unsigned long sysctl_count(const char *name)
{
	int n = 0;
	size_t len = sizeof n;
	if (sysctlbyname(name, &n, &len, NULL, 0) != 0 || len != sizeof n || n <= 0)
		return 0;
	return (unsigned long)n;
}

unsigned long ncpu_available(void)
{
	/* hw.activecpu leaves out processors the system has disabled; hw.ncpu does not. */
	unsigned long n = sysctl_count("hw.activecpu");
	if (n == 0)
		n = sysctl_count("hw.logicalcpu");
	if (n == 0)
		n = sysctl_count("hw.ncpu");
	return n;
}

unsigned long ncpu_installed(void)
{
	unsigned long n = sysctl_count("hw.ncpu"), available = ncpu_available();
	return n > available ? n : available;
}

unsigned long ncpu_quota(void)
{
	return ULONG_MAX;
}

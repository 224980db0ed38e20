/* FreeBSD: the process's cpuset, then hw.ncpu.  No CPU quotas counted here (rctl's pcpu
 * limit is a percentage of one CPU, not a share of the machine). */
#include "ncpu.h"

#include <limits.h>
#include <stddef.h>
#include <sys/param.h>
#include <sys/cpuset.h>
#include <sys/sysctl.h>
#include <unistd.h>

static unsigned long hw_ncpu(void)
{
	int n = 0;
	size_t len = sizeof n;
	if (sysctlbyname("hw.ncpu", &n, &len, NULL, 0) != 0 || len != sizeof n || n <= 0)
		return 0;
	return (unsigned long)n;
}

unsigned long ncpu_available(void)
{
	cpuset_t mask;
	CPU_ZERO(&mask);
	if (cpuset_getaffinity(CPU_LEVEL_WHICH, CPU_WHICH_PID, -1, sizeof mask, &mask) == 0) {
		int n = CPU_COUNT(&mask);
		if (n > 0)
			return (unsigned long)n;
	}
	return hw_ncpu();
}

unsigned long ncpu_installed(void)
{
	unsigned long n = hw_ncpu(), available = ncpu_available();
	return n > available ? n : available;
}

unsigned long ncpu_quota(void)
{
	return ULONG_MAX;
}

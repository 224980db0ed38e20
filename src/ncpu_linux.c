/* Linux: the affinity mask, /sys for the processors online and installed, and the cgroup
 * CPU quota.  /sys is read directly rather than through sysconf because musl's sysconf
 * answers with the affinity count for both, and 1 when the mask has more than 1024 CPUs. */
#define _GNU_SOURCE
#include "ncpu.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpufiles.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* sched_getaffinity with a set that grows until the kernel's CPU count fits. */
static unsigned long affinity_count(void)
{
	for (int ncpus = 1024; ncpus <= (1 << 22); ncpus *= 2) {
		cpu_set_t *set = CPU_ALLOC((size_t)ncpus);
		if (!set)
			return 0;
		size_t size = CPU_ALLOC_SIZE((size_t)ncpus);
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(0, size, set) == 0) {
			int n = CPU_COUNT_S(size, set);
			CPU_FREE(set);
			return n > 0 ? (unsigned long)n : 0;
		}
		int err = errno;
		CPU_FREE(set);
		if (err != EINVAL)
			return 0;
	}
	return 0;
}

static unsigned long sysconf_count(int name)
{
	long n = sysconf(name);
	return n > 0 ? (unsigned long)n : 0;
}

static unsigned long online_count(void)
{
	/* Only a whole list: a cut-off one ("0,2,4,...,40") would still parse, as fewer CPUs. */
	static char buf[65536];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		unsigned long count = n > 0 && n < sizeof buf - 1 && buf[n - 1] == '\n'
			? cpulist_count(buf) : 0;
		if (count)
			return count;
	}
	return sysconf_count(_SC_NPROCESSORS_ONLN);
}

unsigned long ncpu_available(void)
{
	unsigned long online = online_count(), mask = affinity_count();
	if (online && mask)
		return mask < online ? mask : online;
	return online ? online : mask;
}

/* The cpuN directories of /sys/devices/system/cpu: one per processor installed. */
static unsigned long sysfs_cpu_dirs(void)
{
	DIR *d = opendir("/sys/devices/system/cpu");
	if (!d)
		return 0;
	unsigned long n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *s = e->d_name;
		if (strncmp(s, "cpu", 3) != 0 || s[3] == '\0')
			continue;
		s += 3;
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s == '\0')
			n++;
	}
	closedir(d);
	return n;
}

unsigned long ncpu_installed(void)
{
	unsigned long n = sysfs_cpu_dirs();
	if (n == 0)
		n = sysconf_count(_SC_NPROCESSORS_CONF);
	unsigned long available = ncpu_available();
	return n > available ? n : available;
}

unsigned long ncpu_quota(void)
{
	/* A real-time task is not throttled by the CFS quota (GNU nproc agrees).  The system
	 * call, because musl's sched_getscheduler() always fails with ENOSYS. */
	int policy = (int)syscall(SYS_sched_getscheduler, 0);
	if (policy != -1)
		policy &= ~SCHED_RESET_ON_FORK; /* a flag that sched_getscheduler may add */
	if (policy == -1 || policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE)
		return ULONG_MAX;
	return cgroup_cpu_quota("/proc/self/cgroup", "/proc/self/mountinfo", "/sys/fs/cgroup");
}

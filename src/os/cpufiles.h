/* Linux's CPU files, read and parsed: cgroup CPU quotas (v1 and v2), the process's own v2
 * cgroup (where the run's cgroup is made: linux_cgroup.c) and sysfs CPU lists.
 * Plain C with no Linux headers, so the unit tests run the parsers and the quota walk
 * against made-up files on any system. */
#ifndef RUNLIMIT_CPUFILES_H
#define RUNLIMIT_CPUFILES_H

#include <stdbool.h>
#include <stddef.h>

/* A sysfs CPU list such as "0-3,8,10-11\n": how many CPUs it names; 0 if malformed. */
unsigned long cpulist_count(const char *text);

/* quota/period as a processor count, rounded to nearest with halves up, at least 1.
 * 0 means no limit: a negative quota (v1's -1) or a period that is not positive. */
unsigned long quota_cpus(long long quota, long long period);

/* A cgroup v2 cpu.max file, "QUOTA PERIOD" or "max PERIOD": processors, 0 if no limit. */
unsigned long cpu_max_parse(const char *text);

/* A cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us pair: processors, 0 if no limit. */
unsigned long cfs_parse(const char *quota_text, const char *period_text);

/* One line of /proc/self/cgroup, "ID:CONTROLLERS:PATH", split in place. */
struct cgroup_line {
	const char *id;
	const char *controllers; /* comma-separated; empty for the v2 hierarchy */
	const char *path;
};
bool cgroup_line_parse(char *line, struct cgroup_line *out);

/* One line of /proc/self/mountinfo, split in place, with octal escapes ("\040") decoded. */
struct mount_line {
	const char *root;        /* the directory of the file system mounted here */
	const char *mount_point;
	const char *fstype;
	const char *super_options;
};
bool mountinfo_parse(char *line, struct mount_line *out);

/* Is item one of the entries of the comma-separated list? */
bool list_has(const char *list, const char *item);

/* Is path safe to append to a mount point: absolute, and no empty, "." or ".." component? */
bool cgroup_path_ok(const char *path);

/* The CPU quota of the process whose cgroup and mountinfo files are given, as a processor
 * count: the smallest of the v2 cpu.max and v1 CFS limits from its cgroup up to the top of
 * the mount.  Where mountinfo lists no mount at all (missing, unreadable or empty), the v2
 * hierarchy is taken to be mounted whole at v2_default ("/sys/fs/cgroup", as GNU nproc
 * does; NULL for no such guess) if that directory has a cgroup.controllers file; v1 is not
 * guessed.  ULONG_MAX when no quota applies or none can be read. */
unsigned long cgroup_cpu_quota(const char *cgroup_file, const char *mountinfo_file,
	const char *v2_default);

/* The directory of the process's cgroup v2, from the same files and the same default
 * mount, into dir (size bytes): "/sys/fs/cgroup/user.slice/..." (the mount point alone for
 * the top of the mount).  False where there is no v2 hierarchy, no mount of it holds the
 * process's cgroup, or the path does not fit. */
bool cgroup_v2_dir(const char *cgroup_file, const char *mountinfo_file, const char *v2_default,
	char *dir, size_t size);

#endif

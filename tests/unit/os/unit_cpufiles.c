/* Linux's CPU files (cpufiles.h): the parsers, and the quota walk over made-up cgroup trees
 * in a temporary directory. */
#define _DARWIN_C_SOURCE /* mkdtemp, which macOS declares only in its full namespace */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/cpufiles.h"
#include "../unit.h"

static void ulong_is(const char *what, unsigned long got, unsigned long want)
{
	char detail[96];
	snprintf(detail, sizeof detail, "got %lu, want %lu", got, want);
	check(got == want, what, detail);
}

static void cpulist_is(const char *s, unsigned long want)
{
	char what[128];
	snprintf(what, sizeof what, "cpulist_count(\"%s\")", s);
	ulong_is(what, cpulist_count(s), want);
}

static void quota_is(long long q, long long p, unsigned long want)
{
	char what[128];
	snprintf(what, sizeof what, "quota_cpus(%lld, %lld)", q, p);
	ulong_is(what, quota_cpus(q, p), want);
}

static void cpu_max_is(const char *s, unsigned long want)
{
	char what[128];
	snprintf(what, sizeof what, "cpu_max_parse(\"%s\")", s);
	ulong_is(what, cpu_max_parse(s), want);
}

static void cfs_is(const char *q, const char *p, unsigned long want)
{
	char what[128];
	snprintf(what, sizeof what, "cfs_parse(\"%s\", \"%s\")", q, p);
	ulong_is(what, cfs_parse(q, p), want);
}

static void cgroup_line_is(const char *text, const char *id, const char *ctl, const char *path)
{
	char line[256], what[300];
	snprintf(line, sizeof line, "%s", text);
	snprintf(what, sizeof what, "cgroup_line_parse(\"%s\")", text);
	struct cgroup_line c;
	bool ok = cgroup_line_parse(line, &c);
	if (!id) {
		check(!ok, what, "accepted, want rejected");
		return;
	}
	check(ok && strcmp(c.id, id) == 0 && strcmp(c.controllers, ctl) == 0 &&
		strcmp(c.path, path) == 0, what, ok ? c.path : "rejected");
}

static void mount_is(const char *text, const char *root, const char *mp, const char *fs,
	const char *super)
{
	char line[512], what[600];
	snprintf(line, sizeof line, "%s", text);
	snprintf(what, sizeof what, "mountinfo_parse(\"%s\")", text);
	struct mount_line m;
	bool ok = mountinfo_parse(line, &m);
	if (!root) {
		check(!ok, what, "accepted, want rejected");
		return;
	}
	check(ok && strcmp(m.root, root) == 0 && strcmp(m.mount_point, mp) == 0 &&
		strcmp(m.fstype, fs) == 0 && strcmp(m.super_options, super) == 0, what,
		ok ? m.mount_point : "rejected");
}

static void path_ok_is(const char *path, bool want)
{
	char what[128];
	snprintf(what, sizeof what, "cgroup_path_ok(\"%s\") == %d", path, want);
	check(cgroup_path_ok(path) == want, what, NULL);
}

/* A made-up machine: files under a temporary directory. */
static char tmp[64];

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", tmp, rel);
	/* mkdir -p of the parent */
	for (char *p = path + strlen(tmp) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		check(0, "write a made-up cgroup file", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void gone(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", tmp, rel);
	unlink(path);
}

/* The made-up stand-in for /sys/fs/cgroup, the v2 mount assumed without a mountinfo. */
static char sys_cgroup[96];

/* /proc/self/cgroup and mountinfo with the given lines ("%s" in mountinfo is the temp dir);
 * a NULL mountinfo is no mountinfo file at all. */
static void lay_out(const char *cgroup, const char *mountinfo, char *cg_file, char *mi_file,
	size_t size)
{
	char mi[2048];
	put("proc-cgroup", cgroup);
	if (mountinfo) {
		snprintf(mi, sizeof mi, mountinfo, tmp, tmp, tmp);
		put("mountinfo", mi);
	} else {
		gone("mountinfo");
	}
	snprintf(cg_file, size, "%s/proc-cgroup", tmp);
	snprintf(mi_file, size, "%s/mountinfo", tmp);
}

static void quota_case(const char *what, const char *cgroup, const char *mountinfo,
	unsigned long want)
{
	char cg_file[512], mi_file[512];
	lay_out(cgroup, mountinfo, cg_file, mi_file, sizeof cg_file);
	ulong_is(what, cgroup_cpu_quota(cg_file, mi_file, sys_cgroup), want);
}

/* No mountinfo (a chroot with a made-up /proc, as GNU's tests/nproc/nproc-quota.sh builds):
 * the v2 hierarchy is taken at the default mount point, as GNU nproc takes /sys/fs/cgroup. */
static void test_no_mountinfo(void)
{
	put("sys-cgroup/cgroup.controllers", "cpu io memory pids\n");
	put("sys-cgroup/a/b/cpu.max", "max 100000\n");
	put("sys-cgroup/a/cpu.max", "150000 100000\n");
	quota_case("no mountinfo: v2 at the default mount, the parent's 1.5 CPUs count",
		"0::/a/b\n", NULL, 2);
	put("sys-cgroup/cpu.max", "50000 100000\n");
	quota_case("no mountinfo: the default mount's top directory counts too", "0::/a/b\n",
		NULL, 1);
	gone("sys-cgroup/a/cpu.max");
	put("sys-cgroup/foo/cpu.max", "max 100000\n");
	put("sys-cgroup/cpu.max", "150000 100000\n");
	quota_case("no mountinfo: GNU's nproc-quota.sh layout, 0::/foo", "0::/foo\n", NULL, 2);
	quota_case("empty mountinfo: the same default", "0::/foo\n", "", 2);
	quota_case("unparsable mountinfo: the same default", "0::/foo\n", "garbage\n", 2);
	quota_case("no mountinfo: v1 is not guessed", "4:cpu,cpuacct:/foo\n", NULL, ULONG_MAX);
	quota_case("no mountinfo: a '..' path is not followed", "0::/foo/..\n", NULL, ULONG_MAX);
	/* A mount table is believed over the default, even one without a cgroup2 mount. */
	quota_case("mountinfo without cgroup2: the default is not guessed", "0::/foo\n",
		"31 23 0:28 / %s/tmpfs rw - tmpfs tmpfs rw\n", ULONG_MAX);

	char cg_file[512], mi_file[512];
	snprintf(cg_file, sizeof cg_file, "%s/proc-cgroup", tmp);
	snprintf(mi_file, sizeof mi_file, "%s/mountinfo", tmp);
	gone("mountinfo");
	ulong_is("no mountinfo and no default: no quota", cgroup_cpu_quota(cg_file, mi_file, NULL),
		ULONG_MAX);
	gone("sys-cgroup/cgroup.controllers");
	quota_case("no mountinfo, no cgroup.controllers at the default: no cgroup2 there",
		"0::/foo\n", NULL, ULONG_MAX);
	put("sys-cgroup/cgroup.controllers", "\n");
	put("sys-cgroup/cpu.max", "50000 100000\n");
}

/* The directory of the process's own v2 cgroup: where the run's cgroup is made. */
static void v2_dir_is(const char *what, const char *cgroup, const char *mountinfo,
	const char *want)
{
	char cg_file[512], mi_file[512], dir[512], expect[512];
	lay_out(cgroup, mountinfo, cg_file, mi_file, sizeof cg_file);
	bool ok = cgroup_v2_dir(cg_file, mi_file, sys_cgroup, dir, sizeof dir);
	if (!want) {
		check(!ok, what, ok ? dir : NULL);
		return;
	}
	snprintf(expect, sizeof expect, want, tmp);
	check(ok && strcmp(dir, expect) == 0, what, ok ? dir : "none found");
}

static void test_v2_dir(void)
{
	v2_dir_is("v2 mounted whole: the mount point and the path",
		"0::/user.slice/a.scope\n",
		"31 23 0:28 / %s/cg rw - cgroup2 cgroup2 rw\n", "%s/cg/user.slice/a.scope");
	v2_dir_is("the top cgroup: the mount point itself", "0::/\n",
		"31 23 0:28 / %s/cg/ rw - cgroup2 cgroup2 rw\n", "%s/cg");
	v2_dir_is("a mount of a subtree (a container's): the path below its root",
		"0::/lxc/c1/init.scope\n",
		"31 23 0:28 /lxc/c1 %s/cg rw - cgroup2 cgroup2 rw\n", "%s/cg/init.scope");
	v2_dir_is("v1 only: none", "4:memory:/x\n",
		"31 23 0:28 / %s/cg rw - cgroup cgroup rw,memory\n", NULL);
	v2_dir_is("a hybrid host: the v2 line, the cgroup2 mount",
		"4:memory:/x\n0::/\n",
		"31 23 0:28 / %s/memory rw - cgroup cgroup rw,memory\n"
		"32 23 0:29 / %s/unified rw - cgroup2 cgroup2 rw\n", "%s/unified");
	v2_dir_is("a '..' path: none", "0::/a/../..\n",
		"31 23 0:28 / %s/cg rw - cgroup2 cgroup2 rw\n", NULL);
	v2_dir_is("a path outside the mount's root: none", "0::/elsewhere\n",
		"31 23 0:28 /lxc %s/cg rw - cgroup2 cgroup2 rw\n", NULL);
	put("sys-cgroup/cgroup.controllers", "memory pids\n");
	v2_dir_is("no mountinfo: the default mount", "0::/a\n", NULL, "%s/sys-cgroup/a");
}

static void test_quota_walk(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/runlimit-unit-XXXXXX");
	if (!mkdtemp(tmp)) {
		check(0, "mkdtemp", tmp);
		return;
	}
	snprintf(sys_cgroup, sizeof sys_cgroup, "%s/sys-cgroup", tmp);
	test_no_mountinfo();

	/* From here on every mountinfo lists mounts: the default mount (which still has a
	 * cgroup.controllers and a quota at its top) must never be read. */
	const char *v2 = "30 20 0:26 / %s/v2 rw,nosuid shared:4 - cgroup2 cgroup2 rw\n";
	const char *cg_v2 = "0::/a/b\n";

	put("v2/a/b/cpu.max", "max 100000\n");
	put("v2/a/cpu.max", "150000 100000\n");
	quota_case("v2: the parent's 1.5 CPUs count at the leaf", cg_v2, v2, 2);
	put("v2/a/b/cpu.max", "50000 100000\n");
	quota_case("v2: the smallest along the path wins", cg_v2, v2, 1);
	put("v2/a/b/cpu.max", "300000 100000\n");
	put("v2/a/cpu.max", "100000 100000\n");
	quota_case("v2: a parent tighter than the leaf wins", cg_v2, v2, 1);
	put("v2/a/b/cpu.max", "max 100000\n");
	put("v2/a/cpu.max", "max 100000\n");
	quota_case("v2: max everywhere is no quota", cg_v2, v2, ULONG_MAX);
	put("v2/cpu.max", "300000 100000\n");
	quota_case("v2: the mount's top directory counts too", cg_v2, v2, 3);
	gone("v2/cpu.max");
	put("v2/a/b/cpu.max", "250000 100000\n");
	quota_case("v2: 2.5 rounds up to 3", cg_v2, v2, 3);
	quota_case("v2: no 0:: line, no quota", "1:cpu:/a/b\n", v2, ULONG_MAX);
	quota_case("v2: a '..' path is not followed", "0::/a/b/../..\n", v2, ULONG_MAX);
	quota_case("v2: no cgroup2 mount, no quota", cg_v2,
		"31 23 0:28 / %s/tmpfs rw - tmpfs tmpfs rw\n", ULONG_MAX);

	/* A container without its own cgroup namespace: the mount shows /docker/c1 only. */
	put("v1cpu/cpu.cfs_quota_us", "150000\n");
	put("v1cpu/cpu.cfs_period_us", "100000\n");
	const char *v1 = "32 31 0:29 /docker/c1 %s/v1cpu rw - cgroup cgroup rw,cpu,cpuacct\n";
	quota_case("v1: the controller's mount root maps the path", "4:cpu,cpuacct:/docker/c1\n",
		v1, 2);
	quota_case("v1: a path outside the mount root is not guessed",
		"4:cpu,cpuacct:/elsewhere\n", v1, ULONG_MAX);
	quota_case("v1: a sibling with a longer name is outside the root",
		"4:cpu,cpuacct:/docker/c10\n", v1, ULONG_MAX);
	put("v1cpu/cpu.cfs_quota_us", "-1\n");
	quota_case("v1: -1 is no quota", "4:cpu,cpuacct:/docker/c1\n", v1, ULONG_MAX);
	quota_case("v1: cpuacct alone is not the cpu controller", "4:cpuacct:/docker/c1\n",
		"32 31 0:29 /docker/c1 %s/v1cpu rw - cgroup cgroup rw,cpuacct\n", ULONG_MAX);

	/* v1 with the whole hierarchy visible, walked up; and a space in the mount point. */
	put("v1 all/job/cpu.cfs_quota_us", "49000\n");
	put("v1 all/job/cpu.cfs_period_us", "100000\n");
	put("v1 all/job/step/cpu.cfs_quota_us", "-1\n");
	put("v1 all/job/step/cpu.cfs_period_us", "100000\n");
	quota_case("v1: walked up, half a CPU is 1, escaped space in the mount point",
		"9:name=systemd:/\n3:cpu:/job/step\n",
		"32 31 0:29 / %s/v1\\040all rw - cgroup cgroup rw,cpu\n", 1);
	put("v1 all/job/cpu.cfs_period_us", "0\n");
	quota_case("v1: period 0 is no quota", "3:cpu:/job/step\n",
		"32 31 0:29 / %s/v1\\040all rw - cgroup cgroup rw,cpu\n", ULONG_MAX);

	/* Both hierarchies: the smaller wins. */
	put("v1cpu/cpu.cfs_quota_us", "300000\n");
	put("v2/a/b/cpu.max", "200000 100000\n");
	quota_case("v1 and v2 both: the smaller wins", "4:cpu,cpuacct:/docker/c1\n0::/a/b\n",
		"32 31 0:29 /docker/c1 %s/v1cpu rw - cgroup cgroup rw,cpu,cpuacct\n"
		"30 20 0:26 / %s/v2 rw - cgroup2 cgroup2 rw\n", 2);

	put("v1cpu/cpu.cfs_quota_us", "100000\n");
	put("v2/a/b/cpu.max", "300000 100000\n");
	quota_case("v1 tighter than v2: the smaller still wins",
		"4:cpu,cpuacct:/docker/c1\n0::/a/b\n",
		"32 31 0:29 /docker/c1 %s/v1cpu rw - cgroup cgroup rw,cpu,cpuacct\n"
		"30 20 0:26 / %s/v2 rw - cgroup2 cgroup2 rw\n", 1);

	/* Several mounts: one whose root does not hold the path, or that has been mounted
	 * over, is passed by for the one that shows the cgroup. */
	put("v1cpu/cpu.cfs_quota_us", "50000\n");
	quota_case("v1: an inherited mount with root /../.. is passed by",
		"4:cpu,cpuacct:/docker/c1\n",
		"32 31 0:29 /../.. %s/v1cpu rw - cgroup cgroup rw,cpu,cpuacct\n"
		"33 31 0:29 /docker/c1 %s/v1cpu rw - cgroup cgroup rw,cpu,cpuacct\n", 1);
	quota_case("v1: a later mount whose root holds the path is found",
		"4:cpu,cpuacct:/docker/c1\n",
		"32 31 0:29 /other %s/elsewhere rw - cgroup cgroup rw,cpu,cpuacct\n"
		"33 31 0:29 /docker/c1 %s/v1cpu rw - cgroup cgroup rw,cpu,cpuacct\n", 1);
	quota_case("v1: a cgroup mount covered by a later tmpfs is not read",
		"4:cpu,cpuacct:/docker/c1\n",
		"32 31 0:29 /docker/c1 %s/v1cpu rw - cgroup cgroup rw,cpu,cpuacct\n"
		"40 31 0:50 / %s/v1cpu rw - tmpfs tmpfs rw\n", ULONG_MAX);

	/* Missing files everywhere. */
	char bad[512];
	snprintf(bad, sizeof bad, "%s/no-such-file", tmp);
	ulong_is("no cgroup file: no quota", cgroup_cpu_quota(bad, bad, sys_cgroup), ULONG_MAX);

	test_v2_dir();

	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		check(0, "remove the made-up tree", tmp);
}

void test_cpufiles(void)
{
	cpulist_is("0-1\n", 2);
	cpulist_is("0", 1);
	cpulist_is("0-3,8,10-11\n", 7);
	cpulist_is("0-1023,2048-4095", 3072);
	cpulist_is("", 0);
	cpulist_is("3-1", 0);
	cpulist_is("0-", 0);
	cpulist_is("0,,1", 0);
	cpulist_is("a", 0);
	cpulist_is("0-1 x", 0);
	cpulist_is("99999999999999999999999", 0);

	quota_is(50000, 100000, 1);
	quota_is(100000, 100000, 1);
	quota_is(149000, 100000, 1);
	quota_is(149999, 100000, 1);
	quota_is(150000, 100000, 2);
	quota_is(250000, 100000, 3);
	quota_is(1000, 100000, 1);
	quota_is(1, 3, 1);
	quota_is(3, 2, 2);
	quota_is(-1, 100000, 0);
	quota_is(100000, 0, 0);
	quota_is(100000, -5, 0);
	quota_is(LLONG_MAX, 1, (unsigned long)LLONG_MAX);
	quota_is(LLONG_MAX, LLONG_MAX, 1);

	cpu_max_is("max 100000\n", 0);
	cpu_max_is("max\n", 0);
	cpu_max_is("50000 100000\n", 1);
	cpu_max_is("150000 100000\n", 2);
	cpu_max_is("150000 100000", 2);
	cpu_max_is("200000 0\n", 0);
	cpu_max_is("", 0);
	cpu_max_is("150000\n", 0);
	cpu_max_is("-5 100000\n", 0);
	cpu_max_is("150000 100000 7\n", 0);
	cpu_max_is("99999999999999999999 100000\n", 0);

	cfs_is("-1\n", "100000\n", 0);
	cfs_is("150000\n", "100000\n", 2);
	cfs_is("50000", "100000", 1);
	cfs_is("x", "100000", 0);
	cfs_is("150000", "", 0);
	cfs_is("150000", "0", 0);

	cgroup_line_is("0::/user.slice/a\n", "0", "", "/user.slice/a");
	cgroup_line_is("0::/\n", "0", "", "/");
	cgroup_line_is("4:cpu,cpuacct:/docker/abc\n", "4", "cpu,cpuacct", "/docker/abc");
	cgroup_line_is("9:name=systemd:/a:b\n", "9", "name=systemd", "/a:b");
	cgroup_line_is("garbage\n", NULL, NULL, NULL);
	cgroup_line_is("1:cpu\n", NULL, NULL, NULL);

	mount_is("32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n",
		"/", "/sys/fs/cgroup/cpu", "cgroup", "rw,cpu");
	mount_is("30 20 0:26 / /sys/fs/cgroup rw,nosuid shared:4 master:1 - cgroup2 cgroup2 "
		"rw,nsdelegate\n", "/", "/sys/fs/cgroup", "cgroup2", "rw,nsdelegate");
	mount_is("40 31 0:37 /docker/x /a\\040b rw - cgroup cgroup rw,cpu,cpuacct",
		"/docker/x", "/a b", "cgroup", "rw,cpu,cpuacct");
	mount_is("40 31 0:37 /a\\134b /m rw - cgroup cgroup rw", "/a\\b", "/m", "cgroup", "rw");
	mount_is("32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime cgroup cgroup rw,cpu\n", NULL,
		NULL, NULL, NULL);
	mount_is("32 31 0:29 /\n", NULL, NULL, NULL, NULL);
	mount_is("32 31 0:29 / /m rw - cgroup\n", NULL, NULL, NULL, NULL);
	mount_is("", NULL, NULL, NULL, NULL);

	check(list_has("rw,cpu,cpuacct", "cpu"), "list_has(rw,cpu,cpuacct; cpu)", NULL);
	check(list_has("cpu", "cpu"), "list_has(cpu; cpu)", NULL);
	check(list_has("cpuacct,cpu", "cpu"), "list_has(cpuacct,cpu; cpu)", NULL);
	check(!list_has("rw,cpuacct", "cpu"), "!list_has(rw,cpuacct; cpu)", NULL);
	check(!list_has("rw,cpuset", "cpu"), "!list_has(rw,cpuset; cpu)", NULL);
	check(!list_has("", "cpu"), "!list_has(; cpu)", NULL);

	path_ok_is("/", true);
	path_ok_is("/a/b", true);
	path_ok_is("/a/..b", true);
	path_ok_is("/a.slice/x.scope", true);
	path_ok_is("", false);
	path_ok_is("a/b", false);
	path_ok_is("/a/../b", false);
	path_ok_is("/..", false);
	path_ok_is("/../../x", false);
	path_ok_is("/a/./b", false);
	path_ok_is("/a//b", false);
	path_ok_is("/a/", false);

	test_quota_walk();
}

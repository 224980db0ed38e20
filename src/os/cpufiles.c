#include "cpufiles.h"
#include "grow.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest file name built from a mount point and a cgroup path; longer ones are skipped
 * rather than truncated, so a cut-off path can never name some other cgroup's file. */
#define CGROUP_PATH_MAX 4096

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* A run of decimal digits at *p, advancing past it; false if there is none or it overflows. */
static bool take_number(const char **p, unsigned long long *value)
{
	const char *s = *p;
	unsigned long long v = 0;
	if (!is_digit(*s))
		return false;
	for (; is_digit(*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (ULLONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*p = s;
	*value = v;
	return true;
}

unsigned long cpulist_count(const char *text)
{
	const char *p = text;
	unsigned long long total = 0;
	for (;;) {
		unsigned long long lo, hi;
		if (!take_number(&p, &lo))
			return 0;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!take_number(&p, &hi) || hi < lo)
				return 0;
		}
		total += hi - lo + 1;
		if (total > ULONG_MAX)
			return 0;
		if (*p != ',')
			break;
		p++;
	}
	while (is_blank(*p))
		p++;
	return *p ? 0 : (unsigned long)total;
}

unsigned long quota_cpus(long long quota, long long period)
{
	if (quota < 0 || period <= 0)
		return 0;
	unsigned long long q = (unsigned long long)quota, per = (unsigned long long)period;
	unsigned long long n = q / per, rest = q % per;
	if (rest >= per - rest) /* rest/per >= 1/2: halves round up */
		n++;
	if (n == 0)
		n = 1;
	return n > ULONG_MAX ? ULONG_MAX : (unsigned long)n;
}

/* A whole file's text holding one signed decimal number, blanks around it allowed. */
static bool parse_signed(const char *text, long long *value)
{
	const char *p = text;
	while (is_blank(*p))
		p++;
	bool negative = *p == '-';
	if (negative)
		p++;
	unsigned long long v;
	if (!take_number(&p, &v) || v > (unsigned long long)LLONG_MAX)
		return false;
	while (is_blank(*p))
		p++;
	if (*p)
		return false;
	*value = negative ? -(long long)v : (long long)v;
	return true;
}

unsigned long cpu_max_parse(const char *text)
{
	const char *p = text;
	unsigned long long quota, period;
	if (!take_number(&p, &quota) || *p != ' ')
		return 0; /* "max ..." or malformed: no limit */
	p++;
	if (!take_number(&p, &period))
		return 0;
	while (is_blank(*p))
		p++;
	if (*p || quota > (unsigned long long)LLONG_MAX || period > (unsigned long long)LLONG_MAX)
		return 0;
	return quota_cpus((long long)quota, (long long)period);
}

unsigned long cfs_parse(const char *quota_text, const char *period_text)
{
	long long quota, period;
	if (!parse_signed(quota_text, &quota) || !parse_signed(period_text, &period))
		return 0;
	return quota_cpus(quota, period);
}

bool cgroup_line_parse(char *line, struct cgroup_line *out)
{
	char *first = strchr(line, ':');
	if (!first)
		return false;
	char *second = strchr(first + 1, ':');
	if (!second)
		return false;
	*first = '\0';
	*second = '\0';
	char *path = second + 1;
	size_t len = strlen(path);
	if (len > 0 && path[len - 1] == '\n')
		path[len - 1] = '\0';
	out->id = line;
	out->controllers = first + 1;
	out->path = path;
	return true;
}

/* Decode mountinfo's "\ooo" escapes in place (space, tab, newline and backslash). */
static void unescape(char *s)
{
	char *out = s;
	for (const char *in = s; *in; ) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
		    in[3] >= '0' && in[3] <= '7') {
			*out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
			in += 4;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
}

/* The next space-separated field of *p, terminated in place; NULL at the end of the line. */
static char *next_field(char **p)
{
	char *s = *p;
	while (*s == ' ')
		s++;
	if (*s == '\0' || *s == '\n')
		return NULL;
	char *start = s;
	while (*s && *s != ' ' && *s != '\n')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return start;
}

bool mountinfo_parse(char *line, struct mount_line *out)
{
	/* ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS */
	char *p = line;
	char *field[5];
	for (int i = 0; i < 5; i++)
		if (!(field[i] = next_field(&p)))
			return false;
	char *f;
	do {
		if (!(f = next_field(&p)))
			return false;
	} while (strcmp(f, "-") != 0);
	char *fstype = next_field(&p);
	char *source = next_field(&p);
	char *super = next_field(&p);
	if (!fstype || !source || !super)
		return false;
	unescape(field[3]);
	unescape(field[4]);
	out->root = field[3];
	out->mount_point = field[4];
	out->fstype = fstype;
	out->super_options = super;
	return true;
}

bool list_has(const char *list, const char *item)
{
	size_t n = strlen(item);
	for (const char *p = list; ; ) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && strncmp(p, item, n) == 0)
			return true;
		if (!comma)
			return false;
		p = comma + 1;
	}
}

bool cgroup_path_ok(const char *path)
{
	if (path[0] != '/')
		return false;
	if (path[1] == '\0')
		return true;
	for (const char *p = path + 1; ; ) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

/* The small file at path, whole, in buf; false if it is missing, unreadable or too long. */
static bool read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, size - 1, f);
	bool ok = !ferror(f) && n < size - 1;
	fclose(f);
	buf[n] = '\0';
	return ok;
}

enum cgroup_version { V1, V2 };

/* The limit set in one cgroup directory; 0 if none. */
static unsigned long limit_in(const char *dir, size_t dir_len, enum cgroup_version v)
{
	char file[CGROUP_PATH_MAX], a[64], b[64];
	const char *name = v == V2 ? "/cpu.max" : "/cpu.cfs_quota_us";
	if (dir_len + strlen("/cpu.cfs_period_us") >= sizeof file)
		return 0;
	memcpy(file, dir, dir_len);
	strcpy(file + dir_len, name);
	if (!read_small(file, a, sizeof a))
		return 0;
	if (v == V2)
		return cpu_max_parse(a);
	strcpy(file + dir_len, "/cpu.cfs_period_us");
	if (!read_small(file, b, sizeof b))
		return 0;
	return cfs_parse(a, b);
}

/* A mount shows its file system from `root` down: the part of the cgroup path below root
 * ("" for root itself), or NULL if the path is not under it or either is unsafe. */
static const char *path_under(const char *root, const char *path)
{
	if (!cgroup_path_ok(path) || !cgroup_path_ok(root))
		return NULL;
	size_t root_len = strlen(root);
	const char *rel;
	if (strcmp(root, "/") == 0)
		rel = path;
	else if (strncmp(path, root, root_len) == 0 && (path[root_len] == '\0' || path[root_len] == '/'))
		rel = path + root_len;
	else
		return NULL;
	return strcmp(rel, "/") == 0 ? "" : rel;
}

/* The smallest limit from the cgroup at path up to the top of the mount. */
static unsigned long walk_up(const char *mount_point, const char *root, const char *path,
	enum cgroup_version v)
{
	const char *rel = path_under(root, path);
	if (!rel || mount_point[0] != '/')
		return ULONG_MAX;
	size_t top = strlen(mount_point);
	while (top > 1 && mount_point[top - 1] == '/')
		top--;
	size_t len = top + strlen(rel);
	if (len >= CGROUP_PATH_MAX)
		return ULONG_MAX;
	char dir[CGROUP_PATH_MAX];
	memcpy(dir, mount_point, top);
	strcpy(dir + top, rel);
	unsigned long best = ULONG_MAX;
	for (;;) {
		unsigned long n = limit_in(dir, len, v);
		if (n && n < best)
			best = n;
		if (len <= top || best == 1)
			break;
		while (len > top && dir[len - 1] != '/')
			len--;
		len--; /* the slash */
		dir[len] = '\0';
	}
	return best;
}

/* Each line of a file, in turn, to fn; stops when fn returns true. */
static void each_line(const char *file, bool (*fn)(char *line, void *arg), void *arg)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) >= 0)
		if (fn(line, arg))
			break;
	free(line);
	fclose(f);
}

static char *dup_or_null(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

enum { OTHER = 2 };

struct mount {
	char *root;
	char *mount_point;
	int kind; /* V1 (cgroup with cpu), V2 (cgroup2) or OTHER */
};

struct mounts {
	struct mount *m;
	size_t n, cap;
};

/* One more mount in the list; false if memory ran out. */
static bool push_mount(struct mounts *ms, const char *root, const char *mount_point, int kind)
{
	if (!grow(&ms->m, ms->n, &ms->cap, sizeof *ms->m))
		return false;
	struct mount *e = &ms->m[ms->n];
	e->root = dup_or_null(root);
	e->mount_point = dup_or_null(mount_point);
	e->kind = kind;
	if (!e->root || !e->mount_point) {
		free(e->root);
		free(e->mount_point);
		return false;
	}
	ms->n++;
	return true;
}

/* Every mount is kept, cgroup or not, so that one mounted over another can be told apart. */
static bool add_mount(char *line, void *arg)
{
	struct mounts *ms = arg;
	struct mount_line m;
	if (!mountinfo_parse(line, &m))
		return false;
	int kind = OTHER;
	if (strcmp(m.fstype, "cgroup2") == 0)
		kind = V2;
	else if (strcmp(m.fstype, "cgroup") == 0 && list_has(m.super_options, "cpu"))
		kind = V1;
	return !push_mount(ms, m.root, m.mount_point, kind);
}

/* No mount table to go by: the v2 hierarchy is taken to be mounted whole at dir, as GNU
 * nproc takes it at /sys/fs/cgroup, if dir holds the cgroup.controllers file that every
 * cgroup2 directory has (a v1 layout's tmpfs there does not). */
static void assume_v2_mount(struct mounts *ms, const char *dir)
{
	char file[CGROUP_PATH_MAX];
	size_t len = strlen(dir);
	if (dir[0] != '/' || len + strlen("/cgroup.controllers") >= sizeof file)
		return;
	memcpy(file, dir, len);
	strcpy(file + len, "/cgroup.controllers");
	if (access(file, F_OK) == 0)
		push_mount(ms, "/", dir, V2);
}

/* The mount through which the cgroup at path is seen: the first of the right kind whose root
 * holds the path and that nothing was mounted over later.  NULL if there is none. */
static const struct mount *mount_for(const struct mounts *ms, int kind, const char *path)
{
	for (size_t i = 0; i < ms->n; i++) {
		if (ms->m[i].kind != kind || !path_under(ms->m[i].root, path))
			continue;
		bool covered = false;
		for (size_t j = i + 1; j < ms->n && !covered; j++)
			covered = strcmp(ms->m[j].mount_point, ms->m[i].mount_point) == 0;
		if (!covered)
			return &ms->m[i];
	}
	return NULL;
}

static bool cgroup_path_of(char *line, void *arg)
{
	char **path = arg;
	struct cgroup_line c;
	if (!cgroup_line_parse(line, &c))
		return false;
	if (!path[V2] && strcmp(c.id, "0") == 0 && c.controllers[0] == '\0')
		path[V2] = dup_or_null(c.path);
	if (!path[V1] && list_has(c.controllers, "cpu"))
		path[V1] = dup_or_null(c.path);
	return path[V1] && path[V2];
}

static void mounts_free(struct mounts *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->m[i].root);
		free(ms->m[i].mount_point);
	}
	free(ms->m);
}

bool cgroup_v2_dir(const char *cgroup_file, const char *mountinfo_file, const char *v2_default,
	char *dir, size_t size)
{
	char *path[2] = {NULL, NULL};
	struct mounts ms = {NULL, 0, 0};
	each_line(cgroup_file, cgroup_path_of, path);
	free(path[V1]);
	if (path[V2])
		each_line(mountinfo_file, add_mount, &ms);
	if (path[V2] && ms.n == 0 && v2_default)
		assume_v2_mount(&ms, v2_default);
	const struct mount *m = path[V2] ? mount_for(&ms, V2, path[V2]) : NULL;
	const char *rel = m ? path_under(m->root, path[V2]) : NULL;
	bool ok = false;
	if (rel && m->mount_point[0] == '/') {
		size_t top = strlen(m->mount_point);
		while (top > 1 && m->mount_point[top - 1] == '/')
			top--;
		if (top + strlen(rel) < size) {
			memcpy(dir, m->mount_point, top);
			strcpy(dir + top, rel);
			ok = true;
		}
	}
	free(path[V2]);
	mounts_free(&ms);
	return ok;
}

unsigned long cgroup_cpu_quota(const char *cgroup_file, const char *mountinfo_file,
	const char *v2_default)
{
	char *path[2] = {NULL, NULL};
	struct mounts ms = {NULL, 0, 0};
	each_line(cgroup_file, cgroup_path_of, path);
	if (path[V1] || path[V2])
		each_line(mountinfo_file, add_mount, &ms);
	/* Missing, unreadable or empty (a chroot with a made-up /proc, say): GNU's default. */
	if (path[V2] && ms.n == 0 && v2_default)
		assume_v2_mount(&ms, v2_default);
	unsigned long best = ULONG_MAX;
	for (int v = V1; v <= V2; v++) {
		const struct mount *m = path[v] ? mount_for(&ms, v, path[v]) : NULL;
		if (m) {
			unsigned long n = walk_up(m->mount_point, m->root, path[v],
				(enum cgroup_version)v);
			if (n < best)
				best = n;
		}
		free(path[v]);
	}
	mounts_free(&ms);
	return best;
}

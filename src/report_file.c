/* O_NOFOLLOW is POSIX, but macOS shows it only with its extensions asked for. */
#define _DARWIN_C_SOURCE
#include "report_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "msg.h"
#include "os/os.h"
#include "quote.h"
#include "report.h"
#include "stdfds.h"

/* The report is written a piece of this size at a time, from a buffer of its own that needs
 * no memory at the end of the run... */
#define REPORT_PIECE ((size_t)64 * 1024)
/* ...and to a descriptor, a pipe or a device, in one write(2) up to this size: every report
 * but one with a large --report-tail. */
#define ONE_WRITE ((size_t)1024 * 1024)

/* Where the report is being written. */
struct dest {
	const char *path;
	int fd;          /* -1: nowhere (err says why) */
	bool own;        /* opened for the report: closed after it */
	bool atomic;     /* a temporary file (tmp), renamed onto path once written */
	char tmp[PATH_MAX + 256]; /* the directory, and "." + at most 200 + ".runlimit-XXXXXX" */
	mode_t mode;     /* the temporary file's, once written */
	int err;         /* the first error */
	bool planted;    /* refused: another user's file in a shared sticky directory (planted) */
	bool waits;      /* a pipe, FIFO, socket or terminal: its reader may never read */
	int64_t until;   /* where it waits: by when it is written whole, or given up */
};

/* How long the report waits, in all, for a reader that does not take it: milliseconds,
 * and 1 s more for each MiB the reader took (a 16 MiB tail may take a slow machine more
 * than 2 s to pass on, even to a reader that keeps up). */
#define REPORT_STALL_MS 2000
#define REPORT_NS_PER_BYTE (1000000000 / (1 << 20))

/* The report's text, a piece at a time (json.h's sink). */
static bool dest_write(void *ctx, const char *text, size_t len)
{
	struct dest *d = ctx;
	while (len > 0) {
		/* A pipe, FIFO, socket or terminal whose reader has not taken the whole report
		 * within REPORT_STALL_MS (and its due for what it took) is given up, with a
		 * warning: a reader that takes a little now and then does not hold runlimit for
		 * longer than the report's size allows. */
		int64_t left = d->until - clock_now();
		if (d->waits && left <= 0) {
			d->err = EAGAIN;
			return false;
		}
		ssize_t n = d->waits ? msg_write_within(d->fd, text, len, (int)(left / 1000000 + 1))
		                     : msg_write(d->fd, text, len);
		if (n <= 0 || (d->waits && (size_t)n < len)) {
			d->err = n == 0 ? EIO : errno;
			return false;
		}
		text += n;
		len -= (size_t)n;
		d->until += (int64_t)n * REPORT_NS_PER_BYTE;
	}
	return true;
}

/* The descriptor a name stands for (/dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N, /proc/thread-self/fd/N), already folded; or -1. */
static int descriptor_name(const char *name)
{
	/* By their numbers; /dev/stdin too, as a shell's <> or 0>> can make it writable. */
	static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (strcmp(name, std[fd]) == 0)
			return fd;
	static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
	for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
		size_t n = strlen(dirs[k]);
		if (strncmp(name, dirs[k], n) != 0)
			continue;
		const char *digits = name + n;
		size_t len = strlen(digits);
		if (len == 0 || len > 9 || strspn(digits, "0123456789") != len)
			return -1;
		return atoi(digits);
	}
	return -1;
}

/* path with "//" and "/./" folded into buf, as words, following no link; false if it does
 * not fit. */
static bool fold_path(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	for (const char *c = path; *c; c++) {
		if (*c == '/' && n > 0 && buf[n - 1] == '/')
			continue; /* "//" */
		if (*c == '.' && n > 0 && buf[n - 1] == '/' && (c[1] == '/' || c[1] == '\0')) {
			if (c[1] == '/')
				c++; /* "/./": the slash is there already */
			continue;
		}
		if (n + 1 >= size)
			return false;
		buf[n++] = *c;
	}
	buf[n] = '\0';
	return true;
}

/* The directory that holds a path's last name, held by a descriptor: what is checked there
 * is where the report goes, whatever is renamed on the way meanwhile. */
struct place {
	int dir;            /* -1: not opened (err says why) */
	int err;
	struct stat dir_st;
	const char *name;   /* the last name ("." for "dir/", which is then the directory) */
};

static void find_place(struct place *p, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
	p->name = slash ? slash + 1 : path;
	if (p->name[0] == '\0')
		p->name = ".";
	p->dir = -1;
	p->err = 0;
	if (len >= sizeof dir) {
		p->err = ENAMETOOLONG;
		return;
	}
	memcpy(dir, path, len);
	dir[len] = '\0';
	p->dir = os_open_dir(len ? dir : ".");
	if (p->dir >= 0 && fstat(p->dir, &p->dir_st) != 0) {
		int err = errno;
		close(p->dir);
		p->dir = -1;
		errno = err;
	}
	if (p->dir < 0)
		p->err = errno;
}

/* A sticky directory that others than its owner may write (/tmp, /dev/shm, or one only a
 * group may write): there a name may have been put by another user for runlimit to use. */
static bool shared_sticky(const struct stat *dir)
{
	return (dir->st_mode & S_ISVTX) && (dir->st_mode & (S_IWGRP | S_IWOTH));
}

/* Is st, in the directory dir, a file that someone else may have put there for runlimit to
 * write into: in a shared sticky directory, a file that is neither a link nor a directory,
 * owned neither by runlimit's user nor by the directory's owner (who may replace anything
 * there anyway)?  The rule of Linux's protected_fifos=2 and protected_regular=2, kept by
 * runlimit itself: the kernel's applies only to an open with O_CREAT, is off on many
 * systems, and other systems have none.  A FIFO there could hand the report (the command
 * line, the tail of stderr) to whoever reads it. */
static bool planted(const struct stat *dir, const struct stat *st)
{
	if (!shared_sticky(dir))
		return false;
	if (S_ISLNK(st->st_mode) || S_ISDIR(st->st_mode))
		return false; /* a link is replaced, never followed; a directory fails alone */
	return st->st_uid != geteuid() && st->st_uid != dir->st_uid;
}

/* May the link named by p be read as a descriptor's name?  The rule of Linux's
 * protected_symlinks, kept by runlimit itself (the kernel's does not apply to readlink):
 * in a shared sticky directory, only a link of runlimit's user or of the directory's owner.
 * Another's link there (/tmp/report.json -> /dev/stdout) would divert the report into the
 * caller's own output; it is a link to replace.  Where the directory cannot be held, only
 * runlimit's user's own link is read. */
static bool link_trusted(const struct place *p, const char *path)
{
	struct stat st;
	if (p->dir < 0)
		return lstat(path, &st) == 0 && st.st_uid == geteuid();
	if (fstatat(p->dir, p->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	return !shared_sticky(&p->dir_st) || st.st_uid == geteuid() || st.st_uid == p->dir_st.st_uid;
}

/* The descriptor that path names, however it is spelt (/dev//stdout), or that a symbolic
 * link named path, in the directory p holds, points to (/dev/stdout itself, or a link of the
 * caller's to /proc/self/fd/1) where link_trusted allows; or -1.  It is written through, not opened again: an open of
 * /proc/self/fd/1 would make a new file description at offset 0 of the caller's log, and
 * a rename onto it would replace the caller's file, or /dev/stdout itself. */
static int named_descriptor(const char *path, const struct place *p)
{
	char folded[PATH_MAX], target[PATH_MAX], joined[2 * PATH_MAX];
	if (!fold_path(path, folded, sizeof folded))
		return -1;
	int fd = descriptor_name(folded);
	if (fd >= 0)
		return fd;
	if (!link_trusted(p, path))
		return -1;
	ssize_t n = p->dir >= 0 ? readlinkat(p->dir, p->name, target, sizeof target - 1)
	                        : readlink(path, target, sizeof target - 1);
	if (n <= 0)
		return -1;
	target[n] = '\0';
	if (target[0] == '/') {
		snprintf(joined, sizeof joined, "%s", target);
	} else {
		/* Relative to the link's directory: /dev/stdout -> fd/1 on some systems. */
		const char *slash = strrchr(folded, '/');
		int dir = slash ? (int)(slash - folded) + 1 : 0;
		snprintf(joined, sizeof joined, "%.*s%s", dir, folded, target);
	}
	return fold_path(joined, folded, sizeof folded) ? descriptor_name(folded) : -1;
}

/* A pipe, FIFO, socket, terminal or device: opened to append.  A FIFO without a reader is
 * an error (ENXIO), not a wait for one that may never come.  Never a regular file: one put
 * in the path's place since it was looked at (and a link there) is not opened, so it is
 * never written into; false then, to replace it instead.  What was opened is checked, in
 * the directory it was opened in: a file planted there since it was looked at is refused
 * too; a directory that cannot be held (one that may not be read, with no O_SEARCH) is an
 * error, for the check could not be made. */
static bool open_direct(struct dest *d, const struct place *p)
{
	if (p->dir < 0) {
		d->err = p->err;
		return true;
	}
	int fd = openat(p->dir, p->name, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ELOOP)
			return false; /* a link now: replaced, not followed */
		d->err = errno;
		return true;
	}
	struct stat st;
	if (fstat(fd, &st) != 0)
		d->err = errno;
	else if (planted(&p->dir_st, &st))
		d->planted = true; /* put there since it was looked at */
	if (d->err || d->planted) {
		close(fd);
		return true;
	}
	if (S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	d->fd = fd;
	d->own = true;
	return true;
}

/* A regular file, a symbolic link, or nothing yet: replaced the way sed -i replaces a file.
 * The report is written under a temporary name made with O_EXCL (mode 0600) in path's own
 * directory, given its mode, and renamed onto path itself (close_dest), so that a reader
 * sees the old report or the new one, never half of one.  A symbolic link named path is
 * replaced, never followed: nothing outside that directory is created, renamed or
 * truncated.  The mode is the replaced file's if it was a regular file of runlimit's own
 * user, else that of a new file (0666 less the umask). */
static void open_atomic(struct dest *d)
{
	const char *path = d->path;
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	if (path[dir_len] == '\0') {
		d->err = EISDIR; /* "dir/": no file name to replace */
		return;
	}
	/* At most 200 bytes of the name, so that the temporary one stays within NAME_MAX. */
	if (dir_len > PATH_MAX) {
		d->err = ENAMETOOLONG;
		return;
	}
	snprintf(d->tmp, sizeof d->tmp, "%.*s.%.200s.runlimit-XXXXXX", (int)dir_len, path,
	         path + dir_len);
	int fd = mkstemp(d->tmp);
	if (fd < 0) {
		d->err = errno; /* a directory runlimit may not write in: no report, not half of one */
		return;
	}
	mode_t mask = umask(0);
	umask(mask);
	d->mode = 0666 & ~mask;
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		d->mode = st.st_mode & 0777;
	d->fd = fd;
	d->own = true;
	d->atomic = true;
}

/* Where the report goes: a descriptor named by path, a file that is not a regular one, or
 * a regular file (or link, or nothing) to replace; nowhere, if what is there was planted.
 * A regular file planted after this look is replaced by the rename, never written into:
 * the report is then a new file of runlimit's.  Where the directory cannot be held (a user
 * that may not read it, on a system without O_SEARCH; never root), the look is by path:
 * open_direct then refuses anything but a regular file, and the kernel's sticky rule
 * refuses that user's rename onto another user's file. */
static void open_dest(struct dest *d, const char *path)
{
	*d = (struct dest){.path = path, .fd = -1};
	struct place p;
	find_place(&p, path);
	int fd = named_descriptor(path, &p);
	if (fd >= 0) {
		if (stdfds_closed(fd))
			d->err = EBADF; /* runlimit was started without it: its placeholder is not it */
		else
			d->fd = fd;
		if (p.dir >= 0)
			close(p.dir);
		return;
	}
	struct stat st;
	bool there = p.dir >= 0 ? fstatat(p.dir, p.name, &st, AT_SYMLINK_NOFOLLOW) == 0
	                        : lstat(path, &st) == 0;
	if (there && p.dir >= 0 && planted(&p.dir_st, &st))
		d->planted = true; /* not opened: a device's open alone may do something */
	else if (!there || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) || !open_direct(d, &p))
		open_atomic(d);
	if (p.dir >= 0)
		close(p.dir);
}

/* The report is written (or failed, d->err): a temporary file takes its place. */
static void close_dest(struct dest *d)
{
	if (!d->own)
		return;
	if (d->atomic && !d->err && fchmod(d->fd, d->mode) < 0)
		d->err = errno;
	if (close(d->fd) < 0 && !d->err && errno != EINTR)
		d->err = errno;
	if (!d->atomic)
		return;
	if (!d->err && rename(d->tmp, d->path) < 0)
		d->err = errno;
	if (d->err)
		unlink(d->tmp);
}

void report_file_write(const struct config *cfg, const struct run_end *e)
{
	struct dest d;
	open_dest(&d, cfg->report);
	struct stat st;
	if (d.fd >= 0 && !d.atomic && fstat(d.fd, &st) == 0)
		d.waits = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || isatty(d.fd);
	d.until = clock_now() + (int64_t)REPORT_STALL_MS * 1000000;
	if (d.fd >= 0) {
		/* Written as it is made: a buffer's worth at a time into a temporary file; into a
		 * descriptor, pipe or device, in one write when it fits ONE_WRITE (memory
		 * allowing), else in writes of that size. */
		/* From malloc, not static data, where it lay between variables every start touches
		 * (docs/performance.md); where there is none, a piece on the stack. */
		static char *storage;
		char small[4096];
		if (!storage)
			storage = malloc(REPORT_PIECE);
		struct json j;
		json_init_sink(&j, dest_write, &d, storage ? storage : small,
		               storage ? REPORT_PIECE : sizeof small, d.atomic ? 0 : ONE_WRITE);
		report_json(&j, cfg, e);
		if (!json_finish(&j) && !d.err)
			d.err = EIO;
		json_free(&j);
		close_dest(&d);
	}
	if (d.planted)
		msg("cannot write the report to %s: it belongs to another user, in a sticky directory "
		    "others may write", quote(cfg->report));
	else if (d.err == EAGAIN && d.waits)
		msg("cannot write the report to %s: its reader did not take it in time (%d seconds, "
		    "and 1 more for each MiB)", quote(cfg->report), REPORT_STALL_MS / 1000);
	else if (d.err)
		msg("cannot write the report to %s: %s", quote(cfg->report), strerror(d.err));
}

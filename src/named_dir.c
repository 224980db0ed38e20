/* O_NOFOLLOW and O_DIRECTORY are POSIX 2008, but macOS shows them only with its own names. */
#define _DARWIN_C_SOURCE
#include "named_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "os/os.h"
#include "quote.h"

#define NS ((int64_t)1000000000)

/* A temporary file of a cancel's (a marker being written) older than this was left by a
 * cancel that died: a sweep removes it. */
#define TEMP_AGE ((int64_t)60 * NS)

/* How long a starting run waits for a sweep to let go of its name's lock (1 ms rounds), and a
 * cancel's look for another look or a sweep. */
#define SWEEP_WAIT_ROUNDS 2000

/* How often the sweeps of a run's or a cancel's start look at every tombstone (a stat each),
 * and the stamp that says when one last did: a dot-name, never a run's file. */
#define TOMBSTONE_SWEEP_EVERY ((int64_t)3600 * NS)
#define SWEPT ".swept"

bool names_valid(const char *name)
{
	size_t len = strlen(name);
	if (len == 0 || len > NAME_MAX_LEN || name[0] == '.')
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	       len;
}

/* A uid in decimal, alone: true with it in *uid. */
static bool parse_uid(const char *s, size_t len, uid_t *uid)
{
	if (len == 0 || len > 10)
		return false;
	unsigned long long v = 0;
	for (size_t k = 0; k < len; k++) {
		if (s[k] < '0' || s[k] > '9')
			return false;
		v = v * 10 + (unsigned)(s[k] - '0');
	}
	if ((uid_t)v != v || (uid_t)v == (uid_t)-1)
		return false;
	*uid = (uid_t)v;
	return true;
}

bool names_qualified(const char *arg, uid_t *uid, const char **name)
{
	const char *colon = strchr(arg, ':');
	if (!colon || !parse_uid(arg, (size_t)(colon - arg), uid) || !names_valid(colon + 1))
		return false;
	*name = colon + 1;
	return true;
}

/* What a directory is to be, for unsafe(). */
enum rule {
	RUNS_DIR, /* the directory of runs (or a place that holds it): no symbolic link, owner's,
	           * written by no one else */
	PARENT,   /* its parent: nobody but owner (or root) may rename or remove it there (a
	           * sticky /tmp is fine) */
	ALONE,    /* /run/user/UID: the user's, mode 0700, as the system makes it */
	OWNED,    /* $XDG_RUNTIME_DIR: the user's (its runlimit/ is then checked as RUNS_DIR) */
};

/* Whoever's it is (root's list and cancel of another user's runs). */
#define ANY_OWNER ((uid_t)-1)

/* The one safety routine of named runs, for every directory that holds runs or is above
 * them: why st, of a directory that is to be owner's, breaks rule (a message's end, after
 * the directory's name); NULL if it does not.  A socket or a marker in a directory another
 * user may change could be replaced or redirected by them. */
static const char *unsafe(const struct stat *st, uid_t owner, enum rule rule)
{
	if (S_ISLNK(st->st_mode))
		return "is not usable for named runs: a symbolic link";
	if (!S_ISDIR(st->st_mode))
		return "is not usable for named runs: not a directory";
	if (owner != ANY_OWNER && st->st_uid != owner && !(rule == PARENT && st->st_uid == 0))
		return "is not safe for named runs: it belongs to another user";
	bool written = rule == ALONE ? (st->st_mode & 0777) != 0700
	                             : rule != OWNED && (st->st_mode & (S_IWGRP | S_IWOTH));
	if (written && !(rule == PARENT && (st->st_mode & S_ISVTX)))
		return "is not safe for named runs: others may write to it";
	return NULL;
}

/* Is dir (a symbolic link followed: the system's own places) a directory rule allows? */
static bool safe_place(const char *dir, uid_t owner, enum rule rule)
{
	struct stat st;
	return stat(dir, &st) == 0 && !unsafe(&st, owner, rule);
}

/* The parent of dir ("." for a name without a slash), as rule PARENT wants it. */
static bool parent_safe(const char *dir, uid_t owner, bool quiet)
{
	char parent[NAMES_PATH];
	const char *slash = strrchr(dir, '/');
	size_t len = !slash ? 0 : slash == dir ? 1 : (size_t)(slash - dir);
	if (len == 0) {
		strcpy(parent, ".");
	} else {
		memcpy(parent, dir, len);
		while (len > 1 && parent[len - 1] == '/')
			len--;
		parent[len] = '\0';
	}
	struct stat st;
	if (stat(parent, &st) != 0 || !unsafe(&st, owner, PARENT))
		return true; /* one that cannot be found: nor can dir */
	if (!quiet)
		msg("%s is not safe for named runs: its parent %s may be changed by others",
		    quote(dir), quote(parent));
	return false;
}

enum found { DIR_OK, DIR_MISSING, DIR_BAD };

/* dir refused: why said after its name, unless quiet. */
static enum found refused(const char *dir, bool quiet, const char *why, const char *detail)
{
	if (!quiet)
		msg("%s %s%s", quote(dir), why, detail);
	return DIR_BAD;
}

/* dir looked at into *st, made (*made) if it is missing (NAMES_CREATE, for this user's own),
 * or DIR_MISSING. */
static enum found find_dir(const char *dir, uid_t want, int flags, bool quiet, struct stat *st,
                           bool *made)
{
	*made = false;
	/* A few rounds: in a shared directory, another user may make and remove the name
	 * between the mkdir and the look. */
	for (int round = 0; lstat(dir, st) != 0; round++) {
		if (errno != ENOENT || *made || round == 3)
			return refused(dir, quiet, "is not usable for named runs: ", strerror(errno));
		if (!(flags & NAMES_CREATE) || want != geteuid())
			return parent_safe(dir, want, quiet) ? DIR_MISSING : DIR_BAD;
		if (!parent_safe(dir, want, quiet))
			return DIR_BAD;
		*made = mkdir(dir, 0700) == 0;
		if (!*made && errno != EEXIST) {
			if (!quiet)
				msg("cannot make the directory for named runs %s: %s", quote(dir),
				    strerror(errno));
			return DIR_BAD;
		}
	}
	return DIR_OK;
}

/* dir as a directory of the runs of user want, open into d; with NAMES_ANY_OWNER, root
 * takes any user's (d->owner says whose).  Problems are said unless quiet. */
static enum found open_dir(const char *dir, uid_t want, int flags, bool quiet,
                           struct names_dir *d)
{
	*d = (struct names_dir){.fd = -1, .owner = want};
	snprintf(d->path, sizeof d->path, "%s", dir);
	struct stat st, held;
	bool made;
	enum found found = find_dir(dir, want, flags, quiet, &st, &made);
	if (found != DIR_OK)
		return found;
	bool any = (flags & NAMES_ANY_OWNER) && geteuid() == 0;
	const char *why = unsafe(&st, any ? ANY_OWNER : want, RUNS_DIR);
	if (why)
		return refused(dir, quiet, why, "");
	/* A umask may have taken the owner's bits of one just made (never others': mkdir's 0700
	 * bounds them). */
	if (made && (st.st_mode & 0777) != 0700 && (chmod(dir, 0700) != 0 || lstat(dir, &st) != 0))
		return refused(dir, quiet, "is not usable for named runs: ", strerror(errno));
	/* What the second look found is what is held below: judged too. */
	if (made && (why = unsafe(&st, any ? ANY_OWNER : want, RUNS_DIR)) != NULL)
		return refused(dir, quiet, why, "");
	d->owner = st.st_uid;
	if (!parent_safe(dir, d->owner, quiet))
		return DIR_BAD;
	/* The directory checked is the one used: held open, and compared. */
	d->fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0 || fstat(d->fd, &held) != 0 || held.st_dev != st.st_dev ||
	    held.st_ino != st.st_ino) {
		why = d->fd < 0 ? strerror(errno) : "it changed while it was checked";
		names_close(d);
		return refused(dir, quiet, "is not usable for named runs: ", why);
	}
	return DIR_OK;
}

static const char *const root_places[] = {"/run", "/var/run"};

/* The shared temporary directory: the last resort. */
static const char *tmp_dir(void)
{
	const char *env = getenv("TMPDIR");
	return env && *env ? env : "/tmp";
}

/* Where the directory is, by the environment; false if that does not fit. */
static bool dir_path(char *dir, size_t size, bool *chosen)
{
	const char *env = getenv("RUNLIMIT_DIR");
	uid_t me = geteuid();
	int len = -1;
	char place[64];
	*chosen = env && *env;
	if (*chosen) {
		len = snprintf(dir, size, "%s", env);
	} else if ((env = getenv("XDG_RUNTIME_DIR")) && *env && safe_place(env, me, OWNED)) {
		/* Only a runtime directory of this user's own: one left behind by su(1) without
		 * "-" is another user's, whose runs would pass for this user's. */
		len = snprintf(dir, size, "%s/runlimit", env);
	} else if (me == 0) {
		for (size_t k = 0; k < sizeof root_places / sizeof *root_places && len < 0; k++)
			if (safe_place(root_places[k], 0, RUNS_DIR))
				len = snprintf(dir, size, "%s/runlimit", root_places[k]);
	} else {
		snprintf(place, sizeof place, "/run/user/%lu", (unsigned long)me);
		if (safe_place(place, me, ALONE))
			len = snprintf(dir, size, "%s/runlimit", place);
	}
	if (len < 0) {
		env = tmp_dir();
		len = snprintf(dir, size, "%s/runlimit-%lu", env, (unsigned long)me);
	}
	if (len < 0 || (size_t)len >= size) {
		msg("the directory for named runs is too long a path: %s", quote(env ? env : "?"));
		return false;
	}
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	return true;
}

bool names_open(int flags, struct names_dir *d)
{
	char dir[NAMES_PATH];
	bool chosen;
	d->fd = -1;
	if (!dir_path(dir, sizeof dir, &chosen))
		return false;
	/* Another user's directory only where root named it (RUNLIMIT_DIR): a default place
	 * that another user took first is never taken for root's own. */
	if (!chosen)
		flags &= ~NAMES_ANY_OWNER;
	return open_dir(dir, geteuid(), flags, false, d) != DIR_BAD;
}

void names_close(struct names_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/* dir, if it is a place of user uid's runs and not one of dirs[0..n) already, added (at most
 * max): the new count. */
static size_t add_place(const char *dir, uid_t uid, struct names_dir *dirs, size_t n, size_t max)
{
	struct stat a, b;
	if (n == max || open_dir(dir, uid, 0, true, &dirs[n]) != DIR_OK)
		return n;
	for (size_t k = 0; k < n; k++) {
		if (fstat(dirs[k].fd, &a) == 0 && fstat(dirs[n].fd, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			names_close(&dirs[n]);
			return n;
		}
	}
	return n + 1;
}

/* Every entry of base named prefix + a uid (all uids: every such entry; else uid's), with
 * suffix after it, as a place of that uid. */
static size_t places_in(const char *base, const char *prefix, const char *suffix, uid_t uid,
                        struct names_dir *dirs, size_t n, size_t max)
{
	char dir[NAMES_PATH];
	if (uid != NAMES_EVERY_USER) {
		int len = snprintf(dir, sizeof dir, "%s/%s%lu%s", base, prefix, (unsigned long)uid, suffix);
		return len > 0 && (size_t)len < sizeof dir ? add_place(dir, uid, dirs, n, max) : n;
	}
	DIR *listing = opendir(base);
	if (!listing)
		return n;
	struct dirent *e;
	size_t plen = strlen(prefix);
	while ((e = readdir(listing))) {
		uid_t owner;
		if (strncmp(e->d_name, prefix, plen) != 0 ||
		    !parse_uid(e->d_name + plen, strlen(e->d_name + plen), &owner))
			continue;
		int len = snprintf(dir, sizeof dir, "%s/%s%s", base, e->d_name, suffix);
		if (len > 0 && (size_t)len < sizeof dir)
			n = add_place(dir, owner, dirs, n, max);
	}
	closedir(listing);
	return n;
}

size_t names_places(uid_t uid, struct names_dir *dirs, size_t n, size_t max)
{
	if (uid == 0 || uid == NAMES_EVERY_USER) {
		char dir[64];
		for (size_t k = 0; k < sizeof root_places / sizeof *root_places; k++) {
			snprintf(dir, sizeof dir, "%s/runlimit", root_places[k]);
			if (safe_place(root_places[k], 0, RUNS_DIR))
				n = add_place(dir, 0, dirs, n, max);
		}
	}
	n = places_in("/run/user", "", "/runlimit", uid, dirs, n, max);
	n = places_in(tmp_dir(), "runlimit-", "", uid, dirs, n, max);
	if (strcmp(tmp_dir(), "/tmp") != 0)
		n = places_in("/tmp", "runlimit-", "", uid, dirs, n, max);
	return n;
}

/* NAME.ext into file (of size bytes). */
static void file_of(char *file, size_t size, const char *name, const char *ext)
{
	snprintf(file, size, "%s.%s", name, ext);
}

void names_remove(const struct names_dir *d, const char *name, const char *ext)
{
	char file[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, ext);
	if (d->fd >= 0)
		unlinkat(d->fd, file, 0);
}

/* A lock of type on byte of fd's file, taken (F_SETLK) or asked about (F_GETLK). */
static int lock_byte(int fd, int cmd, int type, off_t byte, struct flock *fl)
{
	*fl = (struct flock){.l_type = (short)type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1};
	return fcntl(fd, cmd, fl);
}

/* Is fd still the file that d's NAME.lock is? */
static bool still_there(const struct names_dir *d, const char *file, int fd)
{
	struct stat held, now;
	return fstat(fd, &held) == 0 && fstatat(d->fd, file, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	       held.st_dev == now.st_dev && held.st_ino == now.st_ino;
}

int names_lock(const struct names_dir *d, const char *name)
{
	char file[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, "lock");
	for (int round = 0; round < SWEEP_WAIT_ROUNDS; round++) {
		int fd = openat(d->fd, file, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		struct flock fl;
		if (lock_byte(fd, F_SETLK, F_WRLCK, 0, &fl) == 0) {
			/* A lock file removed (by an ending run, or a sweep) after this run opened it is
			 * not the name's any more: then again, with the file now there. */
			if (still_there(d, file, fd))
				return fd;
			close(fd);
			continue;
		}
		int err = errno;
		int asked = err == EAGAIN || err == EACCES ? lock_byte(fd, F_GETLK, F_WRLCK, 0, &fl) : -1;
		close(fd);
		if (asked != 0) {
			errno = err;
			return -1;
		}
		if (fl.l_type == F_WRLCK) {
			errno = EAGAIN; /* a live run's */
			return -1;
		}
		if (fl.l_type == F_RDLCK) { /* a sweep's: it lets go in a moment */
			struct timespec ms = {0, 1000000};
			nanosleep(&ms, NULL);
		}
	}
	errno = EBUSY;
	return -1;
}

pid_t names_holder(const struct names_dir *d, const char *name)
{
	char file[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, "lock");
	int fd = d->fd < 0 ? -1 : openat(d->fd, file, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct flock fl;
	pid_t holder = 0;
	if (lock_byte(fd, F_GETLK, F_WRLCK, 0, &fl) == 0 && fl.l_type == F_WRLCK)
		holder = fl.l_pid > 0 ? fl.l_pid : -1;
	close(fd);
	return holder;
}

/* Is fd a run's own kind of lock file: a regular file of the directory's owner, with no other
 * name (root sweeps other users' directories too)? */
static bool lock_file(const struct names_dir *d, int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == d->owner &&
	       st.st_nlink == 1;
}

int names_hold(const struct names_dir *d, const char *name, pid_t *live)
{
	char file[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, "lock");
	*live = 0;
	for (int round = 0; round < SWEEP_WAIT_ROUNDS; round++) {
		int fd = openat(d->fd, file, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		struct flock fl;
		int err = 0;
		if (!lock_file(d, fd)) {
			err = EINVAL;
		} else if (lock_byte(fd, F_SETLK, F_WRLCK, 1, &fl) != 0) {
			err = errno; /* EAGAIN, EACCES: another look or a sweep, for a moment */
		} else if (lock_byte(fd, F_SETLK, F_RDLCK, 0, &fl) != 0) {
			err = errno;
			if ((err == EAGAIN || err == EACCES) && lock_byte(fd, F_GETLK, F_RDLCK, 0, &fl) == 0) {
				if (fl.l_type == F_WRLCK) { /* a live run's */
					close(fd);
					*live = fl.l_pid > 0 ? fl.l_pid : -1;
					errno = EAGAIN;
					return -1;
				}
				err = EAGAIN; /* let go meanwhile: again */
			}
		} else if (still_there(d, file, fd)) {
			return fd;
		} else {
			err = EAGAIN; /* removed (a sweep, a run's end) after it was opened: again */
		}
		close(fd);
		if (err != EAGAIN && err != EACCES) {
			errno = err;
			return -1;
		}
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	errno = EBUSY;
	return -1;
}

void names_let_go(const struct names_dir *d, const char *name, int fd)
{
	char file[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, "lock");
	/* No run holds it (the look's read lock kept them off): it goes, as a dead run's would. */
	if (still_there(d, file, fd))
		unlinkat(d->fd, file, 0);
	close(fd); /* and its locks with it */
}

/* NAME.lock not held by a live run: remove its socket and then it, under a sweep's locks. */
static void sweep_dead(const struct names_dir *d, const char *name)
{
	char file[NAME_MAX_LEN + 16], sock[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, "lock");
	file_of(sock, sizeof sock, name, "sock");
	int fd = openat(d->fd, file, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat s;
	struct flock fl;
	if (lock_file(d, fd) && lock_byte(fd, F_SETLK, F_WRLCK, 1, &fl) == 0 &&
	    lock_byte(fd, F_SETLK, F_RDLCK, 0, &fl) == 0 && still_there(d, file, fd)) {
		if (fstatat(d->fd, sock, &s, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(s.st_mode))
			unlinkat(d->fd, sock, 0);
		unlinkat(d->fd, file, 0);
	}
	close(fd); /* and its locks with it */
}

/* A marker's expiry is on the wall clock (clock_wall): it is read by other processes,
 * perhaps after a reboot (a directory in /tmp may outlive one), so no clock of this boot
 * will do. */
struct mark {
	int sig;         /* 0: none readable */
	int64_t expires; /* wall-clock ns */
};

/* The marker NAME.cancel, "SIG EXPIRES-NS", read: false if there is none.  One that cannot
 * be read is a cancel all the same (none is lost), of TERM, expiring MARKER_TTL_DEFAULT
 * after it was written. */
static bool read_mark(const struct names_dir *d, const char *name, struct mark *m)
{
	char file[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, "cancel");
	struct stat st;
	if (d->fd < 0 || fstatat(d->fd, file, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	*m = (struct mark){0, (int64_t)st.st_mtime * NS + MARKER_TTL_DEFAULT};
	int fd = openat(d->fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return true;
	char text[64];
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == d->owner)
		n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return true;
	text[n] = '\0';
	char *end, *tail;
	errno = 0;
	long sig = strtol(text, &end, 10);
	long long when = *end == ' ' ? strtoll(end + 1, &tail, 10) : 0;
	if (!errno && sig > 0 && sig <= 1024 && when > 0 && tail != end + 1 && *tail == '\n')
		*m = (struct mark){(int)sig, (int64_t)when};
	return true;
}

bool names_take_mark(const struct names_dir *d, const char *name, int *sig)
{
	struct mark m;
	if (!read_mark(d, name, &m))
		return false;
	/* Removed, expired or not.  Should another cancel have put a marker of its own in
	 * place meanwhile, that one goes too: harmless, since the run listens already, and
	 * that cancel reaches it there. */
	names_remove(d, name, "cancel");
	if (clock_wall() >= m.expires)
		return false;
	*sig = m.sig;
	return true;
}

bool names_marked(const struct names_dir *d, const char *name)
{
	char file[NAME_MAX_LEN + 16];
	struct stat st;
	file_of(file, sizeof file, name, "cancel");
	return d->fd >= 0 && fstatat(d->fd, file, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool names_mark(const struct names_dir *d, const char *name, int sig, int64_t ttl)
{
	/* A dot-name: never a run's file (names cannot start with a dot), nor listed. */
	char tmp[64], file[NAME_MAX_LEN + 16];
	int fd = -1;
	for (int k = 0; k < 100 && fd < 0; k++) {
		snprintf(tmp, sizeof tmp, ".cancel.%ld.%d", (long)getpid(), k);
		fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return false;
	}
	if (fd < 0)
		return false;
	int64_t now = clock_wall();
	int64_t expires = ttl > INT64_MAX - now ? INT64_MAX : now + ttl;
	char text[64];
	int len = snprintf(text, sizeof text, "%d %lld\n", sig, (long long)expires);
	bool done = msg_write(fd, text, (size_t)len) == (ssize_t)len;
	int err = errno;
	if (close(fd) != 0 && done) {
		done = false;
		err = errno;
	}
	file_of(file, sizeof file, name, "cancel");
	if (done && renameat(d->fd, tmp, d->fd, file) == 0)
		return true;
	err = done ? errno : err;
	unlinkat(d->fd, tmp, 0);
	errno = err;
	return false;
}

bool names_leave_tombstone(const struct names_dir *d, const char *name)
{
	char file[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, "ended");
	/* Made anew, O_EXCL (which follows no symbolic link): whatever is at the name is removed
	 * first, a link itself and not what it points at.  Only its user can put anything there. */
	for (int round = 0; round < 3; round++) {
		int fd = openat(d->fd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			bool done = fchmod(fd, 0600) == 0; /* whatever the umask took */
			int err = errno;
			if (close(fd) != 0 && done) {
				done = false;
				err = errno;
			}
			errno = err;
			return done;
		}
		if (errno != EEXIST || (unlinkat(d->fd, file, 0) != 0 && errno != ENOENT))
			return false;
	}
	errno = EEXIST;
	return false;
}

/* file, NAME.ended, a tombstone: a regular file of the directory's user that has not expired
 * (now: the wall clock), true with its time (its mtime, wall-clock ns) in *at; an expired one
 * is removed, and false. */
static bool tombstone_at(const struct names_dir *d, const char *file, int64_t now, int64_t *at)
{
	struct stat st;
	if (d->fd < 0 || fstatat(d->fd, file, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid != d->owner)
		return false;
	int64_t when = (int64_t)st.st_mtime * NS;
	if (now - when >= TOMBSTONE_TTL) {
		unlinkat(d->fd, file, 0);
		return false;
	}
	*at = when;
	return true;
}

bool names_tombstone(const struct names_dir *d, const char *name, int64_t *at)
{
	char file[NAME_MAX_LEN + 16];
	file_of(file, sizeof file, name, "ended");
	return tombstone_at(d, file, clock_wall(), at);
}

/* Is it time for a sweep of d to look at every tombstone (SWEEP_TOMBSTONES_HOURLY): the stamp
 * .swept is missing, or older than TOMBSTONE_SWEEP_EVERY (or as far ahead: a clock set back)?
 * Only the directory's user's sweeps keep that bound: root writes nothing in another user's. */
static bool tombstones_due(const struct names_dir *d, int64_t now)
{
	struct stat st;
	if (d->owner != geteuid())
		return false;
	if (fstatat(d->fd, SWEPT, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT;
	int64_t age = now - (int64_t)st.st_mtime * NS;
	return age >= TOMBSTONE_SWEEP_EVERY || age <= -TOMBSTONE_SWEEP_EVERY;
}

/* A sweep that was due has looked at the tombstones it met: the stamp made anew (O_EXCL:
 * its mtime now), so that the sweeps of the next hour leave them alone.  Where none was met,
 * none is made: each sweep then looks again, at no cost. */
static void tombstones_swept(const struct names_dir *d)
{
	if (unlinkat(d->fd, SWEPT, 0) != 0 && errno != ENOENT)
		return;
	int fd = openat(d->fd, SWEPT, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

/* file as NAME.EXT, a run's file: EXT, with NAME in name; NULL if it is not one. */
static const char *run_file(const char *file, char *name)
{
	const char *dot = strrchr(file, '.');
	size_t len = dot ? (size_t)(dot - file) : 0;
	if (!dot || len == 0 || len > NAME_MAX_LEN)
		return NULL;
	memcpy(name, file, len);
	name[len] = '\0';
	return names_valid(name) ? dot + 1 : NULL;
}

DIR *names_list(const struct names_dir *d)
{
	int fd = d->fd < 0 ? -1 : openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir && fd >= 0) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return dir;
}

void names_sweep(const struct names_dir *d, const char *keep, enum sweep_tombstones tombstones)
{
	DIR *dir = names_list(d);
	if (!dir)
		return;
	int64_t now = clock_wall(), at;
	bool due = tombstones_due(d, now), met = false;
	bool ended_too = tombstones == SWEEP_TOMBSTONES_ALL || due;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char name[NAME_MAX_LEN + 1];
		const char *ext = run_file(e->d_name, name);
		struct stat st;
		struct mark m;
		if (ext && keep && strcmp(name, keep) == 0)
			continue;
		if (ext && strcmp(ext, "cancel") == 0) {
			if (read_mark(d, name, &m) && now >= m.expires)
				names_remove(d, name, "cancel");
		} else if (ext && strcmp(ext, "lock") == 0) {
			sweep_dead(d, name);
		} else if (ext && strcmp(ext, "ended") == 0) {
			met = true;
			if (ended_too)
				tombstone_at(d, e->d_name, now, &at); /* removed if expired */
		} else if (strncmp(e->d_name, ".cancel.", 8) == 0 &&
		           fstatat(d->fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		           S_ISREG(st.st_mode) && now - (int64_t)st.st_mtime * NS > TEMP_AGE) {
			unlinkat(d->fd, e->d_name, 0);
		}
	}
	closedir(dir);
	if (due && met)
		tombstones_swept(d);
}

bool names_own(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	return flags >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 &&
	       fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

/* The name is relative, made from inside the
 * directory (fchdir there and back): so the path of the directory, however long, never has
 * to fit a socket's address.  Where the working directory cannot be opened to come back to
 * (os_open_here: on Linux, it may be searched, not read; elsewhere, read), the directory's
 * own path is used, if it fits. */
int names_at(const struct names_dir *d, const char *name, bool bind_it, int *sock)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if ((*sock = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 || !names_own(*sock))
		return -1;
	if (d->fd < 0) {
		errno = ENOENT;
		return -1;
	}
	int here = os_open_here();
	int len = here >= 0 ? snprintf(sa.sun_path, sizeof sa.sun_path, "%s.sock", name)
	                    : snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s.sock", d->path, name);
	if (len < 0 || (size_t)len >= sizeof sa.sun_path) {
		if (here >= 0)
			close(here);
		errno = ENAMETOOLONG;
		return -1;
	}
	if (here >= 0 && fchdir(d->fd) != 0) {
		int err = errno;
		close(here);
		errno = err;
		return -1;
	}
	int r = bind_it ? bind(*sock, (struct sockaddr *)&sa, sizeof sa)
	                : connect(*sock, (struct sockaddr *)&sa, sizeof sa);
	int err = errno;
	if (here >= 0) {
		if (fchdir(here) != 0) {
			/* Cannot be, short of a kernel's refusal: the caller fails, and runs nothing
			 * in the wrong directory. */
			err = errno;
			msg("cannot go back to the working directory: %s", strerror(err));
			r = -1;
		}
		close(here);
	}
	errno = err;
	return r;
}

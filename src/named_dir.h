/* The directory of named runs (--name, --cancel, --list): $RUNLIMIT_DIR, else
 * $XDG_RUNTIME_DIR/runlimit, else a place no other user can take first (root: /run/runlimit,
 * else /var/run/runlimit, where that directory is root's alone; another user:
 * /run/user/UID/runlimit, where /run/user/UID is the user's alone), else, as the last resort,
 * ${TMPDIR:-/tmp}/runlimit-UID.  It must be a directory of its user's that nobody else can
 * write to (a socket or a marker there is reached by no one else, and no one else can put
 * one there), in a parent that nobody else can replace it in.  Each run NAME has four files
 * there: NAME.lock (locked while the run lives), NAME.sock (its control socket), NAME.cancel
 * (a cancel that came before the run, until it expires) and NAME.ended (the tombstone a run
 * leaves when it ends, its mtime the end, until it expires or a run of NAME starts); and the
 * directory has .swept (its mtime: when a sweep last looked at every tombstone).
 *
 * The directory is held open, and everything in it is reached through that descriptor: its
 * path may be of any length (a socket's is bound and connected from inside it), and it is the
 * directory that was checked that is used.
 *
 * Locks (fcntl, on NAME.lock): a live run holds a write lock on byte 0.  A sweep (which
 * removes a dead run's files) holds a write lock on byte 1, which keeps other sweeps off the
 * name, and a read lock on byte 0, which keeps a run from starting under it; a starting run
 * that finds byte 0 read-locked knows it is a sweep, not a run, and waits for it.  So a lock
 * on byte 0 that is not held means a dead run: never a pid read from a file.  A cancel's look
 * (names_hold) takes the sweep's two locks, so that no run of the name starts or lets go
 * while it looks at the tombstone and leaves its marker.
 *
 * The tombstone is written and removed only by a run that holds the lock (or removed expired):
 * so a tombstone with the lock free means that no run of NAME has started since it was left. */
#ifndef RUNLIMIT_NAMED_DIR_H
#define RUNLIMIT_NAMED_DIR_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NAME_MAX_LEN 64

/* Room for a directory's path. */
#define NAMES_PATH 4096

/* How long a cancel's marker stands by default: a run of its name that starts later than
 * that runs its command (the manual, NAMED RUNS). */
#define MARKER_TTL_DEFAULT ((int64_t)60 * 1000000000)

/* How long a tombstone NAME.ended stands after its run's end: a cancel of NAME within it is
 * told that the run already ended, and leaves no marker; a later one cannot tell that run from
 * one not started yet (the manual, NAMED RUNS: names are to be used once). */
#define TOMBSTONE_TTL ((int64_t)24 * 3600 * 1000000000)

struct names_dir {
	int fd;                /* the directory, open close-on-exec; -1: there is none (yet) */
	uid_t owner;           /* whose runs it holds */
	char path[NAMES_PATH]; /* for messages */
};

/* Is name a run name: 1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot? */
bool names_valid(const char *name);

/* "UID:NAME" (--list shows another user's run so, to root): true with the two parts. */
bool names_qualified(const char *arg, uid_t *uid, const char **name);

enum {
	NAMES_CREATE = 1,    /* make the directory (mode 0700) if it is missing */
	NAMES_ANY_OWNER = 2, /* root may use another user's (to list and cancel its runs) */
};

/* The directory of this user's runs, as the environment chooses it, open into *d (fd -1 if
 * it does not exist and is not to be made).  False after a message naming the problem (not
 * the user's, writable by others, a symbolic link, in a parent others may change). */
bool names_open(int flags, struct names_dir *d);

/* The default places of user uid's runs (every user's with NAMES_EVERY_USER) that exist, are
 * that user's and are safe, open, added to dirs[0..n) (at most max) unless they are one of
 * them already: the new count.  For root: what --list shows of other users, and where
 * UID:NAME is looked for. */
#define NAMES_EVERY_USER ((uid_t)-1)
size_t names_places(uid_t uid, struct names_dir *dirs, size_t n, size_t max);

void names_close(struct names_dir *d);

/* Which tombstones a sweep looks at: each costs a stat, and thousands of names a day leave
 * thousands of them, so a sweep at a run's start (or a cancel's) looks at them only once an
 * hour (the directory's .swept says when one last did); --list looks at them all. */
enum sweep_tombstones { SWEEP_TOMBSTONES_HOURLY, SWEEP_TOMBSTONES_ALL };

/* Remove what nobody needs any more: expired markers, the files of dead runs (their lock
 * free) and expired tombstones (as told), but not those of the name keep (NULL: none). */
void names_sweep(const struct names_dir *d, const char *keep, enum sweep_tombstones tombstones);

/* The run's lock on NAME.lock, taken: its descriptor (close-on-exec), or -1 with errno
 * EAGAIN (a live run of NAME holds it), EBUSY (a sweep holds it and does not let go) or
 * another error. */
int names_lock(const struct names_dir *d, const char *name);

/* Does a live run hold NAME.lock?  0 if none does; else its pid, as the system tells it (-1 if
 * it does not name it: the holder is in another pid namespace, say). */
pid_t names_holder(const struct names_dir *d, const char *name);

/* A cancel's look at NAME (d must be its user's): the sweep's locks on NAME.lock (made if it
 * is missing), held until names_let_go, so that no run of NAME starts or ends meanwhile; its
 * descriptor.  -1 with errno EAGAIN and the live run's pid in *live (names_holder's) if a run
 * holds it; another errno if the look cannot be held (EBUSY: another holds the sweep's lock
 * and does not let go). */
int names_hold(const struct names_dir *d, const char *name, pid_t *live);

/* The end of a look: NAME.lock removed (no run holds it), the locks let go. */
void names_let_go(const struct names_dir *d, const char *name, int fd);

/* fd close-on-exec (a command must never inherit it) and non-blocking; false with errno. */
bool names_own(int fd);

/* A socket made into *sock (names_own'd; -1 if none could be), and bound (bind_it) or
 * connected to NAME.sock in d, whatever the length of d's path: as bind(2) and connect(2). */
int names_at(const struct names_dir *d, const char *name, bool bind_it, int *sock);

/* d's entries, to read with readdir (closedir after): NULL with errno if they cannot be. */
DIR *names_list(const struct names_dir *d);

/* Remove NAME.ext from d (a missing one is no error). */
void names_remove(const struct names_dir *d, const char *name, const char *ext);

/* Leave the marker NAME.cancel holding sig, expiring ttl ns from now (whole: a starting run
 * reads all of it or finds none); false with errno. */
bool names_mark(const struct names_dir *d, const char *name, int sig, int64_t ttl);

/* A marker NAME.cancel that has not expired: removed, and true with its signal in *sig (0 if
 * it cannot be read); an expired one is removed, and false. */
bool names_take_mark(const struct names_dir *d, const char *name, int *sig);

/* Is there a marker NAME.cancel (expired or not)? */
bool names_marked(const struct names_dir *d, const char *name);

/* Leave the tombstone NAME.ended: a regular file of 0600, made anew (never through a symbolic
 * link or another file at its name, which it replaces), its mtime now; false with errno. */
bool names_leave_tombstone(const struct names_dir *d, const char *name);

/* The tombstone NAME.ended, a regular file of the directory's user, that has not expired: true
 * with its time (its mtime, wall-clock ns) in *at; an expired one is removed, and false. */
bool names_tombstone(const struct names_dir *d, const char *name, int64_t *at);

#endif

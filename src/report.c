/* O_NOFOLLOW is POSIX, but macOS shows it only with its extensions asked for. */
#define _DARWIN_C_SOURCE
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "budget.h"
#include "hook.h"
#include "json.h"
#include "msg.h"
#include "nested.h"
#include "os/os.h"
#include "quote.h"
#include "relay.h"
#include "signal_names.h"
#include "snapshot.h"
#include "stdfds.h"

/* The report is written a piece of this size at a time, from a buffer of its own that needs
 * no memory at the end of the run... */
#define REPORT_PIECE ((size_t)64 * 1024)
/* ...and to a descriptor, a pipe or a device, in one write(2) up to this size: every report
 * but one with a large --report-tail. */
#define ONE_WRITE ((size_t)1024 * 1024)

/* The report's schema (docs/report.schema.json): bumped on any change a reader of the old
 * one could trip on (a field gone, renamed, or of another type); a new field is no such
 * change. */
#define REPORT_SCHEMA 1

/* A signal by its name ("TERM"); null where have is false. */
static void signal_member(struct json *j, const char *key, bool have, int sig)
{
	char name[16];
	json_string_member(j, key, have ? sig_name(sig, name, sizeof name) : NULL);
}

/* The processes still alive at the end, and how many of those runlimit asked to end are
 * gone (run_end_count). */
static void process_counts(struct json *j, const struct run_end *e)
{
	json_int_member(j, "alive_at_command_exit", e->alive_at_exit >= 0, e->alive_at_exit);
	json_int_member(j, "ended", e->ended >= 0, e->ended);
	json_int_member(j, "left_running", e->left >= 0, e->left);
	/* What outlived its SIGKILL: runlimit gave up on it after the settle. */
	json_key(j, "alive_after_kill");
	json_open(j, '[');
	for (long k = 0; k < e->nunkilled; k++)
		json_int(j, e->unkilled[k]);
	json_close(j, ']');
}

/* What ended the run, and how the command ended. */
static void end_members(struct json *j, const struct config *cfg, const struct run_end *e)
{
	json_string_member(j, "outcome", outcome_word(e->outcome));
	json_int_member(j, "exit_status", !e->die, e->status);
	signal_member(j, "exit_signal", e->die != 0, e->die);
	json_bool_member(j, "timed_out", e->timed_out);
	json_string_member(j, "timed_out_by", e->timed_out ? reason_word(e->limit) : NULL);
	json_bool_member(j, "kill_needed", e->kill_needed);
	json_bool_member(j, "cancelled", e->cancelled);
	json_bool_member(j, "parent_gone", e->parent_gone);
	json_string_member(j, "name", cfg->name);
	static const char *const none[] = {NULL}; /* bad usage: no command */
	const char *const *argv = cfg->command ? (const char *const *)cfg->command : none;
	json_strings_member(j, "command", "command_base64", argv);
	json_int_member(j, "pid", e->pid > 0, e->pid);
	/* The command's own wait status, once it ran and was reaped. */
	bool have = e->pid > 0 && !e->exec_error && !e->unreaped;
	int st = e->wait_status;
	bool exited = have && WIFEXITED(st), signalled = have && WIFSIGNALED(st);
	json_int_member(j, "command_exit", exited, exited ? WEXITSTATUS(st) : 0);
	signal_member(j, "command_signal", signalled, signalled ? WTERMSIG(st) : 0);
	json_bool_member(j, "core_dumped", signalled && os_dumped_core(st));
	json_string_member(j, "error", e->exec_error ? strerror(e->exec_error) : e->error);
}

/* The limits asked for, and the time the run took. */
static void limit_members(struct json *j, const struct config *cfg, const struct run_end *e)
{
	json_seconds_member(j, "duration_seconds", true, cfg->duration);
	json_seconds_member(j, "kill_after_seconds", true, cfg->kill_after);
	json_seconds_member(j, "no_output_timeout_seconds", cfg->silence > 0, cfg->silence);
	signal_member(j, "timeout_signal", true, cfg->signal);
	json_seconds_member(j, "wall_seconds", true, e->finished - cfg->started);
	json_key(j, "started_at");
	json_time(j, cfg->started_wall);
	json_key(j, "ended_at");
	json_time(j, e->finished_wall);
}

/* The deadline passed down in RUNLIMIT_DEADLINE, if the run took it into account. */
static void inherited_member(struct json *j, const struct inherited *in)
{
	if (!json_object_member(j, "deadline_inherited", in != NULL))
		return;
	json_key(j, "deadline");
	json_time(j, in->deadline);
	json_seconds_member(j, "reserve_seconds", true, in->reserve);
	json_bool_member(j, "shortened", in->shortened);
	json_close(j, '}');
}

/* Every signal sent, in order. */
static void signal_members(struct json *j, const struct config *cfg, const struct run_end *e)
{
	json_key(j, "signals");
	json_open(j, '[');
	for (size_t k = 0; k < e->nsent; k++) {
		json_open(j, '{');
		json_seconds_member(j, "at", true, e->sent[k].at - cfg->started);
		signal_member(j, "signal", true, e->sent[k].sig);
		json_string_member(j, "target", e->sent[k].target);
		json_string_member(j, "reason", reason_word(e->sent[k].reason));
		json_close(j, '}');
	}
	json_close(j, ']');
	json_int_member(j, "signals_omitted", true, (long long)e->omitted);
}

/* A budget's figure in the report: a number in its unit, or seconds for a duration; null
 * where have is false. */
static void budget_value(struct json *j, const char *key, enum budget_unit unit, bool have,
                         int64_t v)
{
	if (unit == BUDGET_NS)
		json_seconds_member(j, key, have, v);
	else
		json_int_member(j, key, have, (long long)v);
}

/* The budgets, only when one was asked: the limits (null: not asked), what the mechanism
 * measured of the tree at its peak (null: never measured) and which one it was; a member
 * each of budget_table.h's table, the limits first. */
static void budgets_member(struct json *j, const struct run_end *e)
{
	const struct budget_figures *f = e->budgets;
	if (!f)
		return;
	json_key(j, "budgets");
	json_open(j, '{');
	json_string_member(j, "mechanism", f->mechanism);
	json_seconds_member(j, "interval_seconds", true, f->interval);
	for (int k = BUDGET_NONE + 1; k < BUDGET_KINDS; k++)
		budget_value(j, budget_rows[k].limit_field, budget_rows[k].unit, f->limit[k] > 0,
		             f->limit[k]);
	for (int k = BUDGET_NONE + 1; k < BUDGET_KINDS; k++)
		budget_value(j, budget_rows[k].peak_field, budget_rows[k].unit, f->peak[k] >= 0,
		             f->peak[k]);
	/* The kernel's OOM kills in the run's cgroup (null: no cgroup kept the memory budget,
	 * and what the kernel's own OOM killer did is not known). */
	json_int_member(j, "oom_kills", e->oom_kills >= 0, e->oom_kills);
	json_close(j, '}');
}

/* The resources used by the command and what it started (all of runlimit's children). */
static void rusage_member(struct json *j, const struct run_end *e)
{
	if (!json_object_member(j, "rusage", e->have_usage))
		return;
	json_seconds_member(j, "user_seconds", true, e->user_ns);
	json_seconds_member(j, "system_seconds", true, e->system_ns);
	json_int_member(j, "max_rss_kib", true, e->max_rss_kib);
	json_close(j, '}');
}

/* --report-tail: the end of stderr, and how much of it there was; or why it could not be
 * kept.  The text is escaped straight from the ring, a buffer's worth at a time, so a tail
 * of 16 MiB costs no copy of it (its escapes alone could take six times that). */
static void tail_member(struct json *j, const struct tail *t)
{
	if (!json_object_member(j, "stderr_tail", t && t->buf))
		return;
	const char *piece[2];
	size_t len[2];
	tail_pieces(t, &piece[0], &len[0], &piece[1], &len[1]);
	json_key(j, "text");
	struct json_text text;
	json_text_open(j, &text, t->total > t->len);
	for (int k = 0; k < 2; k++)
		json_text_add(j, &text, piece[k], len[k]);
	bool exact = json_text_close(j, &text);
	json_key(j, "base64");
	if (exact) {
		json_null(j);
	} else {
		struct json_base64 b;
		json_base64_open(j, &b);
		for (int k = 0; k < 2; k++)
			json_base64_add(j, &b, piece[k], len[k]);
		json_base64_close(j, &b);
	}
	json_int_member(j, "bytes", true, (long long)t->total);
	json_int_member(j, "cut", true, (long long)(t->total - t->len));
	json_close(j, '}');
}

/* What came out, where the relay saw it (null where it relayed nothing). */
static void output_member(struct json *j, const struct config *cfg, const struct relay_stats *o)
{
	if (!json_object_member(j, "output", o != NULL))
		return;
	json_int_member(j, "stdout_bytes", o->bytes[0] >= 0, o->bytes[0]);
	json_int_member(j, "stderr_bytes", o->bytes[1] >= 0, o->bytes[1]);
	json_int_member(j, "stdout_dropped", o->dropped[0] >= 0, o->dropped[0]);
	json_int_member(j, "stderr_dropped", o->dropped[1] >= 0, o->dropped[1]);
	json_bool_member(j, "stderr_with_stdout", o->stderr_shared);
	json_seconds_member(j, "last_output_seconds", o->last_output != CLOCK_NEVER,
	                    o->last_output - cfg->started);
	const struct tail *t = cfg->report_tail ? o->tail : NULL;
	tail_member(j, t);
	/* Why there is no tail though one was asked for: a terminal (never interposed), or
	 * no memory for the ring (the command ran all the same).  One field for both. */
	const char *why = NULL;
	if (cfg->report_tail && !t)
		why = o->tail_missing;
	else if (t && t->error)
		why = strerror(t->error);
	json_string_member(j, "stderr_tail_unavailable", why);
	json_close(j, '}');
}

/* The report's word for a state letter as ps shows it. */
static const char *state_word(char state)
{
	static const char letters[] = "RSDTtZIWL";
	static const char *const words[] = {"running", "sleeping", "disk-wait", "stopped", "traced",
	                                    "zombie", "idle", "waiting", "locked"};
	const char *at = state ? strchr(letters, state) : NULL;
	return at ? words[at - letters] : "unknown";
}

static void process_member(struct json *j, const struct snap_proc *p)
{
	json_open(j, '{');
	json_int_member(j, "pid", true, p->pid);
	json_int_member(j, "ppid", true, p->ppid);
	json_int_member(j, "pgid", true, p->pgid);
	json_string_member(j, "state", state_word(p->state));
	json_seconds_member(j, "elapsed_seconds", p->elapsed >= 0, p->elapsed);
	json_seconds_member(j, "cpu_seconds", p->cpu >= 0, p->cpu);
	json_int_member(j, "rss_kib", p->rss_kib >= 0, p->rss_kib);
	/* As the report's command (each argument at least its NUL: SNAP_ARGS_MAX at most). */
	const char *argv[SNAP_ARGS_MAX + 1];
	size_t n = 0;
	for (size_t k = 0; k < p->args_len; k += strlen(p->args + k) + 1)
		argv[n++] = p->args + k;
	argv[n] = NULL;
	json_strings_member(j, "command", "command_base64", argv);
	json_bool_member(j, "command_cut", p->args_cut);
	json_close(j, '}');
}

/* The tree at the limit (snapshot.h), null if no snapshot was taken. */
static void snapshot_member(struct json *j, const struct snapshot_figures *snap,
                            int64_t started)
{
	if (!json_object_member(j, "tree_at_limit", snap != NULL))
		return;
	json_string_member(j, "reason", snap->why);
	json_seconds_member(j, "at", true, snap->at - started);
	json_key(j, "processes");
	if (snap->procs) {
		json_open(j, '[');
		for (size_t k = 0; k < snap->n; k++)
			process_member(j, &snap->procs[k]);
		json_close(j, ']');
	} else {
		json_null(j);
	}
	json_int_member(j, "omitted", true, (long long)snap->omitted);
	json_string_member(j, "unavailable", snap->unavailable);
	json_close(j, '}');
}

/* The --on-timeout hook (hook.h), null if it did not run. */
static void hook_member(struct json *j, const struct hook_figures *hook, int64_t started)
{
	if (!json_object_member(j, "on_timeout", hook != NULL))
		return;
	json_string_member(j, "reason", hook->why);
	json_seconds_member(j, "at", true, hook->started - started);
	json_seconds_member(j, "seconds", hook->over && hook->ended, hook->ended - hook->started);
	bool exited = hook->have_status && WIFEXITED(hook->status);
	bool signalled = hook->have_status && WIFSIGNALED(hook->status);
	json_int_member(j, "exit_status", exited, exited ? WEXITSTATUS(hook->status) : 0);
	char buf[16];
	const char *sig = NULL;
	if (signalled || (hook->killed && !hook->have_status))
		sig = sig_name(signalled ? WTERMSIG(hook->status) : SIGKILL, buf, sizeof buf);
	json_string_member(j, "signal", sig);
	json_string_member(j, "killed", hook->killed);
	json_close(j, '}');
}

static void build(struct json *j, const struct config *cfg, const struct run_end *e)
{
	json_open(j, '{');
	json_int_member(j, "schema", true, REPORT_SCHEMA);
	json_string_member(j, "version", RUNLIMIT_VERSION);
	end_members(j, cfg, e);
	limit_members(j, cfg, e);
	inherited_member(j, e->inherited);
	signal_members(j, cfg, e);
	process_counts(j, e);
	output_member(j, cfg, e->output);
	snapshot_member(j, e->tree_at_limit, cfg->started);
	hook_member(j, e->on_timeout, cfg->started);
	budgets_member(j, e);
	rusage_member(j, e);
	json_close(j, '}');
}

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

void report_finish(const struct config *cfg, const struct run_end *e)
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
		static char storage[REPORT_PIECE];
		struct json j;
		json_init_sink(&j, dest_write, &d, storage, sizeof storage, d.atomic ? 0 : ONE_WRITE);
		build(&j, cfg, e);
		json_raw(&j, "\n");
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

/* The walk over a process table that Linux (linux_tree.c) and macOS (darwin.c) share: the
 * freeze-rescan-kill loop, the "is anything left" test, the list for the report and the
 * snapshot at a limit (walk.h). */
#include "os.h"
#include "walk.h"
#include "pidmap.h"
#include "grow.h"
#include "../test_hooks.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void tree_close_over_parents(struct tree_proc *procs, size_t n)
{
	struct pidmap index = {NULL, 0, 0};
	for (size_t i = 0; i < n; i++)
		pidmap_put(&index, procs[i].pid, (long)i);
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			long j = procs[i].in_tree ? -1 : pidmap_get(&index, procs[i].ppid);
			if (j >= 0 && procs[j].in_tree)
				procs[i].in_tree = grew = true;
		}
	}
	pidmap_free(&index);
}

struct tree_seen *tree_scan_dead;
int tree_scan_why;

/* Why the last scan ran short, as errno says it. */
static int short_why(void)
{
	return tree_scan_why ? tree_scan_why : ENOMEM;
}

void tree_seen_add(struct tree_seen *s, pid_t pid, uint64_t start)
{
	if (!grow(&s->ids, s->n, &s->cap, sizeof *s->ids)) {
		s->unknown = true;
		return;
	}
	s->ids[s->n++] = (struct tree_id){pid, start};
}

/* Note the processes of the tree among procs[0..n) in seen (if any). */
static void note(struct tree_seen *seen, const struct tree_proc *procs, long n)
{
	if (!seen)
		return;
	if (tree_scan_short)
		seen->unknown = true;
	for (long i = 0; i < n; i++)
		if (procs[i].in_tree)
			tree_seen_add(seen, procs[i].pid, procs[i].start);
}

/* Processes already dealt with (stopped, or killed), by pid and start time. */
struct seen {
	struct tree_proc *procs;
	size_t n, cap;
	struct pidmap index;
};

/* Is p (the same process: pid and start time) in s? */
static bool known(const struct seen *s, const struct tree_proc *p)
{
	long k = pidmap_get(&s->index, p->pid);
	return k >= 0 && s->procs[k].start == p->start;
}

/* Add p to s (a reused pid takes over the index entry of the process it belonged to). */
static bool remember(struct seen *s, const struct tree_proc *p)
{
	if (!grow(&s->procs, s->n, &s->cap, sizeof *s->procs))
		return false;
	if (!pidmap_put(&s->index, p->pid, (long)s->n))
		return false;
	s->procs[s->n++] = *p;
	return true;
}

static void pause_briefly(void)
{
	struct timespec ts = {0, 200000};
	nanosleep(&ts, NULL);
}

/* Stop every process of the tree, rescanning until a scan finds none not yet stopped: a
 * stopped process cannot fork, so this ends even against a tree forking as fast as it can.
 * A scan only counts as the last once everything in it is seen stopped: a process that got
 * SIGSTOP inside fork() finishes the fork first, and its child may not be listed yet.  One
 * seen running again (another process of the tree sent it SIGCONT) is stopped again.  A
 * process that cannot stop (uninterruptible sleep, a vfork parent) is waited for at most
 * about 20 ms, and the whole freeze at most 10 s: then what was found is signalled.
 * Where "seen stopped" can come before the process has really parked (macOS marks it
 * stopped when the stop is posted, so a fork in progress may still complete), the freeze
 * needs tree_settle_scans settled scans in a row, a pause apart, that find nothing new.
 * Returns the stopped set. */
static size_t freeze(const struct target *t, struct tree_proc **out)
{
	struct seen frozen = {NULL, 0, 0, {NULL, 0, 0}};
	int waits = 0, settled_scans = 0;
	int64_t give_up = clock_now() + TREE_GIVE_UP;
	for (int round = 0; round < 1000 && clock_now() < give_up; round++) {
		struct tree_proc *procs;
		long n = tree_scan(t, &procs);
		if (n < 0)
			break;
		size_t fresh = 0;
		bool settled = true;
		for (long i = 0; i < n; i++) {
			if (!procs[i].in_tree)
				continue;
			if (known(&frozen, &procs[i])) {
				if (!procs[i].stopped) {
					settled = false;
					tree_send(&procs[i], SIGSTOP); /* again: it was continued */
				}
				continue;
			}
			settled = false;
			if (!remember(&frozen, &procs[i]))
				break;
			tree_send(&procs[i], SIGSTOP);
			fresh++;
		}
		free(procs);
		if (fresh > 0) {
			settled_scans = 0;
			continue;
		}
		settled_scans = settled ? settled_scans + 1 : 0;
		if (settled_scans >= tree_settle_scans || ++waits > 100)
			break;
		pause_briefly();
	}
	pidmap_free(&frozen.index);
	*out = frozen.procs;
	return frozen.n;
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* TREE_SOFT: unmark the members of every process group made inside the tree by a live
 * process of the tree, except that process, its leader.  A nested runlimit or timeout then
 * gets the signal and turns it into its own (GNU's timeout-group test); its command does not
 * get the outer one directly.  Processes that left the session (setsid) and groups whose
 * leader is gone (orphans) are still signalled directly. */
static void leave_inner_groups(const struct target *t, struct tree_proc *procs, size_t n)
{
	pid_t *tree = malloc((n ? n : 1) * sizeof *tree);
	if (!tree)
		return; /* then everything is signalled directly, as before */
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (procs[i].in_tree)
			tree[m++] = procs[i].pid;
	qsort(tree, m, sizeof *tree, by_pid);
	pid_t session = getsid(0);
	for (size_t i = 0; i < n; i++) {
		const struct tree_proc *p = &procs[i];
		if (!p->in_tree || p->pgid <= 0 || p->pgid == t->group || p->pgid == p->pid ||
		    p->sid != session)
			continue;
		if (bsearch(&p->pgid, tree, m, sizeof *tree, by_pid))
			procs[i].in_tree = false;
	}
	free(tree);
}

long tree_scan_then_send(const struct target *t, struct tree_proc **out, tree_pick pick,
                         void *ctx)
{
	long n = tree_scan(t, out);
	for (long i = 0; i < n; i++) {
		int sig = (*out)[i].in_tree ? pick(&(*out)[i], ctx) : 0;
		if (sig > 0)
			tree_send(&(*out)[i], sig);
	}
	return n;
}

struct kill_round {
	struct seen sent;
	size_t fresh;
};

/* SIGKILL for a process not killed yet. */
static int pick_unkilled(const struct tree_proc *p, void *ctx)
{
	struct kill_round *k = ctx;
	if (known(&k->sent, p))
		return 0; /* killed already, not dead yet */
	remember(&k->sent, p); /* short of memory it is killed again next round: no harm */
	k->fresh++;
	return SIGKILL;
}

/* The final SIGKILL where a fork cannot complete once SIGKILL is pending (Linux:
 * copy_process gives up on a fatal signal): kill everything as the scan finds it, and scan
 * again until a scan finds nothing new.  Where the scan reads a process's children after
 * killing it (Linux), the first round already finds every child; the next one, finding
 * nothing new, confirms it.  No stopping first, so a round costs one signal per process,
 * not three.  Bounded like the freeze.  A round that ran out of memory or descriptors may
 * have missed processes: then the platform finishes without them (tree_kill_short), and
 * what it returns is returned (TREE_UNVERIFIED if it could not look), errno saying why. */
static long kill_rounds(const struct target *t, struct tree_seen *seen)
{
	struct kill_round k = {{NULL, 0, 0, {NULL, 0, 0}}, 0};
	bool ran_short = false;
	int why = 0;
	int64_t give_up = clock_now() + TREE_GIVE_UP;
	for (int round = 0; round < 1000 && clock_now() < give_up; round++) {
		struct tree_proc *procs;
		k.fresh = 0;
		long n = tree_scan_each(t, &procs, pick_unkilled, &k);
		if (n < 0)
			break;
		if (tree_scan_short) {
			ran_short = true;
			why = short_why();
		}
		note(seen, procs, n);
		free(procs);
		if (k.fresh == 0)
			break;
	}
	free(k.sent.procs);
	pidmap_free(&k.sent.index);
	if (!ran_short)
		return -1;
	if (seen)
		seen->unknown = true;
	long left = tree_kill_short(t);
	errno = why;
	return left < 0 ? TREE_UNVERIFIED : left;
}

long tree_signal(const struct target *t, int sig, int flags, struct tree_seen *seen)
{
	struct tree_proc *procs;
	long n;
	tree_scan_dead = seen;
	if ((flags & TREE_FREEZE) && sig == SIGKILL && !tree_fork_survives_kill) {
		long left = kill_rounds(t, seen);
		tree_scan_dead = NULL;
		return left;
	}
	if (flags & TREE_FREEZE) {
		n = (long)freeze(t, &procs);
		for (long i = 0; i < n; i++)
			procs[i].in_tree = true;
	} else {
		n = tree_scan(t, &procs);
	}
	tree_scan_dead = NULL;
	if (n < 0) {
		if (seen)
			seen->unknown = true;
		return -1;
	}
	note(seen, procs, n); /* before the nested groups' members are left to their leaders */
	if (flags & TREE_SOFT)
		leave_inner_groups(t, procs, (size_t)n);
	bool missed = tree_scan_short; /* tree_send may find a process it cannot check too */
	for (long i = 0; i < n; i++)
		if (procs[i].in_tree && !((flags & TREE_GROUP_SENT) && procs[i].pgid == t->group))
			tree_send(&procs[i], sig);
	if (flags & TREE_CONTINUE)
		for (long i = 0; i < n; i++)
			if (procs[i].in_tree)
				tree_send(&procs[i], SIGCONT);
	free(procs);
	if (!missed && !tree_scan_short)
		return -1;
	if (seen)
		seen->unknown = true;
	errno = short_why();
	return TREE_UNVERIFIED;
}

int tree_alive(const struct target *t)
{
	struct tree_proc *procs;
	long n = tree_scan(t, &procs);
	if (n < 0)
		return -1;
	bool alive = false;
	for (long i = 0; i < n && !alive; i++)
		alive = procs[i].in_tree;
	free(procs);
	if (alive || !tree_scan_short)
		return alive;
	/* Nothing found, but for want of memory or descriptors: not "gone" unless a look
	 * that needs neither says so. */
	long left = tree_count_short(t);
	return left < 0 ? TREE_MAYBE : left > 0;
}

/* A scan that found the whole tree, or -1: none here, or one short of memory or descriptors
 * (a count or a sum that may be short is none). */
static long scan_whole(const struct target *t, struct tree_proc **procs)
{
	long n = tree_scan(t, procs);
	if (n < 0)
		return -1;
	if (tree_scan_short) {
		free(*procs);
		return -1;
	}
	return n;
}

long tree_list(const struct target *t, struct tree_id **out)
{
	struct tree_proc *procs;
	*out = NULL;
	long n = scan_whole(t, &procs);
	if (n < 0)
		return -1;
	struct tree_id *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
	if (!ids) {
		free(procs);
		return -1;
	}
	long m = 0;
	for (long i = 0; i < n; i++)
		if (procs[i].in_tree)
			ids[m++] = (struct tree_id){procs[i].pid, procs[i].start};
	free(procs);
	*out = ids;
	return m;
}

void tree_usage_add(struct tree_usage *u, const struct tree_usage *one)
{
	for (int f = 0; f < USAGE_FIGURES; f++)
		if (one->figure[f] > 0)
			u->figure[f] += one->figure[f];
}

/* One scan, as tree_list's; a process gone between the scan and its read is left out, as it
 * would have been a moment later.  The processes are counted as they are found, those that
 * cannot be read included. */
int tree_usage_by_scan(const struct target *t, struct tree_usage *u)
{
	struct tree_proc *procs;
	long n = scan_whole(t, &procs);
	if (n < 0)
		return -1;
	*u = (struct tree_usage){{0}};
	for (long i = 0; i < n; i++) {
		struct tree_usage one;
		if (!procs[i].in_tree)
			continue;
		if (tree_proc_usage(&procs[i], &one))
			tree_usage_add(u, &one);
		else
			u->figure[USAGE_PROCS]++;
	}
	free(procs);
	return 0;
}

/* Test builds only: the process whose pid the file TEST_SNAP_VANISH names holds ends
 * between the walk that found it and its description (KILLed here, and reaped by its
 * parent), as a short-lived process may. */
static void vanish(pid_t pid)
{
	const char *file = test_hook_value(TEST_SNAP_VANISH);
	FILE *f = file ? fopen(file, "r") : NULL;
	long victim = 0;
	if (f) {
		if (fscanf(f, "%ld", &victim) != 1)
			victim = 0;
		fclose(f);
	}
	if (victim <= 0 || victim != (long)pid || kill(pid, SIGKILL) != 0)
		return;
	struct timespec tick = {0, 10000000};
	for (int i = 0; i < 300 && kill(pid, 0) == 0; i++)
		nanosleep(&tick, NULL);
}

/* Describe one process found by the walk into out[*got], or count it as left out. */
static void describe(const struct tree_proc *p, struct snap_proc *out, size_t max, size_t *got,
                     size_t *omitted)
{
	if (*got == max) {
		(*omitted)++;
		return;
	}
	vanish(p->pid);
	int r = snap_describe(p, &out[*got]);
	if (r > 0)
		(*got)++;
	else if (r < 0)
		(*omitted)++; /* alive, but not to be read now */
}

/* The walk's tree, in the order it found it (breadth first from the command), then the
 * zombies it found on the way: a read-only scan, which signals nothing. */
long tree_snapshot(const struct target *t, struct snap_proc *out, size_t max, size_t *omitted)
{
	struct tree_proc *procs;
	struct tree_seen dead = {NULL, 0, 0, false};
	*omitted = 0;
	tree_scan_dead = &dead;
	long n = tree_scan(t, &procs);
	tree_scan_dead = NULL;
	if (n < 0) {
		free(dead.ids);
		return -1;
	}
	size_t got = 0;
	for (long i = 0; i < n; i++)
		if (procs[i].in_tree)
			describe(&procs[i], out, max, &got, omitted);
	for (size_t k = 0; k < dead.n; k++) {
		struct tree_proc z = {.pid = dead.ids[k].pid, .start = dead.ids[k].start};
		describe(&z, out, max, &got, omitted);
	}
	free(procs);
	free(dead.ids);
	return (long)got;
}

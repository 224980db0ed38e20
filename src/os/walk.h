/* What a platform with a process table but no in-kernel tree kill (Linux /proc in
 * linux_tree.c, macOS libproc in darwin.c) provides to walk.c, which holds the portable
 * part: the freeze-rescan-kill loop and the "is anything left" test. */
#ifndef RUNLIMIT_OS_WALK_H
#define RUNLIMIT_OS_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "os.h"

struct tree_proc {
	pid_t pid;
	pid_t ppid;
	pid_t pgid;
	pid_t sid;
	uint64_t start; /* start time: tells a process from a later one that reuses its pid */
	bool in_tree;   /* a descendant of the command */
	bool stopped;   /* seen stopped: not in the middle of a fork */
	/* What the same read says for the snapshot, where the walk reads it (Linux's /proc
	 * stat; state 0 elsewhere): one read of each process, not two. */
	char state;
	uint64_t cpu_ticks; /* user and system */
	long rss_pages;
	uint64_t arg_start, arg_end; /* where its arguments lie in its memory (0: not known) */
	uint64_t reaped_ticks; /* user and system of the ended children it collected (Linux,
	                          for tree_usage) */
};

/* Live processes, those of the command's tree marked in_tree: the command itself while it
 * is not reaped, the members of its process group, the descendants found, and the closure.
 * Returns the count (*out to be freed), or -1 if there is no process table to read. */
long tree_scan(const struct target *t, struct tree_proc **out);

/* Send sig to p, if the pid still belongs to the process that was scanned. */
void tree_send(const struct tree_proc *p, int sig);

/* For tree_scan_each: the signal to send p, a process of the tree just found (0: none). */
typedef int (*tree_pick)(const struct tree_proc *p, void *ctx);

/* tree_scan, also sending every process of the tree the signal pick chooses as soon as it
 * is found.  Where the OS has process handles (Linux pidfds), the handle is taken before
 * the process is read, so the signal needs no second read to know the pid was not reused
 * (as tree_send does).  Returns as tree_scan. */
long tree_scan_each(const struct target *t, struct tree_proc **out, tree_pick pick,
                    void *ctx);

/* tree_scan_each for systems without such handles: scan, then tree_send. */
long tree_scan_then_send(const struct target *t, struct tree_proc **out, tree_pick pick,
                         void *ctx);

/* How many settled scans in a row end a freeze (see walk.c): 1 where a process seen
 * stopped cannot be inside fork() (Linux: a pending signal makes fork start over), 2 where
 * it can (macOS). */
extern const int tree_settle_scans;

/* Can a fork in progress complete although SIGKILL is pending for the forking process?  Not
 * on Linux: there the final KILL needs no freeze, only rounds of kill and rescan. */
extern const bool tree_fork_survives_kill;

/* How long a freeze or the final KILL's rounds go on at most: then what was found is
 * signalled, or said to be left (nanoseconds). */
#define TREE_GIVE_UP ((int64_t)10 * 1000000000)

/* Set by every tree_scan and tree_scan_each: the last one ran out of memory or of file
 * descriptors (tree_scan_why: ENOMEM, EMFILE or ENFILE; 0 is ENOMEM), so it may have missed
 * processes (and sent none of them a signal).  A read that fails for want of either is
 * never taken to mean that the process is gone. */
extern bool tree_scan_short;
extern int tree_scan_why;

/* While a walk that signals notes what it reaches (tree_signal), the scans also note here
 * the processes of the tree they find dead: the signal sent to the group just before the
 * walk may be what ended them (NULL: not wanted). */
extern struct tree_seen *tree_scan_dead;

/* Note a process in s (short of memory, s becomes unknown). */
void tree_seen_add(struct tree_seen *s, pid_t pid, uint64_t start);

/* After a final KILL whose rounds ran short of memory or descriptors: kill what can be
 * found without allocating (and, where it can, without opening anything), and look again
 * until nothing of the tree is alive or about 10 s have passed.  Returns how many processes
 * were still alive then (0: none), or -1 where this system has no such way or it could not
 * look at all. */
long tree_kill_short(const struct target *t);

/* After a scan that ran short: the same look as tree_kill_short's, without the kill: how
 * many processes of the tree are alive (0: none), or -1 if that cannot be told. */
long tree_count_short(const struct target *t);

/* For tree_snapshot: describe p, a process the scan found (its pid and start time, and its
 * state if the scan read it), into s.  1 if described; 0 if it is gone, or another process
 * has its pid now; -1 if it could not be read (no descriptor, no memory). */
int snap_describe(const struct tree_proc *p, struct snap_proc *s);

/* tree_usage from one tree_scan and tree_proc_usage of each process found (macOS; Linux
 * where it cannot hold the tree's files, see linux_tree.c). */
int tree_usage_by_scan(const struct target *t, struct tree_usage *u);

/* For tree_usage_by_scan: the figures of p alone, a process the scan found (USAGE_PROCS 1;
 * its CPU its own and that of the ended children it collected).  False if it is gone, or
 * cannot be read now. */
bool tree_proc_usage(const struct tree_proc *p, struct tree_usage *one);

/* A measure's sum: one process's figures added to *u's (a figure -1 in one adds nothing). */
void tree_usage_add(struct tree_usage *u, const struct tree_usage *one);

/* Mark every process whose parent is marked, until nothing changes. */
void tree_close_over_parents(struct tree_proc *procs, size_t n);

#endif

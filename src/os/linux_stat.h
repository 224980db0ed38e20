/* Linux: the fields of /proc/PID/stat that runlimit reads, parsed by hand (the walk reads
 * one of these files for every process of the tree, at every signal: docs/performance.md),
 * and what goes with them.  Shared by the walk (linux_tree.c) and the snapshot (linux_snap.c). */
#ifndef RUNLIMIT_OS_LINUX_STAT_H
#define RUNLIMIT_OS_LINUX_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct stat_fields {
	pid_t ppid, pgrp, session;
	char state;
	long threads;
	unsigned long long start;        /* clock ticks after boot */
	unsigned long long utime, stime; /* clock ticks */
	unsigned long long cutime, cstime; /* clock ticks: the ended children it collected */
	long rss;                        /* pages */
	/* Where its arguments lie in its memory; 0 when the kernel does not say (runlimit may
	 * not read its memory, or it has none: a zombie). */
	unsigned long long arg_start, arg_end;
};

/* Parse the text of a stat file (NUL-terminated).  False if it is not one: the command
 * name (field 2) may hold anything, so the fields are taken from after its last ')'. */
bool stat_parse(const char *text, struct stat_fields *f);

/* Clock ticks, stat's unit of time, in nanoseconds; -1 where the tick is not known. */
int64_t stat_ticks_ns(unsigned long long ticks);

/* Did a read of /proc fail for want of descriptors or memory (err: errno)?  That never
 * means the process is gone. */
bool stat_wanting(int err);

#endif

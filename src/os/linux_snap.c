/* Linux: each process of the snapshot (os.h, the snapshot; walk.c finds them): what the
 * walk's read of /proc/PID/stat gave (linux_tree.c), and its arguments, read from its
 * memory where stat says they lie, else from /proc/PID/cmdline; through fixed buffers:
 * nothing is allocated. */
#define _GNU_SOURCE
#include "os.h"
#include "walk.h"
#include "snapargs.h"
#include "linux_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* An open of a /proc file: -1 with errno, which only stat_wanting makes anything but
 * "gone". */
static int open_proc(pid_t pid, const char *file)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* The arguments from /proc/PID/cmdline, a piece at a time (snapargs.h cuts them).  A read
 * that comes back short has reached the end: one read, for most.  False if the process has
 * gone since the walk found it (its /proc directory with it). */
static bool read_cmdline(pid_t pid, struct snap_proc *s)
{
	struct snap_cut c;
	snap_args_begin(s, &c);
	int fd = open_proc(pid, "cmdline");
	if (fd < 0)
		return stat_wanting(errno); /* no descriptor: described without its arguments */
	char buf[4096];
	ssize_t got;
	while ((got = read(fd, buf, sizeof buf)) > 0 && snap_args_add(s, &c, buf, (size_t)got) &&
	       got == (ssize_t)sizeof buf)
		;
	close(fd);
	snap_args_end(s, &c);
	return true;
}

/* The arguments straight from the process's memory, where stat said they lie: one system
 * call, not cmdline's three (the first signal waits for this, for every process of the
 * tree).  False where they cannot be read so (runlimit may not read that memory; the
 * process is gone, or is another by now) or must not be: a process that wrote over the NUL
 * that ends its arguments (setproctitle) has a title that runs on past them, which cmdline
 * follows and this does not. */
static bool read_memory(pid_t pid, const struct tree_proc *p, struct snap_proc *s)
{
	if (p->arg_start == 0 || p->arg_end <= p->arg_start)
		return false;
	struct snap_cut c;
	snap_args_begin(s, &c);
	char buf[4096], last = 1;
	for (uint64_t at = p->arg_start; at < p->arg_end;) {
		size_t want = p->arg_end - at < sizeof buf ? (size_t)(p->arg_end - at) : sizeof buf;
		/* With the first piece, the last byte, which must be that NUL. */
		unsigned long pieces = at == p->arg_start ? 2 : 1;
		struct iovec local[2] = {{buf, want}, {&last, 1}};
		struct iovec remote[2] = {{(void *)(uintptr_t)at, want},
		                          {(void *)(uintptr_t)(p->arg_end - 1), 1}};
		ssize_t got = process_vm_readv(pid, local, pieces, remote, pieces, 0);
		if (got != (ssize_t)(want + pieces - 1) || last != '\0')
			return false;
		at += want;
		if (!snap_args_add(s, &c, buf, want))
			break;
	}
	snap_args_end(s, &c);
	return true;
}

/* The fields of /proc/PID/stat the snapshot takes, where the scan did not read them (a
 * zombie it found): 1, or 0 if pid is gone or is another process now, -1 for want of a
 * descriptor or memory. */
static int read_fields(struct tree_proc *p)
{
	char buf[1024];
	int fd = open_proc(p->pid, "stat");
	if (fd < 0)
		return stat_wanting(errno) ? -1 : 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return stat_wanting(err) ? -1 : 0;
	buf[n > 0 ? n : 0] = '\0';
	struct stat_fields f;
	if (!stat_parse(buf, &f) || f.start != p->start || f.state == 'X')
		return 0; /* another process by now, or gone */
	p->state = f.state;
	p->ppid = f.ppid;
	p->pgid = f.pgrp;
	p->cpu_ticks = f.utime + f.stime;
	p->rss_pages = f.rss;
	p->arg_start = f.arg_start;
	p->arg_end = f.arg_end;
	return 1;
}

int snap_describe(const struct tree_proc *found, struct snap_proc *s)
{
	struct tree_proc p = *found;
	if (!p.state) {
		int r = read_fields(&p);
		if (r <= 0)
			return r;
	}
	*s = (struct snap_proc){.pid = p.pid, .ppid = p.ppid, .pgid = p.pgid, .state = p.state,
	                        .elapsed = -1, .cpu = stat_ticks_ns(p.cpu_ticks),
	                        .rss_kib = p.state == 'Z' ? 0
	                                                  : p.rss_pages * (sysconf(_SC_PAGESIZE) / 1024)};
	struct timespec now;
	int64_t born = stat_ticks_ns(p.start);
	if (born >= 0 && clock_gettime(CLOCK_BOOTTIME, &now) == 0)
		s->elapsed = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - born;
	if (s->elapsed < 0)
		s->elapsed = -1;
	if (p.state == 'Z')
		return 1; /* no memory, no arguments: cmdline would say nothing either */
	return read_memory(p.pid, &p, s) || read_cmdline(p.pid, s) ? 1 : 0;
}

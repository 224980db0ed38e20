/* Linux: each process of the snapshot (os.h, the snapshot; walk.c finds them): what the
 * walk's read of /proc/PID/stat gave (linux_tree.c), and /proc/PID/cmdline, through fixed
 * buffers: nothing is allocated. */
#define _GNU_SOURCE
#include "os.h"
#include "walk.h"
#include "snapargs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* An open of a /proc file: -1 with errno, which only a want of descriptors or memory makes
 * anything but "gone". */
static int open_proc(pid_t pid, const char *file)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static bool wanting(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

static int64_t ticks_ns(unsigned long long ticks)
{
	static long hz;
	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		return -1;
	return (int64_t)(ticks / (unsigned long long)hz) * 1000000000 +
	       (int64_t)(ticks % (unsigned long long)hz) * (1000000000 / hz);
}

/* The arguments, read a piece at a time (snapargs.h cuts them); false if the process has
 * gone since the walk found it (its /proc directory with it). */
static bool read_args(pid_t pid, struct snap_proc *s)
{
	struct snap_cut c;
	snap_args_begin(s, &c);
	int fd = open_proc(pid, "cmdline");
	if (fd < 0)
		return wanting(errno); /* no descriptor: described without its arguments */
	char buf[4096];
	ssize_t got;
	while ((got = read(fd, buf, sizeof buf)) > 0 && snap_args_add(s, &c, buf, (size_t)got))
		;
	close(fd);
	snap_args_end(s, &c);
	return true;
}

/* The fields of /proc/PID/stat the snapshot takes, where the scan did not read them (a
 * zombie it found); false if pid is gone or is another process now. */
static int read_fields(struct tree_proc *p)
{
	char buf[1024];
	int fd = open_proc(p->pid, "stat");
	if (fd < 0)
		return wanting(errno) ? -1 : 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return wanting(err) ? -1 : 0;
	buf[n > 0 ? n : 0] = '\0';
	char *at = strrchr(buf, ')');
	int ppid, pgrp;
	unsigned long long utime, stime, started;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	 * cutime cstime priority nice threads itrealvalue starttime vsize rss */
	if (!at || sscanf(at + 1, " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
	                          "%*d %*d %*d %*d %llu %*u %ld",
	                  &p->state, &ppid, &pgrp, &utime, &stime, &started, &p->rss_pages) != 7)
		return 0;
	if (started != p->start || p->state == 'X')
		return 0; /* another process by now, or gone */
	p->ppid = ppid;
	p->pgid = pgrp;
	p->cpu_ticks = utime + stime;
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
	                        .elapsed = -1, .cpu = ticks_ns(p.cpu_ticks),
	                        .rss_kib = p.state == 'Z' ? 0 : p.rss_pages * (sysconf(_SC_PAGESIZE) / 1024)};
	struct timespec now;
	int64_t born = ticks_ns(p.start);
	if (born >= 0 && clock_gettime(CLOCK_BOOTTIME, &now) == 0)
		s->elapsed = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - born;
	if (s->elapsed < 0)
		s->elapsed = -1;
	return read_args(p.pid, s) ? 1 : 0;
}

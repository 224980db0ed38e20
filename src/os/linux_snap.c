/* Linux: each process of the snapshot (os.h, the snapshot; walk.c finds them) read from
 * /proc/PID/stat and /proc/PID/cmdline, through fixed buffers: nothing is allocated. */
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

/* The arguments, read a piece at a time (snapargs.h cuts them). */
static void read_args(pid_t pid, struct snap_proc *s)
{
	struct snap_cut c;
	snap_args_begin(s, &c);
	int fd = open_proc(pid, "cmdline");
	if (fd < 0)
		return;
	char buf[4096];
	ssize_t got;
	while ((got = read(fd, buf, sizeof buf)) > 0 && snap_args_add(s, &c, buf, (size_t)got))
		;
	close(fd);
	snap_args_end(s, &c);
}

int snap_describe(pid_t pid, uint64_t start, bool zombie, struct snap_proc *s)
{
	char buf[1024];
	int fd = open_proc(pid, "stat");
	if (fd < 0)
		return wanting(errno) ? -1 : 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return wanting(err) ? -1 : 0;
	buf[n > 0 ? n : 0] = '\0';
	char *p = strrchr(buf, ')');
	char state;
	int ppid, pgrp;
	unsigned long long utime, stime, started;
	long rss;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	 * cutime cstime priority nice threads itrealvalue starttime vsize rss */
	if (!p || sscanf(p + 1, " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d "
	                        "%*d %*d %*d %llu %*u %ld",
	                 &state, &ppid, &pgrp, &utime, &stime, &started, &rss) != 7)
		return 0;
	(void)zombie; /* found dead or not, it is described as it is now */
	if (started != start || state == 'X')
		return 0; /* another process by now, or gone */
	*s = (struct snap_proc){.pid = pid, .ppid = ppid, .pgid = pgrp, .state = state,
	                        .elapsed = -1, .cpu = ticks_ns(utime) + ticks_ns(stime),
	                        .rss_kib = rss * (sysconf(_SC_PAGESIZE) / 1024)};
	struct timespec now;
	int64_t born = ticks_ns(started);
	if (born >= 0 && clock_gettime(CLOCK_BOOTTIME, &now) == 0)
		s->elapsed = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - born;
	if (s->elapsed < 0)
		s->elapsed = -1;
	if (state == 'Z')
		s->rss_kib = 0;
	read_args(pid, s);
	return 1;
}

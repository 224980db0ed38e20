#include "linux_stat.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* The stat fields, numbered as proc(5) numbers them, that are read here. */
enum {
	F_STATE = 3, F_PPID = 4, F_PGRP = 5, F_SESSION = 6, F_UTIME = 14, F_STIME = 15,
	F_CUTIME = 16, F_CSTIME = 17, F_THREADS = 20, F_START = 22, F_RSS = 24,
	F_ARG_START = 48, F_ARG_END = 49,
	F_LAST = F_ARG_END
};

/* A decimal number at *p, which is moved past it; a '-' makes it negative (rss may be, in
 * a race with the process's exit). */
static long long number(const char **p)
{
	const char *s = *p;
	bool minus = *s == '-';
	s += minus;
	unsigned long long v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned long long)(*s++ - '0');
	*p = s;
	return minus ? -(long long)v : (long long)v;
}

bool stat_parse(const char *text, struct stat_fields *f)
{
	const char *p = strrchr(text, ')');
	if (!p || p[1] != ' ' || !p[2])
		return false;
	p += 2;
	*f = (struct stat_fields){.state = *p};
	int field = F_STATE;
	/* Older kernels end before the argument fields: they are then 0 (not known). */
	while (field < F_LAST) {
		while (*p && *p != ' ')
			p++;
		if (!*p)
			break;
		p++;
		field++;
		switch (field) {
		case F_PPID: f->ppid = (pid_t)number(&p); break;
		case F_PGRP: f->pgrp = (pid_t)number(&p); break;
		case F_SESSION: f->session = (pid_t)number(&p); break;
		case F_UTIME: f->utime = (unsigned long long)number(&p); break;
		case F_STIME: f->stime = (unsigned long long)number(&p); break;
		case F_CUTIME: f->cutime = (unsigned long long)number(&p); break;
		case F_CSTIME: f->cstime = (unsigned long long)number(&p); break;
		case F_THREADS: f->threads = (long)number(&p); break;
		case F_START: f->start = (unsigned long long)number(&p); break;
		case F_RSS: f->rss = (long)number(&p); break;
		case F_ARG_START: f->arg_start = (unsigned long long)number(&p); break;
		case F_ARG_END: f->arg_end = (unsigned long long)number(&p); break;
		default: break;
		}
	}
	/* Everything up to the rss is in every kernel runlimit runs on. */
	return field >= F_RSS;
}

int64_t stat_ticks_ns(unsigned long long ticks)
{
	static long hz;
	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		return -1;
	return (int64_t)(ticks / (unsigned long long)hz) * 1000000000 +
	       (int64_t)(ticks % (unsigned long long)hz) * (1000000000 / hz);
}

bool stat_wanting(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

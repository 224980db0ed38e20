/* The name table wants every signal the system has, including the non-POSIX ones
 * (WINCH, INFO, EMT...) that a strict POSIX namespace hides on macOS.  (The unit tests ask
 * for the same view of <signal.h>, so that both agree on what 7 is: EMT, not POLL.) */
#define _DARWIN_C_SOURCE
#include "os/os.h"
#include "signal_names.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct signame {
	const char *name;
	int num;
};

/* Canonical names come before aliases, so number -> name picks the canonical one. */
static const struct signame names[] = {
	{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ILL", SIGILL},
	{"TRAP", SIGTRAP}, {"ABRT", SIGABRT}, {"FPE", SIGFPE},   {"KILL", SIGKILL},
	{"SEGV", SIGSEGV}, {"BUS", SIGBUS},   {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},
	{"TERM", SIGTERM}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"CHLD", SIGCHLD},
	{"URG", SIGURG},   {"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"CONT", SIGCONT},
	{"TTIN", SIGTTIN}, {"TTOU", SIGTTOU}, {"SYS", SIGSYS},
#ifdef SIGPOLL
	{"POLL", SIGPOLL},
#endif
	{"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
#ifdef SIGEMT
	{"EMT", SIGEMT},
#endif
#ifdef SIGPWR
	{"PWR", SIGPWR},
#endif
#ifdef SIGWINCH
	{"WINCH", SIGWINCH},
#endif
#ifdef SIGINFO
	{"INFO", SIGINFO},
#endif
#ifdef SIGSTKFLT
	{"STKFLT", SIGSTKFLT},
#endif
#ifdef SIGIO
	{"IO", SIGIO},
#endif
#ifdef SIGIOT
	{"IOT", SIGIOT},
#endif
#ifdef SIGCLD
	{"CLD", SIGCLD},
#endif
#ifdef SIGLOST
	{"LOST", SIGLOST},
#endif
};

#define NNAMES (sizeof names / sizeof names[0])

int sig_max(void)
{
	int max = 0;
	for (size_t i = 0; i < NNAMES; i++)
		if (names[i].num > max)
			max = names[i].num;
#ifdef SIGRTMAX
	if (SIGRTMAX > max)
		max = SIGRTMAX;
#endif
	return max;
}

int sig_next(int prev)
{
	int max = sig_max();
	for (int s = prev + 1; s <= max; s++) {
#ifdef SIGRTMIN
		if (s >= SIGRTMIN && s <= SIGRTMAX)
			return s;
#endif
		for (size_t i = 0; i < NNAMES; i++)
			if (names[i].num == s)
				return s;
	}
	return 0;
}

/* RTMIN or RTMAX followed by an optional decimal offset, as GNU reads them: "RTMIN",
 * "RTMIN+2" (or "RTMIN2"), "RTMAX-2", "RTMAX"; the result must stay in the range. */
static int parse_rt(const char *s)
{
#ifdef SIGRTMIN
	bool min = strncmp(s, "RTMIN", 5) == 0;
	if (!min && strncmp(s, "RTMAX", 5) != 0)
		return -1;
	long span = SIGRTMAX - SIGRTMIN, n = 0;
	if (s[5] != '\0') { /* strtol("") may fail with EINVAL (musl) */
		char *end;
		errno = 0;
		n = strtol(s + 5, &end, 10);
		if (errno || *end || end == s + 5)
			return -1;
	}
	if (min)
		return n >= 0 && n <= span ? SIGRTMIN + (int)n : -1;
	return n <= 0 && n >= -span ? SIGRTMAX + (int)n : -1;
#else
	(void)s;
	return -1;
#endif
}

static int lookup(const char *upper)
{
	if (strcmp(upper, "EXIT") == 0)
		return 0;
	for (size_t i = 0; i < NNAMES; i++)
		if (strcmp(upper, names[i].name) == 0)
			return names[i].num;
	return parse_rt(upper);
}

bool sig_ignored_by_default(int sig)
{
#ifdef SIGWINCH
	if (sig == SIGWINCH)
		return true;
#endif
#ifdef SIGINFO
	if (sig == SIGINFO)
		return true;
#endif
#if defined(SIGIO) && OS_SIGIO_IGNORED
	if (sig == SIGIO)
		return true; /* 4.4BSD's default for it; Linux's is to end the process (os.h) */
#endif
	return false;
}

int sig_parse(const char *s)
{
	if (isdigit((unsigned char)s[0])) {
		char *end;
		errno = 0;
		long n = strtol(s, &end, 10);
		if (errno || *end || n > INT_MAX)
			return -1;
		n &= n >= 0xFF ? 0xFF : 0x7F;
		return n <= sig_max() ? (int)n : -1;
	}
	char upper[32];
	size_t len = strlen(s);
	if (len == 0 || len >= sizeof upper)
		return -1;
	for (size_t i = 0; i <= len; i++)
		upper[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 'a' + 'A') : s[i];
	int sig = lookup(upper);
	if (sig >= 0 || strncmp(upper, "SIG", 3) != 0 || upper[3] == '\0')
		return sig;
	if (!isdigit((unsigned char)upper[3]))
		return lookup(upper + 3);
	/* "SIG9", "sig15": a number after SIG, as GNU takes it (no 128+N mapping there). */
	char *end;
	errno = 0;
	long n = strtol(upper + 3, &end, 10);
	return errno || *end || n > sig_max() ? -1 : (int)n;
}

const char *sig_name(int sig, char *buf, size_t size)
{
	for (size_t i = 0; i < NNAMES; i++) {
		if (names[i].num == sig) {
			snprintf(buf, size, "%s", names[i].name);
			return buf;
		}
	}
#ifdef SIGRTMIN
	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
		int lo = SIGRTMIN, hi = SIGRTMAX;
		if (sig == lo)
			snprintf(buf, size, "RTMIN");
		else if (sig == hi)
			snprintf(buf, size, "RTMAX");
		else if (sig <= lo + (hi - lo) / 2)
			snprintf(buf, size, "RTMIN+%d", sig - lo);
		else
			snprintf(buf, size, "RTMAX-%d", hi - sig);
		return buf;
	}
#endif
	snprintf(buf, size, "%d", sig);
	return buf;
}

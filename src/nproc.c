#include "nproc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "longopt.h"
#include "msg.h"
#include "os/os.h"
#include "quote.h"

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Decimal digits at s, clamped at ULONG_MAX; *end just past them.  False if none. */
static bool decimal(const char *s, unsigned long *value, const char **end)
{
	if (*s < '0' || *s > '9')
		return false;
	unsigned long v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned long d = (unsigned long)(*s - '0');
		v = v > (ULONG_MAX - d) / 10 ? ULONG_MAX : v * 10 + d;
	}
	*value = v;
	*end = s;
	return true;
}

unsigned long omp_parse(const char *s)
{
	if (!s)
		return 0;
	while (is_space(*s))
		s++;
	unsigned long v;
	if (!decimal(s, &v, &s))
		return 0;
	while (is_space(*s))
		s++;
	return *s == '\0' || *s == ',' ? v : 0;
}

bool ignore_parse(const char *s, unsigned long *n)
{
	while (is_space(*s))
		s++;
	if (*s == '+')
		s++;
	return decimal(s, n, &s) && *s == '\0';
}

static unsigned long min_of(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

unsigned long nproc_count(bool all, const char *omp_threads, const char *omp_limit,
	const struct ncpu_probes *probes)
{
	unsigned long limit = ULONG_MAX;
	if (!all) {
		unsigned long threads = omp_parse(omp_threads), cap = omp_parse(omp_limit);
		if (cap == 0)
			cap = ULONG_MAX;
		if (threads)
			return min_of(threads, cap); /* may exceed the processors: OpenMP's choice */
		limit = cap;
		if (limit > 1)
			limit = min_of(limit, probes->quota());
	}
	if (limit > 1) {
		unsigned long n = all ? probes->installed() : probes->available();
		limit = min_of(limit, n ? n : 1);
	}
	return limit ? limit : 1;
}

static int usage(void)
{
	char text[2048];
	bool named = strcmp(progname, "nproc") == 0;
	snprintf(text, sizeof text,
		"Usage: %s%s [--all] [--ignore=N]\n"
		"Print how many processors this process can use: those online, narrowed by its\n"
		"CPU affinity and by any cgroup CPU quota (v1 or v2, rounded to nearest).\n"
		"OMP_NUM_THREADS, when set, is printed instead, capped by OMP_THREAD_LIMIT.\n"
		"\n"
		"      --all       print how many processors are installed instead\n"
		"      --ignore=N  leave N processors out, but never print less than 1\n"
		"      --help      show this help and exit\n"
		"      --version   show the version and exit\n",
		program_name, named ? "" : " --nproc");
	return msg_stdout(text) ? 0 : 1;
}

static int version(void)
{
	char text[256];
	snprintf(text, sizeof text,
		"%s (runlimit) %s\n"
		"Compatible with nproc (GNU coreutils) %s: its options and output.\n"
		"License: BSD-2-Clause.\n",
		progname, RUNLIMIT_VERSION, RUNLIMIT_GNU_VERSION);
	return msg_stdout(text) ? 0 : 1;
}

static int bad_usage(void)
{
	msg_try_help();
	return 1;
}

enum nproc_opt { OPT_ALL, OPT_IGNORE, OPT_HELP, OPT_VERSION };
static const struct longopt options[] = {
	{"all", false, false}, {"ignore", true, false}, {"help", false, false},
	{"version", false, false},
};

/* The command line into *all and *ignore; -1 to go on, else the exit status. */
static int parse(int argc, char **argv, bool *all, unsigned long *ignore)
{
	const char *operand = NULL;
	bool options_done = false;
	/* Options may follow operands, as with getopt; any operand is an error. */
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		bool next;
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			if (!operand)
				operand = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			options_done = true;
			continue;
		}
		if (arg[1] != '-') {
			msg("invalid option -- '%c'", arg[1]);
			return bad_usage();
		}
		switch (longopt_match(options, sizeof options / sizeof options[0], sizeof options[0],
		                      argc, argv, &i, &value, &next)) {
		case OPT_ALL:
			*all = true;
			break;
		case OPT_IGNORE:
			if (!ignore_parse(value, ignore)) {
				msg("invalid number: %s", quote(value)); /* GNU adds no "Try" line */
				return 1;
			}
			break;
		case OPT_HELP:
			return usage();
		case OPT_VERSION:
			return version();
		default:
			return bad_usage();
		}
	}
	if (operand) {
		msg("extra operand %s", quote(operand));
		return bad_usage();
	}
	return -1;
}

int nproc_main(int argc, char **argv)
{
	bool all = false;
	unsigned long ignore = 0;
	int status = parse(argc, argv, &all, &ignore);
	if (status >= 0)
		return status;
	static const struct ncpu_probes system = {ncpu_available, ncpu_installed, ncpu_quota};
	unsigned long n = nproc_count(all, getenv("OMP_NUM_THREADS"), getenv("OMP_THREAD_LIMIT"),
		&system);
	n = ignore < n ? n - ignore : 1;
	char line[32];
	snprintf(line, sizeof line, "%lu\n", n);
	return msg_stdout(line) ? 0 : 1;
}

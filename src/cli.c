#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "budget_table.h"
#include "duration.h"
#include "longopt.h"
#include "msg.h"
#include "named_dir.h"
#include "quote.h"
#include "signal_names.h"
#include "size.h"

#define DEFAULT_KILL_AFTER ((int64_t)5 * 1000000000)
/* The output grace when the relay is on and none is given: long enough for the last writes
 * of a command's own children to reach the caller, short enough that a leftover holding the
 * pipes costs the caller no more than a second (docs/design.md, The relay, says why). */
#define DEFAULT_OUTPUT_GRACE ((int64_t)1000000000)
#define TAIL_MAX (16ULL * 1024 * 1024)
/* How long the --on-timeout hook may run when no --on-timeout-limit is given. */
#define DEFAULT_HOOK_LIMIT ((int64_t)30 * 1000000000)
/* How often the budgets measure the tree when no --budget-interval is given: a tenth of a
 * second lets a tree grow little past a budget, at a cost docs/performance.md measures (the
 * budgets' sampled measure); and the shortest interval taken, below which the measuring
 * would be most of what runlimit does. */
#define DEFAULT_BUDGET_INTERVAL ((int64_t)100 * 1000000)
#define MIN_BUDGET_INTERVAL ((int64_t)1000000)

enum opt_id { OPT_SIGNAL, OPT_KILL, OPT_PRESERVE, OPT_FOREGROUND, OPT_VERBOSE,
	OPT_KILL_LEFTOVERS, OPT_DIE_WITH_PARENT, OPT_REPORT, OPT_OUTPUT_GRACE, OPT_NO_OUTPUT, OPT_REPORT_TAIL,
	OPT_NAME, OPT_CANCEL, OPT_MARKER_TTL, OPT_LIST, OPT_JSON, OPT_NPROC, OPT_HELP, OPT_VERSION,
	OPT_RESERVE, OPT_NO_INHERIT, OPT_REMAINING, OPT_ON_TIMEOUT, OPT_ON_TIMEOUT_LIMIT,
	OPT_BUDGET, OPT_BUDGET_INTERVAL, OPT_CGROUP };

struct option_def {
	struct longopt lo; /* first: longopt_match reads it */
	char short_name;   /* 0: long only */
	enum opt_id id;
};

static const struct option_def fixed_options[] = {
	/* GNU's order, which its "is ambiguous; possibilities:" list follows; extensions are
	 * not in GNU timeout, and never make one of its abbreviations ambiguous, and are named
	 * in this order at the end of "timeout --help" */
	{{"kill-after", true, false}, 'k', OPT_KILL},
	{{"signal", true, false}, 's', OPT_SIGNAL},
	{{"verbose", false, false}, 'v', OPT_VERBOSE},
	{{"foreground", false, false}, 'f', OPT_FOREGROUND},
	{{"preserve-status", false, false}, 'p', OPT_PRESERVE},
	{{"kill-leftovers", false, true}, 0, OPT_KILL_LEFTOVERS},
	{{"die-with-parent", false, true}, 0, OPT_DIE_WITH_PARENT},
	{{"report", true, true}, 0, OPT_REPORT},
	{{"output-grace", true, true}, 0, OPT_OUTPUT_GRACE},
	{{"no-output-timeout", true, true}, 0, OPT_NO_OUTPUT},
	{{"report-tail", true, true}, 0, OPT_REPORT_TAIL},
	{{"name", true, true}, 0, OPT_NAME},
	{{"cancel", true, true}, 0, OPT_CANCEL},
	{{"marker-ttl", true, true}, 0, OPT_MARKER_TTL},
	{{"list", false, true}, 0, OPT_LIST},
	{{"json", false, true}, 0, OPT_JSON},
	{{"nproc", false, true}, 0, OPT_NPROC},
	{{"reserve", true, true}, 0, OPT_RESERVE},
	{{"no-inherit", false, true}, 0, OPT_NO_INHERIT},
	{{"remaining", false, true}, 0, OPT_REMAINING},
	{{"on-timeout", true, true}, 0, OPT_ON_TIMEOUT},
	{{"on-timeout-limit", true, true}, 0, OPT_ON_TIMEOUT_LIMIT},
	{{"", true, true}, 0, OPT_BUDGET}, /* here, the budgets' options */
	{{"budget-interval", true, true}, 0, OPT_BUDGET_INTERVAL},
	{{"cgroup", true, true}, 0, OPT_CGROUP},
	{{"help", false, false}, 0, OPT_HELP},
	{{"version", false, false}, 0, OPT_VERSION},
};

#define NFIXED (sizeof fixed_options / sizeof fixed_options[0])
#define NOPTIONS (NFIXED - 1 + BUDGET_KINDS - 1)

/* Every option, in the order of fixed_options, the budgets' in their place (options_fill),
 * and of each, the budget it is (budget_table.h's table; BUDGET_NONE: not a budget's). */
static struct option_def options[NOPTIONS];
static enum budget_kind option_budget[NOPTIONS];

static void options_fill(void)
{
	size_t n = 0;
	for (size_t k = 0; k < NFIXED; k++) {
		if (fixed_options[k].id != OPT_BUDGET) {
			options[n++] = fixed_options[k];
			continue;
		}
		for (int b = BUDGET_NONE + 1; b < BUDGET_KINDS; b++) {
			option_budget[n] = (enum budget_kind)b;
			options[n++] = (struct option_def){{budget_rows[b].option, true, true}, 0,
			                                   OPT_BUDGET};
		}
	}
}

/* The last option that took the next word as its argument, and that word: to say so when
 * the words left over are too few. */
static const char *last_arg_option;
static const char *last_arg_value;
static char last_arg_buf[64];

/* --help.  Every option and its description are at least two spaces apart, as GNU's tests
 * that read --help expect.  As "timeout", GNU's options only; the extensions stay accepted. */
static const char usage_lines[] =
	"Usage: %s [OPTION]... DURATION COMMAND [ARG]...\n"
	"  or:  %s --cancel=NAME [-s SIGNAL] [-k DURATION] [--marker-ttl=DURATION]\n"
	"  or:  %s --list [--json]\n"
	"  or:  %s --nproc [--all] [--ignore=N]\n"
	"  or:  %s --remaining [--reserve=DURATION]\n"
	"  or:  %s OPTION\n";
static const char usage_lines_as_timeout[] = /* GNU's, to the letter */
	"Usage: %s [OPTION] DURATION COMMAND [ARG]...\n"
	"  or:  %s [OPTION]\n";
static const char usage_options[] =
	"Start COMMAND, and if it is still running after DURATION, signal it and\n"
	"everything it started, then KILL whatever is left after a grace period.\n"
	"\n"
	"Mandatory arguments to long options are mandatory for short options too.\n"
	"  -s, --signal=SIGNAL        signal to send at the deadline (default TERM):\n"
	"                               a name (TERM, sigint, RTMIN+1) or a number;\n"
	"                               0 sends none\n"
	"  -k, --kill-after=DURATION  also send KILL to whatever is left this long\n"
	"                               after the first signal (default 5s; 0: never)\n"
	"  -p, --preserve-status      exit with COMMAND's own status, even when it\n"
	"                               timed out\n"
	"  -f, --foreground           keep COMMAND in this process group and signal\n"
	"                               only it, not its children (GNU --foreground)\n"
	"  -v, --verbose              report on stderr every signal sent\n";
static const char usage_extensions[] =
	"      --kill-leftovers       when COMMAND exits, also end what it left running\n"
	"      --die-with-parent      when the process that started this one ends, end\n"
	"                               COMMAND as --cancel would\n"
	"      --report=FILE          when done, write what happened to FILE as one\n"
	"                               line of JSON (see the manual)\n"
	"      --output-grace=DURATION  relay COMMAND's stdout and stderr pipes; once it\n"
	"                               exits, return after at most DURATION even if\n"
	"                               what it left running still holds them; after a\n"
	"                               time-out, what the caller has not read by then\n"
	"                               is dropped (default 1s when output is relayed)\n"
	"      --no-output-timeout=DURATION  also time out when COMMAND and what it\n"
	"                               started write nothing to stdout or stderr\n"
	"                               for DURATION (0: no such limit); output to\n"
	"                               a terminal is not seen (it is never relayed)\n"
	"      --on-timeout=COMMAND   when a limit runs out, run COMMAND with sh -c\n"
	"                               before the first signal; it is given\n"
	"                               RUNLIMIT_PID, RUNLIMIT_PGID, RUNLIMIT_PIDS,\n"
	"                               RUNLIMIT_REASON (and RUNLIMIT_NAME)\n"
	"      --on-timeout-limit=DURATION  KILL the --on-timeout command and what it\n"
	"                               started after DURATION (default 30s)\n"
	"      --report-tail=SIZE     keep the last SIZE bytes of COMMAND's stderr in\n"
	"                               the --report; SIZE may end in K or k (1024),\n"
	"                               M (1048576), KiB, MiB, kB or MB (1000s);\n"
	"                               at most 16M; none of a terminal\n";
/* Here, each budget's lines (budget_table.h's table). */
static const char usage_after_budgets[] =
	"      --budget-interval=DURATION  how often the tree is measured for these\n"
	"                               budgets (default 0.1s, at least 1ms)\n"
	"      --cgroup=WHEN          enforce the budgets by a cgroup of the run's own:\n"
	"                               auto (where one can be made, the default), no,\n"
	"                               or required (fail where one cannot)\n"
	"      --name=NAME            register the run as NAME, for --cancel and --list\n"
	"      --cancel=NAME          end the run named NAME as a TERM would (the -s\n"
	"                               signal, then KILL after the -k grace), and\n"
	"                               wait until it has: 0; if none is running,\n"
	"                               1 (a marker is left for one that starts)\n"
	"                               or 2 (none is); 3 if it does not answer\n"
	"      --marker-ttl=DURATION  with --cancel: how long its marker stands\n"
	"                               (default 60s; 0: leave none)\n"
	"      --list                 show the named runs: NAME, pid, elapsed, command\n"
	"      --json                 with --list: one JSON object per run, per line\n"
	"      --nproc                print the processors usable (see --nproc --help)\n"
	"      --reserve=DURATION     time out this long before RUNLIMIT_DEADLINE, the\n"
	"                               deadline an outer runlimit passed down, if\n"
	"                               that comes first (default: the -k grace, the\n"
	"                               output grace and 1s)\n"
	"      --no-inherit           let RUNLIMIT_DEADLINE not shorten the limit\n"
	"      --remaining            print the seconds left before RUNLIMIT_DEADLINE,\n"
	"                               less the --reserve (default 0); 1 if none\n";
static const char usage_tail[] =
	"      --help                 display this help and exit\n"
	"      --version              output version information and exit\n"
	"\n"
	"DURATION is a number with an optional suffix: s (seconds, the default),\n"
	"m, h or d.  0 means no time limit.  The signals this program receives are\n"
	"passed on to COMMAND.\n"
	"\n"
	"Exit status:\n"
	"  124  COMMAND timed out (and --preserve-status was not given), also when\n"
	"         the default grace period's KILL ended it\n"
	"  125  this program itself failed, or bad usage\n"
	"  126  COMMAND was found but could not be run\n"
	"  127  COMMAND was not found\n"
	"  137  COMMAND timed out and was ended by KILL, with -k or -s KILL given\n"
	"  -    otherwise COMMAND's own status (128+N if signal N ended it)\n";
/* As "timeout", the extensions are named after the help, from the table of options, in
 * lines of at most USAGE_WIDTH. */
#define USAGE_WIDTH 76

/* Print the words of text, each after a blank, starting a new line where one would reach
 * past USAGE_WIDTH; *col is the current line's length. */
static void put_words(const char *text, size_t *col)
{
	for (const char *p = text + strspn(text, " "); *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");
		if (*col > 0 && *col + 1 + n <= USAGE_WIDTH) {
			putchar(' ');
			*col += 1 + n;
		} else {
			if (*col > 0)
				putchar('\n');
			*col = n;
		}
		fwrite(p, 1, n, stdout);
		p += n;
	}
}

/* Printed a piece at a time; msg_stdout, last, says whether all of it was written. */
static enum cli_result usage(void)
{
	const char *p = program_name;
	bool as_timeout = strcmp(progname, "timeout") == 0;
	if (as_timeout)
		printf(usage_lines_as_timeout, p, p);
	else
		printf(usage_lines, p, p, p, p, p, p);
	fputs(usage_options, stdout);
	if (!as_timeout) {
		fputs(usage_extensions, stdout);
		for (int b = BUDGET_NONE + 1; b < BUDGET_KINDS; b++)
			fputs(budget_rows[b].help, stdout);
		fputs(usage_after_budgets, stdout);
	}
	fputs(usage_tail, stdout);
	if (as_timeout) {
		size_t col = 0, last = NOPTIONS;
		const char *open = "(";
		putchar('\n');
		put_words("runlimit's extensions", &col);
		while (!options[last - 1].lo.extension)
			last--;
		for (size_t k = 0; k < last; k++) {
			char word[64];
			if (!options[k].lo.extension)
				continue;
			snprintf(word, sizeof word, "%s--%s%c", open, options[k].lo.name,
			         k + 1 < last ? ',' : ')');
			put_words(word, &col);
			open = "";
		}
		put_words("work here too: see 'runlimit --help'.", &col);
	}
	return msg_stdout(as_timeout ? "\n" : "") ? CLI_EXIT_OK : CLI_FAILED;
}

static enum cli_result version(void)
{
	char text[512];
	snprintf(text, sizeof text,
		"%s (runlimit) %s\n"
		"Compatible with timeout (GNU coreutils) %s: its options, messages and exit "
		"statuses.\n"
		"A drop-in for GNU timeout that contains the whole process tree.\n"
		"License: BSD-2-Clause.\n",
		progname, RUNLIMIT_VERSION, RUNLIMIT_GNU_VERSION);
	return msg_stdout(text) ? CLI_EXIT_OK : CLI_FAILED;
}

static enum cli_result bad_usage(void)
{
	msg_try_help();
	return CLI_USAGE;
}

/* A duration given to an option; false after saying it is invalid. */
static bool interval(const char *arg, int64_t *ns)
{
	if (duration_parse(arg, ns))
		return true;
	msg("invalid time interval %s", quote(arg));
	return false;
}

/* "4096", "64K", "1M": a size in bytes, with GNU's suffixes as head -c and sort -S read
 * them, as far as 16M goes: k or K 1024 and m or M 1048576, the same with "iB" after them
 * (KiB, MiB), and in thousands with "B" (kB, KB 1000; MB 1000000). */
static bool tail_size(const char *arg, size_t *bytes)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*arg))
		return false;
	unsigned long long n = strtoull(arg, &end, 10);
	unsigned long long unit = 1;
	int power = *end == 'K' || *end == 'k' ? 1 : *end == 'M' || *end == 'm' ? 2 : 0;
	if (power > 0) {
		end++;
		unsigned long long base = 1024;
		if (strcmp(end, "B") == 0) {
			base = 1000;
			end++;
		} else if (strcmp(end, "iB") == 0) {
			end += 2;
		}
		unit = power == 1 ? base : base * base;
	}
	if (errno || *end || n > TAIL_MAX / unit)
		return false;
	*bytes = (size_t)(n * unit);
	return true;
}

/* A whole number, at least 1 (--max-procs). */
static bool count_value(const char *arg, long *n)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*arg))
		return false;
	long v = strtol(arg, &end, 10);
	if (errno || *end || v < 1)
		return false;
	*n = v;
	return true;
}

/* A budget's value, read in its row's unit; false after saying why it is not one. */
static bool budget_value(const struct budget_row *row, const char *arg, int64_t *value)
{
	static const char *const must[] = {
		[BUDGET_BYTES] = "a number of bytes above 0, with K, M, G or T after it",
		[BUDGET_COUNT] = "a whole number, at least 1",
		[BUDGET_NS] = "more than 0",
	};
	uint64_t bytes;
	long n;
	bool ok = false;
	switch (row->unit) {
	case BUDGET_BYTES:
		if ((ok = size_parse(arg, &bytes)))
			*value = (int64_t)bytes;
		break;
	case BUDGET_COUNT:
		if ((ok = count_value(arg, &n)))
			*value = n;
		break;
	case BUDGET_NS:
		if (!interval(arg, value))
			return false;
		ok = *value > 0;
		break;
	}
	if (!ok)
		msg("invalid %s %s (%s)", row->value_name, quote(arg), must[row->unit]);
	return ok;
}

/* A budget's option, --budget-interval, --cgroup. */
static enum cli_result budget_option(struct config *cfg, const struct option_def *o,
                                     const char *arg)
{
	switch (o->id) {
	case OPT_BUDGET: {
		enum budget_kind kind = option_budget[o - options];
		if (budget_value(&budget_rows[kind], arg, &cfg->budget[kind]))
			return CLI_RUN;
		break;
	}
	case OPT_BUDGET_INTERVAL:
		if (!interval(arg, &cfg->budget_interval))
			break;
		if (cfg->budget_interval >= MIN_BUDGET_INTERVAL)
			return CLI_RUN;
		msg("invalid budget interval %s (at least 1ms)", quote(arg));
		break;
	default: /* OPT_CGROUP */
		if (strcmp(arg, "auto") == 0)
			cfg->cgroup = CGROUP_AUTO;
		else if (strcmp(arg, "no") == 0)
			cfg->cgroup = CGROUP_NO;
		else if (strcmp(arg, "required") == 0)
			cfg->cgroup = CGROUP_REQUIRED;
		else {
			msg("invalid cgroup use %s (auto, no or required)", quote(arg));
			break;
		}
		return CLI_RUN;
	}
	return bad_usage();
}

/* --name, --cancel: a run's name into *name (for --cancel, UID:NAME too: --list shows another
 * user's runs so to root). */
static enum cli_result run_name(const char *arg, const char **name, bool qualified_ok)
{
	uid_t uid;
	const char *plain;
	if (!names_valid(arg) && !(qualified_ok && names_qualified(arg, &uid, &plain))) {
		msg("invalid run name %s (1 to %d of A-Z a-z 0-9 . _ -, not starting with .)",
		    quote(arg), NAME_MAX_LEN);
		return bad_usage();
	}
	*name = arg;
	return CLI_RUN;
}

/* -s, -k: what the limit sends. */
static enum cli_result signal_option(struct config *cfg, enum opt_id id, const char *arg)
{
	if (id == OPT_SIGNAL) {
		cfg->signal = sig_parse(arg);
		if (cfg->signal < 0) {
			msg("%s: invalid signal", quote(arg));
			return bad_usage();
		}
		cfg->signal_given = true;
		return CLI_RUN;
	}
	if (!interval(arg, &cfg->kill_after))
		return bad_usage();
	cfg->kill_after_given = true;
	return CLI_RUN;
}

/* The relay's options, and the report's. */
static enum cli_result output_option(struct config *cfg, enum opt_id id, const char *arg)
{
	switch (id) {
	case OPT_OUTPUT_GRACE:
		if (!interval(arg, &cfg->output_grace))
			return bad_usage();
		cfg->relay = true;
		cfg->output_grace_given = true;
		break;
	case OPT_NO_OUTPUT:
		if (!interval(arg, &cfg->silence))
			return bad_usage();
		cfg->silence_arg = arg;
		cfg->relay = cfg->relay || cfg->silence > 0;
		break;
	case OPT_REPORT_TAIL:
		if (!tail_size(arg, &cfg->report_tail)) {
			msg("invalid tail size %s (a number of bytes, with K, M, KiB, MiB, kB or MB "
			    "after it, at most 16M)", quote(arg));
			return bad_usage();
		}
		cfg->relay = cfg->relay || cfg->report_tail > 0;
		break;
	default: /* OPT_REPORT */
		if (!*arg) {
			msg("invalid report file %s", quote(arg));
			return bad_usage();
		}
		cfg->report = arg;
		break;
	}
	return CLI_RUN;
}

/* Named runs' options. */
static enum cli_result named_option(struct config *cfg, enum opt_id id, const char *arg)
{
	switch (id) {
	case OPT_NAME: return run_name(arg, &cfg->name, false);
	case OPT_CANCEL: return run_name(arg, &cfg->cancel, true);
	case OPT_MARKER_TTL:
		if (!interval(arg, &cfg->marker_ttl))
			return bad_usage();
		cfg->marker_ttl_given = true;
		break;
	case OPT_LIST: cfg->list = true; break;
	default: /* OPT_JSON */ cfg->json = true; break;
	}
	return CLI_RUN;
}

/* Apply one option.  Returns CLI_RUN to go on. */
static enum cli_result apply(struct config *cfg, const struct option_def *o, const char *arg)
{
	switch (o->id) {
	case OPT_SIGNAL:
	case OPT_KILL: return signal_option(cfg, o->id, arg);
	case OPT_PRESERVE: cfg->preserve_status = true; break;
	case OPT_FOREGROUND: cfg->foreground = true; break;
	case OPT_VERBOSE: cfg->verbose = true; break;
	case OPT_KILL_LEFTOVERS: cfg->kill_leftovers = true; break;
	case OPT_DIE_WITH_PARENT: cfg->die_with_parent = true; break;
	case OPT_OUTPUT_GRACE:
	case OPT_NO_OUTPUT:
	case OPT_REPORT_TAIL:
	case OPT_REPORT: return output_option(cfg, o->id, arg);
	case OPT_NAME:
	case OPT_CANCEL:
	case OPT_MARKER_TTL:
	case OPT_LIST:
	case OPT_JSON: return named_option(cfg, o->id, arg);
	case OPT_ON_TIMEOUT: cfg->on_timeout = arg; break;
	case OPT_ON_TIMEOUT_LIMIT:
		if (!interval(arg, &cfg->on_timeout_limit))
			return bad_usage();
		break;
	case OPT_BUDGET:
	case OPT_BUDGET_INTERVAL:
	case OPT_CGROUP: return budget_option(cfg, o, arg);
	case OPT_NPROC: return CLI_NPROC;
	case OPT_RESERVE:
		if (!interval(arg, &cfg->reserve))
			return bad_usage();
		cfg->reserve_given = true;
		break;
	case OPT_NO_INHERIT: cfg->no_inherit = true; break;
	case OPT_REMAINING: cfg->remaining = true; break;
	case OPT_HELP: return usage();
	case OPT_VERSION: return version();
	}
	return CLI_RUN;
}

/* --marker-ttl without --cancel, --json without --list: said, and true. */
static bool misplaced(const struct config *cfg)
{
	if (cfg->marker_ttl_given && !cfg->cancel)
		msg("option '--marker-ttl' is for '--cancel'");
	else if (cfg->json && !cfg->list)
		msg("option '--json' is for '--list'");
	else
		return false;
	return true;
}

/* --cancel or --list: no operands, and neither with the other or with --name. */
static enum cli_result control_mode(const struct config *cfg, int left, char **words)
{
	if (cfg->cancel && cfg->list) {
		msg("options '--cancel' and '--list' cannot be used together");
		return bad_usage();
	}
	if (cfg->name) {
		msg("option '--name' is for a run, not for %s", cfg->list ? "'--list'" : "'--cancel'");
		return bad_usage();
	}
	if (misplaced(cfg))
		return bad_usage();
	if (left > 0) {
		msg("extra operand %s", quote(words[0]));
		return bad_usage();
	}
	return cfg->cancel ? CLI_CANCEL : CLI_LIST;
}

/* "--name[=value]": exact match first, then a unique prefix. */
static enum cli_result parse_long(struct config *cfg, int argc, char **argv, int *i)
{
	const char *value;
	bool next;
	int k = longopt_match(options, NOPTIONS, sizeof options[0], argc, argv, i, &value, &next);
	if (k < 0)
		return bad_usage();
	if (next) {
		snprintf(last_arg_buf, sizeof last_arg_buf, "--%s", options[k].lo.name);
		last_arg_option = last_arg_buf;
		last_arg_value = value;
	}
	return apply(cfg, &options[k], value);
}

/* "-vk1", "-s", "INT": bundled flags, an argument attached or in the next word. */
static enum cli_result parse_short(struct config *cfg, char *arg, int argc, char **argv, int *i)
{
	for (char *p = arg + 1; *p; p++) {
		const struct option_def *found = NULL;
		for (size_t k = 0; k < NOPTIONS; k++)
			if (options[k].short_name == *p)
				found = &options[k];
		if (!found) {
			msg("invalid option -- '%c'", *p);
			return bad_usage();
		}
		if (!found->lo.has_arg) {
			enum cli_result r = apply(cfg, found, "");
			if (r != CLI_RUN)
				return r;
			continue;
		}
		const char *value;
		if (p[1]) {
			value = p + 1;
		} else if (*i + 1 < argc) {
			value = argv[++*i];
			snprintf(last_arg_buf, sizeof last_arg_buf, "-%c", *p);
			last_arg_option = last_arg_buf;
			last_arg_value = value;
		} else {
			msg("option requires an argument -- '%c'", *p);
			return bad_usage();
		}
		return apply(cfg, found, value);
	}
	return CLI_RUN;
}

/* The options, up to the first operand (*i: where it is); CLI_RUN to go on. */
static enum cli_result parse_options(struct config *cfg, int argc, char **argv, int *i)
{
	/* Options stop at the first operand: in "runlimit 5 ls -l", -l is ls's. */
	for (; *i < argc; ++*i) {
		char *arg = argv[*i];
		if (strcmp(arg, "--") == 0) {
			++*i;
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0')
			break;
		enum cli_result r = arg[1] == '-' ? parse_long(cfg, argc, argv, i)
		                                  : parse_short(cfg, arg, argc, argv, i);
		if (r == CLI_NPROC && *i != 1) {
			/* Options before it would be silently dropped: say so instead. */
			msg("option '--nproc' must come first");
			return bad_usage();
		}
		if (r != CLI_RUN)
			return r;
	}
	return CLI_RUN;
}

/* A run's operands, DURATION COMMAND..., from argv[i], and the options only a run takes. */
static enum cli_result run_operands(struct config *cfg, int argc, char **argv, int i)
{
	if (argc - i < 2) {
		/* GNU says only "Try ..."; runlimit says what is missing, except as "timeout", and
		 * what it took the words it had for ("runlimit -vs 1 true": -s took "1"). */
		if (strcmp(progname, "timeout") != 0) {
			if (argc - i == 0)
				msg("missing operand");
			else if (last_arg_option)
				msg("missing command: %s was taken as the DURATION, and %s as the "
				    "argument of %s", quote(argv[i]), quote(last_arg_value), last_arg_option);
			else
				msg("missing command after the DURATION %s", quote(argv[i]));
		}
		return bad_usage();
	}
	if (!interval(argv[i], &cfg->duration))
		return bad_usage();
	cfg->command = argv + i + 1;
	if (misplaced(cfg))
		return bad_usage();
	if (cfg->report_tail && !cfg->report) {
		msg("option '--report-tail' needs --report=FILE");
		return bad_usage();
	}
	if (cfg->relay && !cfg->output_grace_given)
		cfg->output_grace = DEFAULT_OUTPUT_GRACE;
	return CLI_RUN;
}

enum cli_result cli_parse(int argc, char **argv, struct config *cfg)
{
	*cfg = (struct config){.signal = SIGTERM, .kill_after = DEFAULT_KILL_AFTER,
	                       .on_timeout_limit = DEFAULT_HOOK_LIMIT,
	                       .budget_interval = DEFAULT_BUDGET_INTERVAL};
	options_fill();
	int i = 1;
	enum cli_result r = parse_options(cfg, argc, argv, &i);
	if (r != CLI_RUN)
		return r;
	if (cfg->remaining && (cfg->cancel || cfg->list || cfg->json || cfg->name || cfg->no_inherit)) {
		msg("option '--remaining' is not for '--cancel', '--list', '--json', '--name' or "
		    "'--no-inherit'");
		return bad_usage();
	}
	if (cfg->remaining && argc > i) {
		msg("extra operand %s", quote(argv[i]));
		return bad_usage();
	}
	if (cfg->remaining)
		return CLI_REMAINING;
	if (cfg->cancel || cfg->list)
		return control_mode(cfg, argc - i, argv + i);
	return run_operands(cfg, argc, argv, i);
}

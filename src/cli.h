/* Command line -> struct config, with GNU timeout's options, grammar and messages. */
#ifndef RUNLIMIT_CLI_H
#define RUNLIMIT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget_table.h"

#define RUNLIMIT_VERSION "0.2.0"
/* The GNU coreutils release whose timeout and nproc runlimit follows (options, messages,
 * statuses): --version names it, for scripts that check `timeout --version` for
 * "GNU coreutils" before they rely on -k, --foreground or --preserve-status. */
#define RUNLIMIT_GNU_VERSION "9.11"

/* --cgroup=auto|no|required: the budgets enforced by a cgroup of the run's own where one can
 * be made (auto), never (no), or the run refused where it cannot (required). */
enum cgroup_mode { CGROUP_AUTO, CGROUP_NO, CGROUP_REQUIRED };

struct config {
	int64_t duration;   /* ns until the deadline; 0: no time limit */
	int64_t kill_after; /* ns of grace before KILL; 0: never escalate */
	bool kill_after_given; /* -k was on the command line, not the default */
	int signal;         /* sent at the deadline */
	bool signal_given;  /* -s was on the command line */
	bool preserve_status;
	bool foreground;
	bool verbose;
	bool kill_leftovers;
	bool die_with_parent; /* --die-with-parent: the caller's end ends the run (parent.h) */
	const char *report; /* --report=FILE: where the run report goes (NULL: none) */
	bool relay;         /* own the command's output (relay.h): --output-grace, ... */
	int64_t output_grace; /* ns the relay goes on after the command's exit */
	bool output_grace_given; /* --output-grace was on the command line, not the default */
	int64_t silence;    /* --no-output-timeout: ns without output that time out; 0: none */
	const char *silence_arg; /* as given, for -v */
	size_t report_tail; /* --report-tail: bytes of stderr's end the report keeps; 0: none */
	const char *name;   /* --name: the run registers under it (named_control.h); NULL: not */
	const char *cancel; /* --cancel: the named run to end (named_client.h): NAME or UID:NAME */
	int64_t marker_ttl; /* --marker-ttl: how long a cancel's marker stands (ns; 0: none) */
	bool marker_ttl_given;
	bool list;          /* --list */
	bool json;          /* --json: --list's objects, one a line */
	int64_t reserve;    /* --reserve: ns kept before an inherited deadline (nested.h) */
	bool reserve_given;
	bool no_inherit;    /* --no-inherit: RUNLIMIT_DEADLINE does not shorten the limit */
	bool remaining;     /* --remaining */
	const char *on_timeout;   /* --on-timeout: run with /bin/sh -c when a limit runs out */
	int64_t on_timeout_limit; /* --on-timeout-limit: ns the hook may take (default 30 s) */
	int64_t budget[BUDGET_KINDS]; /* each budget's limit, in its row's unit (budget_table.h;
	                                 0: none) */
	int64_t budget_interval; /* --budget-interval: ns between two measures of the tree */
	enum cgroup_mode cgroup; /* --cgroup: whether the budgets use a cgroup of the run's own */
	char **command;     /* NULL-terminated argv of COMMAND */
	int64_t started;    /* clock_now() when runlimit started: the deadline counts from it */
	int64_t started_wall; /* clock_wall() then: the time the report and --list tell */
};

enum cli_result {
	CLI_RUN,     /* cfg is filled in: supervise the command */
	CLI_EXIT_OK, /* --help or --version was printed */
	CLI_USAGE,   /* bad usage, already reported */
	CLI_FAILED,  /* --help or --version could not be written */
	CLI_NPROC,   /* --nproc came first: the rest is nproc's command line */
	CLI_CANCEL,  /* --cancel=NAME: end that run (cfg->cancel, with -s and -k) */
	CLI_LIST,    /* --list: show the live named runs */
	CLI_REMAINING, /* --remaining: print the time left under RUNLIMIT_DEADLINE */
};

enum cli_result cli_parse(int argc, char **argv, struct config *cfg);

/* Exit status of runlimit itself failing, and of bad usage. */
#define EXIT_RUNLIMIT_FAILED 125

#endif

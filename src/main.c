/* runlimit: run a command with a time limit.  Called as "timeout", it is GNU timeout;
 * called as "nproc" (or with --nproc first), it is GNU nproc. */
#include <string.h>

#include "cli.h"
#include "msg.h"
#include "named_client.h"
#include "nested.h"
#include "nproc.h"
#include "os/os.h"
#include "stdfds.h"
#include "supervise.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
	/* The time limit counts from here: what runlimit does to set itself up is part of it. */
	int64_t started = clock_now(), started_wall = clock_wall();
	const char *name = argc > 0 ? base_name(argv[0]) : "";
	if (strcmp(name, "timeout") == 0)
		progname = "timeout";
	program_name = argc > 0 && argv[0][0] ? argv[0] : progname;
	if (strcmp(name, "nproc") == 0) {
		progname = "nproc";
		program_name = argc > 0 && argv[0][0] ? argv[0] : progname;
		return nproc_main(argc, argv);
	}

	struct config cfg;
	enum cli_result parsed = cli_parse(argc, argv, &cfg);
	if (parsed != CLI_EXIT_OK && parsed != CLI_NPROC && parsed != CLI_REMAINING)
		stdfds_hold(); /* before anything is opened (--help, --version have written) */
	switch (parsed) {
	case CLI_EXIT_OK:
		return 0;
	case CLI_FAILED:
		return EXIT_RUNLIMIT_FAILED;
	case CLI_USAGE:
		if (cfg.report) {
			/* Once --report has been read, even bad usage gets its report. */
			cfg.started = started;
			cfg.started_wall = started_wall;
			return supervise_refused(&cfg, "bad usage");
		}
		return EXIT_RUNLIMIT_FAILED;
	case CLI_NPROC:
		help_mode = " --nproc";
		return nproc_main(argc - 1, argv + 1);
	case CLI_CANCEL:
		return cancel_main(&cfg);
	case CLI_LIST:
		return list_main(cfg.json);
	case CLI_REMAINING:
		return remaining_main(&cfg);
	case CLI_RUN:
		break;
	}
	cfg.started = started;
	cfg.started_wall = started_wall;
	return supervise(&cfg);
}

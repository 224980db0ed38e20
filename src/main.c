/* runlimit: run a command with a time limit.  Called as "timeout", it is GNU timeout. */
#include <string.h>

#include "cli.h"
#include "msg.h"
#include "supervise.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
	if (argc > 0 && strcmp(base_name(argv[0]), "timeout") == 0)
		progname = "timeout";

	struct config cfg;
	switch (cli_parse(argc, argv, &cfg)) {
	case CLI_EXIT_OK:
		return 0;
	case CLI_USAGE:
		return EXIT_RUNLIMIT_FAILED;
	case CLI_RUN:
		break;
	}
	return supervise(&cfg);
}

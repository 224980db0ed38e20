/* The /proc/PID/stat parser (linux_stat.h): a command name with spaces and parentheses,
 * the fields taken, a kernel whose lines end before the argument fields, and what is not a
 * stat line. */
#include <string.h>

#include "os/linux_stat.h"
#include "../unit.h"

void test_stat_parse(void)
{
	struct stat_fields f;
	/* Fields 1-52 as a 6.1 kernel writes them; the name is "a) (b c" with its spaces. */
	const char *line =
	    "4121 (a) (b c) S 4100 4099 4000 34816 4099 4194304 120 0 0 0 7 3 0 0 20 0 2 0 "
	    "880312 12345678 1234 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 "
	    "94550767730688 94550767731000 94550767800000 140731006691945 140731006691994 "
	    "140731006691994 140731006693000 0\n";
	check(stat_parse(line, &f), "stat: a 52-field line is parsed", line);
	check(f.state == 'S' && f.ppid == 4100 && f.pgrp == 4099 && f.session == 4000,
	      "stat: state, parent, group and session after the last ')'", line);
	check(f.utime == 7 && f.stime == 3 && f.threads == 2 && f.start == 880312 && f.rss == 1234,
	      "stat: times, threads, start and rss", line);
	check(f.arg_start == 140731006691945ULL && f.arg_end == 140731006691994ULL,
	      "stat: where the arguments lie (fields 48 and 49)", line);
	/* The ended children's times (fields 16 and 17), for the budgets' CPU time. */
	const char *reaped = "5 (make) S 1 5 5 0 -1 4194560 1 0 0 0 40 9 1100 250 20 0 1 0 99 100 "
	                     "300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
	check(stat_parse(reaped, &f) && f.utime == 40 && f.stime == 9 && f.cutime == 1100 &&
	          f.cstime == 250 && f.threads == 1 && f.rss == 300,
	      "stat: the collected children's times (cutime, cstime)", reaped);
	/* A kernel before 3.5 ends at field 44: no argument fields, 0 (not known). */
	const char *old = "7 (sh) R 1 7 7 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 99 100 -3 "
	                  "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
	check(stat_parse(old, &f) && f.arg_start == 0 && f.arg_end == 0 && f.start == 99 &&
	          f.rss == -3 && f.state == 'R',
	      "stat: an older kernel's line has no argument fields", old);
	/* A zombie's memory fields are 0. */
	const char *zombie = "9 (x) Z 1 9 9 0 -1 4227084 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0 0 0 0 "
	                     "0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	check(stat_parse(zombie, &f) && f.state == 'Z' && f.arg_start == 0,
	      "stat: a zombie has no arguments' place", zombie);
	check(!stat_parse("", &f), "stat: empty is not a stat line", NULL);
	check(!stat_parse("12 (cut", &f), "stat: no ')' is not a stat line", NULL);
	check(!stat_parse("12 (x) S 1 2", &f), "stat: a line cut before the rss is refused",
	      NULL);
	check(!stat_parse("12 (x)", &f), "stat: nothing after the name is refused", NULL);
}

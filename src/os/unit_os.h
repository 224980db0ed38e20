/* The platform's own unit tests (os.h, os_unit_tests): one function per private part tested
 * (src/os/unit_cpufiles.c, unit_pidmap.c, unit_stat.c), and the unit tests' assertion, which
 * os_unit_tests was given.  Linked into tests/unit/run-unit only, never into runlimit. */
#ifndef RUNLIMIT_OS_UNIT_OS_H
#define RUNLIMIT_OS_UNIT_OS_H

#include "os.h"

/* The assertion os_unit_tests was given: count a check; on failure print what and detail. */
extern os_check_fn *os_unit_check;
static inline void check(int ok, const char *what, const char *detail)
{
	os_unit_check(ok, what, detail);
}

void test_cpufiles(void);   /* unit_cpufiles.c */
void test_pidmap(void);     /* unit_pidmap.c */
void test_stat_parse(void); /* unit_stat.c */

#endif

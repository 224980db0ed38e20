/* The platform's own unit tests, run by tests/unit/run-unit through os.h (os_unit_tests):
 * the private parts of src/os/ are tested here, beside their headers, which nothing outside
 * src/os/ includes. */
#include "unit_os.h"

os_check_fn *os_unit_check;

void os_unit_tests(os_check_fn *check_fn)
{
	os_unit_check = check_fn;
	test_pidmap();
	test_stat_parse();
	test_cpufiles();
}

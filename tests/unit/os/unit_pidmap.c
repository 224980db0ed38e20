/* The pid map (pidmap.h) of the tree walks: look-ups, replacement, growth, and pids that
 * collide in the table. */
#include <stdio.h>

#include "os/pidmap.h"
#include "../unit.h"

void test_pidmap(void)
{
	struct pidmap m = {NULL, 0, 0};
	check(pidmap_get(&m, 1) == -1, "pidmap: empty map has nothing", NULL);
	check(!pidmap_put(&m, 0, 5), "pidmap: pid 0 is refused", NULL);
	check(!pidmap_put(&m, -3, 5), "pidmap: a negative pid is refused", NULL);
	/* Enough to grow the table several times; pids 1..N and multiples of 4096, which
	 * would share buckets under a naive modulo. */
	int ok = 1;
	for (long k = 1; k <= 5000; k++) {
		ok &= pidmap_put(&m, (pid_t)k, k * 10);
		ok &= pidmap_put(&m, (pid_t)(1000000 + k * 4096), -k);
	}
	check(ok, "pidmap: 10,000 puts", NULL);
	check(m.n == 10000, "pidmap: counts each pid once", NULL);
	int found = 1;
	for (long k = 1; k <= 5000; k++) {
		found &= pidmap_get(&m, (pid_t)k) == k * 10;
		found &= pidmap_get(&m, (pid_t)(1000000 + k * 4096)) == -k;
	}
	check(found, "pidmap: every value found after growth", NULL);
	check(pidmap_get(&m, 5001) == -1, "pidmap: a pid never put is absent", NULL);
	pidmap_put(&m, 77, 1234);
	check(pidmap_get(&m, 77) == 1234 && m.n == 10000, "pidmap: put replaces", NULL);
	pidmap_free(&m);
	check(m.cap == 0 && pidmap_get(&m, 77) == -1, "pidmap: freed map is empty", NULL);
}

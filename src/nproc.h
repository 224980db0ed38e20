/* The core-count probe: "runlimit --nproc" and the "nproc" name, as GNU nproc 9.8+ (OpenMP
 * variables, affinity, cgroup v2 quota) plus cgroup v1 quotas. */
#ifndef RUNLIMIT_NPROC_H
#define RUNLIMIT_NPROC_H

#include <stdbool.h>

/* An OpenMP thread count ("4", " 4 ", "4,2,1": the first of a nested list); 0 when unset,
 * zero or malformed.  Values past ULONG_MAX clamp to it. */
unsigned long omp_parse(const char *s);

/* The N of --ignore=N: decimal, leading blanks allowed, no sign but '+', nothing after;
 * values past ULONG_MAX clamp to it.  False if malformed. */
bool ignore_parse(const char *s, unsigned long *n);

struct ncpu_probes {
	unsigned long (*available)(void);
	unsigned long (*installed)(void);
	unsigned long (*quota)(void);
};

/* The count to print before --ignore: OMP_NUM_THREADS overrides (capped by OMP_THREAD_LIMIT)
 * unless `all`; otherwise the processors available, narrowed by the quota; never below 1.
 * A probe is called only when its answer can change the result. */
unsigned long nproc_count(bool all, const char *omp_threads, const char *omp_limit,
	const struct ncpu_probes *probes);

/* The nproc command: argv[0] is the program or "--nproc", options follow.  Exit status. */
int nproc_main(int argc, char **argv);

#endif

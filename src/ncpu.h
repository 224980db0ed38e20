/* Processor counts from the operating system: one implementation per OS (ncpu_linux.c,
 * ncpu_darwin.c, ncpu_freebsd.c, ncpu_posix.c).  The policy that combines them, with the
 * OpenMP variables, is in nproc.c. */
#ifndef RUNLIMIT_NCPU_H
#define RUNLIMIT_NCPU_H

/* Processors this process may run on now: those online, narrowed by its affinity mask.
 * 0 if unknown. */
unsigned long ncpu_available(void);

/* Processors installed, online or not, and never fewer than ncpu_available().  0 if unknown. */
unsigned long ncpu_installed(void);

/* The CPU time quota this process runs under, as a processor count (at least 1);
 * ULONG_MAX when none applies. */
unsigned long ncpu_quota(void);

#endif

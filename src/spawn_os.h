/* How the command's process is made, where the OS has something cheaper than fork. */
#ifndef RUNLIMIT_SPAWN_OS_H
#define RUNLIMIT_SPAWN_OS_H

#include <stddef.h>
#include <sys/types.h>

/* Run fn(arg) in a new child that shares runlimit's memory until it execs or exits, with
 * runlimit suspended meanwhile (vfork semantics), on a stack of at least stack_bytes.  fn
 * must end in exec or _exit, and must not rely on anything a fork would have copied.
 * Returns the child's pid, -1 with errno if the system call failed, or 0 where this is not
 * available: then the caller forks. */
pid_t spawn_os_vfork(int (*fn)(void *), void *arg, size_t stack_bytes);

#endif

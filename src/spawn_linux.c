/* Linux: the command's child is cloned with CLONE_VM | CLONE_VFORK, as posix_spawn does.
 * A fork copies runlimit's page tables and write-protects its memory, which (with the guard
 * sharing that memory on another CPU) also costs a TLB shoot-down; this costs neither, about
 * 0.1 ms a run on a 2-CPU virtual machine.  The sanitizers cannot follow a child that shares
 * their shadow memory: those builds fork. */
#define _GNU_SOURCE
#include "spawn_os.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define SPAWN_CLONE 1
#endif

pid_t spawn_os_vfork(int (*fn)(void *), void *arg, size_t stack_bytes)
{
#ifdef SPAWN_CLONE
	/* Enough for every command line but huge ones; bss, so only the pages used are paid. */
	static _Alignas(16) char stack[64 * 1024];
	char *base = stack;
	size_t size = sizeof stack;
	if (stack_bytes > size) {
		size = stack_bytes;
		base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED)
			return -1;
	}
	/* The child shares runlimit's thread data, errno included: keep runlimit's. */
	int saved = errno;
	pid_t pid = clone(fn, base + size, CLONE_VM | CLONE_VFORK | SIGCHLD, arg);
	int err = errno;
	if (base != stack)
		munmap(base, size);
	errno = pid < 0 ? err : saved;
	return pid;
#else
	(void)fn;
	(void)arg;
	(void)stack_bytes;
	return 0;
#endif
}

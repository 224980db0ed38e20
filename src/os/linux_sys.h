/* Raw system calls, for the children of runlimit's that share its memory (the guard, linux.c;
 * the command's child, linux_child.c): such a child shares runlimit's errno too, which libc's
 * wrappers and its syscall() set on a failure, so these return the result or -errno and
 * leave errno alone.  LINUX_SYS_RAW where the machine's instruction is written here; on
 * other machines sys() is libc's syscall() with errno put back, which is right only in a
 * forked child, the one those builds make. */
#ifndef RUNLIMIT_OS_LINUX_SYS_H
#define RUNLIMIT_OS_LINUX_SYS_H

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#if (defined(__x86_64__) && !defined(__ILP32__)) || defined(__aarch64__)
#define LINUX_SYS_RAW 1
#endif

/* The sanitizers cannot follow a child that shares runlimit's memory: those builds fork. */
#if defined(LINUX_SYS_RAW) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define LINUX_CLONE_SHARED 1
#endif

static inline long sys(long n, long a, long b, long c, long d)
{
#if defined(__x86_64__) && defined(LINUX_SYS_RAW)
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
	                 : "rcx", "r11", "memory");
	return ret;
#elif defined(LINUX_SYS_RAW)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
#else
	int saved = errno;
	long ret = syscall(n, a, b, c, d);
	if (ret < 0)
		ret = -errno;
	errno = saved;
	return ret;
#endif
}

#endif

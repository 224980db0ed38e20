/* Systems where runlimit does not share its memory with the command's child: it forks. */
#include "spawn_os.h"

pid_t spawn_os_vfork(int (*fn)(void *), void *arg, size_t stack_bytes)
{
	(void)fn;
	(void)arg;
	(void)stack_bytes;
	return 0;
}

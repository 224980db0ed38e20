#include "reap.h"

#include <sys/wait.h>

#include "guard.h"

bool reap_children(pid_t command, bool command_only, int *status, int *stopped_by)
{
	int st;
	pid_t pid;
	bool ended = false;
	while ((pid = waitpid(command_only ? command : -1, &st, WNOHANG | WUNTRACED)) > 0) {
		if (pid != command) {
			/* Only an exit or a death is a reaping: a guard stopped with the group
			 * (kill -STOP -PGID) still holds the group's id. */
			if (!WIFSTOPPED(st))
				guard_reaped(pid);
		} else if (WIFSTOPPED(st)) {
			*stopped_by = WSTOPSIG(st);
		} else {
			ended = true;
			*status = st;
		}
	}
	return ended;
}

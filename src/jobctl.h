/* Job control: when the command stops (Ctrl-Z, a read of the terminal from the
 * background), runlimit passes the terminal back and stops itself the same way, so that
 * the calling shell sees a stopped job; while it is stopped, a small timer child keeps the
 * deadline and resumes it. */
#ifndef RUNLIMIT_JOBCTL_H
#define RUNLIMIT_JOBCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The command, in group pgid, stopped with sig; wake is when runlimit next has something
 * to do (CLOCK_NEVER: nothing).  Gives the terminal or stops runlimit as the case asks, and
 * returns true if the group is now to be continued, false to leave it stopped. */
bool job_command_stopped(pid_t pgid, int sig, int64_t wake);

#endif

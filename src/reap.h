/* Collecting runlimit's children: the command's exit or stop, and (as a subreaper) the
 * orphans adopted from its tree, whose statuses do not matter. */
#ifndef RUNLIMIT_REAP_H
#define RUNLIMIT_REAP_H

#include <stdbool.h>
#include <sys/types.h>

/* Collect, without waiting, whatever has ended or stopped; with command_only, the command
 * alone (after the final KILL, the dead rest of the tree is left to init rather than
 * reaped one by one before runlimit may return).  A stop of the command sets *stopped_by.
 * True when the command's end was collected now, its wait status in *status. */
bool reap_children(pid_t command, bool command_only, int *status, int *stopped_by);

#endif

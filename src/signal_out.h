/* Every signal runlimit sends to the command goes through deliver(): to the command, its
 * process group, or its whole tree, with the SIGCONT that lets a stopped process act on it,
 * and told to -v and to the run report alike.  Nothing here decides when: supervise.c does. */
#ifndef RUNLIMIT_SIGNAL_OUT_H
#define RUNLIMIT_SIGNAL_OUT_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli.h"
#include "os/os.h"
#include "run_end.h"

/* How far a signal goes. */
enum reach {
	REACH_GROUP,   /* the command's group only, as the terminal would send it; no -v line */
	REACH_COMMAND, /* the command and its group */
	REACH_TREE,    /* and every descendant found outside the group */
};

/* Send sig to t (os/os.h: the command and its group) as far as reach (with --foreground: to
 * the command alone); cont follows it with SIGCONT.  why is the report's reason (run_end.h),
 * which -v says for a silence and a cancel.  What was sent, and what the walk that sent it
 * found, go into the run's record e. */
void deliver(const struct config *cfg, const struct target *t, struct run_end *e, int sig,
             enum reach reach, bool cont, enum reason why);

/* Once the command has been reaped: is anything of its tree still alive?  Without a process
 * table, the group tells, once the guard has stepped out of it; without the guard, whose
 * group id may then be someone else's, nothing tells: taken as gone. */
bool deliver_leftovers_alive(const struct target *t);

#endif

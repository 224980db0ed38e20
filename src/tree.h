/* The command's process tree: finding and signalling every descendant, not only its
 * process group.  What else runlimit asks of the OS is in os.h.  One file per platform:
 * tree_linux.c (/proc walk, pidfd), tree_freebsd.c (the procctl reaper's kill),
 * tree_darwin.c (libproc walk), tree_posix.c (the group only); tree_walk.c holds the walk
 * that Linux and macOS share. */
#ifndef RUNLIMIT_TREE_H
#define RUNLIMIT_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* In runlimit (pid runlimit), before the fork: note what the tree must never include (on
 * Linux, the children runlimit had before it started). */
void tree_init(pid_t runlimit);

/* In runlimit, right after the command is forked: what can be made ready off the command's
 * way to its exec (Linux: runlimit's children list held open, see tree_linux.c). */
void tree_started(void);

/* Who the tree belongs to.  group is the command's process group (led by the guard, see
 * guard.h), or 0 if the command shares runlimit's group (--foreground). */
struct tree_target {
	pid_t command;
	pid_t group;
	bool reaped; /* the command is gone: its pid may belong to someone else */
};

#define TREE_CONTINUE 1 /* follow sig with SIGCONT, so stopped processes act on it */
#define TREE_FREEZE   2 /* stop everything found, rescan until nothing new, then signal */
#define TREE_SOFT     4 /* a request to end, not the final KILL: a process group made
                           inside the tree by a live process of the tree (a nested runlimit
                           or timeout) is left to that process, which gets the signal */

/* For the run report: a process of the tree, by pid and start time. */
struct tree_id {
	pid_t pid;
	uint64_t start;
};

/* What a walk that signals found, for the run report: every process of the tree it reached,
 * signalled itself or through the leader of a nested group.  Noted by the walk that sends,
 * so that asking for a report never delays a signal by a walk of its own. */
struct tree_seen {
	struct tree_id *ids; /* to be freed */
	size_t n, cap;
	bool unknown;        /* some may be missing: no walk here, or it ran out of memory */
};

/* Send sig to every descendant of the command that can be found, including those that left
 * its process group (the caller signals the group itself).  With seen (not NULL), note
 * there what was found.  Returns -1, except where the walk could not read the whole tree
 * for want of memory or a file descriptor (errno then says which: ENOMEM, EMFILE, ENFILE):
 * after a final KILL (TREE_FREEZE with SIGKILL), which then finishes without allocating
 * or opening anything new, how many processes of the tree were still alive when it gave up
 * (0: none, everything is dead), or TREE_UNVERIFIED if not even that could be looked at;
 * after any other signal, TREE_UNVERIFIED: processes may have been missed. */
long tree_signal(const struct tree_target *t, int sig, int flags, struct tree_seen *seen);
#define TREE_UNVERIFIED (-2)

/* Just before runlimit signals the command, its group and its tree (deliver.h): where an
 * orphan runlimit adopts may be another's (Linux, when runlimit inherited children or is
 * PID 1 of a pid namespace), walk the tree now, before the signal to the command orphans
 * its children, so that they are known as the command's after.  Nothing elsewhere. */
void tree_prepare(const struct tree_target *t);

/* Once the command has been reaped: is any process of its tree still alive?  1 yes, 0 no,
 * TREE_MAYBE if it cannot be told for want of memory or a file descriptor (never taken as
 * "gone": the caller waits for the grace to end), -1 if this system cannot tell (no process
 * table to read): the caller then asks the group. */
int tree_alive(const struct tree_target *t);
#define TREE_MAYBE 2

/* While runlimit waits for the leftovers of a finished command: arrange to be woken when
 * they exit.  True where their exits wake runlimit's wait (Linux and FreeBSD, where it
 * reaps every orphan of the tree; macOS, by watching each pid); false where nothing will,
 * and runlimit must look again now and then. */
bool tree_watch_exits(const struct tree_target *t);

/* The processes of the command's tree alive now (the command too while it is not reaped),
 * into *out (to be freed).  Returns how many, or -1 where this system cannot list them
 * (no process table, or no memory to list them all: the report then says it does not
 * know). */
long tree_list(const struct tree_target *t, struct tree_id **out);

#endif

/* --on-timeout=COMMAND: a command run with /bin/sh -c when a limit runs out, after the
 * snapshot (snapshot.h) and before runlimit's first signal, while the tree is as the limit
 * found it; never for a request to end, never twice in a run.  It runs in a process group
 * of its own, its output goes where runlimit's stderr goes (into a relayed stderr where the
 * system can: relay_stderr_writer), and at --on-timeout-limit it and its group are KILLed.
 * Nothing here waits: the supervisor keeps its one wait, and the hook is a phase of it
 * (supervise.c, HOOKING).  The manual says what the hook is given (--on-timeout). */
#ifndef RUNLIMIT_HOOK_H
#define RUNLIMIT_HOOK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"
#include "os/os.h"

/* Start the hook for the limit why ("deadline", "no-output", ...), once in a run.  Returns
 * its pid (its group's id too), or 0 if it was not started: it ran already, or fork failed
 * (said on stderr; the run goes on without it). */
pid_t hook_start(const struct config *cfg, const struct target *t, const char *why);

/* When the hook's limit runs out (CLOCK_NEVER: no hook runs). */
int64_t hook_deadline(void);

/* Is the hook over, at now?  One that has exited is collected: what it left in its group is
 * KILLed, then it is reaped.  One at its limit is KILLed with its group (and reaped later). */
bool hook_over(int64_t now);

/* End it now, with its group (a request to end came). */
void hook_kill(void);

/* pid was reaped by a wait for any child: if it was the hook, its status is noted.  True if
 * it was. */
bool hook_reaped(pid_t pid, int status);

/* The time runlimit KILLed the hook (at its limit, or for a request), while it is not yet
 * dead (CLOCK_NEVER: it was not KILLed, or it died): the supervisor waits for it as for the
 * tree after a final KILL, the settle, and names it if it outlives that. */
int64_t hook_dying_since(void);

/* The hook's pid while runlimit has not reaped it (0: none): for the target (os.h). */
pid_t hook_pid(void);

/* What the hook did, for the report (on_timeout): the limit's word, when it started and
 * ended (clock_now(); ended with over: 0 if it could not start), its wait status once
 * reaped, and why it was KILLed ("limit", "request"; NULL: it was not). */
struct hook_figures {
	const char *why;
	int64_t started, ended;
	bool over;
	bool have_status;
	int status;
	const char *killed;
};

/* The hook of this run, if it ran (NULL: it did not). */
const struct hook_figures *hook_figures(void);

#endif

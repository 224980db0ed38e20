/* Signal dispositions: which signals runlimit catches, the handler that records their
 * arrival (and only that), and what the command gets back of what runlimit inherited.
 * The caught signals stay blocked except while runlimit waits (clock_wait with
 * disp_waitmask()), so the loop never races with a handler. */
#ifndef RUNLIMIT_SIGNAL_IN_H
#define RUNLIMIT_SIGNAL_IN_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>

#include "cli.h"
#include "start_exec.h"

/* Enough slots for every signal number of every supported system (Linux tops out at 64,
 * MIPS at 128). */
#define DISP_SLOTS 129

/* Catch every signal whose default would end runlimit (honouring inherited ignores, except
 * for ALRM, the -s signal, TERM, INT and HUP), SIGCHLD, and with job control TSTP, CONT
 * and WINCH; ignore TTIN and TTOU; block what is caught.  Sets up the clock's wake-up. */
void disp_setup(const struct config *cfg, pid_t runlimit);

/* Did sig arrive since it was last taken?  Takes it; *by_process (if asked): some process
 * sent it (kill, a supervisor), rather than the terminal's keys; *relayed (if asked): 0 if
 * it came from elsewhere than the guard, else, every time it came since being the guard
 * passing on what the command's group got (guard.h), what the guard said of its sender:
 * its group (> 0), minus its pid (it was gone), or DISP_SENDER_UNKNOWN (macOS). */
bool disp_take(int sig, bool *by_process, int *relayed);
#define DISP_SENDER_UNKNOWN INT_MIN

/* The guard's pid (0: none), whose signals are the group's, passed on. */
void disp_relayer(pid_t guard);

/* The signals that ask a command to end (TERM, INT, HUP, QUIT): passed on, they start the
 * grace period.  The keys the terminal turns into signals for its foreground group (INT,
 * QUIT: Ctrl-C and Ctrl-backslash). */
bool disp_is_termination(int sig);
bool disp_is_keyboard(int sig);

/* A fault signal (SEGV, BUS, ...): its handler steps aside when it runs, so that a real
 * fault ends runlimit at once; one sent from outside is passed on and the handler put back
 * with disp_rearm. */
bool disp_is_fault(int sig);
void disp_rearm(int sig);

/* Test builds only (runlimit-hooks, test_hooks.h's TEST_FAULT set): on SIGUSR2, a genuine fault
 * inside runlimit, to show that it still ends runlimit rather than being taken for one sent
 * to it.  Does nothing in the real build. */
void disp_test_fault(int sig);

/* The mask for the wait (the caught signals let through), and the one the command starts
 * with: the one runlimit inherited, less SIGALRM and SIGCHLD (as GNU). */
const sigset_t *disp_waitmask(void);
const sigset_t *disp_command_mask(void);

/* What the command's child puts back before exec (start_exec.h): what runlimit set to be
 * ignored (TTIN, TTOU) and SIGCONT.  Into disp (room for max); returns how many. */
size_t disp_child_resets(struct spawn_disp *disp, size_t max);

/* In a forked helper child, before exec (the hook): the same, done. */
void disp_child_reset(void);

/* SIGWINCH's number, or -1 where the system has none. */
int disp_resize(void);

/* Set sig's handler (SIG_DFL, SIG_IGN, or a plain one). */
void disp_set(int sig, void (*handler)(int));

/* Die of sig, without a core dump: a calling shell then sees the death. */
void disp_die_of(int sig);

/* Signals runlimit catches and passes on: every one whose default action would end it
 * (SIGKILL aside, which none can catch). */
bool disp_is_forwarded(int sig);

#endif

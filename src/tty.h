/* The controlling terminal and job control.  runlimit puts the command in a process group
 * of its own; these functions keep the terminal usable across that: the command gets the
 * terminal when runlimit's job owns it, stops and resumes propagate between the two, and
 * the terminal always goes back to whoever had it. */
#ifndef RUNLIMIT_TTY_H
#define RUNLIMIT_TTY_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Look for runlimit's controlling terminal on stdin, stdout or stderr.  Cheap: a few
 * tcgetpgrp calls, no open. */
void tty_init(void);

/* runlimit leads the terminal's foreground process group: it is an interactive shell's
 * job, whose terminal the command should have. */
bool tty_leading(void);

/* runlimit's process group is the terminal's foreground group right now. */
bool tty_in_foreground(void);

/* The terminal's foreground group is pgid. */
bool tty_owned_by(pid_t pgid);

/* The terminal the command's child gives its group before exec (start_exec.h, tty_fd): the
 * one runlimit leads, or -1 where it leads none. */
int tty_child_fd(void);

/* Give the terminal to the command's group pgid (the parent side of the hand-over, and
 * again after a resume or a SIGTTIN/SIGTTOU stop). */
void tty_give(pid_t pgid);

/* Take the terminal back for runlimit's group if the command's group pgid has it (or the
 * group is gone), restoring the terminal modes saved at start if restore_modes. */
void tty_take_back(pid_t pgid, bool restore_modes);

/* Did the terminal itself send this signal (a key typed: Ctrl-C, Ctrl-\, Ctrl-Z), as
 * opposed to a process with kill()?  For a signal handler; false when unsure. */
bool tty_signal_typed(const siginfo_t *info);

#endif

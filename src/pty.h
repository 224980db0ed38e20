/* A pseudo-terminal for the output relay (relay.h): where the command's stdout or stderr is
 * a terminal and the relay must see what is written to it, the command writes to the slave
 * of a pty of runlimit's instead, which stays a terminal for it (isatty, the window size,
 * the real terminal's modes) but passes every byte unchanged (no output processing), and
 * runlimit copies what comes out of the master to the real terminal.  POSIX (posix_openpt),
 * the same on every platform. */
#ifndef RUNLIMIT_PTY_H
#define RUNLIMIT_PTY_H

#include <stdbool.h>

/* A pty like the terminal on fd: the master (non-blocking) is returned, the slave put in
 * *slave; -1 with errno if there is none to be had. */
int pty_open_like(int fd, int *slave);

/* Give the pty's slave the window size of the terminal on fd; true if it changed. */
bool pty_copy_size(int fd, int slave);

/* A description of its own of the terminal on fd, for writing without blocking (the
 * caller's is shared, and not runlimit's to change); -1 if it cannot be opened. */
int pty_reopen(int fd);

#endif

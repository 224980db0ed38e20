#include "tty.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <termios.h>
#include <unistd.h>

static int tty_fd = -1;
static bool leader;
static bool have_modes;
static struct termios modes;

void tty_init(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (tcgetpgrp(fd) < 0)
			continue; /* not a terminal, or not our controlling one */
		tty_fd = fd;
		break;
	}
	if (tty_fd < 0)
		return;
	pid_t me = getpid();
	leader = getpgrp() == me && tcgetpgrp(tty_fd) == me;
	if (leader)
		have_modes = tcgetattr(tty_fd, &modes) == 0;
}

bool tty_leading(void)
{
	return leader;
}

bool tty_in_foreground(void)
{
	return tty_fd >= 0 && tcgetpgrp(tty_fd) == getpgrp();
}

bool tty_owned_by(pid_t pgid)
{
	return tty_fd >= 0 && tcgetpgrp(tty_fd) == pgid;
}

void tty_child_take(pid_t pgid)
{
	if (leader && pgid > 0)
		tcsetpgrp(tty_fd, pgid);
}

void tty_give(pid_t pgid)
{
	/* runlimit ignores SIGTTOU, so this works from the background too. */
	if (tty_fd >= 0)
		tcsetpgrp(tty_fd, pgid);
}

void tty_take_back(pid_t pgid, bool restore_modes)
{
	if (tty_fd < 0)
		return;
	pid_t fg = tcgetpgrp(tty_fd);
	bool gone = fg > 0 && fg != getpgrp() && kill(-fg, 0) < 0 && errno == ESRCH;
	if (fg == pgid || gone || fg <= 0) {
		tcsetpgrp(tty_fd, getpgrp());
		if (restore_modes && have_modes)
			tcsetattr(tty_fd, TCSADRAIN, &modes);
	}
}

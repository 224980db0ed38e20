#include "tty.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static int tty_fd = -1;
static bool leader;
static bool have_modes;
static struct termios modes;

/* Could another process of runlimit's job be reading the terminal?  In a pipeline such as
 * "runlimit 20 cmd | less" the pager is in runlimit's group and reads the keys: taking the
 * terminal from the group would stop it.  The job is taken to be runlimit alone when its
 * standard input is the terminal and its standard output is not a pipe or socket. */
static bool job_may_share_tty(void)
{
	struct stat st;
	if (tcgetpgrp(STDIN_FILENO) < 0)
		return true; /* input from elsewhere: runlimit is not at the head of the job */
	if (fstat(STDOUT_FILENO, &st) < 0)
		return false;
	return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

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
	pid_t me = getpid(), group = getpgrp();
	pid_t fg = tcgetpgrp(tty_fd);
	/* The modes are saved whenever runlimit's job has the terminal, for a command that gets
	 * it later, lazily, and times out in raw mode. */
	if (fg == group)
		have_modes = tcgetattr(tty_fd, &modes) == 0;
	leader = group == me && fg == me && !job_may_share_tty();
}

bool tty_signal_typed(const siginfo_t *info)
{
#ifdef SI_KERNEL
	/* Linux and FreeBSD: the terminal's signals come from the kernel (SI_KERNEL); kill()
	 * gives SI_USER, sigqueue() SI_QUEUE, tgkill() SI_TKILL. */
	return info && info->si_code == SI_KERNEL;
#else
	(void)info;
	return false;
#endif
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

int tty_child_fd(void)
{
	return leader ? tty_fd : -1;
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

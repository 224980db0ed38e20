/* --die-with-parent on macOS and FreeBSD: a process's exit as a readable descriptor, by a
 * kqueue of its own (os.h, os_watch_exit).  Both systems' wait takes it as any other
 * descriptor (a kqueue is readable while it has an event to give), and a kqueue is not
 * inherited by a fork, so the command never holds it. */
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/event.h>
#include <sys/time.h>
#include <unistd.h>

int os_watch_exit(pid_t pid)
{
	int kq = kqueue();
	if (kq < 0)
		return -1;
	fcntl(kq, F_SETFD, FD_CLOEXEC);
	struct kevent ev;
	EV_SET(&ev, (uintptr_t)pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	if (kevent(kq, &ev, 1, NULL, 0, NULL) != 0) {
		int err = errno; /* ESRCH: it has ended already */
		close(kq);
		errno = err;
		return -1;
	}
	return kq;
}

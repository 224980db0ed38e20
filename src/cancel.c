/* O_NOFOLLOW is POSIX 2008, but macOS shows it only with its own names. */
#define _DARWIN_C_SOURCE
#include "cancel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "msg.h"
#include "names.h"
#include "peer.h"
#include "quote.h"
#include "stdfds.h"

/* The next line from fd into buf (without its newline): 1; 0 at end-of-file, -1 on an error
 * (a reset: the run closed before reading what was sent). */
static int read_line(int fd, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	while (len + 1 < size) {
		ssize_t got = read(fd, buf + len, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			buf[len] = '\0';
			return got == 0 ? 0 : -1;
		}
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	return 1;
}

/* A connection to the run at path, greeted; or -1 with errno: ENOENT or ECONNREFUSED, no live
 * run there (or one that is closing); EACCES, the run refused this user; EBUSY, it has no
 * room for another connection now; EAGAIN, no greeting within patience (0: wait as long as
 * it takes: a stopped run answers once it is continued). */
static int reach(const char *path, int patience)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	struct timeval tv = {patience, 0};
	if (patience > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	uid_t uid;
	char hello[16];
	int err = ECONNREFUSED, got = 0;
	if (peer_uid(fd, &uid) == 1 && uid != geteuid() && uid != 0)
		; /* not a run of this user's: not one to talk to */
	else if ((got = read_line(fd, hello, sizeof hello)) == 1 && strcmp(hello, "runlimit") == 0)
		return fd;
	else if (got == 1 && strcmp(hello, "refused") == 0)
		err = EACCES;
	else if (got == 1 && strcmp(hello, "busy") == 0)
		err = EBUSY;
	else if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		err = EAGAIN;
	close(fd);
	errno = err;
	return -1;
}

/* Ask the run on fd to end, and wait until it has. */
static int ask(int fd, const struct config *cfg, const char *marker)
{
	char line[64];
	int sig = cfg->signal_given ? cfg->signal : SIGTERM;
	long long grace = cfg->kill_after_given ? (long long)cfg->kill_after : -1;
	int len = snprintf(line, sizeof line, "cancel %d %lld\n", sig, grace);
	/* A write that fails finds a run that is closing: what it said last is read all the
	 * same. */
	(void)!msg_write(fd, line, (size_t)len);
	bool taken = false;
	while (read_line(fd, line, sizeof line) == 1) {
		if (strcmp(line, "ended") == 0)
			return 0;
		if (strcmp(line, "refused") == 0) {
			msg("the run named %s refused the cancel", quote(cfg->cancel));
			return EXIT_RUNLIMIT_FAILED;
		}
		taken = taken || strcmp(line, "ok") == 0;
	}
	if (!taken) {
		/* The run ended before it took the request (of itself, or it found the marker and
		 * never started): what was asked is done, and the marker is not for a later run. */
		unlink(marker);
		return 0;
	}
	msg("the run named %s went away before it had ended its command", quote(cfg->cancel));
	return EXIT_RUNLIMIT_FAILED;
}

/* The marker NAME.cancel, holding the cancel's signal number and a newline. */
static bool leave_marker(const char *dir, const struct config *cfg, const char *marker)
{
	/* A dot-name: never a run's file (names cannot start with a dot), nor listed. */
	char tmp[NAME_PATH];
	int tlen = snprintf(tmp, sizeof tmp, "%s/.cancel.XXXXXX", dir);
	if (tlen < 0 || (size_t)tlen >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return false;
	}
	int m = mkstemp(tmp); /* mode 0600 */
	if (m < 0)
		return false;
	fcntl(m, F_SETFD, FD_CLOEXEC);
	char text[16];
	int len = snprintf(text, sizeof text, "%d\n", cfg->signal_given ? cfg->signal : SIGTERM);
	bool done = msg_write(m, text, (size_t)len) == (ssize_t)len;
	int err = errno;
	if (close(m) != 0 && done) {
		done = false;
		err = errno;
	}
	if (done && rename(tmp, marker) == 0)
		return true;
	err = done ? errno : err;
	unlink(tmp);
	errno = err;
	return false;
}

int cancel_main(const struct config *cfg)
{
	char dir[NAME_PATH], sock[NAME_PATH], marker[NAME_PATH];
	if (!names_dir(true, dir, sizeof dir) ||
	    !names_path(dir, cfg->cancel, "sock", sock, sizeof sock) ||
	    !names_path(dir, cfg->cancel, "cancel", marker, sizeof marker))
		return EXIT_RUNLIMIT_FAILED;
	/* The marker first: a run that starts from here on finds it; one that started before
	 * listens already, and is reached below.  It holds the signal, for a run that finds it
	 * before it starts its command; written beside it and renamed into place, so that such
	 * a run reads all of it or finds none. */
	if (!leave_marker(dir, cfg, marker)) {
		msg("cannot leave a cancel for %s: %s", quote(marker), strerror(errno));
		return EXIT_RUNLIMIT_FAILED;
	}
	int fd = reach(sock, 0);
	if (fd < 0 && (errno == EACCES || errno == EBUSY)) {
		msg(errno == EACCES ? "the run named %s refused this user's cancel"
		                    : "the run named %s has no room for another request now",
		    quote(cfg->cancel));
		unlink(marker); /* the run is past its look for one: it is not for a later run */
		return EXIT_RUNLIMIT_FAILED;
	}
	if (fd < 0) {
		if (errno != ENOENT && errno != ECONNREFUSED) {
			msg("cannot reach the run named %s: %s", quote(cfg->cancel), strerror(errno));
			return EXIT_RUNLIMIT_FAILED;
		}
		/* No run listens.  One that took the marker meanwhile has ended without starting
		 * its command; otherwise the marker stays for one that starts later. */
		return access(marker, F_OK) == 0 ? 1 : 0;
	}
	/* The run greeted: it listens, so it looked for a marker before and never will again.
	 * Left, the marker would cancel the next run of this name, whatever happens here. */
	unlink(marker);
	int status = ask(fd, cfg, marker);
	close(fd);
	return status;
}

/* The run of the socket at path, as a line of --list (nothing if it is not alive); false
 * if the line could not be written (errno says why). */
static bool list_one(const char *path, const char *name)
{
	int fd = reach(path, 2); /* a stopped run does not hold up the list */
	if (fd < 0)
		return true;
	bool written = true;
	char line[4200];
	long pid;
	long long ns;
	int used = 0;
	if (msg_write(fd, "info\n", 5) == 5 && read_line(fd, line, sizeof line) == 1 &&
	    sscanf(line, "%ld %lld %n", &pid, &ns, &used) == 2 && used > 0) {
		char out[4400];
		int len = snprintf(out, sizeof out, "%s\t%ld\t%.1fs\t%s\n", name, pid, (double)ns / 1e9,
		                   line + used);
		size_t want = len < 0 ? 0 : (size_t)len < sizeof out ? (size_t)len : sizeof out - 1;
		if (stdfds_closed(STDOUT_FILENO)) {
			errno = EBADF; /* runlimit was started without it: its placeholder is not it */
			written = false;
		} else if (want > 0) {
			ssize_t n = msg_write(STDOUT_FILENO, out, want);
			if (n != (ssize_t)want) {
				if (n >= 0)
					errno = EIO;
				written = false;
			}
		}
	}
	int err = errno;
	close(fd);
	errno = err;
	return written;
}

int list_main(void)
{
	char dir[NAME_PATH];
	if (!names_dir(false, dir, sizeof dir))
		return EXIT_RUNLIMIT_FAILED;
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		msg("cannot read the directory of named runs %s: %s", quote(dir), strerror(errno));
		return EXIT_RUNLIMIT_FAILED;
	}
	int write_err = 0;
	for (int k = 0; k < n; k++) {
		const char *file = names[k]->d_name;
		size_t len = strlen(file);
		char name[NAME_MAX_LEN + 1], path[NAME_PATH];
		if (len > 5 && len - 5 <= NAME_MAX_LEN && strcmp(file + len - 5, ".sock") == 0) {
			memcpy(name, file, len - 5);
			name[len - 5] = '\0';
			if (names_valid(name) && names_path(dir, name, "sock", path, sizeof path) &&
			    !write_err && !list_one(path, name))
				write_err = errno;
		}
		free(names[k]);
	}
	free(names);
	if (write_err) {
		msg("write error: %s", strerror(write_err));
		return EXIT_RUNLIMIT_FAILED;
	}
	return 0;
}

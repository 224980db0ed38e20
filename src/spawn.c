#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tree.h"

int spawn_keep_off_stdio(int fd)
{
	if (fd < 0 || fd > STDERR_FILENO)
		return fd;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	if (high >= 0)
		close(fd);
	return high >= 0 ? high : fd;
}

static int cloexec_pipe(int fds[2])
{
	if (pipe(fds) < 0)
		return -1;
	for (int k = 0; k < 2; k++) {
		fcntl(fds[k], F_SETFD, FD_CLOEXEC);
		fds[k] = spawn_keep_off_stdio(fds[k]);
	}
	return 0;
}

/* The file execvp tried for name: name itself if it has a slash, else the first executable
 * regular file of that name on PATH. */
static char *resolve(const char *name)
{
	if (strchr(name, '/'))
		return strdup(name);
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	size_t nlen = strlen(name);
	for (const char *dir = path;; dir++) {
		const char *colon = strchr(dir, ':');
		size_t dlen = colon ? (size_t)(colon - dir) : strlen(dir);
		char *file = malloc(dlen + nlen + 3);
		if (!file)
			return NULL;
		memcpy(file, dlen ? dir : ".", dlen ? dlen : 1);
		size_t at = dlen ? dlen : 1;
		file[at] = '/';
		memcpy(file + at + 1, name, nlen + 1);
		struct stat st;
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode) && access(file, X_OK) == 0)
			return file;
		free(file);
		if (!colon)
			return NULL;
		dir = colon;
	}
}

/* glibc's execvp runs an executable without "#!" through /bin/sh, and GNU timeout relies
 * on it; musl's does not.  Do the same on every libc. */
static void exec_through_shell(char **argv)
{
	size_t argc = 0;
	while (argv[argc])
		argc++;
	char **sh = malloc((argc + 2) * sizeof *sh);
	char *file = resolve(argv[0]);
	if (!sh || !file)
		return;
	sh[0] = "sh";
	sh[1] = file;
	for (size_t k = 1; k <= argc; k++)
		sh[k + 1] = argv[k];
	execv("/bin/sh", sh);
	errno = ENOEXEC;
}

static void child(const struct spawn_req *req, pid_t parent, int errw)
{
	if (req->new_group)
		setpgid(0, 0);
	req->child_setup();
	if (tree_child_prepare(req->death_signal, parent) < 0)
		_exit(EXIT_RUNLIMIT_FAILED); /* runlimit died before we could be tied to it */
	sigprocmask(SIG_SETMASK, req->mask, NULL);
	execvp(req->argv[0], req->argv);
	if (errno == ENOEXEC)
		exec_through_shell(req->argv);
	int err = errno;
	ssize_t unused = write(errw, &err, sizeof err);
	(void)unused;
	_exit(err == ENOENT ? 127 : 126);
}

pid_t spawn(const struct spawn_req *req, int *errfd)
{
	int errpipe[2];
	if (cloexec_pipe(errpipe) < 0)
		return -1;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0)
		child(req, parent, errpipe[1]);
	int saved = errno;
	close(errpipe[1]);
	if (pid < 0) {
		close(errpipe[0]);
		errno = saved;
		return -1;
	}
	/* Both sides set the group, so it exists before either relies on it.  EACCES (already
	 * exec'd) and ESRCH (already gone) are expected. */
	if (req->new_group)
		setpgid(pid, pid);
	*errfd = errpipe[0];
	return pid;
}

int spawn_exec_error(int errfd)
{
	int err = 0;
	ssize_t n;
	do {
		n = read(errfd, &err, sizeof err);
	} while (n < 0 && errno == EINTR);
	close(errfd);
	return n == (ssize_t)sizeof err ? err : 0;
}

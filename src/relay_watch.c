#include "os/os.h"
#include "relay_watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct watched {
	int fd;         /* 1 or 2 */
	struct stat st; /* the size last seen */
	off_t first;    /* its size when the command started */
};
static struct watched files[2];
static size_t nfiles;
static bool shared; /* stdout and stderr are one file: files[0] stands for both */
static int64_t every, next_look = CLOCK_NEVER;

static void watch_file(int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	if (nfiles == 1 && files[0].st.st_dev == st.st_dev && files[0].st.st_ino == st.st_ino) {
		shared = true;
		return;
	}
	files[nfiles++] = (struct watched){fd, st, st.st_size};
}

void watch_files(void)
{
	watch_file(STDOUT_FILENO);
	watch_file(STDERR_FILENO);
}

void watch_start(int64_t now, int64_t interval)
{
	every = interval;
	next_look = nfiles && every > 0 ? clock_after(now, every) : CLOCK_NEVER;
}

bool watch_look(int64_t now)
{
	if (now < next_look)
		return false;
	bool grew = false;
	for (size_t k = 0; k < nfiles; k++) {
		struct stat st;
		if (fstat(files[k].fd, &st) == 0 && st.st_size != files[k].st.st_size) {
			files[k].st.st_size = st.st_size;
			grew = true;
		}
	}
	next_look = clock_after(now, every);
	return grew;
}

int64_t watch_next_look(void)
{
	return next_look;
}

static const struct watched *watched(int std)
{
	for (size_t k = 0; k < nfiles; k++)
		if (files[k].fd == std || shared)
			return &files[k];
	return NULL;
}

static long long grown(const struct watched *w)
{
	struct stat st;
	off_t size = fstat(w->fd, &st) == 0 ? st.st_size : w->st.st_size;
	return (long long)(size >= w->first ? size - w->first : size);
}

long long watch_grown(int std)
{
	for (size_t k = 0; k < nfiles; k++)
		if (files[k].fd == std)
			return grown(&files[k]);
	return -1;
}

bool watch_shared(void)
{
	return shared;
}

/* runlimit's descriptor of the file may be open for writing only: the file is opened again
 * to be read, and only what grew during the run is taken (an earlier run's lines are not the
 * tail). */
bool watch_read_tail(struct tail *t)
{
	const struct watched *w = watched(STDERR_FILENO);
	if (!w || !t->buf)
		return false; /* not watched, or no memory for the ring (t->error says so) */
	long long grew = grown(w);
	int fd = reopen_fd(w->fd, O_RDONLY);
	if (fd < 0)
		return false;
	struct stat st;
	size_t want = (unsigned long long)grew < t->size ? (size_t)grew : t->size;
	ssize_t got = fstat(fd, &st) == 0 && st.st_size >= (off_t)want
	                  ? pread(fd, t->buf, want, st.st_size - (off_t)want) : -1;
	close(fd);
	if (got != (ssize_t)want)
		return false;
	t->start = 0;
	t->len = want;
	t->total = (uint64_t)grew;
	return true;
}

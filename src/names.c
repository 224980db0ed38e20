#include "names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "msg.h"
#include "quote.h"

bool names_valid(const char *name)
{
	size_t len = strlen(name);
	if (len == 0 || len > NAME_MAX_LEN || name[0] == '.')
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	       len;
}

/* Where the directory is, by the environment; false if that does not fit. */
static bool dir_path(char *dir, size_t size)
{
	const char *env = getenv("RUNLIMIT_DIR");
	int len;
	if (env && *env)
		len = snprintf(dir, size, "%s", env);
	else if ((env = getenv("XDG_RUNTIME_DIR")) && *env)
		len = snprintf(dir, size, "%s/runlimit", env);
	else {
		env = getenv("TMPDIR");
		len = snprintf(dir, size, "%s/runlimit-%lu", env && *env ? env : "/tmp",
		               (unsigned long)geteuid());
	}
	if (len < 0 || (size_t)len >= size) {
		msg("the directory for named runs is too long a path: %s", quote(env ? env : "?"));
		return false;
	}
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	return true;
}

/* May someone other than the user (or root) change what is in the directory st describes? */
static bool others_may_write(const struct stat *st, bool sticky_ok)
{
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return true;
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	return !(sticky_ok && (st->st_mode & S_ISVTX));
}

/* The parent of dir: nobody else may rename or remove dir there (a sticky /tmp is fine). */
static bool parent_safe(const char *dir)
{
	char parent[4096];
	const char *slash = strrchr(dir, '/');
	if (!slash || strlen(dir) >= sizeof parent)
		return true; /* a relative name: the working directory's business */
	size_t len = slash == dir ? 1 : (size_t)(slash - dir);
	memcpy(parent, dir, len);
	parent[len] = '\0';
	struct stat st;
	if (stat(parent, &st) != 0)
		return true; /* dir itself will not be found either */
	if (!others_may_write(&st, true))
		return true;
	msg("%s is not safe for named runs: its parent %s may be changed by others", quote(dir),
	    quote(parent));
	return false;
}

bool names_dir(bool create, char *dir, size_t size)
{
	if (!dir_path(dir, size) || !parent_safe(dir))
		return false;
	bool made = create && mkdir(dir, 0700) == 0;
	if (create && !made && errno != EEXIST) {
		msg("cannot make the directory for named runs %s: %s", quote(dir), strerror(errno));
		return false;
	}
	struct stat st;
	if (lstat(dir, &st) != 0) {
		if (errno == ENOENT && !create)
			return true; /* nothing was ever registered: callers find no files */
		msg("%s is not usable for named runs: %s", quote(dir), strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		msg("%s is not usable for named runs: %s", quote(dir),
		    S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
		return false;
	}
	if (made && st.st_uid == geteuid() && (st.st_mode & 0777) != 0700 &&
	    (chmod(dir, 0700) != 0 || lstat(dir, &st) != 0)) { /* a umask took owner bits */
		msg("%s is not usable for named runs: %s", quote(dir), strerror(errno));
		return false;
	}
	if (st.st_uid != geteuid()) {
		msg("%s is not safe for named runs: it belongs to another user", quote(dir));
		return false;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		msg("%s is not safe for named runs: others may write to it", quote(dir));
		return false;
	}
	return true;
}

bool names_path(const char *dir, const char *name, const char *ext, char *path, size_t size)
{
	struct sockaddr_un sa;
	size_t fits = size < sizeof sa.sun_path ? size : sizeof sa.sun_path;
	int len = snprintf(path, size, "%s/%s.%s", dir, name, ext);
	if (len < 0 || (size_t)len >= fits) {
		msg("the run name %s is too long for the directory %s (a socket's path holds at "
		    "most %zu bytes)", quote(name), quote(dir), sizeof sa.sun_path - 1);
		return false;
	}
	return true;
}

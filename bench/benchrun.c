/* benchrun: the measuring half of bench/bench.sh (which compiles it with cc).
 *
 *   benchrun runs N CMD... [:: CMD...]...
 *       Run every command N times, round-robin (the starting command rotates each round, so
 *       every tool sees the same machine), output to /dev/null.  One line per command:
 *       "median mean min max" wall-clock microseconds, fork to reap.
 *   benchrun signal N D CMD...
 *       CMD (a tool and its duration D) runs "benchrun victim", which waits for a signal and
 *       notes when it came.  Prints the median microseconds from the fork of the tool plus
 *       D to the command's receiving the signal: the deadline as the caller sees it.
 *   benchrun exit N CMD...
 *       CMD (a tool and a long duration) runs "benchrun stamp", which notes the time and
 *       exits.  Prints the median microseconds from that exit to the tool's being reaped.
 *   benchrun floor D CMD...
 *       A minimal supervisor for reference: fork, exec CMD, sleep D, SIGTERM, wait.
 *   benchrun series N SIZE CMD...
 *       Tree kill at scale: CMD (a tool with its options for a KILL at the deadline, and its
 *       duration, which must be BENCH_DEADLINE seconds) is given "benchrun build SIZE ...",
 *       a tree of SIZE processes that ignore TERM: half in the command's group, half setsid
 *       escapees, and 50 of them (a quarter of a small tree) loops that fork a short-lived
 *       child every 50 ms.  Prints "median-ms worst-survivors": from the deadline to the
 *       tool's return, and how many of the tree were alive 100 ms after it (then killed).
 *   benchrun killfloor N SIZE
 *       The floor of a tree kill: the tree of "series" (SIZE processes), built in a cgroup of
 *       its own (cgroup v2, root: /sys/fs/cgroup or its "unified" part), ended the fastest
 *       way the kernel has: one write to cgroup.kill, then waiting for cgroup.events to say
 *       "populated 0" and reaping the builder (this program is a subreaper meanwhile).
 *       Prints the median ms from the write to the end, "n/a" where no cgroup can be made.
 *   cgtimeout [-s SIG] [-k DUR] D CMD...
 *       This program run through a link named cgtimeout: the floor of killfloor in the form
 *       of a time-out tool, for drivers that run one as they run runlimit (the shared
 *       treekill.py): CMD in a cgroup of its own, and at D one write to cgroup.kill (whatever
 *       -s and -k say), until the cgroup is empty and its dead are reaped; exits 137.
 *   benchrun procread N
 *       The floor of any walk of a tree through /proc: N idle processes (forked, not exec'd,
 *       as "build" makes them), each one's stat and its children file opened and read once,
 *       cold (nobody has read them yet: the kernel makes each file's entries on the first
 *       look, as at a real deadline), then once more, warm; and process_vm_readv of 256
 *       bytes of each one's memory, as the snapshot reads arguments.  Prints
 *       "cold-ms warm-ms memory-ms", three rounds of fresh processes, medians.
 *   benchrun build SIZE NAME READY
 *       The tree of "series", named NAME (the process name), READY written once it stands.
 *   benchrun forksig N SIZE CMD... [:: CMD...]...
 *       The deadline's signal under a forking tree: each CMD (a tool with its duration, which
 *       must be BENCH_DEADLINE seconds) is given the tree of "series", whose first process
 *       notes when the signal reaches it.  The commands run in turn, N rounds; one line per
 *       command: the median microseconds from the tool's fork plus the deadline to that
 *       signal (to compare runlimit with and without --report).
 *   With BENCH_OUTPUT=pipe, "runs" gives the commands a pipe (which nobody reads) for
 *   stdout and stderr instead of /dev/null: the output relay is then on.
 *   benchrun silence N D CMD...
 *       CMD (a tool with a no-output limit of D seconds, and its duration) runs "benchrun
 *       emit 1", which writes one byte and then waits.  Prints the median microseconds from
 *       that byte's reaching benchrun to the tool's end, minus D: how late the limit fires.
 *   benchrun relayrss BYTES CMD...
 *       CMD (a tool that relays output, and its duration) runs "benchrun emit BYTES", whose
 *       output benchrun reads; once it has every byte, prints the tool's peak RSS (kB) and
 *       the CPU time of the tool's own process (ms, user plus system).
 *   benchrun supervise D CMD...
 *       The floor of a time-out tool's overhead: fork, setpgid, execvp, alarm, waitpid, and
 *       nothing else (at the alarm, TERM to the group); exits with CMD's status.
 *   benchrun guarded D CMD...
 *       The floor of a time-out tool that keeps runlimit's contract on process groups: that of
 *       "supervise", plus a guard that leads the command's group (the command is a member,
 *       not the leader, so setsid works in it) and sends the group TERM if the supervisor
 *       dies (parent-death signal); cloned sharing the supervisor's memory, the cheapest way
 *       Linux has, then killed and reaped at the end.  What runlimit adds to this is the cost
 *       of everything else it promises.
 *   benchrun rss N CMD...
 *       The peak resident set (VmHWM, kB) of the process started, read 150 ms into the run
 *       while it waits for its command; the median of N runs.  Linux only.
 *   benchrun tree N CMD...
 *       CMD (a time-out tool with its duration) is given "sh SCRIPT", which starts 150
 *       processes in its process group and 50 setsid escapees, all ignoring TERM.  Prints
 *       "median-ms worst-survivors": from the deadline (start + the BENCH_DEADLINE seconds in
 *       the environment) to the death of the last process, and how many were still alive
 *       2 s later (those are then killed).  Linux only (/proc).
 *
 * Written for this project; not a test: it measures and prints. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *self_exe; /* this program, for the commands that run it again */

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int output_pipe = -1; /* BENCH_OUTPUT=pipe: the write end given as stdout, stderr */

static pid_t spawn(char **argv, bool quiet)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (quiet) {
			int null = open("/dev/null", O_RDWR);
			dup2(null, 0);
			dup2(output_pipe >= 0 ? output_pipe : null, 1);
			dup2(output_pipe >= 0 ? output_pipe : null, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Split argv at each "::" into at most max commands (cmd[k], NULL-ended in place); how
 * many, or -1 if there are too many. */
static int split_commands(int argc, char **argv, char ***cmd, int max)
{
	int ncmd = 0;
	cmd[ncmd++] = argv;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "::") == 0) {
			argv[i] = NULL;
			if (ncmd == max) {
				fprintf(stderr, "benchrun: too many commands\n");
				return -1;
			}
			cmd[ncmd++] = argv + i + 1;
		}
	}
	if (cmd[ncmd - 1][0] == NULL) /* a trailing "::" */
		ncmd--;
	return ncmd;
}

static int runs(int n, int argc, char **argv)
{
	char **cmd[32];
	int ncmd = split_commands(argc, argv, cmd, 32);
	if (ncmd < 0)
		return 2;
	double *t = calloc((size_t)(n * ncmd), sizeof *t);
	if (!t)
		return 2;
	const char *out = getenv("BENCH_OUTPUT");
	int p[2];
	if (out && strcmp(out, "pipe") == 0 && pipe(p) == 0) {
		fcntl(p[0], F_SETFD, FD_CLOEXEC);
		fcntl(p[1], F_SETFD, FD_CLOEXEC);
		output_pipe = p[1];
	}
	for (int r = 0; r < n; r++) {
		for (int k = 0; k < ncmd; k++) {
			int c = (k + r) % ncmd;
			double start = now_us();
			reap(spawn(cmd[c], true));
			t[c * n + r] = now_us() - start;
		}
	}
	for (int c = 0; c < ncmd; c++) {
		double *v = t + c * n, sum = 0;
		for (int r = 0; r < n; r++)
			sum += v[r];
		double med = median(v, n);
		printf("%.1f %.1f %.1f %.1f\n", med, sum / n, v[0], v[n - 1]);
	}
	free(t);
	return 0;
}

static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long kb = -1;
	size_t len = strlen(field);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, field, len) == 0)
			kb = strtol(line + len, NULL, 10);
	fclose(f);
	return kb;
}

static int rss(int n, char **argv)
{
	double v[64];
	if (n > 64)
		n = 64;
	for (int r = 0; r < n; r++) {
		pid_t pid = spawn(argv, true);
		sleep_us(150000);
		v[r] = (double)status_kb(pid, "VmHWM:");
		reap(pid);
	}
	printf("%.0f\n", median(v, n));
	return 0;
}

/* "benchrun emit BYTES": write BYTES zero bytes to stdout, then wait to be ended. */
static int emit(long long bytes)
{
	static char zeros[65536];
	while (bytes > 0) {
		ssize_t put = write(1, zeros, bytes < (long long)sizeof zeros ? (size_t)bytes : sizeof zeros);
		if (put <= 0)
			return 1;
		bytes -= put;
	}
	for (;;)
		pause();
}

/* CMD plus "benchrun emit BYTES", its stdout a pipe whose read end is returned in *out. */
static pid_t spawn_emitter(int argc, char **argv, const char *bytes, int *out)
{
	char *cmd[64];
	if (argc > 60)
		return -1;
	for (int i = 0; i < argc; i++)
		cmd[i] = argv[i];
	cmd[argc] = self_exe;
	cmd[argc + 1] = "emit";
	cmd[argc + 2] = (char *)bytes;
	cmd[argc + 3] = NULL;
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(null, 2);
		close(p[0]);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

/* Read from fd until `want` bytes have come (want < 0: until end-of-file); how many came. */
static long long drain(int fd, long long want)
{
	static char buf[1 << 16];
	long long got = 0;
	while (want < 0 || got < want) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

static int silence(int n, double d, int argc, char **argv)
{
	double v[64];
	if (n > 64)
		n = 64;
	int got = 0;
	for (int r = 0; r < n; r++) {
		int fd;
		pid_t pid = spawn_emitter(argc, argv, "1", &fd);
		if (pid < 0)
			return 2;
		bool one = drain(fd, 1) == 1;
		double t = now_us();
		drain(fd, -1);
		reap(pid);
		double end = now_us();
		close(fd);
		if (one)
			v[got++] = end - t - d * 1e6;
	}
	if (got == 0)
		printf("n/a\n");
	else
		printf("%.0f\n", median(v, got));
	return 0;
}

/* The CPU time of pid's own process so far (ms; its children's not counted), -1 if unknown. */
static double cpu_of(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t len = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long ut, st;
	/* after ") ": state, then fields 4..13, then utime (14) and stime (15) */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

static int relay_rss(const char *bytes, int argc, char **argv)
{
	int fd;
	pid_t pid = spawn_emitter(argc, argv, bytes, &fd);
	if (pid < 0)
		return 2;
	long long got = drain(fd, atoll(bytes));
	long kb = status_kb(pid, "VmHWM:");
	double cpu_ms = cpu_of(pid);
	kill(pid, SIGTERM);
	drain(fd, -1);
	reap(pid);
	close(fd);
	if (got == atoll(bytes))
		printf("%ld %.0f\n", kb, cpu_ms);
	else
		printf("n/a n/a\n");
	return 0;
}

/* Processes, not zombies, whose command name is `name`. */
static int count_named(const char *name)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[300], buf[512];
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
		if (!open_paren || !close_paren || close_paren[1] == '\0')
			continue;
		*close_paren = '\0';
		char state = close_paren[2];
		if (strcmp(open_paren + 1, name) == 0 && state != 'Z' && state != 'X')
			n++;
	}
	closedir(d);
	return n;
}

static void kill_named(const char *name)
{
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char path[300], comm[64];
		snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof comm, f)) {
			comm[strcspn(comm, "\n")] = '\0';
			if (strcmp(comm, name) == 0)
				kill(atoi(e->d_name), SIGKILL);
		}
		fclose(f);
	}
	closedir(d);
}

static int copy_file(const char *from, const char *to)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 755 '%s'", from, to, to);
	return system(cmd);
}

/* The tool's duration, which the tree modes must be told (BENCH_DEADLINE seconds); 0 after
 * saying so if it is missing. */
static double deadline_from_env(const char *mode)
{
	const char *env = getenv("BENCH_DEADLINE");
	double d = env ? atof(env) : 0;
	if (d <= 0)
		fprintf(stderr, "benchrun %s: set BENCH_DEADLINE to the tool's duration\n", mode);
	return d;
}

static int tree(int n, int argc, char **argv)
{
	double deadline_s = deadline_from_env("tree");
	if (deadline_s <= 0)
		return 2;
	char dir[] = "/tmp/benchrun-XXXXXX";
	if (!mkdtemp(dir))
		return 2;
	double ms[64];
	int worst = 0;
	if (n > 64)
		n = 64;
	for (int r = 0; r < n; r++) {
		char name[16], slp[128], script[128], ready[128];
		snprintf(name, sizeof name, "bt%dr%d", (int)(getpid() % 10000), r);
		snprintf(slp, sizeof slp, "%s/%s", dir, name);
		snprintf(script, sizeof script, "%s/tree%d.sh", dir, r);
		snprintf(ready, sizeof ready, "%s/ready%d", dir, r);
		if (copy_file("/bin/sleep", slp) != 0)
			return 2;
		FILE *f = fopen(script, "w");
		if (!f)
			return 2;
		fprintf(f, "trap '' TERM\n"
			"i=0; while [ $i -lt 150 ]; do '%s' 60 & i=$((i+1)); done\n"
			"i=0; while [ $i -lt 50 ]; do setsid '%s' 60 & i=$((i+1)); done\n"
			"echo ok > '%s'; wait\n", slp, slp, ready);
		fclose(f);
		char **cmd = calloc((size_t)argc + 3, sizeof *cmd);
		memcpy(cmd, argv, (size_t)argc * sizeof *cmd);
		cmd[argc] = "sh";
		cmd[argc + 1] = script;
		double start = now_us();
		pid_t pid = spawn(cmd, true);
		double deadline = start + deadline_s * 1e6, last = 0;
		struct stat st;
		while (stat(ready, &st) != 0 && now_us() < deadline)
			sleep_us(1000);
		if (stat(ready, &st) != 0)
			fprintf(stderr, "benchrun tree: the tree was not ready by the deadline\n");
		/* Poll from just before the deadline: the time of the last sighting is the death. */
		while (now_us() < deadline - 2000)
			sleep_us(1000);
		for (;;) {
			int alive = count_named(name);
			double t = now_us();
			if (alive == 0 || t > deadline + 2e6)
				break;
			last = t;
		}
		int left = count_named(name);
		ms[r] = last > deadline ? (last - deadline) / 1e3 : 0;
		if (left > worst)
			worst = left;
		kill_named(name);
		reap(pid);
		free(cmd);
		unlink(slp);
		unlink(script);
		unlink(ready);
	}
	rmdir(dir);
	printf("%.1f %d\n", median(ms, n), worst);
	return 0;
}

static double stamp_now(const char *file)
{
	FILE *f = fopen(file, "r");
	double t = -1;
	if (f) {
		if (fscanf(f, "%lf", &t) != 1)
			t = -1;
		fclose(f);
	}
	unlink(file);
	return t;
}

static void write_stamp(void)
{
	const char *file = getenv("BENCH_STAMP");
	if (!file)
		return;
	char buf[64];
	int len = snprintf(buf, sizeof buf, "%.3f\n", now_us());
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, buf, (size_t)len) < 0)
			_exit(3);
		close(fd);
	}
}

static void on_victim_signal(int sig)
{
	(void)sig;
	write_stamp();
	_exit(0);
}

/* A new file for the stamps, named in BENCH_STAMP for the commands; false if none. */
static bool stamp_file(char *file)
{
	int fd = mkstemp(file);
	if (fd < 0)
		return false;
	close(fd);
	setenv("BENCH_STAMP", file, 1);
	return true;
}

/* signal (victim) or exit (stamp): the tool's command is this program itself. */
static int stamped(bool signal_mode, int n, double d, int argc, char **argv, const char *self)
{
	char file[] = "/tmp/benchrun-stamp-XXXXXX";
	if (!stamp_file(file))
		return 2;
	char **cmd = calloc((size_t)argc + 3, sizeof *cmd);
	memcpy(cmd, argv, (size_t)argc * sizeof *cmd);
	cmd[argc] = (char *)self;
	cmd[argc + 1] = signal_mode ? "victim" : "stamp";
	double v[256];
	if (n > 256)
		n = 256;
	int got = 0;
	for (int r = 0; r < n; r++) {
		unlink(file);
		double start = now_us();
		pid_t pid = spawn(cmd, true);
		reap(pid);
		double end = now_us(), t = stamp_now(file);
		if (t < 0)
			continue;
		v[got++] = signal_mode ? t - start - d * 1e6 : end - t;
	}
	free(cmd);
	if (got == 0) {
		printf("n/a\n");
		return 0;
	}
	printf("%.0f\n", median(v, got));
	return 0;
}

static int floor_run(double d, char **argv)
{
	pid_t pid = spawn(argv, false);
	sleep_us((long)(d * 1e6));
	kill(pid, SIGTERM);
	reap(pid);
	return 124;
}

/* A process of the tree: TERM ignored, named, then idle; a looper forks a short-lived
 * child (of the same name) every 50 ms. */
static void tree_member(const char *name, bool escape, bool looper)
{
	signal(SIGTERM, SIG_IGN);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	if (escape)
		setsid();
	for (;;) {
		if (!looper) {
			pause();
			continue;
		}
		pid_t c = fork();
		if (c == 0)
			_exit(0);
		if (c > 0)
			waitpid(c, NULL, 0);
		sleep_us(50000);
	}
}

static _Noreturn void build(int size, const char *name, const char *ready)
{
	int loops = size / 4 < 50 ? size / 4 : 50;
	signal(SIGTERM, SIG_IGN);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	for (int k = 1; k < size; k++) { /* this process is the first of the tree */
		pid_t pid = fork();
		if (pid == 0)
			tree_member(name, k % 2 == 1, k <= loops);
		if (pid < 0) {
			perror("benchrun build: fork");
			break;
		}
	}
	/* forksig: the first process notes the signal's arrival (the rest ignore it). */
	if (getenv("BENCH_STAMP"))
		signal(SIGTERM, on_victim_signal);
	FILE *f = fopen(ready, "w");
	if (f)
		fclose(f);
	for (;;)
		pause();
}

static double read_proc_files(const pid_t *pids, int n)
{
	char path[64], buf[4096];
	double start = now_us();
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pids[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			(void)!read(fd, buf, sizeof buf);
			close(fd);
		}
		snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pids[i], (int)pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			(void)!read(fd, buf, sizeof buf);
			close(fd);
		}
	}
	return (now_us() - start) / 1000;
}

/* A cgroup v2 directory this program may make a cgroup in, or NULL. */
static const char *cgroup_root(void)
{
	static const char *const roots[] = {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"};
	char path[128];
	for (size_t k = 0; k < sizeof roots / sizeof *roots; k++) {
		snprintf(path, sizeof path, "%s/cgroup.procs", roots[k]);
		struct stat st;
		if (stat(path, &st) == 0 && access(roots[k], W_OK) == 0)
			return roots[k];
	}
	return NULL;
}

/* The file NAME of the cgroup directory cg, opened for access (-1 if it cannot be). */
static int cgroup_file(const char *cg, const char *name, int access)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", cg, name);
	return open(path, access | O_CLOEXEC);
}

/* One write to cgroup.kill (killer), then wait until cgroup.events (events) says the cgroup
 * is empty; false if the kill was refused. */
static bool kill_cgroup(int killer, int events)
{
	if (killer < 0 || write(killer, "1", 1) != 1) {
		fprintf(stderr, "benchrun: cgroup.kill: %s\n", strerror(errno));
		return false;
	}
	for (char buf[256];;) {
		ssize_t m = pread(events, buf, sizeof buf - 1, 0);
		buf[m > 0 ? m : 0] = '\0';
		if (strstr(buf, "populated 0"))
			return true;
		struct pollfd p = {events, POLLPRI, 0};
		poll(&p, 1, 1000);
	}
}

/* "cgtimeout [-s SIG] [-k DUR] D CMD...": this program under that name (a link), a time-out
 * tool in the form the shared treekill.py runs one: the floor of a tree kill, driven as
 * runlimit is.  CMD runs in a cgroup of its own; at D (from this program's start) one write
 * to cgroup.kill ends all of it, whatever -s and -k say; then it waits until the cgroup is
 * empty and reaps the dead (a subreaper meanwhile), and exits 137. */
static int cgtimeout(int argc, char **argv)
{
	double start = now_us();
	int k = 1;
	while (k + 1 < argc && (strcmp(argv[k], "-s") == 0 || strcmp(argv[k], "-k") == 0))
		k += 2;
	const char *root = cgroup_root();
	if (k + 1 >= argc || !root) {
		fprintf(stderr, "usage: cgtimeout [-s SIG] [-k DUR] D CMD... (and cgroup v2, as root)\n");
		return 125;
	}
	char cg[160];
	snprintf(cg, sizeof cg, "%s/benchrun-cgtimeout-%d", root, (int)getpid());
	if (mkdir(cg, 0755) != 0) {
		fprintf(stderr, "cgtimeout: mkdir %s: %s\n", cg, strerror(errno));
		return 125;
	}
	int procs = cgroup_file(cg, "cgroup.procs", O_WRONLY);
	int events = cgroup_file(cg, "cgroup.events", O_RDONLY);
	int killer = cgroup_file(cg, "cgroup.kill", O_WRONLY);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	pid_t pid = fork();
	if (pid == 0) {
		if (write(procs, "0", 1) != 1)
			_exit(125);
		execvp(argv[k + 1], argv + k + 1);
		_exit(127);
	}
	long left = (long)(start + atof(argv[k]) * 1e6 - now_us());
	if (pid > 0 && left > 0)
		sleep_us(left);
	if (pid > 0)
		kill_cgroup(killer, events);
	while (waitpid(-1, NULL, 0) > 0)
		;
	close(procs);
	close(events);
	close(killer);
	rmdir(cg);
	return 137;
}

static int killfloor(int n, int size)
{
	const char *root = cgroup_root();
	if (!root) {
		fprintf(stderr, "benchrun killfloor: no writable cgroup v2 directory\n");
		printf("n/a\n");
		return 0;
	}
	double ms[64];
	if (n > 64)
		n = 64;
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	int got = 0;
	for (int r = 0; r < n; r++) {
		char cg[160], name[16], ready[64];
		snprintf(cg, sizeof cg, "%s/benchrun-floor-%d", root, (int)getpid());
		snprintf(name, sizeof name, "bk%dr%d", (int)(getpid() % 10000), r);
		snprintf(ready, sizeof ready, "/tmp/benchrun-ready-%d-%d", (int)getpid(), r);
		if (mkdir(cg, 0755) != 0) {
			fprintf(stderr, "benchrun killfloor: mkdir %s: %s\n", cg, strerror(errno));
			break;
		}
		int procs = cgroup_file(cg, "cgroup.procs", O_WRONLY);
		int events = cgroup_file(cg, "cgroup.events", O_RDONLY);
		int killer = cgroup_file(cg, "cgroup.kill", O_WRONLY);
		pid_t builder = fork();
		if (builder == 0) {
			if (write(procs, "0", 1) != 1)
				_exit(2);
			build(size, name, ready);
		}
		struct stat st;
		for (int k = 0; k < 6000 && stat(ready, &st) != 0; k++)
			sleep_us(5000);
		sleep_us(200000);
		double start = now_us();
		bool ok = kill_cgroup(killer, events);
		while (waitpid(-1, NULL, 0) > 0)
			;
		if (ok)
			ms[got++] = (now_us() - start) / 1e3;
		close(procs);
		close(events);
		close(killer);
		rmdir(cg);
		unlink(ready);
	}
	if (got == 0)
		printf("n/a\n");
	else
		printf("%.1f\n", median(ms, got));
	return 0;
}

static int procread(int n)
{
	static char data[256] = "arguments";
	double cold[3], warm[3], mem[3];
	pid_t *pids = calloc((size_t)n, sizeof *pids);
	if (!pids)
		return 2;
	for (int r = 0; r < 3; r++) {
		int made = 0;
		for (; made < n; made++) {
			pids[made] = fork();
			if (pids[made] == 0)
				for (;;)
					pause();
			if (pids[made] < 0)
				break;
		}
		sleep_us(200000);
		cold[r] = read_proc_files(pids, made);
		warm[r] = read_proc_files(pids, made);
		double start = now_us();
		for (int i = 0; i < made; i++) {
			char buf[256];
			struct iovec local = {buf, sizeof buf}, remote = {data, sizeof data};
			(void)!process_vm_readv(pids[i], &local, 1, &remote, 1, 0);
		}
		mem[r] = (now_us() - start) / 1000;
		for (int i = 0; i < made; i++)
			kill(pids[i], SIGKILL);
		for (int i = 0; i < made; i++)
			waitpid(pids[i], NULL, 0);
	}
	printf("%.1f %.1f %.1f\n", median(cold, 3), median(warm, 3), median(mem, 3));
	free(pids);
	return 0;
}

static int forksig(int n, int size, int argc, char **argv)
{
	double deadline_s = deadline_from_env("forksig");
	if (deadline_s <= 0)
		return 2;
	char file[] = "/tmp/benchrun-stamp-XXXXXX";
	if (!stamp_file(file))
		return 2;
	char **cmd[8];
	int ncmd = split_commands(argc, argv, cmd, 8);
	if (ncmd < 0)
		return 2;
	if (n > 64)
		n = 64;
	double v[8][64];
	int got[8] = {0};
	char sizes[16];
	snprintf(sizes, sizeof sizes, "%d", size);
	for (int r = 0; r < n; r++) {
		for (int k = 0; k < ncmd; k++) {
			int c = (k + r) % ncmd, len = 0;
			while (cmd[c][len])
				len++;
			char name[16], ready[64];
			snprintf(name, sizeof name, "bf%dr%d", (int)(getpid() % 10000), r);
			snprintf(ready, sizeof ready, "/tmp/benchrun-ready-%d-%d", (int)getpid(), r);
			char **full = calloc((size_t)len + 6, sizeof *full);
			memcpy(full, cmd[c], (size_t)len * sizeof *full);
			full[len] = self_exe;
			full[len + 1] = "build";
			full[len + 2] = sizes;
			full[len + 3] = name;
			full[len + 4] = ready;
			unlink(file);
			double start = now_us();
			pid_t pid = spawn(full, true);
			reap(pid);
			double t = stamp_now(file);
			if (t > 0)
				v[c][got[c]++] = t - start - deadline_s * 1e6;
			for (int tries = 0; tries < 3 && count_named(name) > 0; tries++) {
				kill_named(name);
				sleep_us(100000);
			}
			unlink(ready);
			free(full);
		}
	}
	unlink(file);
	for (int c = 0; c < ncmd; c++) {
		if (got[c] == 0)
			printf("n/a\n");
		else
			printf("%.0f\n", median(v[c], got[c]));
	}
	return 0;
}

static int series(int n, int size, int argc, char **argv)
{
	double deadline_s = deadline_from_env("series");
	if (deadline_s <= 0)
		return 2;
	double ms[64];
	int worst = 0;
	if (n > 64)
		n = 64;
	for (int r = 0; r < n; r++) {
		char name[16], ready[64], sizes[16];
		snprintf(name, sizeof name, "bs%dr%d", (int)(getpid() % 10000), r);
		snprintf(ready, sizeof ready, "/tmp/benchrun-ready-%d-%d", (int)getpid(), r);
		snprintf(sizes, sizeof sizes, "%d", size);
		char **cmd = calloc((size_t)argc + 6, sizeof *cmd);
		memcpy(cmd, argv, (size_t)argc * sizeof *cmd);
		cmd[argc] = self_exe;
		cmd[argc + 1] = "build";
		cmd[argc + 2] = sizes;
		cmd[argc + 3] = name;
		cmd[argc + 4] = ready;
		double start = now_us();
		pid_t pid = spawn(cmd, true);
		double deadline = start + deadline_s * 1e6;
		struct stat st;
		while (stat(ready, &st) != 0 && now_us() < deadline)
			sleep_us(1000);
		if (stat(ready, &st) != 0)
			fprintf(stderr, "benchrun series: the tree was not ready by the deadline\n");
		reap(pid);
		double back = now_us();
		sleep_us(100000);
		int left = count_named(name);
		ms[r] = back > deadline ? (back - deadline) / 1e3 : 0;
		if (left > worst)
			worst = left;
		for (int k = 0; k < 3 && count_named(name) > 0; k++) {
			kill_named(name);
			sleep_us(100000);
		}
		unlink(ready);
		free(cmd);
	}
	printf("%.1f %d\n", median(ms, n), worst);
	return 0;
}

static pid_t supervised, supervised_group;

static void on_alarm(int sig)
{
	(void)sig;
	kill(-supervised_group, SIGTERM);
}

static pid_t guard_parent;

static int guard_main(void *arg)
{
	(void)arg;
	/* It shares the supervisor's memory: nothing here but system calls, whose failures it
	 * ignores.  runlimit's own guard waits the same way. */
	sigset_t death;
	sigemptyset(&death);
	sigaddset(&death, SIGUSR1);
	sigprocmask(SIG_BLOCK, &death, NULL);
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	int got;
	while (getppid() == guard_parent)
		sigwait(&death, &got);
	if (getpgrp() == getpid()) /* not if the supervisor died before making the group */
		kill(0, SIGTERM);
	_exit(0);
}

/* "supervise", and with guarded "guarded": the command joins the guard's group instead of
 * leading its own. */
static int supervise_run(double d, char **argv, bool guarded)
{
	static char stack[16384] __attribute__((aligned(16)));
	pid_t guard = 0;
	if (guarded) {
		guard_parent = getpid();
		guard = clone(guard_main, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL);
		if (guard < 0)
			return 125;
		setpgid(guard, guard);
	}
	supervised = fork();
	if (supervised == 0) {
		setpgid(0, guard);
		execvp(argv[0], argv);
		_exit(127);
	}
	supervised_group = guarded ? guard : supervised;
	setpgid(supervised, supervised_group);
	signal(SIGALRM, on_alarm);
	alarm((unsigned)d);
	int status;
	while (waitpid(supervised, &status, 0) < 0 && errno == EINTR)
		;
	if (guarded) {
		kill(guard, SIGKILL);
		while (waitpid(guard, NULL, 0) < 0 && errno == EINTR)
			;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');
	if (strcmp(name ? name + 1 : argv[0], "cgtimeout") == 0)
		return cgtimeout(argc, argv);
	if (argc == 2 && strcmp(argv[1], "victim") == 0) {
		signal(SIGTERM, on_victim_signal);
		signal(SIGKILL, on_victim_signal);
		for (;;)
			pause();
	}
	if (argc == 2 && strcmp(argv[1], "stamp") == 0) {
		write_stamp();
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "emit") == 0)
		return emit(atoll(argv[2]));
	if (argc < 4 && !(argc == 3 && strcmp(argv[1], "procread") == 0)) {
		fprintf(stderr, "usage: benchrun runs|signal|exit|floor|supervise|guarded|rss|tree|silence|relayrss N CMD...\n");
		return 2;
	}
	/* The victim and the stamp are this program, found by its absolute path. */
	static char self_path_buf[4096];
	char *self_path = self_path_buf;
	ssize_t len = readlink("/proc/self/exe", self_path_buf, sizeof self_path_buf - 1);
	if (len <= 0)
		return 2;
	self_path_buf[len] = '\0';
	self_exe = self_path_buf;
	int n = atoi(argv[2]);
	if (n < 1)
		n = 1;
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(argv[1], "runs") == 0)
		return runs(n, argc - 3, argv + 3);
	if (strcmp(argv[1], "floor") == 0)
		return floor_run(atof(argv[2]), argv + 3);
	if (strcmp(argv[1], "build") == 0 && argc == 5)
		build(atoi(argv[2]), argv[3], argv[4]);
	if (strcmp(argv[1], "series") == 0 && argc > 4)
		return series(n, atoi(argv[3]), argc - 4, argv + 4);
	if (strcmp(argv[1], "killfloor") == 0 && argc > 3)
		return killfloor(n, atoi(argv[3]));
	if (strcmp(argv[1], "procread") == 0)
		return procread(n);
	if (strcmp(argv[1], "forksig") == 0 && argc > 4)
		return forksig(n, atoi(argv[3]), argc - 4, argv + 4);
	if (strcmp(argv[1], "supervise") == 0)
		return supervise_run(atof(argv[2]), argv + 3, false);
	if (strcmp(argv[1], "guarded") == 0)
		return supervise_run(atof(argv[2]), argv + 3, true);
	if (strcmp(argv[1], "signal") == 0 && argc > 4)
		return stamped(true, n, atof(argv[3]), argc - 4, argv + 4, self_path);
	if (strcmp(argv[1], "exit") == 0)
		return stamped(false, n, 0, argc - 3, argv + 3, self_path);
	if (strcmp(argv[1], "rss") == 0)
		return rss(n, argv + 3);
	if (strcmp(argv[1], "tree") == 0)
		return tree(n, argc - 3, argv + 3);
	if (strcmp(argv[1], "silence") == 0 && argc > 4)
		return silence(n, atof(argv[3]), argc - 4, argv + 4);
	if (strcmp(argv[1], "relayrss") == 0)
		return relay_rss(argv[2], argc - 3, argv + 3);
	fprintf(stderr, "benchrun: unknown mode %s\n", argv[1]);
	return 2;
}
